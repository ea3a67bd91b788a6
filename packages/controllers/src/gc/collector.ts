/**
 * GarbageCollector: deletes objects whose owners are gone, and carries out foreground and orphan
 * deletion, as Kubernetes' pkg/controller/garbagecollector does.
 *
 * Expected flow (one `start` = one run; a leader that loses and regains the lease starts afresh):
 * 1. Discovery: every served kind that supports list, watch and delete (events excepted) gets a
 *    monitor: a handler on the manager's shared informer of that kind, feeding the dependency graph.
 *    Discovery is read again every `discoveryIntervalMs`; kinds that appear (custom resources) get
 *    monitors without a restart, kinds that go lose theirs.
 * 2. Once the monitors have synced (or `initialSyncTimeoutMs` passed), two work queues run:
 *    attemptToDelete (look at an object: is it garbage? is it an owner whose foreground deletion
 *    can finish?) and attemptToOrphan (strip an owner's references from its dependents, then
 *    remove its orphan finalizer). Their keys are object uids.
 *
 * Guarantees: nothing is deleted on the cache's word: the object and each of its owners are read
 * live (uid compared) first, and deletes carry uid and resourceVersion preconditions. A failing key
 * backs off per key (5 ms doubling up to 1000 s). A dependent with a live owner is never deleted;
 * it only loses its references to absent owners.
 * Caveats: informers of kinds that disappear keep running (the manager's informers cannot be
 * stopped one by one); only the collector's handler is removed. No absent-owner cache: every
 * verdict costs a GET.
 */
import type { Clock, KubeObject, Logger, OwnerReference } from '@setpoint/api';
import {
  Controller,
  apiVersionOf,
  deletedObject,
  ownerReferencesOf,
  type DeepReadonly,
  type DeletedFinalStateUnknown,
  type EventHandlerRegistration,
  type EventRecorder,
  type Manager,
  type ReconcileResult,
  type ResourceRef,
  type Runnable,
  type SharedInformer,
  checkMetadata,
} from '@setpoint/client';
import { readPreferredResources, supportsVerbs, type DiscoveryResult } from './discovery.js';
import { DependencyGraph, FOREGROUND_FINALIZER, ORPHAN_FINALIZER, type GraphNode, type GraphSink, type ObservedObject } from './graph.js';
import { ObjectOperations } from './operations.js';
import { classifyReference, decideDependent, invalidNamespaceMessage, type ClassifiedReferences } from './reconcile.js';

/** Options of the garbage collector; every one has a default. */
export interface GarbageCollectorOptions {
  /** How often discovery is read again. Default 30,000 ms. */
  readonly discoveryIntervalMs?: number;
  /** The clock of the discovery refresh and the initial sync timeout. Default the manager's. */
  readonly clock?: Clock;
  /** Reads the served kinds. Default: readPreferredResources(manager.client.discovery), fresh each time. */
  readonly discover?: () => Promise<DiscoveryResult>;
  /** Group-resources never monitored. Default events ('' and events.k8s.io), as Kubernetes. */
  readonly ignoredResources?: readonly { readonly group: string; readonly resource: string }[];
  /** Workers of each queue. Default 10. */
  readonly workers?: number;
  /** How long a start waits for the monitors to sync before collecting anyway. Default 30,000 ms. */
  readonly initialSyncTimeoutMs?: number;
}

interface Monitor {
  readonly ref: ResourceRef;
  readonly informer: SharedInformer<KubeObject>;
  readonly registration: EventHandlerRegistration;
}

/** The state of one run (one start). */
interface Run {
  readonly graph: DependencyGraph;
  readonly deleter: Controller;
  readonly orphaner: Controller;
}

const defaultIgnored = [
  { group: '', resource: 'events' },
  { group: 'events.k8s.io', resource: 'events' },
];

/** The garbage collector (see the file comment). A Runnable that needs leader election. */
export class GarbageCollector implements Runnable {
  readonly name = 'garbagecollector';
  readonly needsLeaderElection = true;
  readonly #manager: Manager;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #events: EventRecorder;
  readonly #ops: ObjectOperations;
  readonly #discover: () => Promise<DiscoveryResult>;
  readonly #intervalMs: number;
  readonly #initialSyncTimeoutMs: number;
  readonly #workers: number;
  readonly #ignored: ReadonlySet<string>;
  readonly #monitors = new Map<string, Monitor>();
  #run: Run | undefined;
  #collecting = false;

