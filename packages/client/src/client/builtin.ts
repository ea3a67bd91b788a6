/**
 * The built-in kinds a controller most often needs, as ResourceRefs, so that no discovery round
 * trip is needed for them. Names and groups are Kubernetes' own.
 */
import type { ResourceRef } from '../types.js';

/** ResourceRefs of the built-in kinds; each works against any Kubernetes API server. */
export const builtin = {
  namespaces: { group: '', version: 'v1', resource: 'namespaces', kind: 'Namespace', namespaced: false },
  configMaps: { group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap', namespaced: true },
  secrets: { group: '', version: 'v1', resource: 'secrets', kind: 'Secret', namespaced: true },
  events: { group: '', version: 'v1', resource: 'events', kind: 'Event', namespaced: true },
  serviceAccounts: { group: '', version: 'v1', resource: 'serviceaccounts', kind: 'ServiceAccount', namespaced: true },
  nodes: { group: '', version: 'v1', resource: 'nodes', kind: 'Node', namespaced: false },
  pods: { group: '', version: 'v1', resource: 'pods', kind: 'Pod', namespaced: true },
  replicaSets: { group: 'apps', version: 'v1', resource: 'replicasets', kind: 'ReplicaSet', namespaced: true },
  deployments: { group: 'apps', version: 'v1', resource: 'deployments', kind: 'Deployment', namespaced: true },
  leases: { group: 'coordination.k8s.io', version: 'v1', resource: 'leases', kind: 'Lease', namespaced: true },
} as const satisfies Record<string, ResourceRef>;

export type BuiltinResource = keyof typeof builtin;
