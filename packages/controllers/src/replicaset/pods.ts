/**
 * What a ReplicaSet needs to know about one pod (Kubernetes' podutil and controller_utils):
 * whether it is active, ready, and available. Pure functions; objects are read, never changed.
 */
import type { Pod } from '@setpoint/api';

/** Active: not Succeeded, not Failed, and not being deleted. Only active pods count as replicas. */
export function isPodActive(pod: Pod): boolean {
  const phase = pod.status?.phase;
  return phase !== 'Succeeded' && phase !== 'Failed' && pod.metadata.deletionTimestamp === undefined;
}

/** Terminating: deletionTimestamp set (the node is stopping it). */
export function isPodTerminating(pod: Pod): boolean {
  return pod.metadata.deletionTimestamp !== undefined;
}

/** Ready: its Ready condition is True. */
export function isPodReady(pod: Pod): boolean {
  return pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
}

/** When the pod became ready (ms since the epoch), if it is ready and the time is known. */
export function podReadyTime(pod: Pod): number | undefined {
  const ready = pod.status?.conditions?.find((c) => c.type === 'Ready' && c.status === 'True');
  const at = ready?.lastTransitionTime;
  if (at === undefined || at === null || at === '') return undefined;
  const t = Date.parse(at);
  return Number.isNaN(t) ? undefined : t;
}

/**
 * When a ready pod becomes available: `minReadySeconds` after it became ready (ms since the epoch).
 * Undefined when it is not ready, or ready at an unknown time with minReadySeconds > 0 (it then
 * never counts as available, as in Kubernetes).
 */
export function podAvailableAt(pod: Pod, minReadySeconds: number): number | undefined {
  if (!isPodReady(pod)) return undefined;
  if (minReadySeconds <= 0) return Number.NEGATIVE_INFINITY;
  const readyAt = podReadyTime(pod);
  return readyAt === undefined ? undefined : readyAt + minReadySeconds * 1000;
}

/** Available at `now`: ready, and for minReadySeconds > 0 ready since strictly more than that long. */
export function isPodAvailable(pod: Pod, minReadySeconds: number, now: number): boolean {
  const at = podAvailableAt(pod, minReadySeconds);
  return at !== undefined && (minReadySeconds <= 0 || at < now);
}
