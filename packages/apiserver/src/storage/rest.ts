/**
 * ResourceStorage: the generic REST semantics of one kind over the store — what kube-apiserver's
 * registry/generic/registry.Store does. Kind-specific behaviour comes from the ResourceDef.
 *
 * The verbs: get, list, create, update (PUT and /status), patch (JSON, merge, strategic), apply,
 * delete, bind (pods/binding) and updateScale (the scale subresource); the longer ones live in
 * patch.ts, apply.ts, delete.ts and subresources.ts. Every change of an existing object goes
 * through one guaranteedUpdate (guaranteed.ts); `read`, `write`, `merge` and `checkBody` are the
 * steps those verbs share.
 *
 * Guarantees:
 * - Every write carries the revision it read as a precondition (optimistic concurrency); a stale
 *   metadata.resourceVersion from the client is a 409 Conflict, an empty one an unconditional write
 *   that retries internally on conflict.
 * - A write that changes nothing is not written: no new resourceVersion, no watch event.
 * - With a status subresource, the main resource ignores status and /status changes only status.
 * - generation starts at 1 and grows only when something outside metadata and status changes.
 * - An object whose deletionTimestamp is set goes away when an update empties its finalizers.
 */
import { randomUUID } from 'node:crypto';
import {
  ApiError,
  nameFromGenerateName,
  nameIsDNSSubdomain,
  realClock,
  rfc3339,
  type Clock,
  type GroupResource,
  type KubeList,
  type KubeObject,
  type DeleteOptions,
  type Status,
} from '@setpoint/api';
import { isStoreError, type KeyValue, type Store } from '@setpoint/store';
import type { AdmissionChain, AdmissionRequest, AdmittedWrite } from '../admission/chain.js';
import { validateObjectMeta, validateObjectMetaUpdate } from '../registry/objectmeta.js';
import { objectMetaSchema, typeMetaProperties } from '../registry/schemas/meta.js';
import { checkTypes, type TypeCheckTarget } from '../registry/typecheck.js';
import { groupVersion, type ResourceDef, type StrategyContext, type SubresourceDef } from '../registry/types.js';
import { findUnknownFields, strictDecodingMessage } from '../registry/unknownfields.js';
import type { WatchCache } from '../watchcache/cache.js';
import { matchesFilter, type ObjectFilter } from '../watchcache/filter.js';
import { collectionPrefix, decode, encode, MalformedObjectError, objectKey, uncheckedDecoder, type StoredObjectDecoder } from './codec.js';
import { continueExpired, decodeContinue, encodeContinue } from './continue.js';
import { clone, jsonEqual } from './equal.js';
import { fromStoreError } from './errors.js';
import { applyObject, type ApplyOptions } from './apply.js';
import { deleteObject, type DeleteOutcome } from './delete.js';
import { guaranteedUpdate } from './guaranteed.js';
import { recordManagedFields } from './managedfields.js';
import { patchObject, type PatchType } from './patch.js';
import { scanStore, type ScanResult } from './scan.js';
import { bindPod, updateScale } from './subresources.js';

export type FieldValidation = 'Strict' | 'Warn' | 'Ignore';

/** Options every write takes. */
export interface WriteOptions {
  readonly dryRun?: boolean;
  readonly fieldValidation?: FieldValidation;
  /** Collects Warning header texts. */
  readonly warnings?: string[];
  /**
   * Who writes: recorded in managedFields (the fieldManager query parameter, else derived from
   * the User-Agent). Default "unknown".
   */
  readonly fieldManager?: string;
  /** Set by server-side apply, which works out managedFields itself: the write keeps them as given. */
  readonly managedFieldsFromApply?: boolean;
  /**
   * The request that writes, as the admission chain sees it (admission/chain.ts); undefined for
   * an in-process write, which plugins that judge the requesting user let through.
   */
  readonly request?: AdmissionRequest;
}

export interface ListOptions {
  readonly filter: ObjectFilter;
  /**
   * The request's resourceVersion, read as Kubernetes reads it: undefined (most recent, from the
   * store), "0" (any, from the cache), N (not older than N, from the cache; with a limit and
   * NotOlderThan, paged from the store), or N with Exact — or with a limit and no match — (at
   * exactly N, from the store's history; 410 once compacted).
   */
  readonly resourceVersion?: string;
  readonly resourceVersionMatch?: string;
  readonly limit?: number;
  readonly continue?: string;
}


