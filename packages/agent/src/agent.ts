/**
 * runAgent: one node agent — the Node and its Lease (node.ts) and pod sync (podsync.ts) over a
 * process or simulated runtime, in one Manager (one watch on the node's pods, one on its Node).
 *
 * Expected flow: `await runAgent({ client, nodeName, dataDir, runtime, signal })` runs until
 * `signal` aborts, then resolves once everything it started has stopped. Pods keep running when the
 * agent stops (as with the kubelet): a new agent on the same data dir adopts them. With
 * `kubeletServer`, the agent also serves its containers' logs to the API server (kubeletserver.ts)
 * and reports that endpoint on its Node.
 */
import { setMaxListeners } from 'node:events';
import { isIP } from 'node:net';
import { escapeFieldValue, realClock, silentLogger, type Clock, type Logger, type Node } from '@setpoint/api';
import { builtin, Manager, type Client } from '@setpoint/client';
import { startKubeletServer, type KubeletServer, type KubeletServerOptions } from './kubeletserver.js';
import { machineInfo, NodeHeartbeat, type MachineInfo } from './node.js';
import { addPodSync } from './podsync.js';
import type { CrashLoopBackoffOptions } from './runtime/container.js';
import { isContainerLogSource } from './runtime/logsource.js';
import { ProcessRuntime } from './runtime/process.js';
import type { PodRuntime } from './runtime/runtime.js';
import { PodIdentities } from './runtime/serviceaccount.js';
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
  /** Reported as the node's daemonEndpoints.kubeletEndpoint when there is no kubeletServer. Default none. */
  readonly kubeletPort?: number;
  /**
   * Serve the containers' logs to the API server on this endpoint (needs a runtime that keeps logs:
   * the process runtime); its port is reported as daemonEndpoints.kubeletEndpoint. Default none.
   */
  readonly kubeletServer?: KubeletServerOptions;
  /**
   * Give each pod of the process runtime its ServiceAccount identity: a token bound to the pod,
   * refreshed before it expires, with ca.crt and namespace, in the pod's directory, and
   * KUBERNETES_SERVICE_HOST/PORT (runtime/serviceaccount.ts). Needs a client that reaches the API
   * server over https and trusts a CA of its own (what the pods' ca.crt is). Default: on when it
   * does. true without one throws a TypeError.
   */
  readonly serviceAccountTokens?: boolean;
  /** The process runtime's directory of pods' working directories when pods run as users of their own. Default DEFAULT_PODS_ROOT. */
  readonly podsRoot?: string;
}

/** The pod identities the options ask for, or undefined. Throws a TypeError for `serviceAccountTokens: true` without https and a CA. */
function makeIdentities(options: AgentOptions, clock: Clock, logger: Logger): PodIdentities | undefined {
  const { server, ca } = options.client.config;
  const possible = server.startsWith('https:') && ca !== undefined;
  if (options.serviceAccountTokens === true && !possible) throw new TypeError('runAgent: ServiceAccount tokens need a client that reaches the API server over https with a CA of its own');
  if (options.serviceAccountTokens === false || !possible) return undefined;
  return new PodIdentities({ client: options.client, server, ca, clock, logger: logger.child({ component: 'identities' }) });
}

/** The runtime the options ask for. Throws a TypeError when 'process' has no dataDir. */
function makeRuntime(options: AgentOptions, clock: Clock, logger: Logger): PodRuntime {
  const kind = options.runtime ?? 'process';
  if (typeof kind === 'object') return kind;
  if (kind === 'simulated') return new SimulatedRuntime({ clock, ...(options.readyDelayMs === undefined ? {} : { readyDelayMs: options.readyDelayMs }) });
  if (options.dataDir === undefined || options.dataDir === '') throw new TypeError('runAgent: the process runtime needs a dataDir');
  const identities = makeIdentities(options, clock, logger);
  return new ProcessRuntime({
    client: options.client,
    dataDir: options.dataDir,
    clock,
    logger: logger.child({ component: 'runtime' }),
    ...(options.podIP === undefined ? {} : { podIP: options.podIP, hostIP: options.podIP }),
    ...(options.crashLoopBackoff === undefined ? {} : { backoff: options.crashLoopBackoff }),
    ...(options.maxLogBytes === undefined ? {} : { maxLogBytes: options.maxLogBytes }),
    ...(identities === undefined ? {} : { identities }),
    ...(options.podsRoot === undefined ? {} : { podsRoot: options.podsRoot }),
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
  if (options.kubeletServer !== undefined && !isContainerLogSource(runtime)) throw new TypeError('runAgent: kubeletServer needs a runtime that keeps container logs (the process runtime)');
  await runtime.start();
  let endpoint: KubeletServer | undefined;
  if (options.kubeletServer !== undefined && isContainerLogSource(runtime)) {
    try {
      endpoint = await startKubeletServer(runtime, { clock, ...options.kubeletServer }, logger.child({ component: 'endpoint' }));
    } catch (err) {
      await runtime.close();
      throw err;
    }
  }
  // A specific listen address is where the API server must connect: report it as the InternalIP.
  const host = options.kubeletServer?.host;
  const address = host !== undefined && isIP(host) !== 0 && host !== '0.0.0.0' && host !== '::' ? host : undefined;
  const machine = address === undefined ? options.machine : { ...(options.machine ?? { ...machineInfo(), hostname: options.nodeName }), address };
  const kubeletPort = endpoint?.port ?? options.kubeletPort;
  setMaxListeners(0, options.signal);
  const manager = new Manager({ client: options.client, clock, logger, gracefulShutdownMs: 5000 });
  const nodeCache = manager.reader<Node>(builtin.nodes, { fieldSelector: `metadata.name=${escapeFieldValue(options.nodeName)}` });
  const heartbeat = new NodeHeartbeat({
    client: options.client,
    nodeName: options.nodeName,
    clock,
    logger,
    nodeCache,
    ...(machine === undefined ? {} : { machine }),
    ...(options.labels === undefined ? {} : { labels: options.labels }),
    ...(kubeletPort === undefined ? {} : { kubeletPort }),
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
    await endpoint?.close();
    await runtime.close();
    logger.info({}, 'node agent stopped; its pods keep running');
  }
}
