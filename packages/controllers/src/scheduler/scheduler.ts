/**
 * Scheduler: the runnable that places pods (kube-scheduler's scheduleOne loop, one profile).
 *
 * Expected flow: while this process leads, start(signal) registers handlers on the pod, node and
 * namespace informers (filling a fresh ClusterCache and SchedulingQueue), waits for them to sync,
 * then takes one pod at a time off the queue: reads its present state from the informer, decides
 * (SchedulingAlgorithm), and either
 * - assumes it onto the chosen node in the cache — so the next decision counts it — and sends
 *   POST pods/{name}/binding in the background (at most `parallelBinds` at once); a failed binding
 *   is forgotten from the cache and the pod goes to backoff; or
 * - reports it: PodScheduled=False reason Unschedulable with kube-scheduler's message, written
 *   only when it changed (strategic merge patch of status, so no conflict with other writers), and
 *   a FailedScheduling Warning event (aggregated by the recorder); the pod waits in the queue's
 *   unschedulable pool until a node is added or changes in a way that matters, a placed pod is
 *   deleted or finishes (or, for pods with pod affinity or spreading, changes), or 5 minutes pass.
 *
 * Decisions run back to back for up to 5 ms, then the loop yields to the event loop so informer
 * events get in (one decision per turn would let a busy process throttle it to a few hundred pods
 * per second; measured in bench/controllers.bench.ts).
 *
 * Guarantees: never two decisions at once; a decision sees every earlier assumption; a pod is
 * bound at most once by this process (the API server refuses a second binding anyway); the
 * Unschedulable condition of a pod is written before its binding is sent, so it cannot overwrite
 * the PodScheduled=True the binding sets. On stop (signal, or the lease lost) it takes no new pod,
 * waits for bindings and status writes in flight, and removes its handlers; a new term starts
 * from the informers' caches again.
 */
import { isApiError, realClock, rfc3339, silentLogger, type Clock, type Logger, type Namespace, type Node, type ObjectReference, type Pod } from '@setpoint/api';
import { deletedObject, type Client, type EventHandlerRegistration, type EventRecorder, type Runnable, type SharedInformer, checkNode, checkPod, isWellFormed } from '@setpoint/client';
import { SchedulingAlgorithm } from './algorithm.js';
import { ClusterCache } from './cache.js';
import { DEFAULT_SCHEDULER_NAME, assignedPodChangedForScheduling, isAssigned, nodeChangedForScheduling, podChangedForScheduling, queueAttributes, responsibleFor } from './changes.js';
import type { ScheduleAttemptResult, SchedulerMetrics } from './metrics.js';
import { podInfoOf, type PodInfo } from './nodeinfo.js';
import { SchedulingQueue, type QueuedPod } from './queue.js';

export interface SchedulerOptions {
  /** Pods whose spec.schedulerName is this (unset: default-scheduler). Default "default-scheduler". */
  readonly schedulerName?: string;
  /** Backoff and unschedulable timers. Default the manager's clock. */
  readonly clock?: Clock;
  /** [0, 1): breaks ties between equally good nodes. Default Math.random. */
  readonly random?: () => number;
  /** kube-scheduler's percentageOfNodesToScore; 0 (default) is adaptive. */
  readonly percentageOfNodesToScore?: number;
  /** Default 1,000 ms. */
  readonly initialBackoffMs?: number;
  /** Default 10,000 ms. */
  readonly maxBackoffMs?: number;
  /** Longest an unschedulable pod waits without a cluster change. Default 300,000 ms. */
  readonly maxUnschedulableMs?: number;
  /** Bindings in flight at most. Default 64 (kube-scheduler binds in goroutines without a limit). */
  readonly parallelBinds?: number;
}

/** What a Scheduler works with (registerScheduler builds it from a Manager). */
export interface SchedulerDeps {
  readonly client: Client;
  readonly pods: SharedInformer<Pod>;
  readonly nodes: SharedInformer<Node>;
  readonly namespaces?: SharedInformer<Namespace>;
  readonly events: EventRecorder;
  readonly metrics?: SchedulerMetrics;
  readonly logger?: Logger;
}

