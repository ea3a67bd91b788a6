/**
 * The subresources beyond status: pods/binding (the scheduler's assignment of a node) and
 * {deployments,replicasets}/scale (autoscaling/v1 Scale, what kubectl scale reads and writes).
 */
import { ApiError, applyMergePatch, FieldError, labelSelectorAsSelector, type KubeObject, type LabelSelector, type Status } from '@setpoint/api';
import { isStoreError } from '@setpoint/store';
import fastJsonPatch from 'fast-json-patch';
import type { ScaleDef } from '../registry/types.js';
import { encode } from './codec.js';
import { clone } from './equal.js';
import { fromStoreError } from './errors.js';
import type { PatchType } from './patch.js';
import { rfc3339, type ResourceStorage, type WriteOptions } from './rest.js';

interface Binding {
  metadata?: { name?: string; namespace?: string };
  target?: { kind?: string; name?: string; apiVersion?: string };
}

/** POST pods/{name}/binding: sets spec.nodeName once, and PodScheduled=True. */
export async function bindPod(storage: ResourceStorage, namespace: string, name: string, body: unknown, options: WriteOptions = {}): Promise<Status> {
  const binding = (body ?? {}) as Binding;
  const target = binding.target;
  if (binding.metadata?.name !== undefined && binding.metadata.name !== name) {
    throw ApiError.badRequest(`the name of the object (${binding.metadata.name}) does not match the name on the URL (${name})`);
  }
  if (target === undefined || typeof target.name !== 'string' || target.name === '') {
    throw ApiError.invalid({ group: '', kind: 'Binding' }, name, [FieldError.required('target.name')]);
  }
  if (target.kind !== undefined && target.kind !== '' && target.kind !== 'Node') {
    throw ApiError.invalid({ group: '', kind: 'Binding' }, name, [FieldError.notSupported('target.kind', target.kind, ['Node'])]);
  }
  for (let attempt = 0; ; attempt++) {
    const { obj: pod, kv } = await storage.read(namespace, name);
    if (pod.metadata.deletionTimestamp !== undefined) {
      throw ApiError.conflict(storage.gr, name, `pod ${name} is being deleted, cannot be assigned to a host`);
    }
    const spec = (pod.spec ?? {}) as { nodeName?: string };
    if (spec.nodeName !== undefined && spec.nodeName !== '') {
      throw ApiError.conflict(storage.gr, name, `pod ${name} is already assigned to node "${spec.nodeName}"`);
    }
    const next = clone(pod);
    (next.spec as { nodeName?: string }).nodeName = target.name;
    const status = (next.status ?? {}) as { conditions?: Array<Record<string, unknown>> };
    const conditions = (status.conditions ?? []).filter((c) => c.type !== 'PodScheduled');
    conditions.push({ type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: rfc3339(storage.clock.now()) });
    status.conditions = conditions;
    next.status = status;
    if (options.dryRun) break;
    try {
      await storage.store.update(kv.key, encode(next), kv.modRevision);
      break;
    } catch (err) {
      if (isStoreError(err, 'Conflict') && attempt < 16) continue;
      throw fromStoreError(err, storage.gr, name);
    }
  }
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 };
}

/** The Scale view of an object. */
export function scaleOf(obj: KubeObject, scale: ScaleDef): KubeObject {
  const replicas = readPath(obj, scale.specReplicasPath);
  const statusReplicas = readPath(obj, scale.statusReplicasPath);
  return {
    kind: 'Scale',
    apiVersion: 'autoscaling/v1',
    metadata: {
      name: obj.metadata.name,
      ...(obj.metadata.namespace !== undefined ? { namespace: obj.metadata.namespace } : {}),
      uid: obj.metadata.uid,
      resourceVersion: obj.metadata.resourceVersion,
      creationTimestamp: obj.metadata.creationTimestamp,
    },
    spec: { replicas: typeof replicas === 'number' ? replicas : 0 },
    status: { replicas: typeof statusReplicas === 'number' ? statusReplicas : 0, selector: selectorString(obj, scale) },
  };
}

/** PUT or PATCH of the scale subresource: writes spec.replicas. */
export async function updateScale(
  storage: ResourceStorage,
  namespace: string,
  name: string,
  change: { body: unknown } | { patchType: PatchType; patch: unknown },
  options: WriteOptions = {},
): Promise<KubeObject> {
  const scaleDef = storage.def.subresources!.scale!;
  for (let attempt = 0; ; attempt++) {
    const { obj, kv } = await storage.read(namespace, name);
    const current = scaleOf(obj, scaleDef);
    let wanted: KubeObject;
    if ('body' in change) {
      wanted = (change.body ?? {}) as KubeObject;
    } else if (change.patchType === 'json') {
      if (!Array.isArray(change.patch)) throw ApiError.badRequest('a JSON patch must be an array of operations');
      try {
        wanted = fastJsonPatch.applyPatch(clone(current), change.patch as fastJsonPatch.Operation[], true, true).newDocument;
      } catch (err) {
        throw new ApiError('Invalid', err instanceof Error ? err.message.split('\n')[0]! : String(err));
      }
    } else {
      wanted = applyMergePatch(current, change.patch) as KubeObject;
    }
    const rv = wanted.metadata?.resourceVersion;
    const conditional = typeof rv === 'string' && rv !== '';
    if (conditional && rv !== obj.metadata.resourceVersion) throw ApiError.conflict(storage.gr, name);
    const replicas = (wanted.spec as { replicas?: unknown } | undefined)?.replicas;
    if (typeof replicas !== 'number' || !Number.isInteger(replicas) || replicas < 0) {
      throw ApiError.invalid({ group: 'autoscaling', kind: 'Scale' }, name, [
        FieldError.invalid('spec.replicas', replicas ?? null, 'must be greater than or equal to 0'),
      ]);
    }
    const next = clone(obj);
    writePath(next, scaleDef.specReplicasPath, replicas);
    try {
      const written = await storage.write(namespace, name, next, obj, kv, options);
      return scaleOf(written, scaleDef);
    } catch (err) {
      if (isStoreError(err, 'Conflict') && !conditional && attempt < 16) continue;
      throw isStoreError(err) ? fromStoreError(err, storage.gr, name) : err;
    }
  }
}

function selectorString(obj: KubeObject, scale: ScaleDef): string {
  const specSelector = (obj.spec as { selector?: unknown } | undefined)?.selector;
  if (typeof specSelector === 'object' && specSelector !== null) {
    try {
      return labelSelectorAsSelector(specSelector as LabelSelector).toString();
    } catch {
      return '';
    }
  }
  const fromPath = scale.labelSelectorPath === undefined ? undefined : readPath(obj, scale.labelSelectorPath);
  return typeof fromPath === 'string' ? fromPath : '';
}

function readPath(obj: unknown, path: string): unknown {
  let cur: unknown = obj;
  for (const part of path.replace(/^\./, '').split('.')) {
    if (typeof cur !== 'object' || cur === null) return undefined;
    cur = (cur as Record<string, unknown>)[part];
  }
  return cur;
}

function writePath(obj: Record<string, unknown>, path: string, value: unknown): void {
  const parts = path.replace(/^\./, '').split('.');
  let cur = obj;
  for (const part of parts.slice(0, -1)) {
    if (typeof cur[part] !== 'object' || cur[part] === null) cur[part] = {};
    cur = cur[part] as Record<string, unknown>;
  }
  cur[parts[parts.length - 1]!] = value;
}
