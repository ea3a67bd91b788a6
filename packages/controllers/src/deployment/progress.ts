/**
 * A Deployment's status and its Available / Progressing / ReplicaFailure conditions, computed as
 * Kubernetes' sync.go (calculateStatus) and progress.go (syncRolloutStatus,
 * requeueStuckDeployment) compute them. Pure: `now` is passed in, nothing is written.
 *
 * Zero counts are left out, as Kubernetes' omitempty leaves them out on the wire.
 */
import { jsonClone, type Deployment, type DeploymentCondition, type DeploymentStatus, type ReplicaSet } from '@setpoint/api';
import { AVAILABLE, PROGRESSING, REPLICA_FAILURE, Reasons, getCondition, newCondition, removeCondition, setCondition } from './conditions.js';
import { desiredReplicas, maxUnavailable } from './fenceposts.js';
import { actualReplicaCount, availableReplicaCount, readyReplicaCount, specReplicaCount } from './replicasets.js';

/** progressDeadlineSeconds that means "no deadline" (math.MaxInt32). */
export const NO_PROGRESS_DEADLINE = 2147483647;

/** HasProgressDeadline. */
export function hasProgressDeadline(d: Deployment): boolean {
  const s = d.spec?.progressDeadlineSeconds;
  return s !== undefined && s !== NO_PROGRESS_DEADLINE;
}

function counts(status: DeploymentStatus | undefined) {
  return {
    replicas: status?.replicas ?? 0,
    updated: status?.updatedReplicas ?? 0,
    ready: status?.readyReplicas ?? 0,
    available: status?.availableReplicas ?? 0,
    observedGeneration: status?.observedGeneration ?? 0,
  };
}

/**
 * calculateStatus: counts summed over the ReplicaSets' status (updatedReplicas from the new one),
 * unavailableReplicas = Σ spec.replicas − available (not below 0), collisionCount and conditions
 * carried over, and Available set by whether available ≥ spec.replicas − maxUnavailable.
 */
export function calculateStatus(allRSs: readonly ReplicaSet[], newRS: ReplicaSet | undefined, d: Deployment, now: number): DeploymentStatus {
  const available = availableReplicaCount(allRSs);
  const unavailable = Math.max(0, specReplicaCount(allRSs) - available);
  const status: DeploymentStatus = {};
  const put = (key: keyof DeploymentStatus & string, value: number) => {
    if (value !== 0) status[key] = value;
  };
  put('observedGeneration', d.metadata.generation ?? 0);
  put('replicas', actualReplicaCount(allRSs));
  put('updatedReplicas', actualReplicaCount([newRS]));
  put('readyReplicas', readyReplicaCount(allRSs));
  put('availableReplicas', available);
  put('unavailableReplicas', unavailable);
  if (d.status?.collisionCount !== undefined) status.collisionCount = d.status.collisionCount;
  if (d.status?.conditions !== undefined && d.status.conditions.length > 0) status.conditions = d.status.conditions.map((c) => ({ ...c }));
  if (available >= desiredReplicas(d) - maxUnavailable(d)) {
    setCondition(status, newCondition(AVAILABLE, 'True', Reasons.MinimumReplicasAvailable, 'Deployment has minimum availability.', now));
  } else {
    setCondition(status, newCondition(AVAILABLE, 'False', Reasons.MinimumReplicasUnavailable, 'Deployment does not have minimum availability.', now));
  }
  return status;
}

/** DeploymentComplete: every desired replica updated and available, no old ones, generation observed. */
export function deploymentComplete(d: Deployment, status: DeploymentStatus): boolean {
  const n = desiredReplicas(d);
  const c = counts(status);
  return c.updated === n && c.replicas === n && c.available === n && c.observedGeneration >= (d.metadata.generation ?? 0);
}

/** DeploymentProgressing: more updated, ready or available pods than `d.status` says, or fewer old ones. */
export function deploymentProgressing(d: Deployment, status: DeploymentStatus): boolean {
  const was = counts(d.status);
  const now = counts(status);
  return now.updated > was.updated || now.replicas - now.updated < was.replicas - was.updated || now.ready > was.ready || now.available > was.available;
}

/**
 * DeploymentTimedOut: the Progressing condition in `status` is older than progressDeadlineSeconds
 * (counted from its lastUpdateTime), or already says ProgressDeadlineExceeded. A completed rollout
 * never times out.
 */
export function deploymentTimedOut(d: Deployment, status: DeploymentStatus, now: number): boolean {
  if (!hasProgressDeadline(d)) return false;
  const condition = getCondition(status, PROGRESSING);
  if (condition === undefined || condition.reason === Reasons.NewReplicaSetAvailable) return false;
  if (condition.reason === Reasons.ProgressDeadlineExceeded) return true;
  const from = Date.parse(condition.lastUpdateTime ?? '');
  if (Number.isNaN(from)) return false;
  return from + d.spec!.progressDeadlineSeconds! * 1000 < now;
}