/** The typed part of every custom resource: TypeMeta and ObjectMeta (the rest is the CRD schema's). */
const CUSTOM_RESOURCE_TYPED = { type: 'object', properties: { ...typeMetaProperties, metadata: objectMetaSchema } } as const;

export class ResourceStorage {
  readonly gr: GroupResource;
  /** What typed decoding checks (registry/typecheck.ts): the whole kind, or a custom resource's TypeMeta and metadata. */
  private readonly typed: TypeCheckTarget;

  constructor(
    readonly def: ResourceDef,
    readonly store: Store,
    readonly cache: WatchCache,
    /** The admission chain every create and update runs through (mutate after defaulting, validate before the write). */
    private readonly admission: AdmissionChain,
    readonly clock: Clock = realClock,
    /** How objects read back from the store are decoded (typed decoding of stored objects). */
    readonly decoder: StoredObjectDecoder = uncheckedDecoder,
  ) {
    this.gr = { group: def.group, resource: def.resource };
    this.typed = def.custom === true ? { kind: def.kind, version: def.version, schema: CUSTOM_RESOURCE_TYPED } : def;
  }

  /** How an update through `subresource` changes the object, when the kind declares it a merge subresource. */
  private merging(subresource: string | undefined): SubresourceDef['merge'] {
    return subresource === undefined || subresource === '' ? undefined : this.def.subresources?.more?.[subresource]?.merge;
  }

  key(namespace: string, name: string): string {
    return objectKey(this.def, namespace, name);
  }

  ctx(namespace: string): StrategyContext {
    return { now: rfc3339(this.clock.now()), namespace };
  }

  /** The stored object and its store version; 404 when absent, 500 InternalError when it does not decode. */
  async read(namespace: string, name: string): Promise<{ obj: KubeObject; kv: KeyValue }> {
    const kv = await this.readKv(namespace, name);
    try {
      return { obj: this.decoder.decode(this.def, kv), kv };
    } catch (err) {
      if (!(err instanceof MalformedObjectError)) throw err;
      this.decoder.report(this.def, err);
      throw err.toApiError();
    }
  }

  /**
   * The stored object for a DELETE, which must work on a malformed one: that one reads as its
   * identity only (name, namespace, resourceVersion and its uid when that is a string), so it is
   * removed at once — no grace period or finalizers are read from fields that do not decode.
   */
  async readForDelete(namespace: string, name: string): Promise<{ obj: KubeObject; kv: KeyValue; malformed?: boolean }> {
    const kv = await this.readKv(namespace, name);
    try {
      return { obj: this.decoder.decode(this.def, kv), kv };
    } catch (err) {
      if (!(err instanceof MalformedObjectError)) throw err;
      this.decoder.report(this.def, err);
      let uid: unknown;
      try {
        uid = (JSON.parse(kv.value) as { metadata?: { uid?: unknown } }).metadata?.uid;
      } catch {
        uid = undefined;
      }
      const metadata: KubeObject['metadata'] = { name, resourceVersion: String(kv.modRevision) };
      if (this.def.namespaced) metadata.namespace = namespace;
      if (typeof uid === 'string') metadata.uid = uid;
      return { obj: { apiVersion: groupVersion(this.def), kind: this.def.kind, metadata }, kv, malformed: true };
    }
  }

  private async readKv(namespace: string, name: string): Promise<KeyValue> {
    let kv: KeyValue | undefined;
    try {
      kv = await this.store.get(this.key(namespace, name));
    } catch (err) {
      throw fromStoreError(err, this.gr, name);
    }
    if (kv === undefined) throw ApiError.notFound(this.gr, name);
    return kv;
  }

  async get(namespace: string, name: string): Promise<KubeObject> {
    return (await this.read(namespace, name)).obj;
  }

