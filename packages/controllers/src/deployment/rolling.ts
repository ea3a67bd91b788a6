/**
 * The steps of a RollingUpdate, as Kubernetes' rolling.go takes them, as pure decisions:
 *
 * 1. scale the new ReplicaSet up, as far as spec.replicas + maxSurge pods in all allow and never
 *    above spec.replicas; or down to spec.replicas;
 * 2. if it did not scale, scale old ReplicaSets down: at most
 *    Σ spec.replicas − minAvailable − (new ReplicaSet's unavailable pods), first the old
 *    ReplicaSets' unavailable pods (oldest ReplicaSet first; they cost no availability), then
 *    available ones while available pods stay ≥ minAvailable.
 *
 * Each function returns the scale changes to make; the caller writes them.
 *
 * Two deliberate, conservative additions to Kubernetes, so that the bounds hold for the pods that
 * actually exist at every moment and not only for the ReplicaSets' specs (a ReplicaSet controller
 * acts on a scale a little after it is written, and its status lags its pods):
 * - every scale-up is capped by the surge headroom: replicas + maxSurge minus, for each
 *   ReplicaSet, the most of spec.replicas, status.replicas and its active pods read from the API,
 *   and no headroom at all while some ReplicaSet's controller has not observed its last change
 *   (`surgeHeadroom`, `capScaleUps`; the caller applies them);
 * - the availability a scale-down may spend counts, for each ReplicaSet, the smaller of
 *   status.availableReplicas and spec.replicas (available pods above spec are going away already).
 * With settled ReplicaSets (status = spec, pods = spec) both leave Kubernetes' numbers unchanged.
 */
import type { Deployment, ReplicaSet } from '@setpoint/api';
import { desiredReplicas, isRollingUpdate, maxSurge, minAvailable } from './fenceposts.js';
import { activeReplicaSets, byCreation, rsReplicas, specReplicaCount } from './replicasets.js';

/**
 * One ReplicaSet to scale to `replicas`. Written when the size differs; with `refreshAnnotations`,
 * also when only its desired-replicas / max-replicas annotations are out of date.
 */
export interface ScaleChange {
  readonly rs: ReplicaSet;
  readonly replicas: number;
  readonly refreshAnnotations?: boolean;
}

/**
 * NewRSNewReplicas: the size the new ReplicaSet should have now. RollingUpdate: its size plus what
 * room is left under spec.replicas + maxSurge, capped at spec.replicas. Recreate: spec.replicas.
 */
export function newReplicaSetReplicas(d: Deployment, allRSs: readonly ReplicaSet[], newRS: ReplicaSet): number {
  const desired = desiredReplicas(d);
  if (!isRollingUpdate(d)) return desired;
  const current = specReplicaCount(allRSs);
  const maxTotal = desired + maxSurge(d);
  if (current >= maxTotal) return rsReplicas(newRS);
  return rsReplicas(newRS) + Math.min(maxTotal - current, desired - rsReplicas(newRS));
}

/** reconcileNewReplicaSet: the new ReplicaSet's next size, or undefined when it stays. */
export function planNewReplicaSetScale(d: Deployment, allRSs: readonly ReplicaSet[], newRS: ReplicaSet): number | undefined {
  const desired = desiredReplicas(d);
  const have = rsReplicas(newRS);
  if (have === desired) return undefined;
  if (have > desired) return desired;
  const next = newReplicaSetReplicas(d, allRSs, newRS);
  return next === have ? undefined : next;
}

/**
 * cleanupUnhealthyReplicas: take up to `maxCleanup` unavailable pods off the old ReplicaSets,
 * oldest ReplicaSet first. Returns the old ReplicaSets after it (same order as byCreation) and how
 * many were taken.
 */
export function planUnhealthyCleanup(oldRSs: readonly ReplicaSet[], maxCleanup: number): { oldRSs: ReplicaSet[]; changes: ScaleChange[]; count: number } {
  const sorted = byCreation(oldRSs);
  const changes: ScaleChange[] = [];
  let total = 0;
  const after = sorted.map((rs) => {
    if (total >= maxCleanup) return rs;
    const replicas = rsReplicas(rs);
    const available = keptAvailable(rs);
    if (replicas === 0 || replicas === available) return rs;
    const count = Math.min(maxCleanup - total, replicas - available);
    if (count <= 0) return rs;
    total += count;
    const scaled = withReplicas(rs, replicas - count);
    changes.push({ rs, replicas: replicas - count });
    return scaled;
  });
  return { oldRSs: after, changes, count: total };
}

