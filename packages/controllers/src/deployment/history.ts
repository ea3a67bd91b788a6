/**
 * Revision history (Kubernetes' cleanupDeployment): a Deployment keeps at most
 * spec.revisionHistoryLimit old ReplicaSets for `kubectl rollout undo`; beyond that the oldest
 * (by revision) are deleted — only those that are fully scaled down (spec and status 0, their
 * generation observed) and not already being deleted.
 */
import type { Deployment, ReplicaSet } from '@setpoint/api';
import { byRevision, rsReplicas } from './replicasets.js';

/** revisionHistoryLimit that means "keep everything" (math.MaxInt32). */
export const UNLIMITED_HISTORY = 2147483647;

/** The old ReplicaSets to delete now, oldest revision first. */
export function replicaSetsToCleanUp(d: Deployment, oldRSs: readonly ReplicaSet[]): ReplicaSet[] {
  const limit = d.spec?.revisionHistoryLimit;
  if (limit === undefined || limit === UNLIMITED_HISTORY) return [];
  const alive = oldRSs.filter((rs) => rs.metadata.deletionTimestamp === undefined);
  const excess = alive.length - limit;
  if (excess <= 0) return [];
  return byRevision(alive)
    .slice(0, excess)
    .filter((rs) => (rs.status?.replicas ?? 0) === 0 && rsReplicas(rs) === 0 && (rs.metadata.generation ?? 0) <= (rs.status?.observedGeneration ?? 0));
}