  async list(namespace: string, options: ListOptions): Promise<KubeList> {
    const rv = options.resourceVersion ?? '';
    const match = options.resourceVersionMatch ?? '';
    const cont = options.continue ?? '';
    const paging = cont !== '';
    const limit = options.limit !== undefined && options.limit > 0 ? options.limit : 0;
    if (paging && rv !== '' && rv !== '0') throw ApiError.badRequest('specifying resource version is not allowed when using continue');
    // Exact: asked for, or the legacy form (resourceVersion=N with a limit and no match).
    const exact = !paging && rv !== '' && rv !== '0' && (match === 'Exact' || (match === '' && limit > 0));
    // N with NotOlderThan and a limit: paged from the store at its latest revision (the watch cache does not page).
    const notOlderThan = !paging && rv !== '' && rv !== '0' && match === 'NotOlderThan' && limit > 0 ? parseResourceVersion(rv) : 0;
    if (!paging && rv !== '' && !exact && notOlderThan === 0) {
      // "0" (any) or N with NotOlderThan: serve from the watch cache, once it has reached N.
      const min = parseResourceVersion(rv);
      const { items, rv: at } = await this.cache.list(options.filter, min);
      return this.listOf(items, String(at));
    }
    if (match === 'Exact' && !exact) {
      throw ApiError.badRequest('resourceVersionMatch "Exact" is forbidden for resourceVersion "0" or unset');
    }
    const prefix = collectionPrefix(this.def, namespace);
    let revision = exact ? parseResourceVersion(rv) : 0;
    let after: string | undefined;
    if (paging) {
      const token = decodeContinue(cont);
      revision = token.rv;
      after = token.key;
    }
    const items: KubeObject[] = [];
    let scan: ScanResult;
    try {
      const pageLimit = (): number => (limit > 0 ? Math.max(limit - items.length, 64) : 0);
      scan = await scanStore(this.store, prefix, { revision, ...(after !== undefined ? { after } : {}), pageLimit, full: () => limit > 0 && items.length >= limit }, (kv) => {
        const obj = this.decoder.decodeOrSkip(this.def, kv);
        if (obj !== undefined && matchesFilter(this.def, options.filter, obj)) items.push(obj);
      });
    } catch (err) {
      if (isStoreError(err, 'Compacted')) {
        throw paging ? continueExpired() : ApiError.expired('The resourceVersion for the provided list is too old.');
      }
      throw fromStoreError(err, this.gr, '');
    }
    if (notOlderThan > scan.revision) {
      throw ApiError.tooLargeResourceVersion(notOlderThan, scan.revision);
    }
    const list = this.listOf(items, String(scan.revision));
    if (scan.more && scan.lastKey !== undefined) list.metadata.continue = encodeContinue({ rv: scan.revision, key: scan.lastKey });
    return list;
  }

  listOf(items: KubeObject[], resourceVersion: string): KubeList {
    return { kind: this.def.listKind, apiVersion: groupVersion(this.def), metadata: { resourceVersion }, items };
  }

  /** POST: creates `body` in `namespace`. */
  async create(namespace: string, body: KubeObject, options: WriteOptions = {}): Promise<KubeObject> {
    const obj = this.checkBody(body, namespace, undefined);
    this.checkFields(obj, options);
    const ctx = this.ctx(namespace);
    const generated = !obj.metadata.name && typeof obj.metadata.generateName === 'string' && obj.metadata.generateName !== '';
    this.def.strategy.normalize?.(obj);
    this.def.strategy.defaults?.(obj);
    // Admission's mutate phase runs after defaulting, before validation (NamespaceLifecycle, DefaultTolerationSeconds).
    const admitted = this.admitted('CREATE', namespace, obj, undefined, options);
    await this.admission.mutate(admitted);
    this.def.strategy.prepareForCreate?.(obj, ctx);
    const meta = obj.metadata;
    dropEmptyMetadata(meta);
    delete meta.resourceVersion;
    delete meta.deletionTimestamp;
    delete meta.deletionGracePeriodSeconds;
    delete meta.selfLink;
    meta.uid = randomUUID();
    meta.creationTimestamp = ctx.now;
    meta.generation = 1;
    if (!options.managedFieldsFromApply) recordManagedFields(this.def, undefined, obj, '', options.fieldManager ?? '', ctx.now);
    for (let attempt = 0; ; attempt++) {
      if (generated) meta.name = nameFromGenerateName(meta.generateName!);
      const errors = [
        ...validateObjectMeta(meta, {
          namespaced: this.def.namespaced,
          nameValidator: this.def.nameValidator ?? nameIsDNSSubdomain,
          standardFinalizers: standardFinalizers(this.def),
        }),
        ...(this.def.strategy.validate?.(obj, ctx) ?? []),
      ];
      if (errors.length > 0) throw ApiError.invalid({ group: this.def.group, kind: this.def.kind }, meta.name ?? meta.generateName ?? '', errors);
      if (attempt === 0) await this.admission.validate(admitted);
      if (options.dryRun) return obj;
      try {
        const kv = await this.store.create(this.key(namespace, meta.name!), encode(obj));
        return decode(this.def, kv);
      } catch (err) {
        if (generated && isStoreError(err, 'AlreadyExists') && attempt < 8) continue;
        throw fromStoreError(err, this.gr, meta.name ?? '');
      }
    }
  }

