/**
 * The steps of a Recreate rollout (Kubernetes' recreate.go) as pure decisions: every old
 * ReplicaSet to 0; then wait until no old pod is left running; only then create the new
 * ReplicaSet (if missing) and scale it to spec.replicas.
 */
import type { Pod, ReplicaSet } from '@setpoint/api';
import { actualReplicaCount, activeReplicaSets } from './replicasets.js';
import type { ScaleChange } from './rolling.js';

/** Pods of a Deployment grouped by the uid of the ReplicaSet that controls them. */
export type PodsByReplicaSet = ReadonlyMap<string, readonly Pod[]>;

/** scaleDownOldReplicaSetsForRecreate: every active old ReplicaSet to 0. */
export function planRecreateScaleDown(oldRSs: readonly ReplicaSet[]): ScaleChange[] {
  return activeReplicaSets(oldRSs).map((rs) => ({ rs, replicas: 0 }));
}

/**
 * oldPodsRunning: an old ReplicaSet still reports pods, or a pod of a ReplicaSet other than the new
 * one is in a phase other than Succeeded or Failed (Unknown and Pending count as running).
 */
export function oldPodsRunning(newRS: ReplicaSet | undefined, oldRSs: readonly ReplicaSet[], pods: PodsByReplicaSet): boolean {
  if (actualReplicaCount(oldRSs) > 0) return true;
  for (const [uid, list] of pods) {
    if (newRS !== undefined && newRS.metadata.uid === uid) continue;
    if (list.some((pod) => pod.status?.phase !== 'Succeeded' && pod.status?.phase !== 'Failed')) return true;
  }
  return false;
}

/**
 * getPodMapForDeployment: the pods (already matching the Deployment's selector) grouped by their
 * controller ReplicaSet, for the ReplicaSets given; every ReplicaSet gets an entry.
 */
export function podsByReplicaSet(rss: readonly ReplicaSet[], pods: readonly Pod[]): Map<string, Pod[]> {
  const map = new Map<string, Pod[]>();
  for (const rs of rss) if (rs.metadata.uid !== undefined) map.set(rs.metadata.uid, []);
  for (const pod of pods) {
    const owner = pod.metadata.ownerReferences?.find((r) => r.controller === true);
    if (owner !== undefined) map.get(owner.uid)?.push(pod);
  }
  return map;
}
