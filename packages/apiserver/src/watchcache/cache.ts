/**
 * WatchCache: one per served kind, in memory, fed by a single store watch.
 *
 * Expected flow: `start()` lists every object of the kind at one revision, then watches the store
 * from that revision, applying each change to its map of current objects and to a window of recent
 * events, and fanning the change out to its watchers (filtered by namespace, labels and fields).
 *
 * Guarantees:
 * - A watch from resourceVersion N receives exactly the changes after N, in order, none replayed.
 *   N inside the window is served from memory; N older than the window but not yet compacted is
 *   served by a watch on the store itself (so reconnecting clients resume instead of relisting);
 *   N below the compact revision fails with 410 Expired.
 * - Each watcher's backlog is bounded in events (`maxQueued`) and in bytes (`maxQueuedBytes`: the
 *   JSON size of the events waiting for it plus what its connection has not flushed). A watcher
 *   that falls further behind is closed at once, as kube-apiserver's cacher closes a watcher whose
 *   buffer is full ("Forcing watcher close due to unresponsiveness"): its stream just ends, its
 *   queue is dropped and it leaves the watcher set. The client resumes from the last
 *   resourceVersion it received (served from the window or the store's history), or relists on 410.
 *   A watch served from the store's history pulls from the store only as fast as it is read (at
 *   most half of maxQueued lines wait for the reader); when the store's buffer for it (maxQueued
 *   events) overflows meanwhile, it ends, counted the same way, once the reader has read the lines
 *   it was sent.
 * - Initial events (resourceVersion 0 or unset, sendInitialEvents) and the replay of the window are
 *   produced one at a time as the watcher reads, from a snapshot of references: they are never
 *   encoded ahead of the reader, so a list of any size streams under the byte bound.
 * - Objects handed out are shared: callers must not mutate them.
 */
import { ApiError, every, realClock, silentLogger, type Clock, type KubeObject, type Logger, type Timer } from '@setpoint/api';
import { isStoreError, type Store, type WatchEvent } from '@setpoint/store';
import type { ResourceDef } from '../registry/types.js';
import { objectKey, resourcePrefix, uncheckedDecoder, type StoredObjectDecoder } from '../storage/codec.js';
import { scanStore } from '../storage/scan.js';
import { isNamespaceOnly, matchesFilter, type ObjectFilter } from './filter.js';
import { EventQueue } from './queue.js';

/** A change as the cache holds it. DELETED carries the last state, with the deletion's resourceVersion. */
export interface CacheEvent {
  readonly type: 'ADDED' | 'MODIFIED' | 'DELETED';
  readonly object: KubeObject;
  readonly prev: KubeObject | undefined;
  readonly rv: number;
}

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

/** One line of a watch stream, serialised at most once however many watchers send it. */
export class WatchLine {
  private text: string | undefined;
  private bytes: number | undefined;
  constructor(
    readonly type: WatchEventType,
    readonly object: unknown,
  ) {}
  /** The line's JSON text (without the newline), computed once. */
  toJSON(): string {
    this.text ??= JSON.stringify({ type: this.type, object: this.object });
    return this.text;
  }
  /** The UTF-8 size of the line's JSON text with its newline: what a watcher's backlog counts. */
  get byteLength(): number {
    this.bytes ??= Buffer.byteLength(this.toJSON()) + 1;
    return this.bytes;
  }
}

/** Default bound of a watcher's backlog in bytes (WatchCacheOptions.maxQueuedBytes): 10 MiB. */
export const DEFAULT_MAX_QUEUED_BYTES = 10 * 1024 * 1024;