  /** PATCH of any type but apply: see {@link patchObject}. */
  patch(namespace: string, name: string, type: PatchType, patch: unknown, options: WriteOptions & { subresource?: string; strategic?: boolean } = {}): Promise<KubeObject> {
    return patchObject(this, namespace, name, type, patch, options);
  }

  /** Server-side apply: see {@link applyObject}. */
  apply(namespace: string, name: string, config: unknown, options: ApplyOptions): Promise<{ object: KubeObject; created: boolean }> {
    return applyObject(this, namespace, name, config, options);
  }

  /** DELETE, graceful and with finalizers: see {@link deleteObject}. */
  delete(namespace: string, name: string, options: DeleteOptions = {}, dryRun = false): Promise<DeleteOutcome> {
    return deleteObject(this, namespace, name, options, dryRun);
  }

  /** POST pods/{name}/binding: see {@link bindPod}. */
  bind(namespace: string, name: string, body: unknown, options: WriteOptions = {}): Promise<Status> {
    return bindPod(this, namespace, name, body, options);
  }

  /** PUT or PATCH of the scale subresource: see {@link updateScale}. */
  updateScale(namespace: string, name: string, change: { body: unknown } | { patchType: PatchType; patch: unknown }, options: WriteOptions = {}): Promise<KubeObject> {
    return updateScale(this, namespace, name, change, options);
  }

  /**
   * PUT (and the end of PATCH): replaces the object with `body`, or only its status when
   * `subresource` is "status". Returns the object as stored.
   */
  async update(namespace: string, name: string, body: KubeObject, options: WriteOptions & { subresource?: string } = {}): Promise<KubeObject> {
    const incoming = this.checkBody(body, namespace, name);
    this.checkFields(incoming, options);
    const precondition = incoming.metadata.resourceVersion;
    const pinned = precondition !== undefined && precondition !== '';
    const uid = incoming.metadata.uid;
    return guaranteedUpdate(this, namespace, name, ({ obj: old, kv }) => {
      // The body's uid is a precondition (Kubernetes' DefaultUpdatedObjectInfo): another object of
      // the same name is a conflict, which clients answer by reading again.
      if (typeof uid === 'string' && uid !== '' && uid !== old.metadata.uid) {
        throw ApiError.conflict(this.gr, name, `Precondition failed: UID in precondition: ${uid}, UID in object meta: ${old.metadata.uid ?? ''}`);
      }
      if (pinned && precondition !== old.metadata.resourceVersion) throw ApiError.conflict(this.gr, name);
      const next = this.merge(incoming, old, options.subresource);
      return { write: () => this.write(namespace, name, next, old, kv, options), pinned };
    });
  }

