/**
 * The node's side of node liveness, as the kubelet does it: register the Node (capacity and
 * allocatable from the machine, labels, addresses, nodeInfo, conditions), renew the Lease
 * kube-node-lease/<node> every 10 s (leaseDurationSeconds 40; failed renewals retried with a
 * backoff of 200 ms doubling to 7 s), and post the node status when it changes and otherwise every
 * 5 minutes — the Lease is the cheap heartbeat, the status the expensive one.
 *
 * Expected flow: `new NodeHeartbeat(options)`, then `run(signal)`: it registers (retrying with the
 * same backoff until it succeeds), then renews the lease and checks the status on the scheduler
 * until `signal` aborts. `register`, `renewLease` and `syncStatus` are single steps, for tests and
 * for drivers of many nodes.
 *
 * Guarantees: renewals are fixed-rate (each is due one interval after the previous one started, so
 * many nodes keep the spread they started with); a renewal or status check never overlaps the
 * previous one of the same node; a Node deleted while the agent runs is registered again. Errors
 * are logged and retried, never thrown out of `run`.
 */
import { availableParallelism, arch, hostname, networkInterfaces, platform, release, totalmem, type as osType, version as osVersion } from 'node:os';
import { readFileSync } from 'node:fs';
import { Backoff, isApiError, jsonEqual, realClock, silentLogger, type Clock, type Lease, type Logger, type Node, type NodeCondition, type NodeStatus } from '@setpoint/api';
import { formatMicroTime, type Client, type DeepReadonly } from '@setpoint/client';
import { rfc3339 } from './runtime/runtime.js';
import { clockScheduler, type ScheduledJob, type Scheduler } from './wheel.js';

/** nodeInfo.kubeletVersion: the Kubernetes version whose node behaviour the agent follows. */
export const KUBELET_VERSION = 'v1.32.0-setpoint';
/** nodeInfo.containerRuntimeVersion of the process runtime. */
export const CONTAINER_RUNTIME_VERSION = 'setpoint-process://0.1';
/** Where node Leases live (one per node, named after it). */
export const NODE_LEASE_NAMESPACE = 'kube-node-lease';

/** What a node reports of its machine. */
export interface MachineInfo {
  readonly hostname: string;
  /** The InternalIP address. */
  readonly address: string;
  readonly cpu: string;
  readonly memory: string;
  readonly pods: string;
  /** Go's GOOS naming: linux, darwin, windows. */
  readonly operatingSystem: string;
  /** Go's GOARCH naming: amd64, arm64, ... */
  readonly architecture: string;
  readonly kernelVersion: string;
  readonly osImage: string;
  readonly machineID: string;
  readonly bootID: string;
  /** Default CONTAINER_RUNTIME_VERSION. */
  readonly containerRuntimeVersion?: string;
}

/** Node's arch in Go's naming (x64 → amd64, ia32 → 386; arm64, arm, s390x, ppc64 as they are). */
export function goArch(nodeArch: string = arch()): string {
  return ({ x64: 'amd64', ia32: '386', ppc64: 'ppc64le', mipsel: 'mipsle' } as Record<string, string>)[nodeArch] ?? nodeArch;
}

/** Node's platform in Go's naming (win32 → windows). */
export function goOS(nodePlatform: string = platform()): string {
  return nodePlatform === 'win32' ? 'windows' : nodePlatform;
}

function firstLine(path: string): string {
  try {
    return readFileSync(path, 'utf8').split('\n')[0]?.trim() ?? '';
  } catch {
    return '';
  }
}

/** The first non-internal IPv4 address of the machine, else 127.0.0.1. */
export function primaryAddress(): string {
  for (const addresses of Object.values(networkInterfaces())) {
    for (const a of addresses ?? []) if (a.family === 'IPv4' && !a.internal) return a.address;
  }
  return '127.0.0.1';
}

/** This machine: cpu (availableParallelism), memory (total, in Ki), 110 pods, OS and architecture. */
export function machineInfo(): MachineInfo {
  const pretty = /^PRETTY_NAME="?([^"\n]*)"?/m.exec((() => {
    try {
      return readFileSync('/etc/os-release', 'utf8');
    } catch {
      return '';
    }
  })());
  return {
    hostname: hostname().toLowerCase(),
    address: primaryAddress(),
    cpu: String(availableParallelism()),
    memory: `${Math.floor(totalmem() / 1024)}Ki`,
    pods: '110',
    operatingSystem: goOS(),
    architecture: goArch(),
    kernelVersion: release(),
    osImage: pretty?.[1] ?? `${osType()} ${osVersion()}`,
    machineID: firstLine('/etc/machine-id'),
    bootID: firstLine('/proc/sys/kernel/random/boot_id'),
  };
}