export interface WatchCacheOptions {
  /** Recent events kept for watchers that resume. Default 10,000. */
  readonly windowSize?: number;
  /** Events a watcher may fall behind before it is closed. Default 10,000. */
  readonly maxQueued?: number;
  /**
   * Bytes a watcher may fall behind before it is closed: the JSON size of the events waiting for
   * it plus the bytes its connection has taken and not flushed. Default 10 MiB
   * (DEFAULT_MAX_QUEUED_BYTES). Initial events are not counted: they are produced as it reads.
   */
  readonly maxQueuedBytes?: number;
  /** How often watchers that asked for bookmarks get one. Default 60 s. */
  readonly bookmarkIntervalMs?: number;
  /** How long a watch or list for a resourceVersion the cache has not reached yet waits. Default 3 s. */
  readonly waitForFreshMs?: number;
  readonly clock?: Clock;
  readonly logger?: Logger;
  /** How stored objects are decoded (typed decoding; malformed ones left out). Default: unchecked. */
  readonly decoder?: StoredObjectDecoder;
}

export interface CacheWatchOptions {
  /** Changes after this resourceVersion; undefined or 0: the current state first, as ADDED events. */
  readonly resourceVersion: number | undefined;
  readonly filter: ObjectFilter;
  /** Send the current state first (watch-list), ending it with an initial-events-end bookmark. */
  readonly sendInitialEvents?: boolean;
  readonly bookmarks?: boolean;
  readonly signal?: AbortSignal;
}

interface Watcher {
  readonly filter: ObjectFilter;
  readonly queue: EventQueue<WatchLine>;
  readonly bookmarks: boolean;
}

export class WatchCache {
  /** The revision the cache reflects: every change up to it has been applied. */
  rv = 0;
  private readonly objects = new Map<string, KubeObject>();
  // Stryker disable next-line ArrayDeclaration: load() replaces it before the cache serves anything
  private window: CacheEvent[] = [];
  private windowHead = 0;
  /** Watches from a resourceVersion at or above this are served from the window. */
  private windowFloor = 0;
  private readonly watchers = new Set<Watcher>();
  private readonly byNamespace = new Map<string, Set<Watcher>>();
  private readonly freshWaiters = new Set<{ rv: number; resolve: () => void }>();
  private readonly changeListeners = new Set<(obj: KubeObject) => void>();
  private readonly prefix: string;
  private readonly windowSize: number;
  private readonly maxQueued: number;
  private readonly maxQueuedBytes: number;
  private terminated = 0;
  private readonly bookmarkIntervalMs: number;
  private readonly waitForFreshMs: number;
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly decoder: StoredObjectDecoder;
  private readonly abort = new AbortController();
  private readyPromise: Promise<void> | undefined;
  private bookmarkTimer: Timer | undefined;
  private stopped = false;

  constructor(
    private readonly store: Store,
    readonly def: ResourceDef,
    options: WatchCacheOptions = {},
  ) {
    this.prefix = resourcePrefix(def);
    this.windowSize = options.windowSize ?? 10_000;
    this.maxQueued = options.maxQueued ?? 10_000;
    this.maxQueuedBytes = options.maxQueuedBytes ?? DEFAULT_MAX_QUEUED_BYTES;
    this.bookmarkIntervalMs = options.bookmarkIntervalMs ?? 60_000;
    this.waitForFreshMs = options.waitForFreshMs ?? 3_000;
    this.clock = options.clock ?? realClock;
    this.logger = (options.logger ?? silentLogger).child({ component: 'watchcache', resource: def.resource });
    this.decoder = options.decoder ?? uncheckedDecoder;
  }

  /** Lists the kind and starts following the store. Resolves once the cache holds the list. */
  start(): Promise<void> {
    this.readyPromise ??= this.load().then(() => {
      void this.follow();
      this.bookmarkTimer = every(this.clock, this.bookmarkIntervalMs, () => this.sendBookmarks()).unref();
    });
    return this.readyPromise;
  }

  /** Stops following the store and ends every watch. */
  stop(): void {
    this.stopped = true;
    this.abort.abort();
    this.bookmarkTimer?.cancel();
    for (const w of [...this.watchers]) w.queue.end();
    for (const waiter of this.freshWaiters) waiter.resolve();
  }