  /**
   * Validates and writes `next` over `old` (read at `kv`), with `kv.modRevision` as precondition.
   * Throws the store's Conflict for the caller to retry. Removes the object when it is being deleted
   * and no finalizer is left.
   */
  async write(namespace: string, name: string, next: KubeObject, old: KubeObject, kv: KeyValue, options: WriteOptions & { subresource?: string }): Promise<KubeObject> {
    // Every write's result decodes (PUT, PATCH and apply bodies were checked already; this also
    // holds what subresources such as scale write).
    checkTypes(next as unknown as Record<string, unknown>, this.typed);
    const ctx = this.ctx(namespace);
    // A status-like write: the status subresource, or one that merges what it changes (namespaces/finalize).
    const status = options.subresource === 'status' || this.merging(options.subresource) !== undefined;
    this.def.strategy.normalize?.(next);
    if (!status) {
      this.def.strategy.defaults?.(next);
      this.def.strategy.prepareForUpdate?.(next, old, ctx);
    }
    keepSystemFields(next, old);
    const admitted = this.admitted('UPDATE', namespace, next, old, options);
    await this.admission.mutate(admitted);
    if (!options.managedFieldsFromApply) recordManagedFields(this.def, old, next, options.subresource ?? '', options.fieldManager ?? '', ctx.now);
    dropEmptyMetadata(next.metadata);
    if (!status && changedOutsideMetadataAndStatus(next, old)) next.metadata.generation = (old.metadata.generation ?? 0) + 1;
    const errors = [
      ...validateObjectMetaUpdate(next.metadata, old.metadata, { standardFinalizers: standardFinalizers(this.def) }),
      ...(status ? (options.subresource === 'status' ? (this.def.strategy.validateStatusUpdate?.(next, old, ctx) ?? []) : []) : [...(this.def.strategy.validate?.(next, ctx) ?? []), ...(this.def.strategy.validateUpdate?.(next, old, ctx) ?? [])]),
    ];
    if (errors.length > 0) throw ApiError.invalid({ group: this.def.group, kind: this.def.kind }, name, errors);
    await this.admission.validate(admitted);
    next.metadata.resourceVersion = old.metadata.resourceVersion;
    if (jsonEqual(next, old)) return old;
    if (options.dryRun) return next;
    const key = this.key(namespace, name);
    if (next.metadata.deletionTimestamp !== undefined && (next.metadata.finalizers?.length ?? 0) === 0 && blockingFinalizers(this.def, next).length === 0) {
      const deleted = await this.store.delete(key, kv.modRevision);
      return { ...next, metadata: { ...next.metadata, resourceVersion: String(deleted.revision) } };
    }
    const written = await this.store.update(key, encode(next), kv.modRevision);
    return decode(this.def, written);
  }

  /** What admission sees of a write of `obj` (over `old`, on updates). */
  private admitted(operation: AdmittedWrite['operation'], namespace: string, obj: KubeObject, old: KubeObject | undefined, options: WriteOptions & { subresource?: string }): AdmittedWrite {
    const warnings = options.warnings;
    return {
      def: this.def,
      gr: this.gr,
      operation,
      subresource: options.subresource ?? '',
      namespace,
      obj,
      old,
      request: options.request,
      warn: (text) => void (warnings?.includes(text) === false && warnings.push(text)),
    };
  }

  /** The object an update produces from the client's `incoming` and the stored `old`. */
  merge(incoming: KubeObject, old: KubeObject, subresource: string | undefined): KubeObject {
    const merging = this.merging(subresource);
    if (merging !== undefined) return merging(incoming, old);
    if (subresource === 'status') {
      const next = clone(old);
      if (incoming.status === undefined) delete next.status;
      else next.status = clone(incoming.status);
      return next;
    }
    const next = clone(incoming);
    if (this.def.subresources?.status) {
      if (old.status === undefined) delete next.status;
      else next.status = clone(old.status);
    }
    return next;
  }

  /** Checks apiVersion, kind, name and namespace of a body against the request; returns a private copy. */
  checkBody(body: KubeObject, namespace: string, name: string | undefined): KubeObject {
    if (typeof body !== 'object' || body === null || Array.isArray(body)) throw ApiError.badRequest('the request body must be a JSON or YAML object');
    const obj = clone(body);
    if (obj.metadata === undefined || obj.metadata === null) obj.metadata = {};
    if (typeof obj.metadata !== 'object' || Array.isArray(obj.metadata)) throw ApiError.badRequest('metadata must be an object');
    // Typed decoding: built-in kinds whole; custom resources their apiVersion, kind and metadata
    // (ObjectMeta is typed for them too), the rest against their CRD's schema.
    checkTypes(obj as unknown as Record<string, unknown>, this.typed);
    const gv = groupVersion(this.def);
    if (obj.apiVersion !== undefined && obj.apiVersion !== '' && obj.apiVersion !== gv) {
      throw ApiError.badRequest(`the API version in the data (${String(obj.apiVersion)}) does not match the expected API version (${gv})`);
    }
    if (obj.kind !== undefined && obj.kind !== '' && obj.kind !== this.def.kind) {
      throw ApiError.badRequest(`the kind in the data (${String(obj.kind)}) does not match the expected kind (${this.def.kind})`);
    }
    obj.apiVersion = gv;
    obj.kind = this.def.kind;
    if (this.def.namespaced) {
      const bodyNamespace = obj.metadata.namespace;
      if (bodyNamespace !== undefined && bodyNamespace !== '' && bodyNamespace !== namespace) {
        throw ApiError.badRequest('the namespace of the provided object does not match the namespace sent on the request');
      }
      obj.metadata.namespace = namespace;
    } else {
      delete obj.metadata.namespace;
    }
    if (name !== undefined) {
      const bodyName = obj.metadata.name;
      if (bodyName !== undefined && bodyName !== '' && bodyName !== name) {
        throw ApiError.badRequest(`the name of the object (${String(bodyName)}) does not match the name on the URL (${name})`);
      }
      obj.metadata.name = name;
    }
    return obj;
  }

