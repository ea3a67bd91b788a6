/**
 * What the API server knows about each kind it serves: names (for URLs and discovery), scope,
 * subresources, and the strategy that defaults and validates objects of that kind. The REST layer
 * is generic; everything kind-specific lives in one `ResourceDef` per kind (registry/kinds/).
 */
import type { FieldError, KubeObject, Logger, NameValidator, Schema } from '@setpoint/api';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ServiceAccountTokens } from '../auth/serviceaccount.js';
import type { ResourceRequestInfo } from '../http/requestinfo.js';
import type { KubeletClientOptions } from '../routes/podlog.js';
import type { ResourceStorage } from '../storage/rest.js';
import type { TablePrinter } from '../tables/table.js';

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
  /**
   * Adjusts an object whose deletion is pending (finalizers hold it), before it is written with its
   * deletionTimestamp (a namespace's phase becomes Terminating).
   */
  prepareForDelete?(obj: KubeObject): void;
}

/**
 * A subresource beyond status, scale and binding (which the REST layer implements for every kind
 * that declares them): what discovery lists, and either how an update of it changes the object
 * (`merge`, e.g. namespaces/finalize) or the handler that answers it (`handler`, e.g.
 * serviceaccounts/token, pods/log).
 */
export interface SubresourceDef {
  /** The verbs it takes, as discovery lists them (a merge subresource takes exactly these). */
  readonly verbs: readonly string[];
  /** What discovery names it serves when it is not the kind itself (TokenRequest in authentication.k8s.io/v1). */
  readonly kind?: string;
  readonly group?: string;
  readonly version?: string;
  /**
   * An update through it: the object to write from the client's `incoming` and the stored `old`.
   * Such a write is a status-like one: no defaulting, no prepareForUpdate, no new generation, and
   * the metadata's validation only.
   */
  readonly merge?: (incoming: KubeObject, old: KubeObject) => KubeObject;
  /** Answers every request for it (on a named object), after authentication, authorization and the authorizer's admission. */
  readonly handler?: (request: SubresourceRequest) => Promise<unknown>;
}

/** What a subresource handler is given. */
export interface SubresourceRequest {
  readonly req: FastifyRequest;
  readonly reply: FastifyReply;
  readonly info: ResourceRequestInfo;
  /** The storage of the kind the subresource belongs to. */
  readonly storage: ResourceStorage;
  readonly services: SubresourceServices;
}

/** The server's parts subresource handlers use. */
export interface SubresourceServices {
  /** The storage of a served kind; throws when it is not served. */
  storageFor(group: string, version: string, resource: string): ResourceStorage;
  /** Issues ServiceAccount tokens. */
  readonly tokens: ServiceAccountTokens;
  /** How to reach node agents (pods/log); undefined: they cannot be reached. */
  readonly kubelet: KubeletClientOptions | undefined;
  /** Aborted when the server stops (long-running answers end). */
  readonly stopping: AbortSignal;
  readonly logger: Logger;
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
    /** Others, by name (finalize, token, log…), in the order discovery lists them after the three above. */
    readonly more?: Readonly<Record<string, SubresourceDef>>;
  };
  /** The verbs discovery lists for the resource itself. Default: every verb (only `create` for createOnly kinds). */
  readonly verbs?: readonly string[];
  /**
   * Finalizers outside metadata.finalizers that also hold an object whose deletion is pending
   * (a namespace's spec.finalizers). Default: none.
   */
  readonly blockingFinalizers?: (obj: KubeObject) => readonly string[];
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
  /**
   * The kind's columns in `kubectl get` (Kubernetes' printers.go for the built-in kinds). Default:
   * NAME and AGE, as kube-apiserver prints custom resources without additionalPrinterColumns.
   */
  readonly printer?: TablePrinter;
  /**
   * Served in Kubernetes' protobuf encoding as well as JSON: objects, lists and watches of the kind,
   * and the bodies of its subresources (a Scale, a Binding), with the messages generated from the
   * published definitions. Set once the kind's objects survive JSON → protobuf → JSON (special JSON
   * forms need a codec in http/protobuf/convert.ts). Default false: JSON only, as custom resources.
   */
  readonly protobuf?: boolean;
  /** Table columns from a CRD's additionalPrinterColumns (they take the place of `printer`). */
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