  /**
   * Calls `listener` with every object the cache changes (deleted ones with their last state), and
   * with every object after a relist. Listeners run synchronously; they should only take note.
   */
  onChange(listener: (obj: KubeObject) => void): () => void {
    this.changeListeners.add(listener);
    return () => this.changeListeners.delete(listener);
  }

  /** The objects cached now (frozen). */
  snapshot(): KubeObject[] {
    return [...this.objects.values()];
  }

  /** The cached object `name` in `namespace` ('' for cluster-scoped kinds), frozen; undefined when absent. */
  get(namespace: string, name: string): KubeObject | undefined {
    return this.objects.get(objectKey(this.def, namespace, name));
  }

  /** Number of objects cached. */
  get size(): number {
    return this.objects.size;
  }

  /** Number of open watches served from the cache. */
  get watcherCount(): number {
    return this.watchers.size;
  }

  /** Watchers closed so far because they fell too far behind (kube's apiserver_terminated_watchers_total). */
  get terminatedWatchers(): number {
    return this.terminated;
  }

  /**
   * The current objects passing `filter`, sorted by key, and the revision they reflect.
   * With `minRv`, waits (up to waitForFreshMs) until the cache has reached it.
   */
  async list(filter: ObjectFilter, minRv = 0): Promise<{ items: KubeObject[]; rv: number }> {
    await this.waitFresh(minRv);
    const keys = [...this.objects.keys()].sort();
    const items: KubeObject[] = [];
    for (const key of keys) {
      const obj = this.objects.get(key)!;
      if (matchesFilter(this.def, filter, obj)) items.push(obj);
    }
    return { items, rv: this.rv };
  }

  /**
   * A watch as the API serves it: a queue of lines to send. Throws ApiError Expired (410) when the
   * resourceVersion is older than the store's history, Timeout when it is newer than the cache
   * reaches in time.
   */
  async watch(options: CacheWatchOptions): Promise<EventQueue<WatchLine>> {
    const rv = options.resourceVersion ?? 0;
    const initial = options.sendInitialEvents === true || rv === 0;
    // Stryker disable next-line ConditionalExpression,EqualityOperator: waitFresh(0) returns at once (0 is never above the cache's revision); the test only skips the call
    if (rv > 0) await this.waitFresh(rv);
    if (!initial && rv < this.windowFloor) return this.watchFromStore(options, rv);
    const filter = options.filter;
    const queue = this.newQueue(options);
    if (initial) {
      // References to the current objects; each becomes an ADDED line only when the watcher reads it.
      queue.startWith(initialEvents(this.def, filter, Array.from(this.objects.values())));
      if (options.sendInitialEvents === true) queue.push(new WatchLine('BOOKMARK', this.bookmarkObject(true)));
    } else {
      // The window only grows at its end (or is replaced by a copy), so [head, length) stays as it is now.
      queue.startWith(windowEvents(this.def, filter, this.window, this.windowHead, this.window.length, rv));
    }
    const watcher: Watcher = { filter, queue, bookmarks: options.bookmarks === true };
    this.addWatcher(watcher);
    queue.whenEnded(() => this.removeWatcher(watcher));
    endWith(queue, options.signal);
    return queue;
  }

  /** A watcher's queue with the cache's bounds; past them the watcher is closed and counted. */
  private newQueue(options: CacheWatchOptions): EventQueue<WatchLine> {
    const queue: EventQueue<WatchLine> = new EventQueue<WatchLine>({ limit: this.maxQueued, maxBytes: this.maxQueuedBytes, sizeOf: (line) => line.byteLength }, () => {
      this.terminated++;
      this.logger.info(
        { queued: queue.size, queuedBytes: queue.bytes, maxQueued: this.maxQueued, maxQueuedBytes: this.maxQueuedBytes, namespace: options.filter.namespace, resourceVersion: options.resourceVersion },
        'forcing watcher close due to unresponsiveness',
      );
      return undefined; // the stream just ends, as kube-apiserver's cacher closes it; the client resumes
    });
    return queue;
  }

