/**
 * The subresources beyond status: pods/binding (the scheduler's assignment of a node) and
 * {deployments,replicasets}/scale (autoscaling/v1 Scale, what kubectl scale reads and writes).
 */
import { ApiError, applyMergePatch, FieldError, labelSelectorAsSelector, type KubeObject, type LabelSelector, type Status } from '@setpoint/api';
import fastJsonPatch from 'fast-json-patch';
import { bindPod as assignNode, validateBinding } from '../registry/kinds/pod/pod.js';
import type { ScaleDef } from '../registry/types.js';
import type { JsonObject } from '../registry/validation/json-fields.js';
import { encode } from './codec.js';
import { clone } from './equal.js';
import { guaranteedUpdate } from './guaranteed.js';
import { jsonPatchNotApplied, type PatchType } from './patch.js';
import type { ResourceStorage, WriteOptions } from './rest.js';

/**
 * POST pods/{name}/binding (Kubernetes' BindingREST.Create): the binding's name must be the URL's,
 * its target valid; then the pod registry's `bindPod` sets spec.nodeName once, merges the
 * binding's annotations and sets PodScheduled=True. Answers a Success Status (201).
 * Throws Conflict on pods/binding when the pod is already bound or being deleted.
 */
export async function bindPod(storage: ResourceStorage, namespace: string, name: string, body: unknown, options: WriteOptions = {}): Promise<Status> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw ApiError.badRequest('the request body must be a JSON or YAML object');
  const binding = clone(body) as KubeObject;
  if (typeof binding.metadata !== 'object' || binding.metadata === null) binding.metadata = {};
  const bindingName = binding.metadata.name;
  if (bindingName !== undefined && bindingName !== '' && bindingName !== name) throw ApiError.badRequest('name in URL does not match name in Binding object');
  const errors = validateBinding(binding as JsonObject);
  if (errors.length > 0) throw ApiError.invalid({ group: '', kind: 'Binding' }, name, errors);
  await guaranteedUpdate(storage, namespace, name, ({ obj: pod, kv }) => {
    const next = assignNode(clone(pod), binding, storage.ctx(namespace));
    if (options.dryRun === true) return { result: undefined };
    return { write: async () => void (await storage.store.update(kv.key, encode(next), kv.modRevision)) };
  });
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
  return guaranteedUpdate(storage, namespace, name, ({ obj, kv }) => {
    const current = scaleOf(obj, scaleDef);
    let wanted: KubeObject;
    if ('body' in change) {
      wanted = (change.body ?? {}) as KubeObject;
    } else if (change.patchType === 'json') {
      if (!Array.isArray(change.patch)) throw ApiError.badRequest('a JSON patch must be an array of operations');
      try {
        wanted = fastJsonPatch.applyPatch(clone(current), change.patch as fastJsonPatch.Operation[], true, true).newDocument;
      } catch (err) {
        if (!(err instanceof fastJsonPatch.JsonPatchError)) throw err;
        throw jsonPatchNotApplied(err);
      }
    } else {
      wanted = applyMergePatch(current, change.patch) as KubeObject;
    }
    const rv = wanted.metadata?.resourceVersion;
    const conditional = typeof rv === 'string' && rv !== '';
    if (conditional && rv !== obj.metadata.resourceVersion) throw ApiError.conflict(storage.gr, name);
    // ScaleSpec.replicas is omitempty: Go clients (JSON and protobuf) leave 0 out.
    const replicas = (wanted.spec as { replicas?: unknown } | undefined)?.replicas ?? 0;
    if (typeof replicas !== 'number' || !Number.isInteger(replicas) || replicas < 0) {
      throw ApiError.invalid({ group: 'autoscaling', kind: 'Scale' }, name, [
        FieldError.invalid('spec.replicas', replicas ?? null, 'must be greater than or equal to 0'),
      ]);
    }
    const next = clone(obj);
    writePath(next, scaleDef.specReplicasPath, replicas);
    return { write: async () => scaleOf(await storage.write(namespace, name, next, obj, kv, { ...options, subresource: 'scale' }), scaleDef), pinned: conditional };
  });
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
