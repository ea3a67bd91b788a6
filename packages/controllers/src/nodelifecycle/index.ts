/**
 * The node lifecycle controller (Kubernetes' pkg/controller/nodelifecycle, with its taint
 * eviction controller and the pod GC's orphan rule): liveness is a leased, time-bounded protocol —
 * a node that stops renewing its Lease (or posting heartbeats) for the grace period is marked
 * Unknown and tainted, its pods are evicted as their tolerations allow, at a rate that depends on
 * how much of its zone is down, and pods bound to nodes that no longer exist are deleted.
 *
 * Parts: health.ts (heartbeats → health), taints.ts (health → taints), zones.ts (zone states and
 * rates), eviction.ts (taints and tolerations → which pods go when) — all pure; monitor.ts (the
 * node-lifecycle reconcile), tainter.ts (the rate-limited NoExecute tainter), taintmanager.ts (the
 * taint-eviction reconcile and orphan collection), pods.ts (pod lookups and deletion).
 */
import type { Clock, Lease, Node, Pod } from '@setpoint/api';
import { builtin, type Controller, type Manager, type Request, checkNode, isWellFormed } from '@setpoint/client';
import { NODE_LEASE_NAMESPACE } from './health.js';
import { NodeMonitor } from './monitor.js';
import { podsByNode } from './pods.js';
import { TaintEvictionManager } from './taintmanager.js';
import { NoExecuteTainter } from './tainter.js';
import { DEFAULT_EVICTION_RATES, type EvictionRates } from './zones.js';

// The public face: the wiring, its parts (for inspection), and the names of the domain. The pure
// decision functions stay inside the package; their tests import them from their files.
export { NODE_LEASE_NAMESPACE, type NodeHealth, type Probe } from './health.js';
export { TAINT_NOT_READY, TAINT_UNREACHABLE } from './taints.js';
export { DEFAULT_EVICTION_RATES, LABEL_EXCLUDE_DISRUPTION, type EvictionRates, type ZoneState } from './zones.js';
export { NoExecuteTainter } from './tainter.js';
export { NodeMonitor } from './monitor.js';
export { TaintEvictionManager } from './taintmanager.js';

/** Options of the node lifecycle controller; every one has a default. */
export interface NodeLifecycleOptions {
  /** How long a node may go without a heartbeat before it is Unknown. Default 50,000 ms (--node-monitor-grace-period). */
  readonly nodeMonitorGracePeriodMs?: number;
  /** The same for a node that never posted a Ready condition. Default 60,000 ms (--node-startup-grace-period). */
  readonly nodeStartupGracePeriodMs?: number;
  /** Nodes tainted NoExecute per second in a healthy zone. Default 0.1 (--node-eviction-rate). */
  readonly evictionRate?: number;
  /** The same in a partially disrupted zone of more than largeClusterThreshold nodes. Default 0.01. */
  readonly secondaryEvictionRate?: number;
  /** The unhealthy fraction (with more than 2 unhealthy) that makes a zone partially disrupted. Default 0.55. */
  readonly unhealthyZoneThreshold?: number;
  /** Partially disrupted zones with at most this many nodes stop evicting. Default 50. */
  readonly largeClusterThreshold?: number;
  /** How long pods of a node that no longer exists wait before they are deleted. Default 40,000 ms (pod GC's quarantine). */
  readonly orphanQuarantineMs?: number;
  /** Where time comes from. Default the manager's clock; pass the manager's (requeues use it). */
  readonly clock?: Clock;
}

/** What registerNodeLifecycleController adds to the manager. */
export interface NodeLifecycle {
  /** Reconciles nodes: heartbeats, conditions, taints. */
  readonly nodeLifecycle: Controller;
  /** Reconciles the pods of nodes: taint evictions and orphans. */
  readonly taintEviction: Controller;
  /** The rate-limited NoExecute tainter (a leader-elected runnable). */
  readonly tainter: NoExecuteTainter;
  readonly monitor: NodeMonitor;
  readonly evictions: TaintEvictionManager;
}

function check(ok: boolean, message: string): void {
  if (!ok) throw new RangeError(`node lifecycle controller: ${message}`);
}