  private async load(): Promise<void> {
    const { revision } = await scanStore(this.store, this.prefix, { pageLimit: () => 1000 }, (kv) => {
      const obj = this.decoder.decodeOrSkip(this.def, kv);
      if (obj !== undefined) this.objects.set(kv.key, Object.freeze(obj));
    });
    this.rv = revision;
    this.windowFloor = revision;
    this.window = [];
    this.windowHead = 0;
  }

  /** Applies the store's changes until stopped, recovering from every error the store can raise. */
  private async follow(): Promise<void> {
    while (!this.stopped) {
      try {
        const events = this.store.watch(this.prefix, this.rv, { signal: this.abort.signal, progressIntervalMs: Math.min(this.bookmarkIntervalMs, 5_000), clock: this.clock });
        for await (const event of events) this.apply(event);
        return; // aborted
      } catch (err) {
        // Stryker disable next-line ConditionalExpression: stop() aborts the store watch first, and the Store contract ends an aborted watch without an error; an error racing the abort still ends the loop on `stopped` below, one log line later
        if (this.stopped) return;
        if (isStoreError(err, 'Closed')) return;
        if (isStoreError(err, 'Compacted')) {
          this.logger.warn({ rv: this.rv, compactRevision: err.compactRevision }, 'watch cache fell behind compaction; relisting');
          for (const w of [...this.watchers]) w.queue.end();
          await this.reload();
          continue;
        }
        if (!isStoreError(err, 'WatchOverflow')) this.logger.error({ err }, 'store watch failed; resuming');
        await this.clock.sleep(isStoreError(err, 'WatchOverflow') ? 0 : 200);
      }
    }
  }

  private async reload(): Promise<void> {
    while (!this.stopped) {
      try {
        this.objects.clear();
        await this.load();
        for (const listener of this.changeListeners) for (const obj of this.objects.values()) listener(obj);
        return;
      } catch (err) {
        if (this.stopped) return;
        this.logger.error({ err }, 'relisting the watch cache failed; retrying');
        // stop() ends the wait (and the loop) at once.
        await this.clock.sleep(1000, this.abort.signal).catch(() => undefined);
      }
    }
  }

  private apply(event: WatchEvent): void {
    if (event.type === 'progress') {
      // Stryker disable next-line ConditionalExpression,EqualityOperator: a store's progress never goes back (it is its revision after the events already sent), so advancing to an equal revision changes nothing
      if (event.revision > this.rv) this.advance(event.revision);
      return;
    }
    let cacheEvent: CacheEvent;
    if (event.type === 'delete') {
      const last = this.decoder.decodePrev(this.def, event.prev, event.revision);
      const existing = this.objects.get(event.key);
      this.objects.delete(event.key);
      const object = last ?? existing;
      if (object === undefined) {
        this.advance(event.revision);
        return;
      }
      const deleted = Object.freeze({ ...object, metadata: { ...object.metadata, resourceVersion: String(event.revision) } });
      cacheEvent = { type: 'DELETED', object: deleted, prev: object, rv: event.revision };
    } else {
      const decoded = this.decoder.decodeOrSkip(this.def, event.kv);
      // Stryker disable next-line ConditionalExpression,EqualityOperator,StringLiteral: a key not cached had no prev that decodes (a create has none; an update's prev was malformed, or it would be cached), so decodePrev answers undefined for every type
      const prev = this.objects.get(event.kv.key) ?? (event.type === 'update' ? this.decoder.decodePrev(this.def, event.prev, event.revision) : undefined);
      if (decoded === undefined) {
        // Malformed (reported by the decoder): left out; watchers that saw it see it go.
        this.objects.delete(event.kv.key);
        if (prev === undefined) {
          this.advance(event.revision);
          return;
        }
        const gone = Object.freeze({ ...prev, metadata: { ...prev.metadata, resourceVersion: String(event.revision) } });
        cacheEvent = { type: 'DELETED', object: gone, prev, rv: event.revision };
      } else {
        const object = Object.freeze(decoded);
        this.objects.set(event.kv.key, object);
        cacheEvent = { type: event.type === 'create' ? 'ADDED' : 'MODIFIED', object, prev, rv: event.revision };
      }
    }
    this.window.push(cacheEvent);
    // Stryker disable next-line ArithmeticOperator: length - head is at most windowSize + 1 after a push, and head > 0 only once the window is full, so length + head passes windowSize exactly when length - head does
    if (this.window.length - this.windowHead > this.windowSize) {
      this.windowFloor = this.window[this.windowHead]!.rv;
      this.windowHead++;
      // Stryker disable next-line ConditionalExpression,EqualityOperator,BlockStatement: only frees memory: events below the head are never read again (replays start at the head and skip what is at or below their resourceVersion)
      if (this.windowHead > 4096) {
        // Stryker disable next-line MethodExpression: only frees memory, as above
        this.window = this.window.slice(this.windowHead);
        this.windowHead = 0;
      }
    }
    this.dispatch(cacheEvent);
    for (const listener of this.changeListeners) listener(cacheEvent.object);
    this.advance(event.revision);
  }

