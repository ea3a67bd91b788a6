/**
 * FieldManager: server-side apply and the managedFields of every other write for one kind at one
 * endpoint (the main resource or a subresource) — what Kubernetes' managedfields FieldManager
 * does with its stack of managers:
 * - decode managedFields (from the request when it sets them, else from the live object; a
 *   request with `managedFields: []` or `[{}]` clears them);
 * - objects without managedFields stay without them on updates; the first apply records their
 *   present fields for the manager "before-first-apply", so that they conflict like any other;
 * - metadata the server sets (name, uid, resourceVersion, …), apiVersion and kind are never owned;
 * - more than 10 Update entries: the oldest merge into "ancient-changes";
 * - `kubectl apply --server-side` (manager "kubectl") over an object last applied client-side
 *   takes the fields whose values match the last-applied-configuration annotation without
 *   conflict, and keeps that annotation up to date.
 */
import { ApiError } from '../meta/errors.js';
import type { KubeObject, ManagedFieldsEntry } from '../meta/types.js';
import type { Schema } from '../schema.js';
import { ApplyConflicts } from './conflict.js';
import { goJson } from './elements.js';
import { difference, hasPath, isEmptySet, union, type FieldSet } from './fieldset.js';
import { capUpdateManagers, decodeManagedFields, encodeManagedFields, isResetManagedFields, managerIdentifier, ManagedFieldsError, type Managed, type VersionedSet } from './managed.js';
import { compare, createdFieldSet, isSame, jsonEqual, toFieldSet, TypedValueError, validateConfiguration } from './typed.js';
import { typeOf, type TypeNode } from './types.js';
import { recordApply, recordUpdate, type FieldFilter, type UpdaterOptions } from './updater.js';

/** The annotation client-side `kubectl apply` keeps its last configuration in. */
export const LAST_APPLIED_ANNOTATION = 'kubectl.kubernetes.io/last-applied-configuration';
/** The manager `kubectl apply --server-side` uses, the only one the client-side apply migration applies to. */
export const KUBECTL_MANAGER = 'kubectl';
/** The manager that owns what an object had before its first apply. */
export const BEFORE_FIRST_APPLY = 'before-first-apply';
/** Kubernetes' DefaultMaxUpdateManagers. */
export const MAX_UPDATE_MANAGERS = 10;
/** Kubernetes' TotalAnnotationSizeLimitB: a last-applied annotation that does not fit is dropped. */
const ANNOTATIONS_SIZE_LIMIT = 256 * 1024;

// Stryker disable next-line StringLiteral: a placeholder key for the write being recorded; identifiers are JSON objects, so no name collides with it
const CURRENT_OPERATION = 'current-operation';

/** Paths no manager owns (Kubernetes' stripMeta): apiVersion, kind and the server-set metadata. */
const STRIPPED_METADATA = ['name', 'namespace', 'creationTimestamp', 'selfLink', 'uid', 'clusterName', 'generation', 'managedFields', 'resourceVersion'];

function stripMeta(set: FieldSet): FieldSet {
  const meta = set['f:metadata'];
  if (set['f:apiVersion'] === undefined && set['f:kind'] === undefined && meta === undefined) return set;
  const out: FieldSet = { ...set };
  delete out['f:apiVersion'];
  delete out['f:kind'];
  if (meta !== undefined) {
    const stripped: FieldSet = {};
    for (const key in meta) if (key !== '.' && !STRIPPED_METADATA.includes(key.slice(2))) stripped[key] = meta[key]!;
    if (isEmptySet(stripped)) delete out['f:metadata'];
    else out['f:metadata'] = stripped;
  }
  return out;
}

export interface FieldManagerOptions {
  /** The kind's schema (top level). */
  readonly schema: Schema;
  /** The group/version the kind is served at ("apps/v1", "v1"). */
  readonly apiVersion: string;
  readonly kind: string;
  /** The subresource this endpoint writes ('' or undefined for the main resource). */
  readonly subresource?: string;
  /**
   * Top-level fields writes through this endpoint own. Kubernetes' reset fields: the main
   * resource of a kind with a status subresource owns everything but `status` (`except`); the
   * status subresource only `status` (`only`). Default: everything.
   */
  readonly scope?: { readonly only?: readonly string[]; readonly except?: readonly string[] };
  /** Default MAX_UPDATE_MANAGERS. */
  readonly maxUpdateManagers?: number;
}

/** A request to apply a configuration. */
export interface ApplyRequest {
  readonly manager: string;
  readonly force: boolean;
  /** RFC 3339 time of the request, recorded in the entries it changes. */
  readonly now: string;
}

