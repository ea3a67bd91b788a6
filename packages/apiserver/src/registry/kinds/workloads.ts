/** The workload kinds: pods (v1), replicasets and deployments (apps/v1). */
import type { ResourceDef } from '../types.js';
import { deployments } from './apps/deployment.js';
import { pods } from './pod/pod.js';
import { replicasets } from './apps/replicaset.js';

export { deployments } from './apps/deployment.js';
export { pods } from './pod/pod.js';
export { replicasets } from './apps/replicaset.js';

/** Every workload kind, for the registry. */
export const workloadResources: ResourceDef[] = [pods, replicasets, deployments];