/**
 * Registers the node lifecycle controllers on `manager` (leader-elected): `node-lifecycle`,
 * `taint-eviction` and the NoExecute tainter. Adds the spec.nodeName index to the shared pod
 * informer, so it must be called before the manager starts. Throws a RangeError for options out
 * of range (negative periods or rates, a threshold outside (0, 1]).
 */
export function registerNodeLifecycleController(manager: Manager, options: NodeLifecycleOptions = {}): NodeLifecycle {
  const clock = options.clock ?? manager.clock;
  const periods = { monitorMs: options.nodeMonitorGracePeriodMs ?? 50_000, startupMs: options.nodeStartupGracePeriodMs ?? 60_000 };
  const rates: EvictionRates = {
    evictionRate: options.evictionRate ?? DEFAULT_EVICTION_RATES.evictionRate,
    secondaryEvictionRate: options.secondaryEvictionRate ?? DEFAULT_EVICTION_RATES.secondaryEvictionRate,
    unhealthyZoneThreshold: options.unhealthyZoneThreshold ?? DEFAULT_EVICTION_RATES.unhealthyZoneThreshold,
    largeClusterThreshold: options.largeClusterThreshold ?? DEFAULT_EVICTION_RATES.largeClusterThreshold,
  };
  const orphanQuarantineMs = options.orphanQuarantineMs ?? 40_000;
  check(periods.monitorMs > 0 && periods.startupMs > 0, 'grace periods must be > 0');
  check(rates.evictionRate >= 0 && rates.secondaryEvictionRate >= 0, 'eviction rates must be >= 0');
  check(rates.unhealthyZoneThreshold > 0 && rates.unhealthyZoneThreshold <= 1, 'unhealthyZoneThreshold must be in (0, 1]');
  check(rates.largeClusterThreshold >= 0 && orphanQuarantineMs >= 0, 'largeClusterThreshold and orphanQuarantineMs must be >= 0');

  const client = manager.client;
  const logger = manager.logger.child({ controller: 'node-lifecycle' });
  const nodes = manager.reader<Node>(builtin.nodes);
  const leases = manager.reader<Lease>(builtin.leases, { namespace: NODE_LEASE_NAMESPACE });
  const podsOnNode = podsByNode(manager.informer<Pod>(builtin.pods));
  const byNode = (pod: Pod): Request[] => (pod.spec?.nodeName ? [{ namespace: '', name: pod.spec.nodeName }] : []);

  const tainter: NoExecuteTainter = new NoExecuteTainter({
    clock,
    logger: logger.child({ component: 'tainter' }),
    rates,
    waitForSync: (signal) => nodes.informer.waitForCacheSync(signal),
    // Malformed nodes are never reported by the monitor; waiting for them would stop all tainting.
    nodeNames: () => nodes.informer.store.list().filter((n) => isWellFormed(checkNode, n as Node)).map((n) => n.metadata.name ?? ''),
    taint: (name) => monitor.taint(name),
    enterMasterDisruption: () => monitor.untaintAll(),
    exitMasterDisruption: () => monitor.resetProbes(),
  });
  const monitor = new NodeMonitor({ client, nodes, leases, podsOnNode, queue: tainter, events: manager.eventRecorder('node-controller'), clock, logger, periods });
  const evictions = new TaintEvictionManager({
    client,
    nodes,
    podsOnNode,
    events: manager.eventRecorder('taint-eviction-controller'),
    clock,
    logger: logger.child({ component: 'taint-eviction' }),
    orphanQuarantineMs,
  });

  const nodeLifecycle = manager
    .controller('node-lifecycle')
    .for(builtin.nodes)
    .watches<Lease>(builtin.leases, (lease) => [{ namespace: '', name: lease.metadata.name ?? '' }], { namespace: NODE_LEASE_NAMESPACE })
    .withConcurrency(8)
    .reconcile(({ name }) => monitor.reconcile(name));
  const taintEviction = manager
    .controller('taint-eviction')
    .for(builtin.nodes)
    .watches<Pod>(builtin.pods, byNode)
    .withConcurrency(8)
    .reconcile(({ name }) => evictions.reconcile(name));
  manager.add(tainter);
  return { nodeLifecycle, taintEviction, tainter, monitor, evictions };
}
