/**
 * SharedInformer: one watcher, one indexed cache, many handlers (client-go's sharedIndexInformer,
 * with kube-runtime's watcher and reflector inside).
 *
 * Expected flow: construct with a ListWatch; add indexers; add handlers; `run(signal)`; wait for
 * `waitForCacheSync` before acting on the cache (before that, "not in the cache" means nothing).
 * Handlers get keys' changes as hints; read the cache for the current state.
 *
 * Guarantees:
 * - The cache only ever holds complete listings plus the watch's changes after them: a listing is
 *   buffered until its end and then replaces the cache at once.
 * - Handlers are called in the order they were added, one event at a time, each event in the order
 *   the cache saw it. A handler added after the first sync first receives onAdd(obj, true) for
 *   every cached object, before addEventHandler returns.
 * - On a relist (after a 410), objects gone from the new listing are delivered as onDelete with a
 *   DeletedFinalStateUnknown carrying their last known state; objects whose resourceVersion changed
 *   as onUpdate(old, new); new ones as onAdd(obj, false). Unchanged objects are not re-delivered.
 * - Every handler with a resync period gets onUpdate(obj, obj) for every cached object once per
 *   period (on the informer's clock), from the first sync until run() ends.
 * - run() only ends when its signal aborts; errors are retried by the watcher and show in health().
 * Throws: run() twice, or addIndexers after run().
 */
import { realClock, silentLogger, type Clock, type KubeObject, type Logger } from '@setpoint/api';
import type { ListWatch } from '../types.js';
import {
  DeletedFinalStateUnknown,
  Listener,
  type EventHandlerOptions,
  type EventHandlerRegistration,
  type InformerErrorStage,
  type InformerMetrics,
  type ResourceEventHandler,
} from './handlers.js';
import { deepFreeze, IndexedStore, keyOf, type DeepReadonly, type Indexer, type Indexers } from './store.js';
import { Watcher, type WatcherHealth, type WatcherOptions } from './watcher.js';

/** Options of a SharedInformer: the watcher's (selectors, watchList, backoff, clock, logger) and these. */
export interface SharedInformerOptions<T extends KubeObject = KubeObject> extends WatcherOptions {
  /** The default resync period of handlers, in ms; 0 (the default) is none. */
  readonly resyncPeriodMs?: number;
  /** Index functions beyond the built-in "namespace" one. */
  readonly indexers?: Indexers<T>;
  /** The informer's name in logs and metrics (e.g. "pods", "replicasets.apps"). Default ''. */
  readonly name?: string;
  /** Counts contained failures: handlers, index functions, objects without a usable key. */
  readonly metrics?: InformerMetrics;
}

export interface InformerHealth extends WatcherHealth {
  /** Whether the cache has held a complete listing. */
  readonly synced: boolean;
}

/** A shared informer over one ListWatch (see the file comment for its guarantees). */
export class SharedInformer<T extends KubeObject = KubeObject> {
  /** The cache, read-only. Complete only once hasSynced(). */
  readonly store: Indexer<T>;
  readonly #cache: IndexedStore<T>;
  readonly #watcher: Watcher<T>;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #defaultResyncMs: number;
  readonly #name: string;
  readonly #metrics: InformerMetrics | undefined;
  #listeners: Listener<T>[] = [];
  #started = false;
  #running = false;
  #synced = false;
  readonly #waiters = new Set<() => void>();