/** Counts since construction, for tests and benchmarks (the metrics say the same). */
export interface SchedulerStats {
  scheduled: number;
  unschedulable: number;
  errors: number;
}

/** Longest run of decisions before the loop yields to the event loop. */
const SLICE_MS = 5;
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

export class Scheduler implements Runnable {
  readonly name = 'scheduler';
  readonly needsLeaderElection = true;
  readonly schedulerName: string;
  readonly stats: SchedulerStats = { scheduled: 0, unschedulable: 0, errors: 0 };
  readonly #deps: SchedulerDeps;
  readonly #options: SchedulerOptions;
  readonly #clock: Clock;
  readonly #logger: Logger;
  #cache = new ClusterCache();
  #queue = new SchedulingQueue();
  #algorithm = new SchedulingAlgorithm();
  readonly #binding = new Set<Promise<void>>();
  /** Per pod: the last status write sent (chained, so writes land in order). */
  readonly #statusWrites = new Map<string, Promise<void>>();
  /** Per pod: the Unschedulable message last sent, until the informer shows it. */
  readonly #written = new Map<string, string>();

  constructor(deps: SchedulerDeps, options: SchedulerOptions = {}) {
    this.#deps = deps;
    this.#options = options;
    this.schedulerName = options.schedulerName ?? DEFAULT_SCHEDULER_NAME;
    this.#clock = options.clock ?? realClock;
    this.#logger = (deps.logger ?? silentLogger).child({ scheduler: this.schedulerName });
  }

