/** The coordination.k8s.io/v1 kinds: leases. */
import type { ResourceDef } from '../types.js';
import { leaseResource } from './lease/lease.js';

/** leases (coordination.k8s.io/v1). */
export const coordinationResources: ResourceDef[] = [leaseResource];
