/**
 * coordination.k8s.io/v1 Lease: a named lock with a holder and a renew time, used for leader
 * election and node heartbeats. Field names and shapes are Kubernetes' (k8s.io/api/coordination/v1).
 */
import type { KubeObject } from '../meta/types.js';
import type { MicroTime } from './core.js';

/** How a coordinated leader election picks the holder; Kubernetes defines "OldestEmulationVersion". */
export type CoordinatedLeaseStrategy = 'OldestEmulationVersion' | (string & {});

export interface LeaseSpec {
  /** Who holds the lease now. */
  holderIdentity?: string;
  /** How long (after renewTime) others must wait before taking the lease; > 0 when set. */
  leaseDurationSeconds?: number;
  /** When the current holder acquired the lease (MicroTime: six fractional digits). */
  acquireTime?: MicroTime;
  /** When the holder last renewed the lease (MicroTime: six fractional digits). */
  renewTime?: MicroTime;
  /** How many times the lease changed hands; ≥ 0. */
  leaseTransitions?: number;
  /** The coordinated leader election strategy, when the lease is managed by one. */
  strategy?: CoordinatedLeaseStrategy;
  /** The candidate the strategy wants as holder; only with `strategy`. */
  preferredHolder?: string;
}

/** A lease (namespaced). */
export interface Lease extends KubeObject {
  apiVersion?: 'coordination.k8s.io/v1';
  kind?: 'Lease';
  spec?: LeaseSpec;
  [field: string]: unknown;
}
