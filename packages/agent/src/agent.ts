/**
 * runAgent: one node agent — the Node and its Lease (node.ts) and pod sync (podsync.ts) over a
 * process or simulated runtime, in one Manager (one watch on the node's pods, one on its Node).
 *
 * Expected flow: `await runAgent({ client, nodeName, dataDir, runtime, signal })` runs until
 * `signal` aborts, then resolves once everything it started has stopped. Pods keep running when the
 * agent stops (as with the kubelet): a new agent on the same data dir adopts them.
 */
import { setMaxListeners } from 'node:events';
import { escapeFieldValue, realClock, silentLogger, type Clock, type Logger, type Node } from '@setpoint/api';
import { builtin, Manager, type Client } from '@setpoint/client';
import { NodeHeartbeat, type MachineInfo } from './node.js';
import { addPodSync } from './podsync.js';
import type { CrashLoopBackoffOptions } from './runtime/container.js';
import { ProcessRuntime } from './runtime/process.js';
import type { PodRuntime } from './runtime/runtime.js';
import { SimulatedRuntime } from './runtime/simulated.js';

/** The options of runAgent; every interval has the kubelet's default. */
export interface AgentOptions {
  readonly client: Client;
  readonly nodeName: string;
  /** Where the process runtime keeps records, logs and working directories. Required for 'process'. */
  readonly dataDir?: string;
  /** 'process' (default), 'simulated', or a PodRuntime of your own. */
  readonly runtime?: 'process' | 'simulated' | PodRuntime;
  /** Aborting stops the agent (pods keep running). */
  readonly signal: AbortSignal;
  readonly clock?: Clock;
  readonly logger?: Logger;
  /** Default 40. */
  readonly leaseDurationSeconds?: number;
  /** Default 10,000 ms. */
  readonly leaseRenewIntervalMs?: number;
  /** Backoff of failed lease renewals and registration. Default 200 ms doubling to 7,000 ms. */
  readonly retry?: { readonly initialMs?: number; readonly maxMs?: number };
  /** Default 10,000 ms. */
  readonly statusCheckIntervalMs?: number;
  /** Default 300,000 ms. */
  readonly statusReportIntervalMs?: number;
  /** Crash-loop backoff of the process runtime. Default 10 s doubling to 5 min, reset after 10 min. */
  readonly crashLoopBackoff?: CrashLoopBackoffOptions;
  /** Log file cap of the process runtime. Default 10 MiB. */
  readonly maxLogBytes?: number;
  /** How long the simulated runtime keeps a pod Pending. Default 1000 ms. */
  readonly readyDelayMs?: number;
  /** Default machineInfo(). */
  readonly machine?: MachineInfo;
  /** Labels besides the kubelet's own. */
  readonly labels?: Readonly<Record<string, string>>;
  /** Reported as hostIP and podIP of every pod. Default 127.0.0.1. */
  readonly podIP?: string;
  /** Pods reconciled at once. Default 4. */
  readonly concurrency?: number;
  /** Reported as the node's daemonEndpoints.kubeletEndpoint. Default none. */
  readonly kubeletPort?: number;
}

/** The runtime the options ask for. Throws a TypeError when 'process' has no dataDir. */
function makeRuntime(options: AgentOptions, clock: Clock, logger: Logger): PodRuntime {
  const kind = options.runtime ?? 'process';
  if (typeof kind === 'object') return kind;
  if (kind === 'simulated') return new SimulatedRuntime({ clock, ...(options.readyDelayMs === undefined ? {} : { readyDelayMs: options.readyDelayMs }) });
  if (options.dataDir === undefined || options.dataDir === '') throw new TypeError('runAgent: the process runtime needs a dataDir');
  return new ProcessRuntime({
    client: options.client,
    dataDir: options.dataDir,
    clock,
    logger: logger.child({ component: 'runtime' }),
    ...(options.podIP === undefined ? {} : { podIP: options.podIP, hostIP: options.podIP }),
    ...(options.crashLoopBackoff === undefined ? {} : { backoff: options.crashLoopBackoff }),
    ...(options.maxLogBytes === undefined ? {} : { maxLogBytes: options.maxLogBytes }),
  });
}

/**
 * Runs a node agent until `signal` aborts (see the file comment). Throws a TypeError for options
 * that cannot work, and what the runtime's start throws (an unwritable data dir); everything
 * after start is retried and logged, not thrown.
 */
export async function runAgent(options: AgentOptions): Promise<void> {
  const clock = options.clock ?? realClock;
  const logger = (options.logger ?? silentLogger).child({ node: options.nodeName });
  const runtime = makeRuntime(options, clock, logger);
  await runtime.start();
  setMaxListeners(0, options.signal);
  const manager = new Manager({ client: options.client, clock, logger, gracefulShutdownMs: 5000 });
  const nodeCache = manager.reader<Node>(builtin.nodes, { fieldSelector: `metadata.name=${escapeFieldValue(options.nodeName)}` });
  const heartbeat = new NodeHeartbeat({
    client: options.client,
    nodeName: options.nodeName,
    clock,
    logger,
    nodeCache,
    ...(options.machine === undefined ? {} : { machine: options.machine }),
    ...(options.labels === undefined ? {} : { labels: options.labels }),
    ...(options.kubeletPort === undefined ? {} : { kubeletPort: options.kubeletPort }),
    ...(options.leaseDurationSeconds === undefined ? {} : { leaseDurationSeconds: options.leaseDurationSeconds }),
    ...(options.leaseRenewIntervalMs === undefined ? {} : { leaseRenewIntervalMs: options.leaseRenewIntervalMs }),
    ...(options.retry === undefined ? {} : { retry: options.retry }),
    ...(options.statusCheckIntervalMs === undefined ? {} : { statusCheckIntervalMs: options.statusCheckIntervalMs }),
    ...(options.statusReportIntervalMs === undefined ? {} : { statusReportIntervalMs: options.statusReportIntervalMs }),
  });
  manager.add({ name: 'node-heartbeat', needsLeaderElection: false, start: (signal) => heartbeat.run(signal) });
  const ip = options.podIP ?? '127.0.0.1';
  addPodSync({
    manager,
    client: options.client,
    runtime,
    fieldSelector: `spec.nodeName=${escapeFieldValue(options.nodeName)}`,
    addresses: { hostIP: ip, podIP: ip },
    ...(options.concurrency === undefined ? {} : { concurrency: options.concurrency }),
  });
  logger.info({ runtime: typeof options.runtime === 'object' ? 'custom' : (options.runtime ?? 'process'), dataDir: options.dataDir }, 'node agent starting');
  try {
    await manager.start(options.signal);
  } finally {
    await runtime.close();
    logger.info({}, 'node agent stopped; its pods keep running');
  }
}
