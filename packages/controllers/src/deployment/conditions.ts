/**
 * Deployment conditions as deploymentutil keeps them. Unlike the runtime's setCondition, a
 * condition whose status and reason are unchanged is left exactly as it is (message and
 * lastUpdateTime included): Progressing's lastUpdateTime is the time of the last observed
 * progress, which the progress deadline counts from.
 */
import type { DeploymentCondition, DeploymentStatus } from '@setpoint/api';

/** Condition types. */
export const AVAILABLE = 'Available';
export const PROGRESSING = 'Progressing';
export const REPLICA_FAILURE = 'ReplicaFailure';

/** The reasons the controller gives (deploymentutil's constants). */
export const Reasons = {
  /** Progressing: a ReplicaSet was scaled as part of the rollout. */
  ReplicaSetUpdated: 'ReplicaSetUpdated',
  /** Progressing=False: creating the new ReplicaSet failed. */
  FailedRSCreate: 'ReplicaSetCreateError',
  /** Progressing: the new ReplicaSet was created. */
  NewReplicaSetCreated: 'NewReplicaSetCreated',
  /** Progressing: an existing ReplicaSet was found to be the new one. */
  FoundNewReplicaSet: 'FoundNewReplicaSet',
  /** Progressing: the rollout completed. */
  NewReplicaSetAvailable: 'NewReplicaSetAvailable',
  /** Progressing=False: no progress within progressDeadlineSeconds. */
  ProgressDeadlineExceeded: 'ProgressDeadlineExceeded',
  /** Progressing=Unknown: the Deployment is paused. */
  DeploymentPaused: 'DeploymentPaused',
  /** Progressing=Unknown: the Deployment was resumed. */
  DeploymentResumed: 'DeploymentResumed',
  /** Available=True. */
  MinimumReplicasAvailable: 'MinimumReplicasAvailable',
  /** Available=False. */
  MinimumReplicasUnavailable: 'MinimumReplicasUnavailable',
} as const;

/** metav1.Time as Kubernetes writes it: RFC 3339, seconds precision, UTC. */
export function formatTime(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** NewDeploymentCondition: both times `now`. */
export function newCondition(type: string, status: DeploymentCondition['status'], reason: string, message: string, now: number): DeploymentCondition {
  const t = formatTime(now);
  return { type, status, lastUpdateTime: t, lastTransitionTime: t, reason, message };
}

/** GetDeploymentCondition. */
export function getCondition(status: DeploymentStatus | undefined, type: string): DeploymentCondition | undefined {
  return status?.conditions?.find((c) => c.type === type);
}

/**
 * SetDeploymentCondition, in place on `status`: nothing changes when a condition of that type has
 * the same status and reason; otherwise it replaces it (moved to the end), keeping the old
 * lastTransitionTime when the status is the same.
 */
export function setCondition(status: DeploymentStatus, condition: DeploymentCondition): void {
  const current = getCondition(status, condition.type);
  if (current !== undefined && current.status === condition.status && current.reason === condition.reason) return;
  const next = { ...condition };
  if (current !== undefined && current.status === condition.status && current.lastTransitionTime !== undefined) next.lastTransitionTime = current.lastTransitionTime;
  status.conditions = [...(status.conditions ?? []).filter((c) => c.type !== condition.type), next];
}

/** RemoveDeploymentCondition, in place; an emptied list is dropped. */
export function removeCondition(status: DeploymentStatus, type: string): void {
  const rest = (status.conditions ?? []).filter((c) => c.type !== type);
  if (rest.length > 0) status.conditions = rest;
  else delete status.conditions;
}
