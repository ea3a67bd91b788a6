/**
 * Node health from heartbeats, as Kubernetes' node lifecycle controller reads it
 * (tryUpdateNodeHealth): a node proves it is alive by renewing its Lease kube-node-lease/<node>
 * (coordination.k8s.io/v1, spec.renewTime) or, without a Lease, by refreshing its Ready
 * condition's lastHeartbeatTime. The controller remembers, on its own clock, when it last saw
 * either change (the probe time); a node not heard from for the grace period is silent, and its
 * agent-owned conditions become Unknown.
 *
 * Guarantees: every function here is pure; times are epoch milliseconds of the controller's clock
 * (never the agent's, so clock skew between machines does not matter: only changes are compared).
 * Divergence: a node that never posted a Ready condition gets the startup grace period from when
 * this controller first saw it, not from its creationTimestamp (the server's clock).
 */
import type { Lease, Node, NodeCondition } from '@setpoint/api';

/** The namespace of node heartbeat Leases. */
export const NODE_LEASE_NAMESPACE = 'kube-node-lease';

/** The conditions the node agent owns, set to Unknown when it falls silent (NetworkUnavailable is not). */
export const AGENT_CONDITION_TYPES: readonly string[] = Object.freeze(['Ready', 'MemoryPressure', 'DiskPressure', 'PIDPressure']);

export const REASON_STATUS_UNKNOWN = 'NodeStatusUnknown';
export const MESSAGE_STATUS_UNKNOWN = 'Kubelet stopped posting node status.';
export const REASON_NEVER_UPDATED = 'NodeStatusNeverUpdated';
export const MESSAGE_NEVER_UPDATED = 'Kubelet never posted node status.';

/** What the controller remembers of one node's heartbeats. */
export interface Probe {
  /** The node's uid: a node deleted and created again starts a new probe. */
  readonly uid: string;
  /** The Ready condition's lastHeartbeatTime (ms) when last seen (undefined: none). */
  readonly heartbeatMs: number | undefined;
  /** The Lease's renewTime (ms) when last seen (undefined: no Lease, or none renewed). */
  readonly renewMs: number | undefined;
  /** When a heartbeat was last seen fresh, or the node first seen: the grace period runs from here. */
  readonly probeMs: number;
  /** When a heartbeat was last seen to change (undefined: only ever seen once, as on a restart). */
  readonly changedMs: number | undefined;
}

/** The grace periods of the monitor. */
export interface GracePeriods {
  /** For a node that has posted a Ready condition (--node-monitor-grace-period). */
  readonly monitorMs: number;
  /** For a node that never has (--node-startup-grace-period). */
  readonly startupMs: number;
}

/**
 * How the controller sees a node:
 * - Ready / NotReady: heard from, and its agent says Ready True / False;
 * - Unreachable: silent for the grace period, or its agent says Ready Unknown;
 * - Reachable: heartbeats again after this controller marked it Unknown; the conditions are the
 *   agent's to restore, and meanwhile the node counts as healthy;
 * - Unreported: heard from, but never posted a Ready condition (nothing to act on yet).
 */
export type NodeHealth = 'Ready' | 'NotReady' | 'Unreachable' | 'Reachable' | 'Unreported';

/** Whether a node in this health counts as healthy (for taints and zone states). */
export function isHealthy(health: NodeHealth): boolean {
  return health === 'Ready' || health === 'Reachable';
}

/** The node's condition of `type`, if any. */
export function nodeCondition(node: Node, type: string): NodeCondition | undefined {
  return node.status?.conditions?.find((c) => c.type === type);
}

/** RFC 3339 with seconds precision (metav1.Time). */
export function formatTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z');
}

function parseTime(value: string | null | undefined): number | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : ms;
}

/**
 * The probe after looking at `node` and its `lease` at `now`: a Ready heartbeat or a Lease renewal
 * later than the last one seen moves probeMs and changedMs to now (an older copy of the node, as a
 * lagging cache may hold, changes nothing). A node seen for the first time (or with a new uid)
 * starts at now, unchanged.
 */
