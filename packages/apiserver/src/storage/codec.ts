/**
 * How objects are laid out in the store: one key per object, and the object as JSON without its
 * resourceVersion (the store's modRevision is the resourceVersion, set again on every read).
 *
 * Keys: /registry/<group or "core">/<resource>/<namespace>/<name> for namespaced kinds and
 * /registry/<group or "core">/<resource>/<name> for cluster-scoped ones. Every version of a kind
 * shares its keys.
 */
import type { KeyValue } from '@setpoint/store';
import { ApiError, silentLogger, type KubeObject, type Logger } from '@setpoint/api';
import { Counter, type Registry } from 'prom-client';
import { typeDecodingError } from '../registry/typecheck.js';
import { groupVersion, type ResourceDef } from '../registry/types.js';

export const REGISTRY_PREFIX = '/registry/';

/** The prefix of every object of a kind (all namespaces). */
export function resourcePrefix(def: Pick<ResourceDef, 'group' | 'resource'>): string {
  return `${REGISTRY_PREFIX}${def.group === '' ? 'core' : def.group}/${def.resource}/`;
}

/** The prefix of a kind's objects in one namespace, or of all of them when `namespace` is ''. */
export function collectionPrefix(def: Pick<ResourceDef, 'group' | 'resource' | 'namespaced'>, namespace: string): string {
  const base = resourcePrefix(def);
  return def.namespaced && namespace !== '' ? `${base}${namespace}/` : base;
}

/** The key of one object. */
export function objectKey(def: Pick<ResourceDef, 'group' | 'resource' | 'namespaced'>, namespace: string, name: string): string {
  return def.namespaced ? `${resourcePrefix(def)}${namespace}/${name}` : `${resourcePrefix(def)}${name}`;
}

/** The stored form: JSON without metadata.resourceVersion. */
export function encode(obj: KubeObject): string {
  const { resourceVersion: _rv, ...metadata } = obj.metadata;
  return JSON.stringify({ ...obj, metadata });
}

/** The object stored under `kv`, with apiVersion, kind and resourceVersion set for `def`. */
export function decode(def: ResourceDef, kv: Pick<KeyValue, 'value' | 'modRevision'>): KubeObject {
  const obj = JSON.parse(kv.value) as KubeObject;
  obj.apiVersion = groupVersion(def);
  obj.kind = def.kind;
  obj.metadata.resourceVersion = String(kv.modRevision);
  return obj;
}

/** The object as it stood before a change (a watch event's prev), with its own resourceVersion. */
export function decodePrev(def: ResourceDef, prev: KeyValue | undefined, fallbackRevision: number): KubeObject | undefined {
  if (prev === undefined) return undefined;
  return decode(def, { value: prev.value, modRevision: prev.modRevision ?? fallbackRevision });
}

/** An object in the store that does not decode as its kind (typed decoding refuses it). */
export class MalformedObjectError extends Error {
  constructor(
    readonly key: string,
    readonly revision: number,
    readonly reason: string,
  ) {
    super(`the object stored at ${key} (revision ${revision}) cannot be decoded: ${reason}`);
    this.name = 'MalformedObjectError';
  }

  /** The Status a GET of it answers: 500 InternalError naming the key and the decoding error. */
  toApiError(): ApiError {
    return ApiError.internal(this);
  }
}

/** What {@link StoredObjectDecoder} takes. */
export interface StoredObjectDecoderOptions {
  /** Check stored objects of built-in kinds with typed decoding. Default true. */
  readonly check?: boolean;
  readonly logger?: Logger;
  /** Where `setpoint_storage_malformed_objects_total` is registered; none: not exported. */
  readonly registry?: Registry;
}

const REPORTED_LIMIT = 10_000;

/**
 * Decodes objects read back from the store, checking built-in kinds with typed decoding as the
 * API server checks request bodies (an older version or a buggy server may have written what
 * today's decoding refuses). A malformed object is a {@link MalformedObjectError}: GET answers
 * 500, list and watch leave it out ({@link decodeOrSkip}), reported once per key and revision in
 * the log and in `setpoint_storage_malformed_objects_total`. With `check: false` stored objects
 * are served as they are.
 */
export class StoredObjectDecoder {
  readonly check: boolean;
  private readonly logger: Logger;
  private readonly counter: Counter<'resource'>;
  private readonly reported = new Set<string>();

  constructor(options: StoredObjectDecoderOptions = {}) {
    this.check = options.check ?? true;
    this.logger = options.logger ?? silentLogger;
    this.counter = new Counter({
      name: 'setpoint_storage_malformed_objects_total',
      help: 'Objects read from the store that do not decode as their kind (left out of lists and watches), by resource; each key and revision counted once.',
      labelNames: ['resource'] as const,
      registers: options.registry === undefined ? [] : [options.registry],
    });
  }

  /** The object stored under `kv`; throws MalformedObjectError when it does not decode. */
  decode(def: ResourceDef, kv: Pick<KeyValue, 'key' | 'value' | 'modRevision'>): KubeObject {
    let obj: unknown;
    try {
      obj = JSON.parse(kv.value);
    } catch (err) {
      throw new MalformedObjectError(kv.key, kv.modRevision, err instanceof Error ? err.message : String(err));
    }
    if (typeof obj !== 'object' || obj === null || Array.isArray(obj)) throw new MalformedObjectError(kv.key, kv.modRevision, 'not a JSON object');
    const record = obj as Record<string, unknown>;
    if (record['metadata'] === undefined || record['metadata'] === null) record['metadata'] = {};
    if (typeof record['metadata'] !== 'object' || Array.isArray(record['metadata'])) {
      if (this.check) throw new MalformedObjectError(kv.key, kv.modRevision, 'metadata is not a JSON object');
      record['metadata'] = {};
    }
    if (this.check && def.custom !== true) {
      const reason = typeDecodingError(record, def);
      if (reason !== undefined) throw new MalformedObjectError(kv.key, kv.modRevision, reason);
    }
    const out = record as unknown as KubeObject;
    out.apiVersion = groupVersion(def);
    out.kind = def.kind;
    out.metadata.resourceVersion = String(kv.modRevision);
    return out;
  }

  /** Like {@link decode}, but a malformed object is reported (once) and undefined. */
  decodeOrSkip(def: ResourceDef, kv: Pick<KeyValue, 'key' | 'value' | 'modRevision'>): KubeObject | undefined {
    try {
      return this.decode(def, kv);
    } catch (err) {
      if (!(err instanceof MalformedObjectError)) throw err;
      this.report(def, err);
      return undefined;
    }
  }

  /** A watch event's prev: undefined when absent or malformed. */
  decodePrev(def: ResourceDef, prev: KeyValue | undefined, fallbackRevision: number): KubeObject | undefined {
    if (prev === undefined) return undefined;
    return this.decodeOrSkip(def, { key: prev.key, value: prev.value, modRevision: prev.modRevision ?? fallbackRevision });
  }

  /** Logs and counts a malformed object, once per key and revision. */
  report(def: ResourceDef, err: MalformedObjectError): void {
    const id = `${err.revision}\u0000${err.key}`;
    if (this.reported.has(id)) return;
    if (this.reported.size >= REPORTED_LIMIT) this.reported.clear();
    this.reported.add(id);
    this.counter.inc({ resource: def.group === '' ? def.resource : `${def.resource}.${def.group}` });
    this.logger.warn({ key: err.key, revision: err.revision, reason: err.reason }, 'malformed object in the store left out of lists and watches');
  }
}

/** A decoder that checks nothing (stored objects served as they are); also what tests of parts use. */
export const uncheckedDecoder = new StoredObjectDecoder({ check: false });