  /**
   * Field validation of a request body's unknown fields (fieldValidation=Strict|Warn|Ignore): an
   * unknown field is refused (Strict), reported in a Warning header (Warn, the default) or passed
   * over (Ignore). Setpoint keeps unknown fields as sent (where Kubernetes' typed decoding would
   * drop them), so data a newer client sends is not lost.
   */
  checkFields(obj: KubeObject, options: WriteOptions): void {
    const mode = options.fieldValidation ?? 'Warn';
    const unknown = mode === 'Ignore' ? [] : findUnknownFields(obj, this.def.schema);
    if (unknown.length > 0 && mode === 'Strict') {
      // Kubernetes' transformDecodeError wording for a body that fails strict decoding.
      const { kind, version } = this.def;
      throw ApiError.badRequest(`${kind} in version "${version}" cannot be handled as a ${kind}: ${strictDecodingMessage(unknown)}`);
    }
    for (const path of unknown) options.warnings?.push(`unknown field "${path}"`);
  }
}

/** Fields only the server sets: kept from the stored object whatever the client sent. */
function keepSystemFields(next: KubeObject, old: KubeObject): void {
  const meta = next.metadata;
  const was = old.metadata;
  meta.name = was.name;
  if (was.namespace !== undefined) meta.namespace = was.namespace;
  if (meta.uid === undefined || meta.uid === '') meta.uid = was.uid;
  meta.creationTimestamp = was.creationTimestamp;
  meta.generation = was.generation;
  if (was.deletionTimestamp !== undefined) meta.deletionTimestamp = was.deletionTimestamp;
  else delete meta.deletionTimestamp;
  if (was.deletionGracePeriodSeconds !== undefined) meta.deletionGracePeriodSeconds = was.deletionGracePeriodSeconds;
  else delete meta.deletionGracePeriodSeconds;
  delete meta.selfLink;
}

/** Removes empty labels, annotations, finalizers and ownerReferences, as Kubernetes omits them. */
export function dropEmptyMetadata(meta: KubeObject['metadata']): void {
  for (const field of ['labels', 'annotations'] as const) {
    const v = meta[field];
    if (v !== undefined && (v === null || Object.keys(v).length === 0)) delete meta[field];
  }
  for (const field of ['finalizers', 'ownerReferences', 'managedFields'] as const) {
    const v = meta[field];
    if (v !== undefined && (v === null || v.length === 0)) delete meta[field];
  }
}

/** Whether anything outside metadata and status differs (what moves generation). */
export function changedOutsideMetadataAndStatus(a: KubeObject, b: KubeObject): boolean {
  const strip = (o: KubeObject) => {
    const { metadata: _m, status: _s, apiVersion: _a, kind: _k, ...rest } = o;
    return rest;
  };
  return !jsonEqual(strip(a), strip(b));
}

/** Finalizers outside metadata.finalizers that hold an object (the kind's: a namespace's spec.finalizers). */
export function blockingFinalizers(def: ResourceDef, obj: KubeObject): readonly string[] {
  return def.blockingFinalizers?.(obj) ?? [];
}

/**
 * Whether unqualified finalizer names must be Kubernetes' standard ones: built-in groups but
 * coordination.k8s.io and apiextensions.k8s.io (whose CRDs carry customresourcecleanup.apiextensions.k8s.io),
 * and not custom resources (validated by apimachinery's generic rules).
 */
function standardFinalizers(def: ResourceDef): boolean {
  return def.group !== 'coordination.k8s.io' && def.group !== 'apiextensions.k8s.io' && def.custom !== true;
}

/** Parses a resourceVersion query value; BadRequest unless it is a non-negative integer. */
export function parseResourceVersion(rv: string): number {
  if (!/^\d+$/.test(rv)) throw ApiError.badRequest(`invalid resource version "${rv}"`);
  const n = Number(rv);
  if (!Number.isSafeInteger(n)) throw ApiError.badRequest(`invalid resource version "${rv}"`);
  return n;
}

export { rfc3339 };
