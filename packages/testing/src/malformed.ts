/**
 * For containment tests: objects of a shape the API would refuse, written straight into the store
 * of an in-process control plane, the way an older version or a buggy API server could have
 * stored them, and a control plane that serves them as they are.
 *
 *   await using cp = await startControlPlaneServingStoreAsIs();
 *   await writeRaw(cp, builtin.pods, { metadata: { name: 'bad', namespace: 'ns' }, spec: { nodeName: {} } });
 *
 * Every control plane of such a test is made by startControlPlaneServingStoreAsIs, so the one
 * option that makes the API server serve stored objects unchecked is set in this one place.
 */
import { randomUUID } from 'node:crypto';
import type { ResourceRef } from '@setpoint/client';
import { startControlPlane, type ControlPlane, type ControlPlaneOptions } from './controlplane.js';

/** A control plane (startControlPlane) whose API server serves what its store holds without checking it. */
export async function startControlPlaneServingStoreAsIs(options: ControlPlaneOptions = {}): Promise<ControlPlane> {
  return startControlPlane({ ...options, checkStoredObjects: false });
}

/** The store key of an object of `ref` (the API server's layout: /registry/<group or core>/<resource>/[<namespace>/]<name>). */
export function storeKey(ref: Pick<ResourceRef, 'group' | 'resource' | 'namespaced'>, namespace: string, name: string): string {
  const prefix = `/registry/${ref.group === '' ? 'core' : ref.group}/${ref.resource}/`;
  return ref.namespaced ? `${prefix}${namespace}/${name}` : `${prefix}${name}`;
}

/** What writeRaw writes: any JSON, with metadata.name (and namespace, for namespaced kinds) strings for the key. */
export interface RawObject {
  readonly metadata: { readonly name: string; readonly namespace?: string; readonly [field: string]: unknown };
  readonly [field: string]: unknown;
}

/**
 * Creates `object` in the store under its key, unchecked: apiVersion and kind are set from `ref`,
 * metadata.uid and creationTimestamp are filled in when absent (as the API server would have), and
 * every other field is written as given. Throws if the key exists. Returns the store's revision
 * (the object's resourceVersion).
 */
export async function writeRaw(cp: ControlPlane, ref: ResourceRef, object: RawObject): Promise<string> {
  const { resourceVersion: _rv, ...metadata } = object.metadata;
  const stored = {
    ...object,
    apiVersion: ref.group === '' ? ref.version : `${ref.group}/${ref.version}`,
    kind: ref.kind,
    metadata: { uid: randomUUID(), creationTimestamp: new Date().toISOString().replace(/\.\d+Z$/, 'Z'), ...metadata },
  };
  const kv = await cp.store.create(storeKey(ref, object.metadata.namespace ?? '', object.metadata.name), JSON.stringify(stored));
  return String(kv.modRevision);
}