  private advance(rv: number): void {
    this.rv = rv;
    for (const waiter of this.freshWaiters) {
      if (waiter.rv <= rv) waiter.resolve();
    }
  }

  private dispatch(event: CacheEvent): void {
    // Stryker disable next-line ConditionalExpression: an early return only; with no watchers the loop below finds no set
    if (this.watchers.size === 0) return;
    // Stryker disable next-line StringLiteral: any name no namespace has would do: a cluster-scoped object has none, and only '' finds the watchers of every namespace
    const ns = event.object.metadata.namespace ?? '';
    const everywhere = this.byNamespace.get('');
    const here = ns === '' ? undefined : this.byNamespace.get(ns);
    // One line per type, shared by every watcher that sends it (serialised and sized once).
    const lines = new Map<WatchEventType, WatchLine>();
    for (const set of [everywhere, here]) {
      if (set === undefined) continue;
      for (const w of set) {
        const line = isNamespaceOnly(w.filter) ? sharedLine(lines, event.type, event.object) : present(this.def, w.filter, event, lines);
        if (line !== undefined) w.queue.push(line);
      }
    }
  }

  private addWatcher(w: Watcher): void {
    this.watchers.add(w);
    let set = this.byNamespace.get(w.filter.namespace);
    if (set === undefined) this.byNamespace.set(w.filter.namespace, (set = new Set()));
    set.add(w);
  }

  private removeWatcher(w: Watcher): void {
    this.watchers.delete(w);
    const set = this.byNamespace.get(w.filter.namespace);
    // Stryker disable next-line OptionalChaining: a watcher is removed once, after addWatcher made its namespace's set
    set?.delete(w);
    // Stryker disable next-line ConditionalExpression,OptionalChaining: only frees memory (an empty set sends nothing); the set exists, as above
    if (set?.size === 0) this.byNamespace.delete(w.filter.namespace);
  }

  private sendBookmarks(): void {
    let line: WatchLine | undefined;
    for (const w of this.watchers) {
      if (!w.bookmarks) continue;
      line ??= new WatchLine('BOOKMARK', this.bookmarkObject(false));
      // As kube's cacher: a bookmark that does not fit is skipped, never a reason to close.
      w.queue.offer(line);
    }
  }

  private bookmarkObject(initialEventsEnd: boolean): KubeObject {
    const metadata: KubeObject['metadata'] = { resourceVersion: String(this.rv) };
    if (initialEventsEnd) metadata.annotations = { 'k8s.io/initial-events-end': 'true' };
    return { kind: this.def.kind, apiVersion: this.def.group === '' ? this.def.version : `${this.def.group}/${this.def.version}`, metadata };
  }

