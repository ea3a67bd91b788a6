/** Leader election on a coordination.k8s.io/v1 Lease, as client-go's tools/leaderelection does it. */
export { LeaderElector, JITTER_FACTOR } from './leaderelector.js';
export type { LeaderCallbacks, LeaderElectorOptions } from './leaderelector.js';
export { LeaseLock, formatMicroTime, recordFromLease } from './leaselock.js';
export type { LeaderElectionRecord, LeaseClient, LeaseLockOptions, ResourceLock } from './leaselock.js';
