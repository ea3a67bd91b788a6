/**
 * PodInfo and NodeInfo: the scheduler's view of a pod (parsed once: requests, host ports,
 * compiled constraints) and of a node with the pods on it (the sums the filters and scorers
 * read), as kube-scheduler's framework.PodInfo and framework.NodeInfo.
 */
import type { Labels, Node, Pod, Taint, TopologySpreadConstraint } from '@setpoint/api';
import {
  compileAffinityTerm,
  preferredNodeAffinityOf,
  requiredNodeAffinityOf,
  type AffinityTerm,
  type RequiredNodeAffinity,
  type WeightedTerm,
} from './affinity.js';
import { nodeAllocatable, podRequests, type Allocatable, type PodRequests } from './resources.js';

/** A host port a pod takes: ip ('0.0.0.0' for any), protocol, port. */
export interface HostPort {
  readonly ip: string;
  readonly protocol: string;
  readonly port: number;
}

/** A pod as the scheduler reads it. Immutable; built once per pod object by podInfoOf. */
export interface PodInfo {
  /** namespace/name */
  readonly key: string;
  readonly pod: Readonly<Pod>;
  readonly namespace: string;
  readonly name: string;
  readonly labels: Labels;
  /** spec.nodeName, '' when unassigned. */
  readonly nodeName: string;
  readonly requests: PodRequests;
  readonly hostPorts: readonly HostPort[];
  readonly priority: number;
  /** metadata.creationTimestamp in ms (0 when unknown). */
  readonly creationMs: number;
  /** metadata.deletionTimestamp is set. */
  readonly terminating: boolean;
  /** status.phase is Succeeded or Failed: the pod holds nothing on its node any more. */
  readonly terminal: boolean;
  readonly requiredNodeAffinity: RequiredNodeAffinity;
  readonly preferredNodeAffinity: readonly WeightedTerm[];
  readonly requiredAffinity: readonly AffinityTerm[];
  readonly requiredAntiAffinity: readonly AffinityTerm[];
  readonly spreadConstraints: ReadonlyArray<Readonly<TopologySpreadConstraint>>;
}

const infos = new WeakMap<object, PodInfo>();

function hostPortsOf(pod: Readonly<Pod>): HostPort[] {
  const ports: HostPort[] = [];
  const containers = [...(pod.spec?.containers ?? []), ...(pod.spec?.initContainers ?? []).filter((c) => c.restartPolicy === 'Always')];
  for (const c of containers) {
    for (const p of c.ports ?? []) {
      if (p.hostPort === undefined || p.hostPort <= 0) continue;
      ports.push({ ip: p.hostIP === undefined || p.hostIP === '' ? '0.0.0.0' : p.hostIP, protocol: p.protocol ?? 'TCP', port: p.hostPort });
    }
  }
  return ports;
}

function timeMs(t: string | undefined): number {
  if (t === undefined) return 0;
  const ms = Date.parse(t);
  return Number.isNaN(ms) ? 0 : ms;
}

/** The PodInfo of a pod object (memoised per object: informer objects are frozen and replaced on change). */
export function podInfoOf(pod: Readonly<Pod>): PodInfo {
  const known = infos.get(pod);
  if (known !== undefined) return known;
  const namespace = pod.metadata.namespace ?? 'default';
  const name = pod.metadata.name ?? '';
  const affinity = pod.spec?.affinity;
  const info: PodInfo = {
    key: `${namespace}/${name}`,
    pod,
    namespace,
    name,
    labels: pod.metadata.labels ?? {},
    nodeName: pod.spec?.nodeName ?? '',
    requests: podRequests(pod),
    hostPorts: hostPortsOf(pod),
    priority: pod.spec?.priority ?? 0,
    creationMs: timeMs(pod.metadata.creationTimestamp),
    terminating: pod.metadata.deletionTimestamp !== undefined,
    terminal: pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed',
    requiredNodeAffinity: requiredNodeAffinityOf(pod),
    preferredNodeAffinity: preferredNodeAffinityOf(pod),
    requiredAffinity: (affinity?.podAffinity?.requiredDuringSchedulingIgnoredDuringExecution ?? []).map((t) => compileAffinityTerm(pod, t)),
    requiredAntiAffinity: (affinity?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution ?? []).map((t) => compileAffinityTerm(pod, t)),
    spreadConstraints: pod.spec?.topologySpreadConstraints ?? [],
  };
  infos.set(pod, info);
  return info;
}

