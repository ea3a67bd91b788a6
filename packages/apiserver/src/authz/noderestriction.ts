/**
 * Node restriction: the admission half of the node authorizer (Kubernetes' NodeRestriction
 * plugin). The authorizer lets a node write nodes, leases and pods at all; this keeps those writes
 * to its own objects, with Kubernetes' messages:
 *
 * - nodes: only its own (`node "a" is not allowed to modify node "b"`); no changes to its taints,
 *   nor to kubernetes.io / k8s.io labels outside the kubelet's own set;
 * - leases: only its own, in kube-node-lease;
 * - pods: status only of pods bound to it (and no label changes through status); delete only of
 *   pods bound to it; create only of mirror pods bound to it;
 * - serviceaccounts/token: only tokens bound to a pod (by name and uid) that runs on it.
 */
import { ApiError, type GroupResource, type KubeObject } from '@setpoint/api';
import type { UserInfo } from '../auth/index.js';
import type { ResourceRequestInfo } from '../http/requestinfo.js';
import { jsonEqual } from '../storage/equal.js';
import { NODE_LEASE_NAMESPACE, nodeIdentity } from './node.js';
import { podReferences } from './nodegraph.js';

/** What admission needs to read: the current pods and nodes (from the store, authoritative). */
export interface NodeRestrictionReader {
  pod(namespace: string, name: string): Promise<KubeObject | undefined>;
  node(name: string): KubeObject | undefined;
}

/**
 * The checks of one request: `before` runs before the request is served (given a way to read the
 * request's body), `write` on the object about to be written.
 */
export interface RequestAdmission {
  readonly before?: (body: () => unknown) => Promise<void>;
  readonly write?: (obj: KubeObject, old: KubeObject | undefined) => Promise<void>;
}

const MIRROR_POD_ANNOTATION = 'kubernetes.io/config.mirror';
const KUBELET_LABELS = new Set([
  'kubernetes.io/hostname',
  'topology.kubernetes.io/zone',
  'topology.kubernetes.io/region',
  'failure-domain.beta.kubernetes.io/zone',
  'failure-domain.beta.kubernetes.io/region',
  'beta.kubernetes.io/instance-type',
  'node.kubernetes.io/instance-type',
  'kubernetes.io/os',
  'kubernetes.io/arch',
  'beta.kubernetes.io/os',
  'beta.kubernetes.io/arch',
  'node.kubernetes.io/windows-build',
]);

function labelNamespace(key: string): string {
  const slash = key.indexOf('/');
  return slash < 0 ? '' : key.slice(0, slash);
}

function within(namespace: string, domain: string): boolean {
  return namespace === domain || namespace.endsWith(`.${domain}`);
}

/** The label keys a node may not add, change or remove on its Node (getForbiddenLabels). */
export function forbiddenNodeLabels(labels: Record<string, string> | undefined, old: Record<string, string> | undefined): string[] {
  const a = labels ?? {};
  const b = old ?? {};
  const modified = new Set<string>();
  for (const [k, v] of Object.entries(a)) if (b[k] !== v) modified.add(k);
  for (const [k, v] of Object.entries(b)) if (a[k] !== v) modified.add(k);
  const forbidden: string[] = [];
  for (const key of modified) {
    const ns = labelNamespace(key);
    if (within(ns, 'node-restriction.kubernetes.io')) {
      forbidden.push(key);
      continue;
    }
    const kubernetes = within(ns, 'kubernetes.io') || within(ns, 'k8s.io');
    const kubelet = KUBELET_LABELS.has(key) || within(ns, 'kubelet.kubernetes.io') || within(ns, 'node.kubernetes.io');
    if (kubernetes && !kubelet) forbidden.push(key);
  }
  return forbidden.sort();
}

function spec(obj: KubeObject | undefined): Record<string, unknown> {
  const s = obj?.['spec'];
  return s !== null && typeof s === 'object' && !Array.isArray(s) ? (s as Record<string, unknown>) : {};
}

