/**
 * What the Deployment controller's integration tests share: a namespace on a control plane, a
 * manager running the Deployment and ReplicaSet controllers for it (stoppable and restartable),
 * the fake node making its pods Running and Ready, and waiting with deadlines.
 */
import type { Deployment, DeploymentCondition, Pod } from '@setpoint/api';
import { Manager, type Client } from '@setpoint/client';
import { registerReplicaSetController } from '../replicaset/index.js';
import { registerDeploymentController } from './index.js';

/** The options of src/testing/node.ts's fake node that these tests use. */
export interface NodeOptions {
  readonly namespace?: string;
  readonly ready?: (pod: Pod) => boolean;
}

/**
 * src/testing/node.ts's `runFakeNode`, passed in by the test files (this file is part of the
 * package's build, which leaves src/testing out).
 */
export type NodeRunner = (client: Client, signal: AbortSignal, options: NodeOptions) => Promise<void>;

/** Polls `check` every 10 ms until it returns something (not undefined/false); throws after `ms`. */
export async function eventually<T>(what: string, check: () => Promise<T | undefined | false> | T | undefined | false, ms = 20_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

export interface Harness extends AsyncDisposable {
  readonly client: Client;
  readonly namespace: string;
  /** Stops the controllers' manager (waits for it). */
  stopControllers(): Promise<void>;
  /** Starts a fresh manager (new caches, new queues): a controller restart. */
  startControllers(): void;
}

/**
 * Creates `namespace` and runs, for it, the fake node (`runNode`) and a manager with both
 * controllers. Dispose (`await using`) to stop them all.
 */
export async function startHarness(client: Client, namespace: string, runNode: NodeRunner, node: NodeOptions = {}): Promise<Harness> {
  await client.namespaces().create({ metadata: { name: namespace } });
  const nodeAbort = new AbortController();
  const nodeDone = runNode(client, nodeAbort.signal, { namespace, ...node });
  let running: { abort: AbortController; done: Promise<void> } | undefined;
  const startControllers = () => {
    const manager = new Manager({ client, namespace, gracefulShutdownMs: 5_000 });
    registerDeploymentController(manager);
    registerReplicaSetController(manager);
    const abort = new AbortController();
    running = { abort, done: manager.start(abort.signal) };
  };
  const stopControllers = async () => {
    const r = running;
    running = undefined;
    if (r === undefined) return;
    r.abort.abort();
    await r.done;
  };
  startControllers();
  return {
    client,
    namespace,
    startControllers,
    stopControllers,
    [Symbol.asyncDispose]: async () => {
      await stopControllers();
      nodeAbort.abort();
      await nodeDone;
    },
  };
}

/** A Deployment of `replicas` pods of `image`, labelled app=<name>. */
export function deployment(namespace: string, name: string, replicas: number, spec: Partial<NonNullable<Deployment['spec']>> = {}, image = 'nginx:1'): Deployment {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'main', image }] } },
      ...spec,
    },
  };
}

export const condition = (d: Deployment, type: string): DeploymentCondition | undefined => d.status?.conditions?.find((c) => c.type === type);
export const isPodReady = (pod: Pod): boolean => pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
export const isActive = (pod: Pod): boolean => pod.metadata.deletionTimestamp === undefined && pod.status?.phase !== 'Succeeded' && pod.status?.phase !== 'Failed';

/** Whether the Deployment's rollout is done: everything updated and available, generation observed. */
export function rolledOut(d: Deployment): boolean {
  const n = d.spec?.replicas ?? 1;
  const s = d.status ?? {};
  return (s.observedGeneration ?? 0) >= (d.metadata.generation ?? 0) && (s.updatedReplicas ?? 0) === n && (s.replicas ?? 0) === n && (s.availableReplicas ?? 0) === n;
}

/** Waits until `name` is rolled out, and returns it. */
export function waitRolledOut(h: Harness, name: string, ms?: number): Promise<Deployment> {
  return eventually(
    `${h.namespace}/${name} rolled out`,
    async () => {
      const d = await h.client.deployments().get(name, { namespace: h.namespace });
      return rolledOut(d) ? d : undefined;
    },
    ms,
  );
}

/** One moment of the namespace's pods: how many are active, how many of those ready, their hashes. */
export interface PodSample {
  readonly active: number;
  readonly ready: number;
  /** The distinct pod-template-hash labels of the active pods. */
  readonly hashes: readonly string[];
}

/**
 * Lists the namespace's pods, then watches them from that list, recording a sample after every
 * event. Resolves once the list is done (every later change is seen); `stop()` ends the watch and
 * returns the samples.
 */
export async function watchPods(client: Client, namespace: string): Promise<{ stop(): Promise<PodSample[]> }> {
  const abort = new AbortController();
  const samples: PodSample[] = [];
  const pods = new Map<string, Pod>();
  const record = () => {
    const active = [...pods.values()].filter(isActive);
    const hashes = new Set(active.map((p) => p.metadata.labels?.['pod-template-hash'] ?? ''));
    samples.push({ active: active.length, ready: active.filter(isPodReady).length, hashes: [...hashes] });
  };
  const list = await client.pods().list({ namespace });
  for (const pod of list.items) pods.set(pod.metadata.uid!, pod);
  record();
  let failure: unknown;
  const done = (async () => {
    try {
      for await (const event of client.pods().watch({ namespace, resourceVersion: list.metadata.resourceVersion, signal: abort.signal })) {
        if (event.type === 'DELETED') pods.delete(event.object.metadata.uid!);
        else if (event.type === 'ADDED' || event.type === 'MODIFIED') pods.set(event.object.metadata.uid!, event.object);
        else continue;
        record();
      }
    } catch (err) {
      if (!abort.signal.aborted) failure = err;
    }
  })();
  return {
    async stop() {
      abort.abort();
      await done;
      if (failure !== undefined) throw failure;
      return samples;
    },
  };
}
