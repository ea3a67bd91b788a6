/**
 * runSimulatedNodes: many fake nodes in one process, as KWOK does it. Each registers its Node
 * (labelled node.setpoint.dev/simulated=true) and heartbeats its Lease, the renewals spread evenly
 * over the interval (node i first renews at i × interval / count), and marks its pods Running and
 * Ready after a delay without starting anything.
 *
 * What keeps it cheap: one timer wheel for every renewal, status check and pod delay (one clock
 * timer in all); one pod informer for all the nodes (bound pods, filtered by node name) and one
 * Node informer, not a watch per node; one controller syncing the pods of every node; API calls
 * through one concurrency limit. Status is posted only when it changed or is due (5 min), so a
 * steady fleet costs one Lease update per node per interval.
 */
import { setMaxListeners } from 'node:events';
import { realClock, silentLogger, type Clock, type Logger, type Node } from '@setpoint/api';
import { builtin, Manager, type Client } from '@setpoint/client';
import { NodeHeartbeat, type MachineInfo } from './node.js';
import { addPodSync } from './podsync.js';
import { SimulatedRuntime } from './runtime/simulated.js';
import { TimerWheel } from './wheel.js';

/** The label every simulated node carries. */
export const SIMULATED_NODE_LABEL = 'node.setpoint.dev/simulated';

/** Options of runSimulatedNodes; each default is stated on its field. */
export interface SimulatedNodesOptions {
  readonly client: Client;
  /** How many nodes. */
  readonly count: number;
  /** Node i is named `${namePrefix}${i}`. Default "sim-node-". */
  readonly namePrefix?: string;
  /** How long a pod stays Pending before it is Running and Ready. Default 1000 ms. */
  readonly readyDelayMs?: number;
  /** Lease renewal interval. Default 10,000 ms. */
  readonly heartbeatIntervalMs?: number;
  /** Default 40. */
  readonly leaseDurationSeconds?: number;
  /** Default 10,000 ms. */
  readonly statusCheckIntervalMs?: number;
  /** Default 300,000 ms. */
  readonly statusReportIntervalMs?: number;
  /** What each node reports of its machine. Default 32 cpu, 256Gi memory, 110 pods, linux/amd64. */
  readonly machine?: Partial<Omit<MachineInfo, 'hostname' | 'address'>>;
  /** Labels besides the kubelet's own and SIMULATED_NODE_LABEL. */
  readonly labels?: Readonly<Record<string, string>>;
  /**
   * API calls in flight at most. Default one per node, between 32 and 128 (each kubelet has its
   * own connection; the fleet shares one limit so that thousands of nodes do not flood the server).
   */
  readonly concurrency?: number;
  /** Pods reconciled at once. Default one per two nodes, between 16 and 64. */
  readonly podConcurrency?: number;
  /** Timer wheel resolution. Default heartbeatIntervalMs / 100, between 10 and 1000 ms. */
  readonly tickMs?: number;
  readonly clock?: Clock;
  readonly logger?: Logger;
  /** Aborting stops every node (their Nodes and Leases stay, and expire). */
  readonly signal: AbortSignal;
}

/** A limit of `n` calls in flight; the others wait their turn, in order. */
export function concurrencyLimit(n: number): <T>(call: () => Promise<T>) => Promise<T> {
  let active = 0;
  const waiting: Array<() => void> = [];
  return async <T>(call: () => Promise<T>): Promise<T> => {
    if (active >= n) await new Promise<void>((resolve) => waiting.push(resolve));
    else active++;
    try {
      return await call();
    } finally {
      const next = waiting.shift();
      if (next !== undefined) next(); // the slot passes to the next caller
      else active--;
    }
  };
}

function clamp(n: number, lo: number, hi: number): number {
  return Math.min(hi, Math.max(lo, n));
}

/** The machine simulated node `i` reports: 10.x.y.z addresses, one per node. */
export function simulatedMachine(name: string, i: number, overrides: SimulatedNodesOptions['machine'] = {}): MachineInfo {
  const n = i + 1;
  return {
    cpu: '32',
    memory: '256Gi',
    pods: '110',
    operatingSystem: 'linux',
    architecture: 'amd64',
    kernelVersion: 'simulated',
    osImage: 'Setpoint simulated node',
    machineID: '',
    bootID: '',
    containerRuntimeVersion: 'setpoint-simulated://0.1',
    ...overrides,
    hostname: name,
    address: `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`,
  };
}

/** Runs `count` simulated nodes until `signal` aborts (see the file comment); resolves once they stopped. */
export async function runSimulatedNodes(options: SimulatedNodesOptions): Promise<void> {
  const clock = options.clock ?? realClock;
  const logger = options.logger ?? silentLogger;
  const count = Math.max(0, Math.floor(options.count));
  const prefix = options.namePrefix ?? 'sim-node-';
  const interval = options.heartbeatIntervalMs ?? 10_000;
  const wheel = new TimerWheel({ clock, logger, tickMs: options.tickMs ?? Math.min(1000, Math.max(10, Math.floor(interval / 100))) });
  const limit = concurrencyLimit(options.concurrency ?? clamp(count, 32, 128));
  setMaxListeners(0, options.signal);
  const manager = new Manager({ client: options.client, clock, logger, gracefulShutdownMs: 5000 });
  const nodeCache = manager.reader<Node>(builtin.nodes, { labelSelector: `${SIMULATED_NODE_LABEL}=true` });
  const names = Array.from({ length: count }, (_, i) => `${prefix}${i}`);
  const ours = new Set(names);
  const heartbeats = names.map(
    (nodeName, i) =>
      new NodeHeartbeat({
        client: options.client,
        nodeName,
        machine: simulatedMachine(nodeName, i, options.machine),
        labels: { ...options.labels, [SIMULATED_NODE_LABEL]: 'true' },
        leaseRenewIntervalMs: interval,
        ...(options.leaseDurationSeconds === undefined ? {} : { leaseDurationSeconds: options.leaseDurationSeconds }),
        ...(options.statusCheckIntervalMs === undefined ? {} : { statusCheckIntervalMs: options.statusCheckIntervalMs }),
        ...(options.statusReportIntervalMs === undefined ? {} : { statusReportIntervalMs: options.statusReportIntervalMs }),
        nodeCache,
        scheduler: wheel,
        limit,
        clock,
        logger,
      }),
  );
  manager.add({
    name: 'simulated-nodes',
    needsLeaderElection: false,
    start: async (signal) => {
      await Promise.all(heartbeats.map((hb, i) => hb.run(signal, count === 0 ? 0 : Math.floor((i * interval) / count))));
    },
  });
  const runtime = new SimulatedRuntime({ clock, scheduler: wheel, ...(options.readyDelayMs === undefined ? {} : { readyDelayMs: options.readyDelayMs }) });
  addPodSync({
    manager,
    client: options.client,
    runtime,
    name: 'simulated-podsync',
    fieldSelector: 'spec.nodeName!=',
    owns: (pod) => ours.has(pod.spec?.nodeName ?? ''),
    concurrency: options.podConcurrency ?? clamp(Math.ceil(count / 2), 16, 64),
  });
  logger.info({ count, prefix, intervalMs: interval, tickMs: wheel.tickMs }, 'starting simulated nodes');
  try {
    await manager.start(options.signal);
  } finally {
    wheel.close();
    await runtime.close();
  }
}
