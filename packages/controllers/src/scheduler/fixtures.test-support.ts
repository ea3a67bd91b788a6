/**
 * Builders of plain Node and Pod objects for the scheduler's table tests, and a ClusterCache of
 * them (the view a decision reads).
 */
import type { Affinity, Container, Labels, Node, Pod, Taint, Toleration, TopologySpreadConstraint } from '@setpoint/api';
import type { Client } from '@setpoint/client';
import { ClusterCache } from './cache.js';
import { podInfoOf } from './nodeinfo.js';

export interface NodeSpecOptions {
  readonly cpu?: string;
  readonly memory?: string;
  readonly pods?: string;
  readonly labels?: Record<string, string>;
  readonly taints?: Taint[];
  readonly unschedulable?: boolean;
  readonly ready?: boolean;
}

/** A Ready node with allocatable cpu 4, memory 8Gi, pods 110 unless told otherwise; labelled with its hostname. */
export function makeNode(name: string, o: NodeSpecOptions = {}): Node {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name, labels: { 'kubernetes.io/hostname': name, ...o.labels } },
    spec: { ...(o.taints ? { taints: o.taints } : {}), ...(o.unschedulable ? { unschedulable: true } : {}) },
    status: {
      allocatable: { cpu: o.cpu ?? '4', memory: o.memory ?? '8Gi', pods: o.pods ?? '110' },
      conditions: [{ type: 'Ready', status: o.ready === false ? 'False' : 'True' }],
    },
  };
}

export interface PodSpecOptions {
  readonly namespace?: string;
  readonly cpu?: string;
  readonly memory?: string;
  readonly labels?: Record<string, string>;
  readonly nodeName?: string;
  readonly nodeSelector?: Record<string, string>;
  readonly affinity?: Affinity;
  readonly tolerations?: Toleration[];
  readonly hostPorts?: Array<{ port: number; protocol?: 'TCP' | 'UDP'; ip?: string }>;
  readonly priority?: number;
  readonly spread?: TopologySpreadConstraint[];
  readonly containers?: Container[];
  readonly initContainers?: Container[];
  readonly created?: string;
  readonly deleting?: boolean;
}

/** A pod with one container requesting `cpu` and `memory` (none when absent). */
export function makePod(name: string, o: PodSpecOptions = {}): Pod {
  const requests: Record<string, string> = {};
  if (o.cpu !== undefined) requests['cpu'] = o.cpu;
  if (o.memory !== undefined) requests['memory'] = o.memory;
  const ports = (o.hostPorts ?? []).map((p) => ({ containerPort: p.port, hostPort: p.port, ...(p.protocol ? { protocol: p.protocol } : {}), ...(p.ip ? { hostIP: p.ip } : {}) }));
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: o.namespace ?? 'default',
      uid: `uid-${name}`,
      creationTimestamp: o.created ?? '2026-01-01T00:00:00Z',
      ...(o.labels ? { labels: o.labels } : {}),
      ...(o.deleting ? { deletionTimestamp: '2026-01-01T00:01:00Z' } : {}),
    },
    spec: {
      containers: o.containers ?? [{ name: 'c', image: 'busybox', resources: { requests }, ...(ports.length > 0 ? { ports } : {}) }],
      ...(o.initContainers ? { initContainers: o.initContainers } : {}),
      ...(o.nodeName ? { nodeName: o.nodeName } : {}),
      ...(o.nodeSelector ? { nodeSelector: o.nodeSelector } : {}),
      ...(o.affinity ? { affinity: o.affinity } : {}),
      ...(o.tolerations ? { tolerations: o.tolerations } : {}),
      ...(o.priority !== undefined ? { priority: o.priority } : {}),
      ...(o.spread ? { topologySpreadConstraints: o.spread } : {}),
    },
  };
}

/** A cache holding `nodes`, the assigned `pods` (spec.nodeName set) and namespaces' labels. */
export function clusterOf(nodes: readonly Node[], pods: readonly Pod[] = [], namespaces: Record<string, Labels> = {}): ClusterCache {
  const cache = new ClusterCache();
  for (const n of nodes) cache.setNode(n);
  for (const p of pods) cache.setPod(podInfoOf(p));
  for (const [name, labels] of Object.entries(namespaces)) cache.setNamespace({ metadata: { name, labels: { ...labels } } });
  return cache;
}

/** A deterministic random in [0, 1) (mulberry32), for tie-breaking in tests. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Creates a Node through the API, then sets its status (allocatable and the Ready condition) as an agent would. */
export async function addNode(client: Client, name: string, o: NodeSpecOptions = {}): Promise<Node> {
  const { status, ...rest } = makeNode(name, o);
  const created = await client.nodes().create(rest);
  return client.nodes().updateStatus({ ...created, status: status ?? {} });
}

/** A pod as a client would create it (no uid, no timestamps). */
export function apiPod(name: string, o: PodSpecOptions = {}): Pod {
  const pod = makePod(name, o);
  const { uid: _uid, creationTimestamp: _created, ...metadata } = pod.metadata;
  return { ...pod, metadata };
}

/** Polls `check` every 10 ms until it holds; throws after `ms` (real time). */
export async function eventually(what: string, check: () => boolean | Promise<boolean>, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
