/** The workload kinds: pods (v1), replicasets, deployments and controllerrevisions (apps/v1). */
import type { ResourceDef } from '../types.js';
import { deployments } from './apps/deployment.js';
import { controllerRevisionResource } from './controllerrevision/controllerrevision.js';
import { pods } from './pod/pod.js';
import { replicasets } from './apps/replicaset.js';

export { deployments } from './apps/deployment.js';
export { controllerRevisionResource } from './controllerrevision/controllerrevision.js';
export { pods } from './pod/pod.js';
export { replicasets } from './apps/replicaset.js';

/** Every workload kind, for the registry. */
export const workloadResources: ResourceDef[] = [pods, replicasets, deployments, controllerRevisionResource];
