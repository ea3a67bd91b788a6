/**
 * The shapes of the Kubernetes objects the dashboard reads, as they come over the wire. Only what
 * the dashboard uses is typed; everything else is `unknown` and shown as YAML.
 */
import type { KubeObject, ObjectMeta, Status as ApiStatus } from '@setpoint/api';

// Object metadata is @setpoint/api's, as every other package reads it.
export type { KubeObject, ManagedFieldsEntry, ObjectMeta, OwnerReference, StatusCause } from '@setpoint/api';

/** meta/v1 Status as it may come over the wire: every field optional (the client makes one up for answers that are no Status). */
export type Status = Partial<ApiStatus>;

export interface TableColumn {
  name: string;
  type: string;
  format?: string;
  description?: string;
  priority?: number;
}

export interface TableRow {
  cells: unknown[];
  object?: KubeObject;
}

/** meta.k8s.io/v1 Table (what `kubectl get` prints). */
export interface Table {
  kind: 'Table';
  metadata: { resourceVersion?: string; continue?: string };
  columnDefinitions: TableColumn[] | null;
  rows: TableRow[];
}

export interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
  lastHeartbeatTime?: string;
  lastUpdateTime?: string;
  lastProbeTime?: string;
}

/** A served resource, from discovery. */
export interface ApiResource {
  group: string;
  version: string;
  /** Plural name, as in the URL. */
  resource: string;
  kind: string;
  namespaced: boolean;
  verbs: string[];
  shortNames?: string[];
}

/** `namespace/name`, or `name` for cluster-scoped objects. */
export function objectKey(obj: { metadata: ObjectMeta }): string {
  const ns = obj.metadata.namespace;
  return ns ? `${ns}/${obj.metadata.name ?? ''}` : (obj.metadata.name ?? '');
}

/** The conditions of an object's status, when it has a list of them. */
export function conditionsOf(obj: KubeObject | undefined): Condition[] {
  const conditions = (obj?.status as { conditions?: unknown } | undefined)?.conditions;
  return Array.isArray(conditions) ? conditions.filter((c): c is Condition => typeof c === 'object' && c !== null && typeof (c as Condition).type === 'string') : [];
}

/** Whether a watch event's or list's object is a Table. */
export function isTable(value: unknown): value is Table {
  return typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === 'Table' && Array.isArray((value as { rows?: unknown }).rows);
}

/** Whether a list item is a Table row (else an object). */
export function isTableRow(value: KubeObject | TableRow): value is TableRow {
  return Array.isArray((value as { cells?: unknown }).cells);
}