/** The node restriction checks of a request by `user` (undefined when the user is not a node or the request writes nothing). */
export function nodeRestriction(user: UserInfo, info: ResourceRequestInfo, reader: NodeRestrictionReader): RequestAdmission | undefined {
  const { isNode, nodeName } = nodeIdentity(user);
  if (!isNode || info.verb === 'get' || info.verb === 'list' || info.verb === 'watch') return undefined;
  const gr: GroupResource = { group: info.group, resource: info.resource };
  const forbidden = (name: string, why: string) => ApiError.forbidden(gr, name, why);
  if (nodeName === '') {
    return {
      before: () => Promise.reject(forbidden(info.name, `could not determine node from user ${JSON.stringify(user.name)}`)),
    };
  }
  if (info.group === '' && info.resource === 'nodes') return nodeWrites(nodeName, info, forbidden);
  if (info.group === 'coordination.k8s.io' && info.resource === 'leases') return leaseWrites(nodeName, info, forbidden);
  if (info.group === '' && info.resource === 'pods') return podWrites(nodeName, info, reader, forbidden);
  if (info.group === '' && info.resource === 'serviceaccounts' && info.subresource === 'token' && info.verb === 'create') return tokenRequest(nodeName, info, reader, forbidden);
  return undefined;
}

/** admitServiceAccount: a node asks only for tokens bound to a pod of its own. */
function tokenRequest(nodeName: string, info: ResourceRequestInfo, reader: NodeRestrictionReader, forbidden: Forbidden): RequestAdmission {
  return {
    before: async (body) => {
      const ref = (body() as { spec?: { boundObjectRef?: { apiVersion?: string; kind?: string; name?: string; uid?: string } } } | undefined)?.spec?.boundObjectRef;
      if (ref === undefined || ref.apiVersion !== 'v1' || ref.kind !== 'Pod' || !ref.name) throw forbidden(info.name, 'node requested token not bound to a pod');
      if (!ref.uid) throw forbidden(info.name, 'node requested token with a pod binding without a uid');
      const pod = await reader.pod(info.namespace, ref.name);
      if (pod === undefined) throw ApiError.notFound({ group: '', resource: 'pods' }, ref.name);
      if (ref.uid !== pod.metadata.uid) {
        throw forbidden(info.name, `the UID in the bound object reference (${ref.uid}) does not match the UID in record. The object might have been deleted and then recreated`);
      }
      if (spec(pod)['nodeName'] !== nodeName) throw forbidden(info.name, 'node requested token bound to a pod scheduled on a different node');
    },
  };
}

type Forbidden = (name: string, why: string) => ApiError;

function nodeWrites(nodeName: string, info: ResourceRequestInfo, forbidden: Forbidden): RequestAdmission {
  const notAllowed = (name: string) => forbidden(name, `node ${JSON.stringify(nodeName)} is not allowed to modify node ${JSON.stringify(name)}`);
  if (info.verb !== 'create' && info.name !== nodeName) return { before: () => Promise.reject(notAllowed(info.name)) };
  return {
    write: async (obj, old) => {
      const name = obj.metadata.name ?? '';
      if (name !== nodeName) throw notAllowed(name);
      if (old === undefined) {
        const labels = forbiddenNodeLabels(obj.metadata.labels, undefined);
        if (labels.length > 0) throw forbidden(name, `node ${JSON.stringify(nodeName)} is not allowed to set the following labels: ${labels.join(', ')}`);
        return;
      }
      if (!jsonEqual(spec(obj)['taints'] ?? [], spec(old)['taints'] ?? [])) throw forbidden(name, `node ${JSON.stringify(nodeName)} is not allowed to modify taints`);
      const labels = forbiddenNodeLabels(obj.metadata.labels, old.metadata.labels);
      if (labels.length > 0) throw forbidden(name, `is not allowed to modify labels: ${labels.join(', ')}`);
    },
  };
}

function leaseWrites(nodeName: string, info: ResourceRequestInfo, forbidden: Forbidden): RequestAdmission {
  const sameName = 'can only access node lease with the same name as the requesting node';
  if (info.namespace !== NODE_LEASE_NAMESPACE) {
    return { before: () => Promise.reject(forbidden(info.name, `can only access leases in the ${JSON.stringify(NODE_LEASE_NAMESPACE)} system namespace`)) };
  }
  // The authorizer checked the name of everything but a create; this checks it on every write.
  return {
    write: async (obj) => {
      const name = obj.metadata.name ?? '';
      if (name !== nodeName) throw forbidden(name, sameName);
    },
  };
}