/** The labels the kubelet puts on its Node. */
export function nodeLabels(nodeName: string, machine: MachineInfo): Record<string, string> {
  return { 'kubernetes.io/hostname': nodeName, 'kubernetes.io/os': machine.operatingSystem, 'kubernetes.io/arch': machine.architecture, 'beta.kubernetes.io/os': machine.operatingSystem, 'beta.kubernetes.io/arch': machine.architecture };
}

const CONDITIONS: ReadonlyArray<Pick<NodeCondition, 'type' | 'status' | 'reason' | 'message'>> = [
  { type: 'MemoryPressure', status: 'False', reason: 'KubeletHasSufficientMemory', message: 'kubelet has sufficient memory available' },
  { type: 'DiskPressure', status: 'False', reason: 'KubeletHasNoDiskPressure', message: 'kubelet has no disk pressure' },
  { type: 'PIDPressure', status: 'False', reason: 'KubeletHasSufficientPID', message: 'kubelet has sufficient PID available' },
  { type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'kubelet is posting ready status' },
];

/**
 * The status the node should have, built on `previous` (fields others own, such as images or a
 * NetworkUnavailable condition, are kept). A condition keeps its lastTransitionTime while its status
 * stays; lastHeartbeatTime is `now` when `heartbeat`, else kept.
 */
export function desiredNodeStatus(machine: MachineInfo, previous: DeepReadonly<NodeStatus> | undefined, now: string, heartbeat: boolean, kubeletPort?: number): NodeStatus {
  const conditions = [...(previous?.conditions ?? [])].map((c) => ({ ...c }) as NodeCondition);
  for (const want of CONDITIONS) {
    const i = conditions.findIndex((c) => c.type === want.type);
    const prev = i >= 0 ? conditions[i] : undefined;
    const next: NodeCondition = {
      ...want,
      lastHeartbeatTime: heartbeat || prev?.lastHeartbeatTime === undefined ? now : prev.lastHeartbeatTime,
      lastTransitionTime: prev !== undefined && prev.status === want.status && prev.lastTransitionTime !== undefined ? prev.lastTransitionTime : now,
    };
    if (i >= 0) conditions[i] = next;
    else conditions.push(next);
  }
  const resources = { cpu: machine.cpu, memory: machine.memory, pods: machine.pods };
  return {
    ...(previous as NodeStatus | undefined),
    capacity: resources,
    allocatable: resources,
    conditions,
    addresses: [
      { type: 'InternalIP', address: machine.address },
      { type: 'Hostname', address: machine.hostname },
    ],
    ...(kubeletPort === undefined ? {} : { daemonEndpoints: { kubeletEndpoint: { Port: kubeletPort } } }),
    nodeInfo: {
      machineID: machine.machineID,
      systemUUID: machine.machineID,
      bootID: machine.bootID,
      kernelVersion: machine.kernelVersion,
      osImage: machine.osImage,
      containerRuntimeVersion: machine.containerRuntimeVersion ?? CONTAINER_RUNTIME_VERSION,
      kubeletVersion: KUBELET_VERSION,
      kubeProxyVersion: '',
      operatingSystem: machine.operatingSystem,
      architecture: machine.architecture,
    },
  };
}

/** Options of a NodeHeartbeat; every interval has the kubelet's default. */
export interface NodeHeartbeatOptions {
  readonly client: Pick<Client, 'nodes' | 'leases'>;
  readonly nodeName: string;
  /** Default machineInfo() (with hostname: nodeName). */
  readonly machine?: MachineInfo;
  /** Labels besides the kubelet's own. */
  readonly labels?: Readonly<Record<string, string>>;
  /** The agent's own endpoint, reported as daemonEndpoints.kubeletEndpoint. Default none. */
  readonly kubeletPort?: number;
  /** Default 40. */
  readonly leaseDurationSeconds?: number;
  /** Default 10,000 ms. */
  readonly leaseRenewIntervalMs?: number;
  /** Backoff of failed renewals and registrations. Default 200 ms doubling to 7,000 ms. */
  readonly retry?: { readonly initialMs?: number; readonly maxMs?: number };
  /** How often the status is computed and compared. Default 10,000 ms. */
  readonly statusCheckIntervalMs?: number;
  /** How often the status is posted when nothing changed. Default 300,000 ms (5 min). */
  readonly statusReportIntervalMs?: number;
  /** A cache of Nodes to read the current one from (a CachedReader); without one, or before it syncs, a GET. */
  readonly nodeCache?: { get(namespace: string, name: string): DeepReadonly<Node> | undefined; hasSynced(): boolean };
  /** Where renewals and checks are scheduled. Default one clock timer each. */
  readonly scheduler?: Scheduler;
  /** Wraps every API call (a concurrency limit for many nodes in one process). Default none. */
  readonly limit?: <T>(call: () => Promise<T>) => Promise<T>;
  readonly clock?: Clock;
  readonly logger?: Logger;
}