/** The same pod placed on `nodeName` (what the assume cache holds until the binding is seen). */
export function withNodeName(info: PodInfo, nodeName: string): PodInfo {
  return { ...info, nodeName };
}

/**
 * A node and the pods on it. `node` is undefined for an entry that only holds pods whose node the
 * cache has not seen (or no longer sees). The sums follow every addPod/removePod.
 */
export class NodeInfo {
  node: Readonly<Node> | undefined;
  readonly name: string;
  labels: Labels = {};
  taints: ReadonlyArray<Readonly<Taint>> = [];
  unschedulable = false;
  ready = false;
  allocatable: Allocatable = { milliCPU: 0, memory: 0, pods: 0 };
  /** Sum of the pods' actual requests. */
  readonly requested = { milliCPU: 0, memory: 0 };
  /** Sum of the pods' non-zero requests. */
  readonly nonZeroRequested = { milliCPU: 0, memory: 0 };
  readonly pods = new Map<string, PodInfo>();
  /** How many pods here have required anti-affinity terms. */
  podsWithRequiredAntiAffinity = 0;
  /** "protocol/port" → ip → count. */
  readonly #ports = new Map<string, Map<string, number>>();

  constructor(name: string, node?: Readonly<Node>) {
    this.name = name;
    if (node !== undefined) this.setNode(node);
  }

  /** Takes the node's labels, taints, cordon, Ready condition and allocatable. */
  setNode(node: Readonly<Node>): void {
    this.node = node;
    this.labels = node.metadata.labels ?? {};
    this.taints = node.spec?.taints ?? [];
    this.unschedulable = node.spec?.unschedulable === true;
    this.ready = (node.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');
    this.allocatable = nodeAllocatable(node);
  }

  /** Adds (or replaces) a pod and its requests and host ports. */
  addPod(p: PodInfo): void {
    this.removePod(p.key);
    this.pods.set(p.key, p);
    this.#account(p, 1);
  }

  /** Removes the pod of `key`; returns it, or undefined when it was not here. */
  removePod(key: string): PodInfo | undefined {
    const p = this.pods.get(key);
    if (p === undefined) return undefined;
    this.pods.delete(key);
    this.#account(p, -1);
    return p;
  }

  /** Whether a host port is free here: no pod holds its protocol and port on the same ip or on 0.0.0.0 (either side). */
  portFree(want: HostPort): boolean {
    const ips = this.#ports.get(`${want.protocol}/${want.port}`);
    if (ips === undefined || ips.size === 0) return true;
    if (want.ip === '0.0.0.0') return false;
    return !ips.has(want.ip) && !ips.has('0.0.0.0');
  }

  #account(p: PodInfo, sign: 1 | -1): void {
    this.requested.milliCPU += sign * p.requests.milliCPU;
    this.requested.memory += sign * p.requests.memory;
    this.nonZeroRequested.milliCPU += sign * p.requests.nonZeroMilliCPU;
    this.nonZeroRequested.memory += sign * p.requests.nonZeroMemory;
    if (p.requiredAntiAffinity.length > 0) this.podsWithRequiredAntiAffinity += sign;
    for (const hp of p.hostPorts) {
      const k = `${hp.protocol}/${hp.port}`;
      let ips = this.#ports.get(k);
      if (ips === undefined) this.#ports.set(k, (ips = new Map()));
      const n = (ips.get(hp.ip) ?? 0) + sign;
      if (n <= 0) ips.delete(hp.ip);
      else ips.set(hp.ip, n);
      if (ips.size === 0) this.#ports.delete(k);
    }
  }
}

/** A NodeInfo of a node and pods, for tests and callers that build a view by hand. */
export function nodeInfoOf(node: Readonly<Node>, pods: ReadonlyArray<Readonly<Pod>> = []): NodeInfo {
  const info = new NodeInfo(node.metadata.name ?? '', node);
  for (const pod of pods) info.addPod(withNodeName(podInfoOf(pod), info.name));
  return info;
}
