/**
 * The taints the node lifecycle controller owns, and how a node's health and conditions map to
 * them (Kubernetes' doNoScheduleTaintingPass and processTaintBaseEviction):
 * - NoSchedule, applied at once: not-ready / unreachable from the node's health, memory-pressure,
 *   disk-pressure, pid-pressure and network-unavailable from conditions that are True, and
 *   unschedulable from spec.unschedulable;
 * - NoExecute, which evicts pods: not-ready or unreachable, never both. A node that needs one is
 *   queued for the zone's rate limiter (see tainter.ts), except that a node already carrying the
 *   opposite one has it swapped at once; a healthy node has both removed at once.
 * Taints are matched by key and effect; taints the controller does not own are never touched.
 * Every function here is pure.
 */
import type { Node, Taint } from '@setpoint/api';
import { isHealthy, nodeCondition, type NodeHealth } from './health.js';

export const TAINT_NOT_READY = 'node.kubernetes.io/not-ready';
export const TAINT_UNREACHABLE = 'node.kubernetes.io/unreachable';
export const TAINT_MEMORY_PRESSURE = 'node.kubernetes.io/memory-pressure';
export const TAINT_DISK_PRESSURE = 'node.kubernetes.io/disk-pressure';
export const TAINT_PID_PRESSURE = 'node.kubernetes.io/pid-pressure';
export const TAINT_NETWORK_UNAVAILABLE = 'node.kubernetes.io/network-unavailable';
export const TAINT_UNSCHEDULABLE = 'node.kubernetes.io/unschedulable';

/** Conditions that, when True, keep new pods off the node. */
const PRESSURE_TAINTS: ReadonlyArray<readonly [condition: string, key: string]> = [
  ['MemoryPressure', TAINT_MEMORY_PRESSURE],
  ['DiskPressure', TAINT_DISK_PRESSURE],
  ['NetworkUnavailable', TAINT_NETWORK_UNAVAILABLE],
  ['PIDPressure', TAINT_PID_PRESSURE],
];

/** The NoSchedule taint keys this controller owns. */
const OWNED_NO_SCHEDULE = new Set([TAINT_NOT_READY, TAINT_UNREACHABLE, TAINT_UNSCHEDULABLE, ...PRESSURE_TAINTS.map(([, key]) => key)]);

/** The NoExecute taint a node in `health` should carry, if any. */
export function noExecuteTaintKey(health: NodeHealth): string | undefined {
  if (health === 'NotReady') return TAINT_NOT_READY;
  if (health === 'Unreachable') return TAINT_UNREACHABLE;
  return undefined;
}

/** The NoSchedule taint keys `node` should carry, in a stable order. */
export function noScheduleTaintKeys(node: Node, health: NodeHealth): string[] {
  const keys: string[] = [];
  const ready = noExecuteTaintKey(health);
  if (ready !== undefined) keys.push(ready);
  for (const [condition, key] of PRESSURE_TAINTS) {
    if (nodeCondition(node, condition)?.status === 'True') keys.push(key);
  }
  if (node.spec?.unschedulable === true) keys.push(TAINT_UNSCHEDULABLE);
  return keys;
}

/** Whether `taints` hold one with this key and effect. */
export function hasTaint(taints: readonly Taint[], key: string, effect: Taint['effect']): boolean {
  return taints.some((t) => t.key === key && t.effect === effect);
}

function isOwnedNoExecute(t: Taint): boolean {
  return t.effect === 'NoExecute' && (t.key === TAINT_NOT_READY || t.key === TAINT_UNREACHABLE);
}

/** `taints` with `key`:NoExecute (timeAdded `now`, kept when present) and without the opposite one. */
export function withNoExecute(taints: readonly Taint[], key: string, now: string): Taint[] {
  const next = taints.filter((t) => !isOwnedNoExecute(t) || t.key === key);
  if (!hasTaint(next, key, 'NoExecute')) next.push({ key, effect: 'NoExecute', timeAdded: now });
  return next;
}

/** `taints` without the controller's NoExecute taints (Kubernetes' markNodeAsReachable). */
export function withoutNoExecute(taints: readonly Taint[]): Taint[] {
  return taints.filter((t) => !isOwnedNoExecute(t));
}

/** What the controller does to a node's taints now. */
export interface TaintPlan {
  /** The node's taints afterwards. */
  readonly taints: Taint[];
  /** Whether they differ from the node's. */
  readonly changed: boolean;
  /** The NoExecute taint the node still needs through the zone's rate limiter, if any. */
  readonly queue: string | undefined;
}

/**
 * The taints of `node` in `health` (see the file comment): NoSchedule made to match; NoExecute
 * removed when healthy, swapped when the opposite one is there, otherwise left for the rate
 * limiter (`queue`). An Unreported node keeps its NoExecute taints as they are.
 */
export function planTaints(node: Node, health: NodeHealth, now: string): TaintPlan {
  const current = node.spec?.taints ?? [];
  const wantNoSchedule = noScheduleTaintKeys(node, health);
  let next = current.filter((t) => t.effect !== 'NoSchedule' || !OWNED_NO_SCHEDULE.has(t.key) || wantNoSchedule.includes(t.key));
  for (const key of wantNoSchedule) {
    if (!hasTaint(next, key, 'NoSchedule')) next.push({ key, effect: 'NoSchedule' });
  }
  let queue: string | undefined;
  const want = noExecuteTaintKey(health);
  if (isHealthy(health)) {
    next = withoutNoExecute(next);
  } else if (want !== undefined && !hasTaint(next, want, 'NoExecute')) {
    const opposite = want === TAINT_NOT_READY ? TAINT_UNREACHABLE : TAINT_NOT_READY;
    if (hasTaint(next, opposite, 'NoExecute')) next = withNoExecute(next, want, now);
    else queue = want;
  }
  return { taints: next, changed: !sameTaints(current, next), queue };
}

/** Whether two taint lists hold the same taints in the same order. */
export function sameTaints(a: readonly Taint[], b: readonly Taint[]): boolean {
  return a.length === b.length && a.every((t, i) => t.key === b[i]?.key && t.effect === b[i]?.effect && (t.value ?? '') === (b[i]?.value ?? '') && t.timeAdded === b[i]?.timeAdded);
}