  private async waitFresh(rv: number): Promise<void> {
    if (rv <= this.rv || this.stopped) return;
    // The store tells this cache's watch how far it has got, after the events already sent.
    this.store.requestProgress();
    let waiter!: { rv: number; resolve: () => void };
    const reached = new Promise<void>((resolve) => {
      waiter = { rv, resolve };
      this.freshWaiters.add(waiter);
    });
    let timer: ReturnType<Clock['setTimeout']> | undefined;
    const timedOut = new Promise<'timeout'>((resolve) => {
      timer = this.clock.setTimeout(() => resolve('timeout'), this.waitForFreshMs);
    });
    const outcome = await Promise.race([reached, timedOut]);
    // Stryker disable next-line OptionalChaining: the promise executor above runs at once, so timer is always set
    timer?.cancel();
    this.freshWaiters.delete(waiter);
    if (outcome === 'timeout') {
      throw ApiError.tooLargeResourceVersion(rv, this.rv);
    }
  }

  /** Serves a watch older than the window from the store's own history. */
  private watchFromStore(options: CacheWatchOptions, rv: number): EventQueue<WatchLine> {
    const queue = this.newQueue(options);
    const abort = new AbortController();
    queue.whenEnded(() => abort.abort());
    endWith(queue, options.signal);
    endWith(queue, this.abort.signal);
    const highWater = Math.max(1, Math.min(REPLAY_HIGH_WATER, Math.floor(this.maxQueued / 2)));
    const highWaterBytes = Math.max(1, Math.floor(this.maxQueuedBytes / 2));
    const events = this.store.watch(this.prefix, rv, {
      signal: abort.signal,
      maxBuffered: this.maxQueued,
      clock: this.clock,
      // Stryker disable next-line ConditionalExpression: progress reaches only a watcher that asked for bookmarks (below), so asking the store for it otherwise changes only the store's work
      ...(options.bookmarks === true ? { progressIntervalMs: this.bookmarkIntervalMs } : {}),
    });
    void (async () => {
      try {
        for await (const event of events) {
          if (event.type === 'progress') {
            // Only to a watcher that asked (the store also reports progress others requested), and
            // as the live bookmarks: skipped when it does not fit, never a reason to close.
            if (options.bookmarks === true) queue.offer(new WatchLine('BOOKMARK', { ...this.bookmarkObject(false), metadata: { resourceVersion: String(event.revision) } }));
            continue;
          }
          const cacheEvent = toCacheEvent(this.def, this.decoder, event);
          const line = cacheEvent === undefined ? undefined : present(this.def, options.filter, cacheEvent);
          if (line !== undefined && !queue.push(line)) return;
          // Pull from the store only as fast as the watcher reads: history of any length is
          // replayed at its pace; live events wait in the store's buffer, bounded by maxQueued.
          if (queue.size >= highWater || queue.bytes >= highWaterBytes) await queue.whenBelow(Math.ceil(highWater / 2), Math.ceil(highWaterBytes / 2));
          if (queue.closed) return;
        }
        queue.end();
      } catch (err) {
        if (isStoreError(err, 'WatchOverflow')) {
          // The store's buffer for this watch overflowed: closed like a watcher that fell behind.
          this.terminated++;
          this.logger.info({ resourceVersion: rv }, 'forcing watcher close due to unresponsiveness (store watch overflowed)');
          queue.close();
        } else queue.end(isStoreError(err, 'Compacted') ? expiredError(rv, err.compactRevision ?? 0) : err);
      }
    })();
    return queue;
  }
}

