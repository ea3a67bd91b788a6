/**
 * Which pods a ReplicaSet deletes first when it has too many: Kubernetes' getPodsToDelete and
 * controller.ActivePodsWithRanks (with PodDeletionCost and LogarithmicScaleDown, both on by default
 * in Kubernetes). Pure functions of the pods and a `now`; nothing here reads or writes the API.
 *
 * The order, earliest deleted first:
 * 1. unassigned (no spec.nodeName) before assigned;
 * 2. Pending before Unknown before Running;
 * 3. not ready before ready;
 * 4. lower `controller.kubernetes.io/pod-deletion-cost` before higher;
 * 5. more active related pods on the same node ("doubled up") before fewer;
 * 6. both ready: ready more recently before ready longer (compared on a log2 scale of the age);
 * 7. more container restarts before fewer (regular containers, then sidecars);
 * 8. created more recently before older (log2 scale of the age); missing timestamps first.
 * Pods equal on a log2 scale are ordered by uid (a stable pseudo-random order).
 */
import type { Pod } from '@setpoint/api';
import { isPodActive, isPodReady, podReadyTime } from './pods.js';

/** The annotation that lets a user say which pods are cheaper to delete (an int32; invalid reads as 0). */
export const POD_DELETION_COST = 'controller.kubernetes.io/pod-deletion-cost';

/** A pod and its rank: the number of active related pods on its node. */
export interface RankedPod {
  readonly pod: Pod;
  readonly rank: number;
}

const PHASE_ORDINAL: Readonly<Record<string, number>> = { Pending: 0, Unknown: 1, Running: 2 };

const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;

/** The pod's deletion cost: its annotation as an int32, 0 when absent or invalid. */
export function podDeletionCost(pod: Pod): number {
  const value = pod.metadata.annotations?.[POD_DELETION_COST];
  if (value === undefined || !/^[+-]?[0-9]+$/.test(value)) return 0;
  const n = Number(value);
  return n >= INT32_MIN && n <= INT32_MAX ? n : 0;
}

/** The highest restart count of the pod's regular containers, and of its sidecars (restartable init containers). */
export function maxContainerRestarts(pod: Pod): { readonly regular: number; readonly sidecar: number } {
  let regular = 0;
  for (const c of pod.status?.containerStatuses ?? []) regular = Math.max(regular, c.restartCount ?? 0);
  const sidecars = new Set((pod.spec?.initContainers ?? []).filter((c) => c.restartPolicy === 'Always').map((c) => c.name));
  let sidecar = 0;
  for (const c of pod.status?.initContainerStatuses ?? []) if (sidecars.has(c.name)) sidecar = Math.max(sidecar, c.restartCount ?? 0);
  return { regular, sidecar };
}

/** Milliseconds since the epoch of an RFC 3339 time; undefined when absent or unparsable (Go's zero time). */
function timeOf(value: string | null | undefined): number | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  const t = Date.parse(value);
  return Number.isNaN(t) ? undefined : t;
}

/** floor(log2(age in nanoseconds)), or -1 for an age that is not positive (Kubernetes' logarithmicRankDiff). */
function logRank(t: number, now: number): number {
  const ageNs = (now - t) * 1e6;
  return ageNs > 0 ? Math.floor(Math.log2(ageNs)) : -1;
}

/**
 * Compares two times for "more recent first": -1 when `a` goes first (missing, or later on the
 * log scale), 1 when `b` does, 0 when both are equal. On an equal log2 rank, the uids decide.
 */
function newerFirst(a: number | undefined, b: number | undefined, now: number, uidA: string, uidB: string): number {
  if (a === b) return 0;
  if (a === undefined || b === undefined) return a === undefined ? -1 : 1;
  const diff = logRank(a, now) - logRank(b, now);
  if (diff !== 0) return diff < 0 ? -1 : 1;
  return uidA < uidB ? -1 : uidA > uidB ? 1 : 0;
}

/**
 * The deletion order of two ranked pods at `now`: negative when `a` should be deleted before `b`,
 * positive when after, 0 when neither is preferred.
 */
export function compareForDeletion(a: RankedPod, b: RankedPod, now: number): number {
  const pa = a.pod;
  const pb = b.pod;
  // 1. Unassigned < assigned.
  const nodeA = pa.spec?.nodeName ?? '';
  const nodeB = pb.spec?.nodeName ?? '';
  if (nodeA !== nodeB && (nodeA === '' || nodeB === '')) return nodeA === '' ? -1 : 1;
  // 2. Pending < Unknown < Running.
  const phaseA = PHASE_ORDINAL[pa.status?.phase ?? ''] ?? 0;
  const phaseB = PHASE_ORDINAL[pb.status?.phase ?? ''] ?? 0;
  if (phaseA !== phaseB) return phaseA - phaseB;
  // 3. Not ready < ready.
  const readyA = isPodReady(pa);
  const readyB = isPodReady(pb);
  if (readyA !== readyB) return readyA ? 1 : -1;
  // 4. Lower deletion cost < higher.
  const costA = podDeletionCost(pa);
  const costB = podDeletionCost(pb);
  if (costA !== costB) return costA < costB ? -1 : 1;
  // 5. Doubled up < not doubled up.
  if (a.rank !== b.rank) return a.rank > b.rank ? -1 : 1;
  const uidA = pa.metadata.uid ?? '';
  const uidB = pb.metadata.uid ?? '';
  // 6. Ready for less time < more time.
  if (readyA && readyB) {
    const byReady = newerFirst(podReadyTime(pa), podReadyTime(pb), now, uidA, uidB);
    if (byReady !== 0) return byReady;
  }
  // 7. More restarts < fewer restarts.
  const restartsA = maxContainerRestarts(pa);
  const restartsB = maxContainerRestarts(pb);
  if (restartsA.regular !== restartsB.regular) return restartsA.regular > restartsB.regular ? -1 : 1;
  if (restartsA.sidecar !== restartsB.sidecar) return restartsA.sidecar > restartsB.sidecar ? -1 : 1;
  // 8. Newer < older.
  return newerFirst(timeOf(pa.metadata.creationTimestamp), timeOf(pb.metadata.creationTimestamp), now, uidA, uidB);
}

/**
 * Ranks each pod by how many active pods of `related` share its node (Kubernetes'
 * getPodsRankedByRelatedPodsOnSameNode). `related` is usually a superset of `pods`: the pods of
 * every ReplicaSet with the same controller (a Deployment's old and new ReplicaSets).
 */
export function rankByRelatedPodsOnSameNode(pods: readonly Pod[], related: readonly Pod[]): RankedPod[] {
  const onNode = new Map<string, number>();
  for (const pod of related) {
    if (!isPodActive(pod)) continue;
    const node = pod.spec?.nodeName ?? '';
    onNode.set(node, (onNode.get(node) ?? 0) + 1);
  }
  return pods.map((pod) => ({ pod, rank: onNode.get(pod.spec?.nodeName ?? '') ?? 0 }));
}

/**
 * The `count` pods of `pods` to delete first (all of them when count ≥ their number, unsorted, as
 * Kubernetes does). The input is not changed.
 */
export function podsToDelete(pods: readonly Pod[], related: readonly Pod[], count: number, now: number): Pod[] {
  if (count <= 0) return [];
  if (count >= pods.length) return [...pods];
  return rankByRelatedPodsOnSameNode(pods, related)
    .sort((a, b) => compareForDeletion(a, b, now))
    .slice(0, count)
    .map((r) => r.pod);
}