  /** Schedules until `signal` aborts (see the file comment). */
  async start(signal: AbortSignal): Promise<void> {
    const { pods, nodes, namespaces } = this.#deps;
    this.#cache = new ClusterCache();
    this.#queue = new SchedulingQueue({
      clock: this.#clock,
      ...(this.#options.initialBackoffMs !== undefined ? { initialBackoffMs: this.#options.initialBackoffMs } : {}),
      ...(this.#options.maxBackoffMs !== undefined ? { maxBackoffMs: this.#options.maxBackoffMs } : {}),
      ...(this.#options.maxUnschedulableMs !== undefined ? { maxUnschedulableMs: this.#options.maxUnschedulableMs } : {}),
    });
    this.#algorithm = new SchedulingAlgorithm({
      ...(this.#options.random !== undefined ? { random: this.#options.random } : {}),
      ...(this.#options.percentageOfNodesToScore !== undefined ? { percentageOfNodesToScore: this.#options.percentageOfNodesToScore } : {}),
    });
    const queue = this.#queue;
    this.#deps.metrics?.observeQueue(() => queue.counts());
    const registrations: EventHandlerRegistration[] = [this.#watchNodes(nodes), this.#watchPods(pods)];
    if (namespaces !== undefined) registrations.push(this.#watchNamespaces(namespaces));
    const onAbort = () => queue.close();
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      const synced = await Promise.all([pods, nodes, ...(namespaces ? [namespaces] : [])].map((i) => i.waitForCacheSync(signal)));
      if (!synced.every(Boolean) || signal.aborted) return;
      this.#logger.info({ nodes: this.#cache.nodes().length }, 'caches synced; scheduling');
      await this.#loop(queue, signal);
    } finally {
      queue.close();
      signal.removeEventListener('abort', onAbort);
      await Promise.allSettled([...this.#binding, ...this.#statusWrites.values()]);
      for (const r of registrations) r.remove();
      this.#written.clear();
    }
  }

  async #loop(queue: SchedulingQueue, signal: AbortSignal): Promise<void> {
    const parallel = Math.max(1, this.#options.parallelBinds ?? 64);
    let sliceStarted = performance.now();
    while (!signal.aborted) {
      while (this.#binding.size >= parallel) await Promise.race(this.#binding);
      const item = await queue.pop();
      if (item === undefined) return;
      this.#scheduleOne(item);
      // Decide for up to a slice of time, then let informer events (and everything else) in.
      if (performance.now() - sliceStarted >= SLICE_MS) {
        await nextTurn();
        sliceStarted = performance.now();
      }
    }
  }

  /** One decision; whatever it throws is contained: logged with the pod, counted as an error, and the pod backs off. */
  #scheduleOne(item: QueuedPod): void {
    const started = performance.now();
    try {
      this.#decide(item, started);
    } catch (err) {
      this.#logger.error({ err, pod: item.key }, 'scheduling attempt failed; retrying after backoff');
      this.#record('error', started);
      this.#cache.forget(item.key);
      this.#queue.requeueBackoff(item);
    }
  }

  #decide(item: QueuedPod, started: number): void {
    const cache = this.#cache;
    const queue = this.#queue;
    const pod = this.#deps.pods.store.get(item.key);
    if (pod === undefined || !responsibleFor(pod, this.schedulerName) || cache.isPlaced(item.key)) {
      queue.done(item);
      return;
    }
    checkPod(pod);
    const info = podInfoOf(pod);
    const decision = this.#algorithm.schedule(info, cache);
    if (decision.kind === 'unschedulable') {
      this.#record('unschedulable', started);
      queue.requeueUnschedulable(item);
      this.#reportUnschedulable(pod, info, decision.message);
      return;
    }
    cache.assume(info, decision.node);
    const binding = this.#bind(item, info, decision.node, started).finally(() => this.#binding.delete(binding));
    this.#binding.add(binding);
  }

  async #bind(item: QueuedPod, info: PodInfo, node: string, started: number): Promise<void> {
    await this.#statusWrites.get(info.key);
    try {
      await this.#deps.client.pods().createSubresource(
        info.name,
        'binding',
        { apiVersion: 'v1', kind: 'Binding', metadata: { name: info.name, namespace: info.namespace, ...(info.pod.metadata.uid ? { uid: info.pod.metadata.uid } : {}) }, target: { apiVersion: 'v1', kind: 'Node', name: node } },
        { namespace: info.namespace },
      );
    } catch (err) {
      this.#cache.forget(info.key);
      this.#record('error', started);
      if (isApiError(err, 'NotFound')) {
        this.#queue.delete(info.key);
        this.#queue.done(item);
        return;
      }
      this.#logger.warn({ err, pod: info.key, node }, 'binding failed; the pod is forgotten and retried after backoff');
      this.#queue.requeueBackoff(item);
      return;
    }
    this.#record('scheduled', started);
    this.#queue.done(item);
    this.#written.delete(info.key);
    this.#deps.events.event(podReference(info), 'Normal', 'Scheduled', `Successfully assigned ${info.key} to ${node}`);
  }

  #record(result: ScheduleAttemptResult, started: number): void {
    if (result === 'scheduled') this.stats.scheduled++;
    else if (result === 'unschedulable') this.stats.unschedulable++;
    else this.stats.errors++;
    this.#deps.metrics?.attempt(result, (performance.now() - started) / 1000);
  }