/** One node's registration, lease and status (see the file comment). */
export class NodeHeartbeat {
  readonly nodeName: string;
  readonly machine: MachineInfo;
  readonly #o: NodeHeartbeatOptions;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #scheduler: Scheduler;
  readonly #limit: <T>(call: () => Promise<T>) => Promise<T>;
  readonly #backoff: Backoff;
  #uid: string | undefined;
  #lease: Lease | undefined;

  constructor(options: NodeHeartbeatOptions) {
    this.#o = options;
    this.nodeName = options.nodeName;
    this.machine = options.machine ?? { ...machineInfo(), hostname: options.nodeName };
    this.#clock = options.clock ?? realClock;
    this.#logger = (options.logger ?? silentLogger).child({ node: options.nodeName });
    this.#scheduler = options.scheduler ?? clockScheduler(this.#clock);
    this.#limit = options.limit ?? ((call) => call());
    this.#backoff = new Backoff({ initialMs: options.retry?.initialMs ?? 200, maxMs: options.retry?.maxMs ?? 7000, clock: this.#clock });
  }

  /** The Node as first registered (metadata, spec, status with a fresh heartbeat). */
  nodeObject(): Node {
    const labels = { ...nodeLabels(this.nodeName, this.machine), ...this.#o.labels };
    return { apiVersion: 'v1', kind: 'Node', metadata: { name: this.nodeName, labels }, spec: {}, status: desiredNodeStatus(this.machine, undefined, rfc3339(this.#clock.now()), true, this.#o.kubeletPort) };
  }

  /** Creates the Node, or adopts the existing one (adding labels it lacks). Returns it. */
  async register(): Promise<Node> {
    const nodes = this.#o.client.nodes();
    const want = this.nodeObject();
    try {
      const created = await this.#limit(() => nodes.create(want));
      this.#uid = created.metadata.uid;
      this.#logger.info({ uid: this.#uid }, 'registered the node');
      return created;
    } catch (err) {
      if (!isApiError(err, 'AlreadyExists')) throw err;
    }
    let node = await this.#limit(() => nodes.get(this.nodeName));
    const labels = want.metadata.labels ?? {};
    if (Object.entries(labels).some(([k, v]) => node.metadata.labels?.[k] !== v)) {
      node = await this.#limit(() => nodes.patch(this.nodeName, { metadata: { labels } }, { type: 'merge' }));
    }
    this.#uid = node.metadata.uid;
    this.#logger.info({ uid: this.#uid }, 'the node was registered before; adopted it');
    return node;
  }

  /** Renews (or creates) the node's Lease once. Throws the API's error; the next call starts from a fresh read. */
  async renewLease(): Promise<Lease> {
    const leases = this.#o.client.leases();
    const now = this.#clock.now();
    const spec = { holderIdentity: this.nodeName, leaseDurationSeconds: this.#o.leaseDurationSeconds ?? 40, renewTime: formatMicroTime(now) };
    const ownerReferences = this.#uid === undefined ? undefined : [{ apiVersion: 'v1', kind: 'Node', name: this.nodeName, uid: this.#uid }];
    try {
      let lease = this.#lease;
      if (lease === undefined) {
        try {
          lease = await this.#limit(() => leases.get(this.nodeName, { namespace: NODE_LEASE_NAMESPACE }));
        } catch (err) {
          if (!isApiError(err, 'NotFound')) throw err;
          const created = await this.#limit(() =>
            leases.create({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: this.nodeName, namespace: NODE_LEASE_NAMESPACE, ...(ownerReferences ? { ownerReferences } : {}) }, spec }),
          );
          this.#lease = created;
          return created;
        }
      }
      const base = lease;
      const metadata = ownerReferences === undefined || jsonEqual(base.metadata.ownerReferences, ownerReferences) ? base.metadata : { ...base.metadata, ownerReferences };
      this.#lease = await this.#limit(() => leases.update({ ...base, metadata, spec: { ...base.spec, ...spec } }));
      return this.#lease;
    } catch (err) {
      this.#lease = undefined;
      throw err;
    }
  }

  async #currentNode(): Promise<DeepReadonly<Node> | undefined> {
    const cache = this.#o.nodeCache;
    if (cache !== undefined && cache.hasSynced()) return cache.get('', this.nodeName);
    try {
      return (await this.#limit(() => this.#o.client.nodes().get(this.nodeName))) as DeepReadonly<Node>;
    } catch (err) {
      if (isApiError(err, 'NotFound')) return undefined;
      throw err;
    }
  }

  /**
   * Posts the status when it differs from the desired one or its heartbeat is older than the report
   * interval; registers the Node again when it is gone. Returns whether it wrote.
   */
  async syncStatus(): Promise<boolean> {
    let current: DeepReadonly<Node> | undefined = await this.#currentNode();
    if (current === undefined) {
      this.#logger.warn({}, 'the node is gone; registering it again');
      await this.register();
      return true;
    }
    const nowMs = this.#clock.now();
    const now = rfc3339(nowMs);
    const unchanged = jsonEqual(current.status, desiredNodeStatus(this.machine, current.status, now, false, this.#o.kubeletPort));
    const beat = current.status?.conditions?.find((c) => c.type === 'Ready')?.lastHeartbeatTime;
    const due = beat === undefined || beat === null || nowMs - Date.parse(beat) >= (this.#o.statusReportIntervalMs ?? 300_000);
    if (unchanged && !due) return false;
    const nodes = this.#o.client.nodes();
    for (let attempt = 0; ; attempt++) {
      const base: DeepReadonly<Node> = current;
      try {
        await this.#limit(() => nodes.updateStatus({ ...(base as Node), status: desiredNodeStatus(this.machine, base.status, now, true, this.#o.kubeletPort) }));
        this.#uid = base.metadata.uid;
        return true;
      } catch (err) {
        if (!isApiError(err, 'Conflict') || attempt > 0) throw err;
        current = (await this.#limit(() => nodes.get(this.nodeName))) as DeepReadonly<Node>; // the cache was behind
      }
    }
  }

  /**
   * Registers, then renews the lease and checks the status until `signal` aborts (see the file
   * comment). `offsetMs` delays the first renewal (to spread many nodes over the interval).
   */
  async run(signal: AbortSignal, offsetMs = 0): Promise<void> {
    const jobs = new Set<ScheduledJob>();
    const inflight = new Set<Promise<void>>();
    const later = (ms: number, step: () => Promise<void>) => {
      if (signal.aborted) return;
      const job = this.#scheduler.schedule(ms, () => {
        jobs.delete(job);
        if (signal.aborted) return;
        const running = step();
        inflight.add(running);
        void running.finally(() => inflight.delete(running));
      });
      jobs.add(job);
    };
    const stopped = new Promise<void>((resolve) => {
      if (signal.aborted) resolve();
      else signal.addEventListener('abort', () => resolve(), { once: true });
    });
    const register = async () => {
      try {
        await this.register();
        this.#backoff.reset();
        later(offsetMs, renew);
        later(offsetMs, check);
      } catch (err) {
        const delay = this.#backoff.next();
        this.#logger.warn({ err, retryInMs: delay }, 'node registration failed; retrying');
        later(delay, register);
      }
    };
    const interval = this.#o.leaseRenewIntervalMs ?? 10_000;
    const leaseBackoff = new Backoff({ initialMs: this.#o.retry?.initialMs ?? 200, maxMs: this.#o.retry?.maxMs ?? 7000, clock: this.#clock });
    const renew = async () => {
      const started = this.#clock.now();
      try {
        await this.renewLease();
        leaseBackoff.reset();
        later(Math.max(0, started + interval - this.#clock.now()), renew);
      } catch (err) {
        const delay = leaseBackoff.next();
        this.#logger.warn({ err, retryInMs: delay }, 'lease renewal failed; retrying');
        later(delay, renew);
      }
    };
    const checkInterval = this.#o.statusCheckIntervalMs ?? 10_000;
    const check = async () => {
      const started = this.#clock.now();
      try {
        await this.syncStatus();
      } catch (err) {
        this.#logger.warn({ err }, 'node status update failed; trying again at the next check');
      }
      later(Math.max(0, started + checkInterval - this.#clock.now()), check);
    };
    const first = register();
    inflight.add(first);
    void first.finally(() => inflight.delete(first));
    await stopped;
    for (const job of jobs) job.cancel();
    await Promise.allSettled([...inflight]); // no call outlives run()
  }
}