export function observeHeartbeat(previous: Probe | undefined, node: Node, lease: Lease | undefined, now: number): Probe {
  const uid = node.metadata.uid ?? '';
  const heartbeatMs = parseTime(nodeCondition(node, 'Ready')?.lastHeartbeatTime);
  const renewMs = parseTime(lease?.spec?.renewTime);
  if (previous === undefined || previous.uid !== uid) return { uid, heartbeatMs, renewMs, probeMs: now, changedMs: undefined };
  const beat = heartbeatMs !== undefined && (previous.heartbeatMs === undefined || heartbeatMs > previous.heartbeatMs);
  const renewed = renewMs !== undefined && (previous.renewMs === undefined || renewMs > previous.renewMs);
  if (!beat && !renewed) return previous;
  return { uid, heartbeatMs: beat ? heartbeatMs : previous.heartbeatMs, renewMs: renewed ? renewMs : previous.renewMs, probeMs: now, changedMs: now };
}

/**
 * The probe after this controller itself wrote `node`'s status: the heartbeat it holds is taken
 * as seen, without counting as one from the agent.
 */
export function acknowledgeOwnWrite(probe: Probe, node: Node): Probe {
  const heartbeatMs = parseTime(nodeCondition(node, 'Ready')?.lastHeartbeatTime);
  if (heartbeatMs === undefined || (probe.heartbeatMs !== undefined && heartbeatMs <= probe.heartbeatMs)) return probe;
  return { ...probe, heartbeatMs };
}

/** The grace period `node` is entitled to: startup until it posts a Ready condition, monitor after. */
export function gracePeriodMs(node: Node, periods: GracePeriods): number {
  return nodeCondition(node, 'Ready') === undefined ? periods.startupMs : periods.monitorMs;
}

/** When the node falls silent unless heard from again. */
export function silentAt(probe: Probe, node: Node, periods: GracePeriods): number {
  return probe.probeMs + gracePeriodMs(node, periods);
}

/** Whether the node has not been heard from for longer than its grace period. */
export function isSilent(probe: Probe, node: Node, periods: GracePeriods, now: number): boolean {
  return now > silentAt(probe, node, periods);
}

/** How the controller sees `node` (see NodeHealth), given its probe and whether it is silent. */
export function nodeHealth(node: Node, probe: Probe, silent: boolean): NodeHealth {
  if (silent) return 'Unreachable';
  const ready = nodeCondition(node, 'Ready');
  if (ready === undefined) return 'Unreported';
  if (ready.status === 'True') return 'Ready';
  if (ready.status === 'False') return 'NotReady';
  const ours = ready.reason === REASON_STATUS_UNKNOWN || ready.reason === REASON_NEVER_UPDATED;
  const markedAt = parseTime(ready.lastTransitionTime) ?? Number.POSITIVE_INFINITY;
  return ours && probe.changedMs !== undefined && probe.changedMs > markedAt ? 'Reachable' : 'Unreachable';
}

/**
 * The conditions of a silent node: every agent-owned condition Unknown, reason NodeStatusUnknown
 * (lastTransitionTime `now` when it changes, lastHeartbeatTime kept); a missing one is added with
 * reason NodeStatusNeverUpdated and lastHeartbeatTime the node's creation time. Other conditions
 * are kept as they are. Returns a new array; equal in content to the input when nothing changes.
 */
export function unknownConditions(conditions: readonly NodeCondition[] | undefined, now: string, created: string | undefined): NodeCondition[] {
  const next = (conditions ?? []).map((c) => ({ ...c }));
  for (const type of AGENT_CONDITION_TYPES) {
    const current = next.find((c) => c.type === type);
    if (current === undefined) {
      next.push({
        type,
        status: 'Unknown',
        reason: REASON_NEVER_UPDATED,
        message: MESSAGE_NEVER_UPDATED,
        ...(created !== undefined ? { lastHeartbeatTime: created } : {}),
        lastTransitionTime: now,
      });
    } else if (current.status !== 'Unknown') {
      current.status = 'Unknown';
      current.reason = REASON_STATUS_UNKNOWN;
      current.message = MESSAGE_STATUS_UNKNOWN;
      current.lastTransitionTime = now;
    }
  }
  return next;
}