  constructor(listWatch: ListWatch<T>, options: SharedInformerOptions<T> = {}) {
    this.#clock = options.clock ?? realClock;
    this.#logger = options.logger ?? silentLogger;
    this.#defaultResyncMs = options.resyncPeriodMs ?? 0;
    this.#name = options.name ?? '';
    this.#metrics = options.metrics;
    this.#cache = new IndexedStore<T>(options.indexers, {
      onIndexError: (err, index, key) => {
        this.#logger.error({ err, index, key }, 'index function failed; the object is not indexed by it');
        this.#count('index');
      },
    });
    this.store = this.#cache;
    this.#watcher = new Watcher(listWatch, { ...options, clock: this.#clock, logger: this.#logger });
  }

  /** Adds index functions. Throws an Error once run() was called, or for a name already taken. */
  addIndexers(indexers: Indexers<T>): void {
    if (this.#started) throw new Error('indexers must be added before the informer starts');
    this.#cache.addIndexers(indexers);
  }

  /**
   * Adds a handler (see the class comment for what it receives and when). With the informer
   * already synced, delivers onAdd(obj, true) for every cached object before returning.
   */
  addEventHandler(handler: ResourceEventHandler<T>, options: EventHandlerOptions = {}): EventHandlerRegistration {
    const listener = new Listener<T>(handler, options.resyncPeriodMs ?? this.#defaultResyncMs, {
      clock: this.#clock,
      logger: this.#logger,
      onError: () => this.#count('handler'),
      list: () => this.#cache.list(),
    });
    this.#listeners = [...this.#listeners, listener];
    if (this.#synced) {
      for (const obj of this.#cache.list()) listener.add(obj, true);
      listener.synced = true;
      if (this.#running) listener.startResync();
    }
    return {
      resyncPeriodMs: listener.resyncPeriodMs,
      hasSynced: () => listener.synced,
      remove: () => {
        listener.removed = true;
        listener.stopResync();
        // Stryker disable next-line MethodExpression: the removed flag already stops deliveries; dropping the listener only frees it
        this.#listeners = this.#listeners.filter((l) => l !== listener);
      },
    };
  }

  /** Whether the cache has held a complete listing (and handlers have received it). */
  hasSynced(): boolean {
    return this.#synced;
  }

  /**
   * Resolves true once synced; false if `signal` aborts first or run() ends unsynced.
   */
  waitForCacheSync(signal?: AbortSignal): Promise<boolean> {
    if (this.#synced) return Promise.resolve(true);
    if (signal?.aborted === true || (this.#started && !this.#running)) return Promise.resolve(false);
    return new Promise<boolean>((resolve) => {
      const done = (): void => {
        this.#waiters.delete(done);
        // Stryker disable next-line StringLiteral: frees the abort listener (memory); a later abort would only call done again, which resolves nothing twice
        signal?.removeEventListener('abort', done);
        resolve(this.#synced);
      };
      this.#waiters.add(done);
      // Stryker disable next-line ObjectLiteral,BooleanLiteral: a signal aborts once, so once: true changes nothing but memory
      signal?.addEventListener('abort', done, { once: true });
    });
  }

  /** The resourceVersion of the last listing, change or bookmark seen; '' before the first. */
  lastSyncResourceVersion(): string {
    return this.#watcher.resourceVersion;
  }

  health(): InformerHealth {
    return { ...this.#watcher.health(), synced: this.#synced };
  }

  /** Whether run() is in progress. */
  isRunning(): boolean {
    return this.#running;
  }

  /** Lists, watches and delivers until `signal` aborts. Throws an Error if called a second time. */
  async run(signal: AbortSignal): Promise<void> {
    if (this.#started) throw new Error('the informer was already started; an informer runs once');
    this.#started = true;
    this.#running = true;
    // Stryker disable next-line ArrayDeclaration: the watcher's first event is always 'init', which resets the listing
    let listing: T[] = [];
    try {
      for await (const event of this.#watcher.events(signal)) {
        switch (event.type) {
          case 'init':
            listing = [];
            break;
          case 'initApply':
            if (this.#keyable(event.object)) listing.push(event.object);
            break;
          case 'initDone':
            this.#replace(listing, event.resourceVersion);
            // Stryker disable next-line ArrayDeclaration: frees the listing (memory); the next 'init' resets it before any use
            listing = [];
            break;
          case 'apply':
            if (this.#keyable(event.object)) this.#apply(event.object);
            break;
          case 'delete':
            if (this.#keyable(event.object)) this.#delete(event.object);
            break;
          case 'health':
            this.#logger.debug({ health: event.health.state, restarts: event.health.restarts }, 'informer health');
            break;
        }
      }
    } finally {
      this.#running = false;
      for (const listener of this.#listeners) listener.stopResync();
      for (const wake of [...this.#waiters]) wake();
    }
  }

  #replace(listing: T[], resourceVersion: string): void {
    const first = !this.#synced;
    const changes = this.#cache.replace(listing, resourceVersion);
    const listeners = this.#listeners;
    for (const change of changes) {
      for (const listener of listeners) {
        if (change.type === 'added') listener.add(change.obj, first);
        else if (change.type === 'updated') listener.update(change.old, change.obj);
        else listener.delete(new DeletedFinalStateUnknown<T>(change.key, change.obj));
      }
    }
    if (!first) return;
    this.#synced = true;
    for (const listener of this.#listeners) {
      // A handler added while the listing was being delivered missed part of it: give it all.
      if (!listeners.includes(listener)) for (const obj of this.#cache.list()) listener.add(obj, true);
      listener.synced = true;
      listener.startResync();
    }
    for (const wake of [...this.#waiters]) wake();
  }

  /**
   * Whether an object has a usable key (metadata an object, a non-empty string name, a string
   * namespace or none), as client-go's MetaNamespaceKeyFunc requires; one without is logged,
   * counted and never cached, so no handler or index function sees it.
   */
  #keyable(object: T): boolean {
    const meta: unknown = (object as { metadata?: unknown } | null)?.metadata;
    if (typeof meta === 'object' && meta !== null && !Array.isArray(meta)) {
      const { name, namespace } = meta as { name?: unknown; namespace?: unknown };
      if (typeof name === 'string' && name !== '' && (namespace === undefined || typeof namespace === 'string')) return true;
    }
    const m = typeof meta === 'object' && meta !== null ? (meta as { name?: unknown; namespace?: unknown }) : {};
    this.#logger.error({ namespace: m.namespace, name: m.name }, 'object without a usable key (metadata.name and metadata.namespace must be strings); not cached');
    this.#count('key');
    return false;
  }

  #count(stage: InformerErrorStage): void {
    try {
      // Stryker disable next-line OptionalChaining: without metrics the call throws inside this try and is swallowed: nothing differs
      this.#metrics?.informerError(this.#name, stage);
    } catch {
      // Counting must not take the informer down.
    }
  }

  #apply(object: T): void {
    const old = this.#cache.upsert(object);
    const obj = object as DeepReadonly<T>;
    for (const listener of this.#listeners) {
      if (old === undefined) listener.add(obj, false);
      else listener.update(old, obj);
    }
  }

  #delete(object: T): void {
    deepFreeze(object);
    this.#cache.delete(keyOf(object), object.metadata.resourceVersion);
    const obj = object as DeepReadonly<T>;
    for (const listener of this.#listeners) listener.delete(obj);
  }
}