function podWrites(nodeName: string, info: ResourceRequestInfo, reader: NodeRestrictionReader, forbidden: Forbidden): RequestAdmission | undefined {
  const node = JSON.stringify(nodeName);
  switch (info.subresource) {
    case '':
      if (info.verb === 'delete') {
        return {
          before: async () => {
            const pod = await reader.pod(info.namespace, info.name);
            if (pod === undefined) throw ApiError.notFound({ group: '', resource: 'pods' }, info.name);
            if (spec(pod)['nodeName'] !== nodeName) throw forbidden(info.name, `node ${node} can only delete pods with spec.nodeName set to itself`);
          },
        };
      }
      if (info.verb === 'create') return { write: async (obj) => checkMirrorPod(nodeName, obj, reader, forbidden) };
      return { before: () => Promise.reject(forbidden(info.name, `unexpected operation ${JSON.stringify(info.verb)}, node ${node} can only create and delete mirror pods`)) };
    case 'status':
      return {
        write: async (obj, old) => {
          const name = obj.metadata.name ?? '';
          if (old === undefined || spec(old)['nodeName'] !== nodeName) throw forbidden(name, `node ${node} can only update pod status for pods with spec.nodeName set to itself`);
          if (!jsonEqual(obj.metadata.labels ?? {}, old.metadata.labels ?? {})) throw forbidden(name, `node ${node} cannot update labels through pod status`);
        },
      };
    default:
      return { before: () => Promise.reject(forbidden(info.name, `unexpected pod subresource ${JSON.stringify(info.subresource)}, only 'status' and 'eviction' are allowed`)) };
  }
}

/** admitPodCreate: a node creates only mirror pods, bound to itself, owned by its Node, referencing nothing. */
async function checkMirrorPod(nodeName: string, pod: KubeObject, reader: NodeRestrictionReader, forbidden: Forbidden): Promise<void> {
  const name = pod.metadata.name ?? '';
  const node = JSON.stringify(nodeName);
  const refuse = (why: string) => forbidden(name, why);
  if (pod.metadata.annotations?.[MIRROR_POD_ANNOTATION] === undefined) {
    throw refuse(`pod does not have ${JSON.stringify(MIRROR_POD_ANNOTATION)} annotation, node ${node} can only create mirror pods`);
  }
  if (spec(pod)['nodeName'] !== nodeName) throw refuse(`node ${node} can only create pods with spec.nodeName set to itself`);
  const owners = pod.metadata.ownerReferences ?? [];
  if (owners.length > 1) throw refuse(`node ${node} can only create pods with a single owner reference set to itself`);
  const owner = owners[0];
  if (owner === undefined || owner.apiVersion !== 'v1' || owner.kind !== 'Node' || owner.name !== nodeName) {
    throw refuse(`node ${node} can only create pods with an owner reference set to itself`);
  }
  if (owner.controller !== true) throw refuse(`node ${node} can only create pods with a controller owner reference set to itself`);
  if (owner.blockOwnerDeletion === true) throw refuse(`node ${node} must not set blockOwnerDeletion on an owner reference`);
  const current = reader.node(nodeName);
  if (current === undefined) throw ApiError.notFound({ group: '', resource: 'nodes' }, nodeName);
  if (owner.uid !== current.metadata.uid) throw refuse(`node ${nodeName} UID mismatch: expected ${owner.uid} got ${current.metadata.uid ?? ''}`);
  const refs = podReferencesOf(pod);
  if (refs.serviceAccount) throw refuse(`node ${node} can not create pods that reference a service account`);
  if (refs.secrets) throw refuse(`node ${node} can not create pods that reference secrets`);
  if (refs.configMaps) throw refuse(`node ${node} can not create pods that reference configmaps`);
  if (refs.claims) throw refuse(`node ${node} can not create pods that reference persistentvolumeclaims`);
}

function podReferencesOf(pod: KubeObject): { serviceAccount: boolean; secrets: boolean; configMaps: boolean; claims: boolean } {
  const found = podReferences(pod);
  const volumes = spec(pod)['volumes'];
  const claims = Array.isArray(volumes) && volumes.some((v) => v !== null && typeof v === 'object' && (v as Record<string, unknown>)['persistentVolumeClaim'] !== undefined);
  const sa = spec(pod)['serviceAccountName'];
  return { serviceAccount: typeof sa === 'string' && sa !== '', secrets: found.secrets.size > 0, configMaps: found.configMaps.size > 0, claims };
}
