/**
 * coordination.k8s.io/v1 Lease: a named lock with a holder and a renew time, used for leader
 * election and node heartbeats. Field names and shapes are Kubernetes' (k8s.io/api/coordination/v1).
 */
import type * as coordinationV1 from '../generated/coordination-v1.js';
import type { KubeObject } from '../meta/types.js';
import type { WithUnknownFields } from './workloads.js';

/** How a coordinated leader election picks the holder; Kubernetes defines "OldestEmulationVersion". */
export type CoordinatedLeaseStrategy = 'OldestEmulationVersion' | (string & {});

export type LeaseSpec = WithUnknownFields<coordinationV1.LeaseSpec>;

/** A lease (namespaced). */
export interface Lease extends KubeObject {
  apiVersion?: 'coordination.k8s.io/v1';
  kind?: 'Lease';
  spec?: LeaseSpec;
  [field: string]: unknown;
}
