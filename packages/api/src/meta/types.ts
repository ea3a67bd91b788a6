/**
 * The object model shared by every kind: type and object metadata, lists, Status and conditions.
 * Field names and shapes are Kubernetes' (apimachinery meta/v1), so objects round-trip through
 * kubectl and other clients unchanged. Unknown fields are allowed everywhere and kept as sent.
 */

/** apiVersion and kind: which schema an object follows. */
export interface TypeMeta {
  apiVersion?: string;
  kind?: string;
}

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  /** The owner is the managing controller of this object (at most one reference has it). */
  controller?: boolean;
  /** With foreground deletion, the owner waits for this dependent to be gone. */
  blockOwnerDeletion?: boolean;
}

/** One entry of metadata.managedFields (server-side apply's record of who owns which fields). */
export interface ManagedFieldsEntry {
  manager?: string;
  operation?: 'Apply' | 'Update';
  apiVersion?: string;
  time?: string;
  fieldsType?: 'FieldsV1';
  fieldsV1?: Record<string, unknown>;
  subresource?: string;
}

export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  /** RFC 3339, seconds precision, UTC ("2026-11-29T15:47:44Z"). */
  creationTimestamp?: string;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: OwnerReference[];
  finalizers?: string[];
  managedFields?: ManagedFieldsEntry[];
  [extra: string]: unknown;
}

/** Any object the API serves: type metadata, object metadata, and whatever else its kind has. */
export interface KubeObject extends TypeMeta {
  metadata: ObjectMeta;
  [field: string]: unknown;
}

export interface ListMeta {
  resourceVersion?: string;
  continue?: string;
  remainingItemCount?: number;
  selfLink?: string;
}

/** A list of objects: `items` is always an array and `metadata.resourceVersion` always set. */
export interface KubeList<T extends KubeObject = KubeObject> extends TypeMeta {
  metadata: ListMeta;
  items: T[];
}

/** Why a field was rejected (StatusCause.reason): Kubernetes' CauseType values. */
export type CauseType =
  | 'FieldValueNotFound'
  | 'FieldValueRequired'
  | 'FieldValueDuplicate'
  | 'FieldValueInvalid'
  | 'FieldValueNotSupported'
  | 'FieldValueForbidden'
  | 'FieldValueTooLong'
  | 'FieldValueTooMany'
  | 'FieldValueTypeInvalid'
  | 'InternalError'
  | 'UnexpectedServerResponse'
  | 'FieldManagerConflict'
  | 'ResourceVersionTooLarge';

export interface StatusCause {
  reason?: CauseType | string;
  message?: string;
  field?: string;
}

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

/** The body of every error response (and of some successful deletes). */
export interface Status {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: ListMeta;
  status: 'Success' | 'Failure';
  message?: string;
  reason?: string;
  details?: StatusDetails;
  code: number;
}

/** A condition in an object's status (metav1.Condition, also the shape most built-in kinds use). */
export interface Condition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  observedGeneration?: number;
  lastTransitionTime?: string;
  lastUpdateTime?: string;
  lastHeartbeatTime?: string;
  lastProbeTime?: string | null;
  reason?: string;
  message?: string;
}

/** Options of a DELETE (body or query). */
export interface DeleteOptions extends TypeMeta {
  gracePeriodSeconds?: number;
  preconditions?: { uid?: string; resourceVersion?: string };
  propagationPolicy?: 'Orphan' | 'Background' | 'Foreground';
  orphanDependents?: boolean;
  dryRun?: string[];
}