/**
 * scaleDownOldReplicaSetsForRollingUpdate: take available pods off the old ReplicaSets (oldest
 * first) while the available pods of all ReplicaSets stay at least minAvailable.
 */
export function planOldScaleDown(d: Deployment, allRSs: readonly ReplicaSet[], oldRSs: readonly ReplicaSet[]): { changes: ScaleChange[]; count: number } {
  const floor = minAvailable(d);
  const available = allRSs.reduce((n, rs) => n + keptAvailable(rs), 0);
  if (available <= floor) return { changes: [], count: 0 };
  const budget = available - floor;
  const changes: ScaleChange[] = [];
  let total = 0;
  for (const rs of byCreation(oldRSs)) {
    if (total >= budget) break;
    const replicas = rsReplicas(rs);
    if (replicas === 0) continue;
    const count = Math.min(replicas, budget - total);
    changes.push({ rs, replicas: replicas - count });
    total += count;
  }
  return { changes, count: total };
}

/**
 * reconcileOldReplicaSets: the scale-downs of the (active) old ReplicaSets, cleanup of unhealthy
 * pods first; one change per ReplicaSet (its final size), oldest first. Empty when nothing may go.
 */
export function planOldReplicaSetsScaleDown(d: Deployment, allRSs: readonly ReplicaSet[], oldRSs: readonly ReplicaSet[], newRS: ReplicaSet): ScaleChange[] {
  const active = activeReplicaSets(oldRSs);
  if (specReplicaCount(active) === 0) return [];
  const newUnavailable = rsReplicas(newRS) - (newRS.status?.availableReplicas ?? 0);
  const maxScaledDown = specReplicaCount(allRSs) - minAvailable(d) - newUnavailable;
  if (maxScaledDown <= 0) return [];
  const cleanup = planUnhealthyCleanup(active, maxScaledDown);
  const scaleDown = planOldScaleDown(d, [...cleanup.oldRSs, newRS], cleanup.oldRSs);
  const key = (rs: ReplicaSet) => rs.metadata.uid ?? rs.metadata.name ?? '';
  const finalSize = new Map<string, number>();
  for (const change of [...cleanup.changes, ...scaleDown.changes]) finalSize.set(key(change.rs), change.replicas);
  return byCreation(active)
    .filter((rs) => finalSize.has(key(rs)))
    .map((rs) => ({ rs, replicas: finalSize.get(key(rs))! }));
}

/**
 * Whether the ReplicaSet controller has observed the latest spec (status.observedGeneration) of
 * every ReplicaSet not being deleted (a ReplicaSet on its way out may never be observed again).
 */
export function replicaSetsObserved(rss: readonly ReplicaSet[]): boolean {
  return rss.every((rs) => rs.metadata.deletionTimestamp !== undefined || (rs.status?.observedGeneration ?? 0) >= (rs.metadata.generation ?? 0));
}

/**
 * How many pods may still be added: spec.replicas + maxSurge minus what the ReplicaSets hold, each
 * counted as the most of spec.replicas, status.replicas and `activePods` (by ReplicaSet uid). 0 while
 * some ReplicaSet's controller has not observed its latest spec (it may still be creating pods for
 * an older, larger one).
 */
export function surgeHeadroom(d: Deployment, rss: readonly ReplicaSet[], activePods: ReadonlyMap<string, number>): number {
  if (!replicaSetsObserved(rss)) return 0;
  const held = rss.reduce((n, rs) => n + Math.max(rsReplicas(rs), rs.status?.replicas ?? 0, activePods.get(rs.metadata.uid ?? '') ?? 0), 0);
  return Math.max(0, desiredReplicas(d) + maxSurge(d) - held);
}

/** The changes with their increases cut, in order, so that together they add at most `headroom` pods. */
export function capScaleUps(changes: readonly ScaleChange[], headroom: number): ScaleChange[] {
  let left = headroom;
  return changes.map((change) => {
    const from = rsReplicas(change.rs);
    if (change.replicas <= from) return change;
    const add = Math.min(change.replicas - from, left);
    left -= add;
    return { ...change, replicas: from + add };
  });
}

/** min(status.availableReplicas, spec.replicas): the available pods a ReplicaSet keeps. */
export function keptAvailable(rs: ReplicaSet): number {
  return Math.min(rs.status?.availableReplicas ?? 0, rsReplicas(rs));
}

/** A copy of `rs` with spec.replicas = n. */
export function withReplicas(rs: ReplicaSet, n: number): ReplicaSet {
  return { ...rs, spec: { ...rs.spec!, replicas: n } };
}