function replicaFailure(allRSs: readonly ReplicaSet[], newRS: ReplicaSet | undefined): DeploymentCondition | undefined {
  const failures = (rs: ReplicaSet | undefined) =>
    (rs?.status?.conditions ?? [])
      .filter((c) => c.type === REPLICA_FAILURE)
      .map((c): DeploymentCondition => {
        const out: DeploymentCondition = { type: c.type, status: c.status };
        if (c.lastTransitionTime !== undefined) {
          out.lastUpdateTime = c.lastTransitionTime;
          out.lastTransitionTime = c.lastTransitionTime;
        }
        if (c.reason !== undefined) out.reason = c.reason;
        if (c.message !== undefined) out.message = c.message;
        return out;
      });
  return failures(newRS)[0] ?? allRSs.flatMap((rs) => failures(rs))[0];
}

/**
 * syncRolloutStatus's new status: calculateStatus, then (with a progress deadline, unless the
 * last rollout already completed) Progressing set to NewReplicaSetAvailable when complete,
 * refreshed as ReplicaSetUpdated (lastUpdateTime now) on any progress, or ProgressDeadlineExceeded
 * once timed out; without a deadline Progressing is removed. ReplicaFailure mirrors the
 * ReplicaSets' (the new one's first).
 */
export function rolloutStatus(d: Deployment, allRSs: readonly ReplicaSet[], newRS: ReplicaSet | undefined, now: number): DeploymentStatus {
  const status = calculateStatus(allRSs, newRS, d, now);
  if (!hasProgressDeadline(d)) removeCondition(status, PROGRESSING);
  const current = getCondition(d.status, PROGRESSING);
  const complete = (status.replicas ?? 0) === (status.updatedReplicas ?? 0) && current?.reason === Reasons.NewReplicaSetAvailable;
  if (hasProgressDeadline(d) && !complete) {
    const subject = newRS !== undefined ? `ReplicaSet "${newRS.metadata.name}"` : `Deployment "${d.metadata.name}"`;
    if (deploymentComplete(d, status)) {
      setCondition(status, newCondition(PROGRESSING, 'True', Reasons.NewReplicaSetAvailable, `${subject} has successfully progressed.`, now));
    } else if (deploymentProgressing(d, status)) {
      const condition = newCondition(PROGRESSING, 'True', Reasons.ReplicaSetUpdated, `${subject} is progressing.`, now);
      if (current !== undefined) {
        if (current.status === 'True' && current.lastTransitionTime !== undefined) condition.lastTransitionTime = current.lastTransitionTime;
        removeCondition(status, PROGRESSING);
      }
      setCondition(status, condition);
    } else if (deploymentTimedOut(d, status, now)) {
      setCondition(status, newCondition(PROGRESSING, 'False', Reasons.ProgressDeadlineExceeded, `${subject} has timed out progressing.`, now));
    }
  }
  const failure = replicaFailure(allRSs, newRS);
  if (failure !== undefined) setCondition(status, failure);
  else removeCondition(status, REPLICA_FAILURE);
  return status;
}

/**
 * requeueStuckDeployment: in how many ms to look again for the progress deadline, or undefined when
 * no check is due (no deadline, no Progressing condition, complete, or already timed out). Counted
 * from the Progressing condition of `status` (the status just computed), plus one second so that
 * the check does not land early (Kubernetes adds the same second). Where Kubernetes requeues with
 * backoff when less than a second is left, this waits that second: never a hot loop.
 */
export function progressCheckDelayMs(d: Deployment, status: DeploymentStatus, now: number): number | undefined {
  const condition = getCondition(status, PROGRESSING);
  if (!hasProgressDeadline(d) || condition === undefined) return undefined;
  if (deploymentComplete(d, status) || condition.reason === Reasons.ProgressDeadlineExceeded || condition.reason === Reasons.NewReplicaSetAvailable) return undefined;
  const from = Date.parse(condition.lastUpdateTime ?? '');
  if (Number.isNaN(from)) return undefined;
  return Math.max(0, from + d.spec!.progressDeadlineSeconds! * 1000 - now) + 1000;
}

/**
 * checkPausedConditions: the status with Progressing=Unknown DeploymentPaused when paused, or
 * DeploymentResumed when resumed after a pause; undefined when nothing changes (no deadline,
 * already said, or a ProgressDeadlineExceeded that must not be hidden).
 */
export function pausedStatus(d: Deployment, now: number): DeploymentStatus | undefined {
  if (!hasProgressDeadline(d)) return undefined;
  const condition = getCondition(d.status, PROGRESSING);
  if (condition?.reason === Reasons.ProgressDeadlineExceeded) return undefined;
  const pausedSaid = condition?.reason === Reasons.DeploymentPaused;
  const paused = d.spec?.paused === true;
  if (paused === pausedSaid) return undefined;
  const status: DeploymentStatus = jsonClone(d.status ?? {});
  setCondition(
    status,
    paused
      ? newCondition(PROGRESSING, 'Unknown', Reasons.DeploymentPaused, 'Deployment is paused', now)
      : newCondition(PROGRESSING, 'Unknown', Reasons.DeploymentResumed, 'Deployment is resumed', now),
  );
  return status;
}