  constructor(manager: Manager, options: GarbageCollectorOptions = {}) {
    this.#manager = manager;
    this.#clock = options.clock ?? manager.clock;
    this.#logger = manager.logger.child({ controller: 'garbagecollector' });
    this.#events = manager.eventRecorder('garbage-collector-controller');
    this.#ops = new ObjectOperations(manager.client);
    this.#discover = options.discover ?? (() => readPreferredResources(manager.client.discovery));
    this.#intervalMs = options.discoveryIntervalMs ?? 30_000;
    this.#initialSyncTimeoutMs = options.initialSyncTimeoutMs ?? 30_000;
    this.#workers = options.workers ?? 10;
    this.#ignored = new Set((options.ignoredResources ?? defaultIgnored).map((g) => `${g.group}/${g.resource}`));
  }

  /** The kinds monitored now. */
  monitoredResources(): ResourceRef[] {
    return [...this.#monitors.values()].map((m) => m.ref);
  }

  /** Whether the workers run: the first discovery succeeded and the monitors synced (or timed out). */
  get collecting(): boolean {
    return this.#collecting;
  }

  /** Whether the dependency graph holds a node for `uid` (for tests and debugging). */
  graphHas(uid: string): boolean {
    return this.#run?.graph.node(uid) !== undefined;
  }

  async start(signal: AbortSignal): Promise<void> {
    const common = { concurrency: this.#workers, clock: this.#manager.clock, logger: this.#manager.logger, metrics: this.#manager.metrics, gracefulShutdownMs: this.#manager.gracefulShutdownMs };
    const run: Run = {
      graph: new DependencyGraph(this.#sink()),
      deleter: new Controller({ ...common, name: 'garbagecollector-attempt-to-delete', reconcile: ({ name }) => this.#attemptToDelete(name) }),
      orphaner: new Controller({ ...common, name: 'garbagecollector-attempt-to-orphan', reconcile: ({ name }) => this.#attemptToOrphan(name) }),
    };
    this.#run = run;
    try {
      while (!signal.aborted && !(await this.#syncMonitors())) await this.#sleep(this.#intervalMs, signal);
      if (signal.aborted) return;
      const synced = await this.#waitForMonitors(signal);
      if (signal.aborted) return;
      if (!synced) this.#logger.warn({}, 'not all monitors synced in time; collecting anyway');
      const workers = Promise.all([run.deleter.start(signal), run.orphaner.start(signal)]);
      this.#collecting = true;
      while (await this.#sleep(this.#intervalMs, signal)) await this.#syncMonitors();
      await workers;
    } finally {
      this.#collecting = false;
      for (const monitor of this.#monitors.values()) monitor.registration.remove();
      this.#monitors.clear();
      this.#run = undefined;
    }
  }

  /** Resolves true after `ms`, false (at once) when `signal` aborts. */
  async #sleep(ms: number, signal: AbortSignal): Promise<boolean> {
    try {
      await this.#clock.sleep(ms, signal);
      return true;
    } catch {
      return false;
    }
  }

  async #waitForMonitors(signal: AbortSignal): Promise<boolean> {
    const timeout = new AbortController();
    const onAbort = () => timeout.abort();
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      const synced = Promise.all([...this.#monitors.values()].map((m) => m.informer.waitForCacheSync(timeout.signal))).then((all) => all.every(Boolean));
      const expired = this.#clock.sleep(this.#initialSyncTimeoutMs, timeout.signal).then(() => false, () => false);
      return await Promise.race([synced, expired]);
    } finally {
      signal.removeEventListener('abort', onAbort);
      timeout.abort();
    }
  }

  /**
   * Reads discovery and makes the monitors match it. Resolves false (monitors unchanged) when
   * discovery fails or reports nothing; monitors of group versions that failed to list are kept.
   */
  async #syncMonitors(): Promise<boolean> {
    const run = this.#run;
    if (run === undefined) return false;
    let found: DiscoveryResult;
    try {
      found = await this.#discover();
    } catch (err) {
      this.#logger.warn({ err }, 'discovery failed; monitors unchanged');
      return false;
    }
    const wanted = found.resources.filter((r) => supportsVerbs(r, 'delete', 'list', 'watch') && !this.#ignored.has(`${r.group}/${r.resource}`));
    if (wanted.length === 0) {
      this.#logger.warn({}, 'no resources reported by discovery; monitors unchanged');
      return false;
    }
    if (found.failedGroupVersions.size > 0) this.#logger.warn({ groupVersions: [...found.failedGroupVersions.keys()] }, 'failed to discover some group versions');
    const wantedKeys = new Set(wanted.map(monitorKey));
    for (const [key, monitor] of this.#monitors) {
      const failed = found.failedGroupVersions.has(apiVersionOf(monitor.ref)) && monitor.informer.hasSynced();
      if (wantedKeys.has(key) || failed) continue;
      monitor.registration.remove();
      this.#monitors.delete(key);
      this.#logger.info({ resource: key }, 'stopped monitoring a resource discovery no longer serves');
    }
    for (const r of wanted) {
      const key = monitorKey(r);
      if (this.#monitors.has(key)) continue;
      const ref: ResourceRef = { group: r.group, version: r.version, resource: r.resource, kind: r.kind, namespaced: r.namespaced };
      const informer = this.#manager.informer<KubeObject>(ref);
      const registration = informer.addEventHandler(this.#handlerFor(ref, run.graph), { resyncPeriodMs: 0 });
      this.#monitors.set(key, { ref, informer, registration });
      this.#logger.info({ resource: key }, 'monitoring a resource');
    }
    this.#ops.setKnown(wanted);
    return true;
  }

  #handlerFor(ref: ResourceRef, graph: DependencyGraph) {
    const apiVersion = apiVersionOf(ref);
    // A malformed object (ownerReferences or finalizers of the wrong shape) is not observed: the
    // check throws before the graph changes, and the informer logs it with its name and counts it.
    // A deletion is observed all the same, with the well-formed references only, so none lingers.
    const observed = (obj: Readonly<KubeObject>, check = true): ObservedObject | undefined => {
      if (check) checkMetadata(ref.kind, obj as KubeObject);
      const { uid, name, namespace, deletionTimestamp, finalizers } = obj.metadata;
      if (typeof uid !== 'string' || typeof name !== 'string') return undefined;
      return {
        identity: { apiVersion, kind: ref.kind, name, uid, namespace: namespace ?? '' },
        owners: ownerReferencesOf(obj as KubeObject),
        beingDeleted: deletionTimestamp !== undefined,
        finalizers: Array.isArray(finalizers) ? finalizers.filter((f) => typeof f === 'string') : [],
      };
    };
    return {
      onAdd: (obj: Readonly<KubeObject>) => {
        const o = observed(obj);
        if (o !== undefined) graph.observe(o);
      },
      onUpdate: (old: Readonly<KubeObject>, obj: Readonly<KubeObject>) => {
        const o = observed(obj);
        if (o !== undefined) graph.observe(o, observed(old, false));
      },
      onDelete: (deleted: DeepReadonly<KubeObject> | DeletedFinalStateUnknown<KubeObject>) => {
        const o = observed(deletedObject(deleted), false);
        if (o !== undefined) graph.observeDelete(o);
      },
    };
  }

  #sink(): GraphSink {
    return {
      attemptToDelete: (node, options) => {
        const queue = this.#run?.deleter.queue;
        if (options?.rateLimited) queue?.addRateLimited(node.identity.uid);
        else queue?.add(node.identity.uid);
      },
      attemptToOrphan: (node) => this.#run?.orphaner.queue.add(node.identity.uid),
      invalidNamespaceOwnerRef: (dependent, ref) => {
        const { apiVersion, kind, name, namespace, uid } = dependent.identity;
        this.#logger.info({ item: dependent.identity, owner: ref }, 'item references an owner but does not match namespaces');
        this.#events.event({ apiVersion, kind, name, namespace, uid }, 'Warning', 'OwnerRefInvalidNamespace', invalidNamespaceMessage(ref, namespace));
      },
    };
  }

  /** The attemptToDelete worker: one uid. A node never observed by an informer is looked at again later. */
  async #attemptToDelete(uid: string): Promise<ReconcileResult> {
    const run = this.#run;
    const node = run?.graph.node(uid);
    if (run === undefined || node === undefined) return undefined;
    const outcome = await this.#attemptToDeleteItem(run, node);
    if (outcome === 'gone' || outcome === 'undecidable') return undefined;
    return node.virtual ? { requeue: true } : undefined;
  }

  async #attemptToDeleteItem(run: Run, item: GraphNode): Promise<'done' | 'gone' | 'undecidable'> {
    // Being deleted is a one-way trip: wait for the final deletion, then its dependents are looked at.
    if (item.beingDeleted && !item.deletingDependents) return 'done';
    const latest = await this.#ops.get(item.identity);
    if (latest === undefined || latest.metadata.uid !== item.identity.uid) {
      run.graph.virtualDelete(item.identity);
      return 'gone';
    }
    if (item.deletingDependents) {
      await this.#finishForeground(run, item);
      return 'done';
    }
    const references = latest.metadata.ownerReferences ?? [];
    if (references.length === 0) return 'done';
    const classified: { [K in keyof ClassifiedReferences]: OwnerReference[] } = { solid: [], dangling: [], waitingForDependentsDeletion: [] };
    for (const reference of references) {
      const read = await this.#ops.readOwner(reference, item.identity.namespace);
      if (read.invalid) {
        this.#logger.info({ item: item.identity, owner: reference }, 'item is cluster-scoped, but refers to a namespaced owner');
        return 'undecidable';
      }
      classified[classifyReference(reference, read.owner)].push(reference);
    }
    const dependents = [...item.dependents];
    const decision = decideDependent(classified, {
      finalizers: latest.metadata.finalizers ?? [],
      hasDependents: dependents.length > 0,
      dependentDeletingDependents: dependents.some((d) => d.deletingDependents),
    });
    switch (decision.action) {
      case 'keep':
        return 'done';
      case 'removeReferences':
        this.#logger.info({ item: item.identity, uids: decision.uids }, 'removing references to absent owners and owners waiting for dependents');
        await this.#ops.removeOwnerReferences(item.identity, decision.uids);
        return 'done';
      case 'delete': {
        if (decision.unblockFirst) await this.#ops.unblockOwnerReferences(item.identity);
        this.#logger.info({ item: item.identity, propagationPolicy: decision.policy }, 'deleting item');
        const found = await this.#ops.delete(item.identity, decision.policy, latest.metadata.resourceVersion, references);
        if (found) return 'done';
        run.graph.virtualDelete(item.identity);
        return 'gone';
      }
    }
  }

  /** An owner in foreground deletion: done when no blocking dependent is left, else its blocking dependents are looked at. */
  async #finishForeground(run: Run, owner: GraphNode): Promise<void> {
    const blocking = owner.blockingDependents();
    if (blocking.length === 0) {
      this.#logger.info({ item: owner.identity }, 'removing the foregroundDeletion finalizer');
      await this.#ops.removeFinalizer(owner.identity, FOREGROUND_FINALIZER);
      return;
    }
    for (const dep of blocking) if (!dep.deletingDependents) run.deleter.queue.add(dep.identity.uid);
  }

  /** The attemptToOrphan worker: strip the owner's references from its dependents, then remove its orphan finalizer. */
  async #attemptToOrphan(uid: string): Promise<ReconcileResult> {
    const owner = this.#run?.graph.node(uid);
    if (owner === undefined) return undefined;
    const failures: string[] = [];
    await Promise.all(
      [...owner.dependents].map((dep) =>
        this.#ops.removeOwnerReferences(dep.identity, [uid]).catch((err: unknown) => {
          failures.push(`orphaning ${describe(dep)} failed, ${err instanceof Error ? err.message : String(err)}`);
        }),
      ),
    );
    if (failures.length > 0) throw new Error(`failed to orphan dependents of owner ${describe(owner)}, got errors: ${failures.join(', ')}`);
    await this.#ops.removeFinalizer(owner.identity, ORPHAN_FINALIZER);
    return undefined;
  }
}

function monitorKey(ref: Pick<ResourceRef, 'group' | 'version' | 'resource'>): string {
  return `${ref.group}/${ref.version}/${ref.resource}`;
}

/** "[v1/ConfigMap, namespace: ns, name: n, uid: u]", as Kubernetes prints an object reference. */
function describe(node: GraphNode): string {
  const { apiVersion, kind, namespace, name, uid } = node.identity;
  return `[${apiVersion}/${kind}, namespace: ${namespace}, name: ${name}, uid: ${uid}]`;
}
