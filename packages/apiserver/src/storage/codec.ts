/**
 * How objects are laid out in the store: one key per object, and the object as JSON without its
 * resourceVersion (the store's modRevision is the resourceVersion, set again on every read).
 *
 * Keys: /registry/<group or "core">/<resource>/<namespace>/<name> for namespaced kinds and
 * /registry/<group or "core">/<resource>/<name> for cluster-scoped ones. Every version of a kind
 * shares its keys.
 */
import type { KeyValue } from '@setpoint/store';
import type { KubeObject } from '@setpoint/api';
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