/** A store event as the cache presents it; undefined when it is about a malformed object only. */
function toCacheEvent(def: ResourceDef, decoder: StoredObjectDecoder, event: Exclude<WatchEvent, { type: 'progress' }>): CacheEvent | undefined {
  if (event.type === 'delete') {
    const last = decoder.decodePrev(def, event.prev, event.revision);
    if (last === undefined) return undefined;
    const object = { ...last, metadata: { ...last.metadata, resourceVersion: String(event.revision) } };
    return { type: 'DELETED', object, prev: last, rv: event.revision };
  }
  const object = decoder.decodeOrSkip(def, event.kv);
  const prev = event.type === 'update' ? decoder.decodePrev(def, event.prev, event.revision) : undefined;
  if (object === undefined) {
    return prev === undefined ? undefined : { type: 'DELETED', object: { ...prev, metadata: { ...prev.metadata, resourceVersion: String(event.revision) } }, prev, rv: event.revision };
  }
  return { type: event.type === 'create' ? 'ADDED' : 'MODIFIED', object, prev, rv: event.revision };
}

/**
 * How a change looks to a watcher with a selector (Kubernetes' cacher rules): an object that starts
 * matching is ADDED, one that stops matching is DELETED, one that never matched is not sent.
 */
export function present(def: ResourceDef, filter: ObjectFilter, event: CacheEvent, lines?: Map<WatchEventType, WatchLine>): WatchLine | undefined {
  const before = event.prev !== undefined && matchesFilter(def, filter, event.prev);
  const line = (type: WatchEventType) => (lines === undefined ? new WatchLine(type, event.object) : sharedLine(lines, type, event.object));
  if (event.type === 'DELETED') return before ? line('DELETED') : undefined;
  const now = matchesFilter(def, filter, event.object);
  if (now && before) return line('MODIFIED');
  if (now) return line('ADDED');
  if (before) return line('DELETED');
  return undefined;
}

function sharedLine(lines: Map<WatchEventType, WatchLine>, type: WatchEventType, object: KubeObject): WatchLine {
  let line = lines.get(type);
  if (line === undefined) lines.set(type, (line = new WatchLine(type, object)));
  return line;
}

/** The initial ADDED lines of a watch, made as they are read; each reference is dropped once read. */
function* initialEvents(def: ResourceDef, filter: ObjectFilter, objects: Array<KubeObject | undefined>): Generator<WatchLine, void, undefined> {
  for (let i = 0; i < objects.length; i++) {
    const obj = objects[i]!;
    objects[i] = undefined;
    if (matchesFilter(def, filter, obj)) yield new WatchLine('ADDED', obj);
  }
}

/** The window's events in [from, to) after `rv`, as `filter` shows them, made as they are read. */
function* windowEvents(def: ResourceDef, filter: ObjectFilter, window: readonly CacheEvent[], from: number, to: number, rv: number): Generator<WatchLine, void, undefined> {
  for (let i = from; i < to; i++) {
    const event = window[i]!;
    if (event.rv <= rv) continue;
    const line = present(def, filter, event);
    if (line !== undefined) yield line;
  }
}

/** Ends `queue` when `signal` aborts, and forgets the listener once the queue has ended. */
function endWith(queue: EventQueue<WatchLine>, signal: AbortSignal | undefined): void {
  if (signal === undefined) return;
  if (signal.aborted) {
    queue.end();
    return;
  }
  const end = () => queue.end();
  // Stryker disable next-line ObjectLiteral,BooleanLiteral: the listener is removed when the queue ends (below), which the abort does at once: `once` only says so twice
  signal.addEventListener('abort', end, { once: true });
  queue.whenEnded(() => signal.removeEventListener('abort', end));
}

/** Queued lines at which a watch served from the store stops pulling until its reader catches up. */
const REPLAY_HIGH_WATER = 256;

/** The 410 a watch or list from a compacted resourceVersion gets. */
export function expiredError(rv: number, compactRevision: number): ApiError {
  return ApiError.expired(`too old resource version: ${rv} (${compactRevision})`);
}