function scopeFilter(scope: FieldManagerOptions['scope']): FieldFilter | undefined {
  if (scope === undefined) return undefined;
  const only = scope.only?.map((f) => `f:${f}`);
  const except = scope.except?.map((f) => `f:${f}`) ?? [];
  if (only === undefined && except.length === 0) return undefined;
  return (set) => {
    // Stryker disable next-line BooleanLiteral: only a shortcut: a set with nothing to drop is copied as it is
    let touched = false;
    for (const key in set) if ((only !== undefined && !only.includes(key)) || except.includes(key)) touched = true;
    if (!touched) return set;
    const out: FieldSet = {};
    for (const key in set) if ((only === undefined || only.includes(key)) && !except.includes(key)) out[key] = set[key]!;
    return out;
  };
}

function withoutManagedFields(obj: KubeObject): KubeObject {
  // Stryker disable next-line ConditionalExpression,EqualityOperator,OptionalChaining: whether the copy keeps managedFields cannot be seen: stripMeta drops metadata.managedFields from every set and the entries are written afresh
  if (obj.metadata?.managedFields === undefined) return obj;
  const { managedFields: _, ...metadata } = obj.metadata;
  return { ...obj, metadata };
}

export class FieldManager {
  readonly #options: FieldManagerOptions;
  readonly #updater: UpdaterOptions;
  readonly #type: TypeNode;
  readonly #subresource: string;
  readonly #max: number;
  /** The top-level structs an empty object of the kind has (Kubernetes' typed zero values). */
  readonly #present: ReadonlySet<string>;