  /** The FailedScheduling event, and the PodScheduled=False condition when it says something new. */
  #reportUnschedulable(pod: Readonly<Pod>, info: PodInfo, message: string): void {
    this.#deps.events.event(podReference(info), 'Warning', 'FailedScheduling', message);
    const current = (pod.status?.conditions ?? []).find((c) => c.type === 'PodScheduled');
    const shown = current?.status === 'False' && current.reason === 'Unschedulable' ? current.message : undefined;
    let pending = this.#written.get(info.key);
    if (pending !== undefined && pending === shown) {
      this.#written.delete(info.key); // the cache has caught up with our last write
      pending = undefined;
    }
    // What the pod will say once our writes land: the last one sent, else what the cache shows.
    if ((pending ?? shown) === message) return;
    this.#written.set(info.key, message);
    const now = rfc3339(this.#clock.now());
    const condition = {
      type: 'PodScheduled',
      status: 'False',
      reason: 'Unschedulable',
      message,
      lastProbeTime: null,
      lastTransitionTime: current?.status === 'False' ? (current.lastTransitionTime ?? now) : now,
    };
    const previous = this.#statusWrites.get(info.key) ?? Promise.resolve();
    const write: Promise<void> = previous
      .then(() => this.#deps.client.pods().patch(info.name, { status: { conditions: [condition] } }, { type: 'strategic', subresource: 'status', namespace: info.namespace }))
      .then(
        () => undefined,
        (err: unknown) => {
          if (this.#written.get(info.key) === message) this.#written.delete(info.key);
          if (!isApiError(err, 'NotFound')) this.#logger.warn({ err, pod: info.key }, 'could not write the Unschedulable condition; the next attempt writes it again');
        },
      )
      .finally(() => {
        if (this.#statusWrites.get(info.key) === write) this.#statusWrites.delete(info.key);
      });
    this.#statusWrites.set(info.key, write);
  }

  #watchNodes(nodes: SharedInformer<Node>): EventHandlerRegistration {
    return nodes.addEventHandler({
      onAdd: (node) => {
        this.#skipMalformedNode(node);
        this.#cache.setNode(node);
        this.#queue.moveAll();
      },
      onUpdate: (old, node) => {
        this.#skipMalformedNode(node);
        this.#cache.setNode(node);
        if (nodeChangedForScheduling(old, node)) this.#queue.moveAll();
      },
      onDelete: (obj) => this.#cache.removeNode(deletedObject(obj).metadata.name ?? ''),
    });
  }

  #watchPods(pods: SharedInformer<Pod>): EventHandlerRegistration {
    return pods.addEventHandler({
      onAdd: (pod) => this.#podSeen(undefined, pod),
      onUpdate: (old, pod) => this.#podSeen(old, pod),
      onDelete: (obj) => {
        const info = podInfoOf(deletedObject(obj));
        this.#queue.delete(info.key);
        this.#written.delete(info.key);
        if (this.#cache.removePod(info.key) !== undefined) this.#queue.moveAll();
      },
    });
  }

  /**
   * A malformed node is taken out of the cache (no pod goes there) and its error thrown, for the
   * informer to log with the node's name and count (controller_runtime_informer_errors_total).
   */
  #skipMalformedNode(node: Readonly<Node>): void {
    if (isWellFormed(checkNode, node as Node)) return;
    this.#cache.removeNode(typeof node.metadata.name === 'string' ? node.metadata.name : '');
    checkNode(node as Node);
  }

  #podSeen(old: Readonly<Pod> | undefined, pod: Readonly<Pod>): void {
    if (!isWellFormed(checkPod, pod as Pod)) {
      // Malformed: as if absent (not queued, not counted on a node), and reported by the informer.
      const key = `${pod.metadata.namespace ?? ''}/${pod.metadata.name ?? ''}`;
      this.#queue.delete(key);
      this.#written.delete(key);
      if (this.#cache.removePod(key) !== undefined) this.#queue.moveAll();
      checkPod(pod as Pod);
    }
    const info = podInfoOf(pod);
    if (isAssigned(pod)) {
      this.#queue.delete(info.key);
      this.#cache.setPod(info);
      if (old === undefined || !isAssigned(old)) {
        if (!info.terminal) this.#queue.moveAll((p) => p.dependsOnPods);
      } else if (assignedPodChangedForScheduling(podInfoOf(old), info)) {
        this.#queue.moveAll();
      }
      return;
    }
    if (!responsibleFor(pod, this.schedulerName)) {
      this.#queue.delete(info.key);
      return;
    }
    if (this.#cache.isPlaced(info.key)) return; // assumed: bound by us, the informer has not seen it yet
    this.#queue.update(info.key, queueAttributes(info), old !== undefined && podChangedForScheduling(old, pod));
  }

  #watchNamespaces(namespaces: SharedInformer<Namespace>): EventHandlerRegistration {
    return namespaces.addEventHandler({
      onAdd: (ns) => this.#cache.setNamespace(ns),
      onUpdate: (_old, ns) => this.#cache.setNamespace(ns),
      onDelete: (obj) => this.#cache.removeNamespace(deletedObject(obj).metadata.name ?? ''),
    });
  }
}

function podReference(info: PodInfo): ObjectReference {
  return { kind: 'Pod', apiVersion: 'v1', namespace: info.namespace, name: info.name, ...(info.pod.metadata.uid ? { uid: info.pod.metadata.uid } : {}) };
}
