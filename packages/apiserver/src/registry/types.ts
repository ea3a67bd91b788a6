/**
 * What the API server knows about each kind it serves: names (for URLs and discovery), scope,
 * subresources, and the strategy that defaults and validates objects of that kind. The REST layer
 * is generic; everything kind-specific lives in one `ResourceDef` per kind (registry/kinds/).
 */
import type { FieldError, KubeObject, NameValidator, Schema } from '@setpoint/api';

/** The context a strategy runs in. */
export interface StrategyContext {
  /** Server time, RFC 3339 ("2026-11-29T15:47:44Z"). */
  readonly now: string;
  /** The namespace of the request ('' for cluster-scoped). */
  readonly namespace: string;
}

/**
 * Kind-specific behaviour. Every hook is optional; each receives a private copy it may mutate.
 * Generic rules (metadata validation, uid, timestamps, generation, resourceVersion, status
 * subresource separation, finalizers) are applied by the REST layer, not here.
 */
export interface Strategy {
  /**
   * Drops what the kind does not keep (custom resources' pruning), on every write — create,
   * update, patch and status — before defaulting and validation.
   */
  normalize?(obj: KubeObject): void;
  /** Fills defaults as Kubernetes' defaulting does (on create, update and patch, before validation). */
  defaults?(obj: KubeObject): void;
  /** Adjusts a new object before validation (e.g. a pod starts in phase Pending). */
  prepareForCreate?(obj: KubeObject, ctx: StrategyContext): void;
  /** Adjusts an updated object before validation (e.g. copy immutable fields from `old`). */
  prepareForUpdate?(obj: KubeObject, old: KubeObject, ctx: StrategyContext): void;
  /** Field errors of a new object (beyond metadata, which the REST layer validates). */
  validate?(obj: KubeObject, ctx: StrategyContext): FieldError[];
  /** Field errors of an update (immutable fields and the like); `validate` runs too. */
  validateUpdate?(obj: KubeObject, old: KubeObject, ctx: StrategyContext): FieldError[];
  /** Field errors of a status update (through the status subresource). */
  validateStatusUpdate?(obj: KubeObject, old: KubeObject, ctx: StrategyContext): FieldError[];
}

/** The scale subresource's mapping onto the object (autoscaling/v1 Scale). */
export interface ScaleDef {
  /** JSON path of the desired replicas in the object, e.g. "spec.replicas". */
  readonly specReplicasPath: string;
  /** JSON path of the observed replicas, e.g. "status.replicas". */
  readonly statusReplicasPath: string;
  /** JSON path of the label selector string or structure, e.g. "spec.selector". */
  readonly labelSelectorPath?: string;
}

/** One served kind at one group/version. */
export interface ResourceDef {
  /** API group; '' for the core group. */
  readonly group: string;
  readonly version: string;
  /** Plural, lower case: the URL segment ("pods"). */
  readonly resource: string;
  readonly singular: string;
  readonly kind: string;
  readonly listKind: string;
  readonly namespaced: boolean;
  readonly shortNames?: readonly string[];
  readonly categories?: readonly string[];
  /** Subresources served. `status` splits the status half off the main resource. */
  readonly subresources?: {
    readonly status?: boolean;
    readonly scale?: ScaleDef;
    /** pods/binding: assigns a node. */
    readonly binding?: boolean;
  };
  /**
   * Field selectors supported beyond metadata.name and metadata.namespace: field label → how to read
   * it from an object (missing reads as '').
   */
  readonly fieldSelectors?: Readonly<Record<string, (obj: KubeObject) => string>>;
  /** The OpenAPI schema of the kind (top level, with apiVersion, kind, metadata, spec, status). */
  readonly schema: Schema;
  /** How metadata.name is validated. Default: DNS-1123 subdomain (`nameIsDNSSubdomain`). */
  readonly nameValidator?: NameValidator;
  readonly strategy: Strategy;
  /**
   * How DELETE removes objects of this kind: 'immediate' (default), or 'graceful' for kinds whose
   * objects a node agent finishes (pods bound to a node).
   */
  readonly deletion?: 'immediate' | 'graceful';
  /** A custom resource (defined by a CustomResourceDefinition): no strategic merge patch. */
  readonly custom?: boolean;
  /**
   * Create-only and never stored (authorization.k8s.io's reviews): a POST is answered by a handler
   * of its own; discovery lists only `create`; the kind has no storage nor watch cache.
   */
  readonly createOnly?: boolean;
  /** Table columns from a CRD's additionalPrinterColumns (built-in kinds have printers of their own). */
  readonly printerColumns?: readonly PrinterColumn[];
}

/** A column of `kubectl get`, read from each object by a simple JSONPath. */
export interface PrinterColumn {
  readonly name: string;
  /** integer, number, string, boolean or date. */
  readonly type: string;
  readonly format?: string;
  readonly description?: string;
  readonly priority?: number;
  readonly jsonPath: string;
}

/** "apps/v1" or "v1". */
export function groupVersion(def: Pick<ResourceDef, 'group' | 'version'>): string {
  return def.group === '' ? def.version : `${def.group}/${def.version}`;
}