  constructor(options: FieldManagerOptions) {
    this.#options = options;
    this.#type = typeOf(options.schema);
    const filter = scopeFilter(options.scope);
    this.#updater = filter === undefined ? { type: this.#type } : { type: this.#type, filter };
    this.#subresource = options.subresource ?? '';
    this.#max = options.maxUpdateManagers ?? MAX_UPDATE_MANAGERS;
    // Stryker disable next-line ArrayDeclaration,StringLiteral: metadata is in every object compared; marking it a member would only add a '.' that stripMeta drops
    const present = new Set(['metadata']);
    for (const field of ['spec', 'status']) if (this.#type.kind === 'map' && this.#type.field(field)?.kind === 'map') present.add(field);
    this.#present = present;
  }

  /**
   * The object a create is compared with: what an empty object of the kind looks like (top-level
   * structs present, as Kubernetes' typed zero values are), so that a create owns their fields.
   */
  #zero(): KubeObject {
    // Stryker disable next-line ObjectLiteral: what an empty zero adds (apiVersion, kind, metadata itself) is all stripped by stripMeta
    const zero: KubeObject = { apiVersion: this.#options.apiVersion, kind: this.#options.kind, metadata: {} };
    for (const field of this.#present) if (field !== 'metadata') zero[field] = {};
    return zero;
  }

  /**
   * The managedFields of a write that is not an apply (create when `live` is undefined, update,
   * patch, a subresource write): `next` is the object about to be stored. Returns undefined when
   * the object keeps no managedFields. Never throws: when the fields cannot be worked out (an
   * object its schema cannot type), the live object's managedFields are kept, as Kubernetes does.
   */
  update(live: KubeObject | undefined, next: KubeObject, manager: string, now: string): ManagedFieldsEntry[] | undefined {
    try {
      const { managed, fromLive } = this.#decodeLiveOrNew(live, next);
      // Objects without managedFields are not tracked by updates (only a create starts tracking).
      if (managed.size === 0 && live !== undefined) return undefined;
      if (managed.size === 0) return this.#created(next, manager, now);
      const before = live === undefined ? this.#zero() : withoutManagedFields(live);
      const result = this.#update(before, withoutManagedFields(next), managed, manager, now);
      // Nothing changed hands: keep the stored entries as they are.
      if (result === managed && fromLive) return live?.metadata.managedFields;
      return encodeManagedFields(result);
    } catch (err) {
      if (err instanceof TypedValueError || err instanceof ManagedFieldsError) return live?.metadata.managedFields;
      throw err;
    }
  }

  /** A create that brings no managedFields: its manager owns what it set (one walk, no comparison). */
  #created(next: KubeObject, manager: string, now: string): ManagedFieldsEntry[] | undefined {
    let set = stripMeta(createdFieldSet(withoutManagedFields(next), this.#type, this.#present));
    if (this.#updater.filter !== undefined) set = this.#updater.filter(set);
    if (isEmptySet(set)) return undefined;
    const id = managerIdentifier({ manager: manager === '' ? 'unknown' : manager, operation: 'Update', apiVersion: this.#options.apiVersion, subresource: this.#subresource });
    return encodeManagedFields(new Map([[id, { set, apiVersion: this.#options.apiVersion, applied: false, time: now }]]));
  }

  /**
   * Kubernetes' decodeLiveOrNew: the managedFields the request sets, unless it sets none (or ones
   * that cannot be decoded), then the live object's; a subresource always uses the live object's.
   */
  #decodeLiveOrNew(live: KubeObject | undefined, next: KubeObject): { managed: Managed; fromLive: boolean } {
    const stored = live?.metadata.managedFields;
    const decodeLive = () => {
      try {
        // What this server stored is canonical: its sets are used without walking them.
        return { managed: decodeManagedFields(stored, true), fromLive: true };
      } catch {
        return { managed: new Map() as Managed, fromLive: false };
      }
    };
    if (this.#subresource !== '') return decodeLive();
    const requested = next.metadata.managedFields;
    if (isResetManagedFields(requested)) return { managed: new Map(), fromLive: false };
    if (requested === undefined || requested === null || requested === stored || (stored !== undefined && jsonEqual(requested, stored))) return decodeLive();
    try {
      const managed = decodeManagedFields(requested);
      return managed.size === 0 ? decodeLive() : { managed, fromLive: false };
    } catch {
      return decodeLive();
    }
  }

  /** The Update stack: capManagers(buildManagerInfo(managedFieldsUpdater(stripMeta(Updater.Update)))). */
  #update(before: KubeObject, after: KubeObject, managed: Managed, manager: string, now: string): Managed {
    const id = managerIdentifier({ manager: manager === '' ? 'unknown' : manager, operation: 'Update', apiVersion: this.#options.apiVersion, subresource: this.#subresource });
    const { managers, comparison } = recordUpdate(this.#updater, before, after, this.#options.apiVersion, managed, CURRENT_OPERATION);
    if (isSame(comparison) && managers.size === managed.size) return managed;
    const current = managers.get(CURRENT_OPERATION);
    managers.delete(CURRENT_OPERATION);
    if (current !== undefined) {
      const set = stripMeta(current.set);
      if (!isEmptySet(set)) {
        const previous = managers.get(id);
        managers.set(id, { set: previous === undefined ? set : union(set, previous.set), apiVersion: current.apiVersion, applied: false, time: now });
      }
    }
    return capUpdateManagers(managers, this.#max);
  }

  /**
   * Server-side apply of `config` over `live` (undefined: the object does not exist yet and the
   * apply creates it). Returns the object to store, managedFields set. Throws ApiError: BadRequest
   * for a configuration of another kind or version, one that sets managedFields, or one whose
   * lists cannot be merged; Conflict (409, Kubernetes' message and FieldManagerConflict causes)
   * for fields other managers own, unless `request.force`.
   */
  apply(live: KubeObject | undefined, config: KubeObject, request: ApplyRequest): KubeObject {
    const { apiVersion, kind } = this.#options;
    if (config.apiVersion !== apiVersion || config.kind !== kind) {
      const [group, version] = typeof config.apiVersion === 'string' && config.apiVersion.includes('/') ? config.apiVersion.split('/', 2) : ['', config.apiVersion ?? ''];
      throw ApiError.badRequest(`invalid object type: ${group}/${String(version)}, Kind=${String(config.kind ?? '')}`);
    }
    const configMeta: unknown = config.metadata;
    if (typeof configMeta === 'object' && configMeta !== null && (configMeta as { managedFields?: unknown }).managedFields != null) {
      throw ApiError.badRequest('metadata.managedFields must be nil');
    }
    let managed: Managed;
    try {
      managed = decodeManagedFields(live?.metadata.managedFields);
    } catch (err) {
      throw ApiError.internal(new Error(`failed to decode managed fields: ${(err as Error).message}`, { cause: err }));
    }
    const base = live === undefined ? { apiVersion, kind, metadata: {} } : withoutManagedFields(live);
    try {
      validateConfiguration(config, this.#type);
      const result = this.#applyWithLastApplied(base, config, managed, request);
      const object = result.object as KubeObject;
      const metadata = { ...object.metadata };
      const annotations = this.#lastAppliedAnnotations(metadata.annotations, config, request.manager);
      if (annotations !== undefined) metadata.annotations = annotations;
      const entries = encodeManagedFields(result.managed);
      if (entries === undefined) delete metadata.managedFields;
      else metadata.managedFields = entries;
      return { ...object, metadata };
    } catch (err) {
      if (err instanceof ApplyConflicts) throw err.toApiError();
      if (err instanceof TypedValueError) throw ApiError.badRequest(`failed to create typed patch object (${describeObject(config)}; ${apiVersion.includes('/') ? '' : '/'}${apiVersion}, Kind=${kind}): ${err.message}`);
      throw err;
    }
  }

  /** lastAppliedManager: a `kubectl` apply may take fields client-side apply set to the same values. */
  #applyWithLastApplied(live: KubeObject, config: KubeObject, managed: Managed, request: ApplyRequest): { object: unknown; managed: Managed } {
    try {
      return this.#applyOnce(live, config, managed, request, request.force);
    } catch (err) {
      if (!(err instanceof ApplyConflicts) || request.manager !== KUBECTL_MANAGER) throw err;
      const allowed = this.#allowedFromLastApplied(live);
      if (allowed === undefined) throw err;
      const remaining = err.conflicts.filter((c) => !hasPath(allowed, c.path));
      if (remaining.length > 0) throw new ApplyConflicts(remaining);
      return this.#applyOnce(live, config, managed, request, true);
    }
  }

  /** The fields of the last-applied-configuration whose values the live object still has. */
  #allowedFromLastApplied(live: KubeObject): FieldSet | undefined {
    const text = live.metadata.annotations?.[LAST_APPLIED_ANNOTATION];
    if (typeof text !== 'string' || text === '') return undefined;
    let last: unknown;
    try {
      last = JSON.parse(text);
      // Stryker disable next-line BlockStatement: an emptied catch leaves last undefined, which the next line refuses the same way
    } catch {
      return undefined;
    }
    if (typeof last !== 'object' || last === null || (last as KubeObject).apiVersion !== this.#options.apiVersion) return undefined;
    try {
      const set = toFieldSet(last, this.#type);
      const c = compare(last, live, this.#type);
      return difference(difference(difference(set, c.modified), c.added), c.removed);
      // Stryker disable next-line BlockStatement: an emptied catch falls off the end: undefined, the same answer
    } catch {
      return undefined;
    }
  }

  /** skipNonApplied(buildManagerInfo(managedFieldsUpdater(stripMeta(Updater.Apply)))). */
  #applyOnce(live: KubeObject, config: KubeObject, managed: Managed, request: ApplyRequest, force: boolean): { object: unknown; managed: Managed } {
    let current = managed;
    if (current.size === 0) current = this.#update(this.#zero(), live, current, BEFORE_FIRST_APPLY, request.now);
    const id = managerIdentifier({ manager: request.manager, operation: 'Apply', subresource: this.#subresource });
    const result = recordApply(this.#updater, live, config, this.#options.apiVersion, current, id, force);
    const managers = result.managers;
    const mine = managers.get(id);
    if (mine !== undefined) {
      const set = stripMeta(mine.set);
      if (isEmptySet(set)) managers.delete(id);
      else managers.set(id, withTime({ ...mine, set }, result.object === undefined ? current.get(id)?.time : request.now));
    }
    return { object: result.object ?? live, managed: managers };
  }

  /**
   * lastAppliedUpdater: a `kubectl` apply keeps an existing last-applied annotation current.
   * Returns the new annotations, or undefined when they stay as they are.
   */
  #lastAppliedAnnotations(annotations: Record<string, string> | undefined, config: KubeObject, manager: string): Record<string, string> | undefined {
    if (manager !== KUBECTL_MANAGER || typeof annotations?.[LAST_APPLIED_ANNOTATION] !== 'string' || annotations[LAST_APPLIED_ANNOTATION] === '') return undefined;
    const next: Record<string, string> = { ...annotations, [LAST_APPLIED_ANNOTATION]: lastAppliedOf(config) };
    let size = 0;
    for (const [k, v] of Object.entries(next)) size += utf8Length(k) + utf8Length(String(v));
    if (size > ANNOTATIONS_SIZE_LIMIT) delete next[LAST_APPLIED_ANNOTATION];
    return next;
  }
}

function utf8Length(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

function withTime(vs: VersionedSet, time: string | undefined): VersionedSet {
  const { time: _, ...rest } = vs;
  return time === undefined ? rest : { ...rest, time };
}

/** The configuration as the last-applied annotation holds it: Go's JSON of it, without the annotation, and a newline. */
function lastAppliedOf(config: KubeObject): string {
  const meta = config.metadata as KubeObject['metadata'] | undefined;
  let copy: KubeObject = config;
  if (meta?.annotations !== undefined && meta.annotations !== null && LAST_APPLIED_ANNOTATION in meta.annotations) {
    const { [LAST_APPLIED_ANNOTATION]: _, ...rest } = meta.annotations;
    copy = { ...config, metadata: { ...meta, annotations: rest } };
  }
  return `${goJson(copy)}\n`;
}

/** "namespace/name" as Kubernetes names objects in messages. */
function describeObject(obj: KubeObject): string {
  const meta = (obj.metadata ?? {}) as KubeObject['metadata'];
  return `${meta.namespace ?? ''}/${meta.name ?? ''}`;
}
