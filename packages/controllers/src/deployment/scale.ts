/**
 * Scaling a Deployment outside a rollout step (Kubernetes' sync.go `scale` and `isScalingEvent`):
 * when spec.replicas changes, or while paused, the ReplicaSets are resized proportionally so that a
 * rollout in flight is neither hastened nor set back. Pure decisions; the caller writes them.
 */
import type { Deployment, ReplicaSet } from '@setpoint/api';
import { desiredReplicas, isRollingUpdate, maxSurge } from './fenceposts.js';
import {
  DESIRED_REPLICAS_ANNOTATION,
  MAX_REPLICAS_ANNOTATION,
  activeReplicaSets,
  byCreation,
  bySizeNewer,
  bySizeOlder,
  intAnnotation,
  rsReplicas,
  specReplicaCount,
} from './replicasets.js';
import type { ScaleChange } from './rolling.js';

/**
 * isScalingEvent: some active ReplicaSet's desired-replicas annotation differs from spec.replicas
 * (the Deployment was scaled since that ReplicaSet was last sized).
 */
export function isScalingEvent(d: Deployment, allRSs: readonly (ReplicaSet | undefined)[]): boolean {
  return activeReplicaSets(allRSs).some((rs) => {
    const desired = intAnnotation(rs, DESIRED_REPLICAS_ANNOTATION);
    return desired !== undefined && desired !== desiredReplicas(d);
  });
}

/**
 * FindActiveOrLatest: the only active ReplicaSet; with none active, the new one or else the newest
 * old one; undefined when several are active (or there are none at all).
 */
export function findActiveOrLatest(newRS: ReplicaSet | undefined, oldRSs: readonly ReplicaSet[]): ReplicaSet | undefined {
  if (newRS === undefined && oldRSs.length === 0) return undefined;
  const newestFirst = byCreation(oldRSs).reverse();
  const active = activeReplicaSets([...newestFirst, newRS]);
  if (active.length === 0) return newRS ?? newestFirst[0];
  return active.length === 1 ? active[0] : undefined;
}

/** IsSaturated: the new ReplicaSet has, wants and has available all of spec.replicas. */
export function isSaturated(d: Deployment, rs: ReplicaSet | undefined): boolean {
  if (rs === undefined) return false;
  const desired = intAnnotation(rs, DESIRED_REPLICAS_ANNOTATION);
  const n = desiredReplicas(d);
  return desired !== undefined && rsReplicas(rs) === n && desired === n && (rs.status?.availableReplicas ?? 0) === n;
}

/**
 * getReplicaSetFraction: how many replicas `rs` gains (or loses, negative) when the Deployment's
 * maximum goes from the max-replicas annotation (else status.replicas) to spec.replicas + maxSurge.
 */
function replicaSetFraction(rs: ReplicaSet, d: Deployment): number {
  if (desiredReplicas(d) === 0) return -rsReplicas(rs);
  const deploymentMax = desiredReplicas(d) + maxSurge(d);
  const annotated = intAnnotation(rs, MAX_REPLICAS_ANNOTATION) ?? d.status?.replicas ?? 0;
  if (annotated <= 0) return 0; // no base to scale from; leftovers go to the largest ReplicaSet
  // integer.RoundToInt32: floor(x + 0.5).
  return Math.floor((rsReplicas(rs) * deploymentMax) / annotated + 0.5) - rsReplicas(rs);
}

/** GetProportion: the fraction, bounded by what is still to be added (or removed). */
function proportion(rs: ReplicaSet, d: Deployment, toAdd: number, added: number): number {
  if (rsReplicas(rs) === 0 || toAdd === 0 || toAdd === added) return 0;
  const fraction = replicaSetFraction(rs, d);
  const allowed = toAdd - added;
  return toAdd > 0 ? Math.min(fraction, allowed) : Math.max(fraction, allowed);
}

/**
 * `scale`: the changes a scaling event (or a paused Deployment) needs.
 * - One active ReplicaSet (or none: the new, else newest): it gets spec.replicas.
 * - The new ReplicaSet saturated: every active old one goes to 0.
 * - RollingUpdate with several active: spec.replicas + maxSurge − Σ spec.replicas is spread over
 *   them in proportion to their size (largest first; newer first when adding, older first when
 *   removing), leftovers to the first, never below 0.
 * In the proportional case every active ReplicaSet is listed, with refreshAnnotations (Kubernetes
 * rewrites their replicas annotations even when their size stays).
 */
export function planProportionalScale(d: Deployment, newRS: ReplicaSet | undefined, oldRSs: readonly ReplicaSet[]): ScaleChange[] {
  const activeOrLatest = findActiveOrLatest(newRS, oldRSs);
  if (activeOrLatest !== undefined) {
    return rsReplicas(activeOrLatest) === desiredReplicas(d) ? [] : [{ rs: activeOrLatest, replicas: desiredReplicas(d) }];
  }
  if (isSaturated(d, newRS)) return activeReplicaSets(oldRSs).map((rs) => ({ rs, replicas: 0 }));
  if (!isRollingUpdate(d)) return [];
  const active = activeReplicaSets([...oldRSs, newRS]);
  const allowed = desiredReplicas(d) > 0 ? desiredReplicas(d) + maxSurge(d) : 0;
  const toAdd = allowed - specReplicaCount(active);
  const ordered = toAdd > 0 ? bySizeNewer(active) : toAdd < 0 ? bySizeOlder(active) : active;
  let added = 0;
  const sizes = ordered.map((rs) => {
    if (toAdd === 0) return rsReplicas(rs);
    const p = proportion(rs, d, toAdd, added);
    added += p;
    return rsReplicas(rs) + p;
  });
  if (toAdd !== 0 && sizes.length > 0) sizes[0] = Math.max(0, sizes[0]! + (toAdd - added));
  return ordered.map((rs, i) => ({ rs, replicas: sizes[i]!, refreshAnnotations: true }));
}
