/**
 * The work queue: a FIFO of keys that coalesces duplicates and never hands one key to two workers
 * at once (client-go's util/workqueue Type). Its guarantees come from two sets: `dirty` (keys that
 * need processing) and `processing` (keys handed out and not yet done).
 */
import { systemClock, type Clock } from './clock.js';
import { Fifo } from './fifo.js';
import { newQueueMetrics, noopQueueMetricsProvider, type QueueMetrics, type QueueMetricsProvider } from './metrics.js';

/** Options shared by every queue of this folder; all are optional. */
export interface WorkQueueOptions {
  /**
   * Names the queue in its metrics (the `name` label). Default ''; required (non-empty) when
   * `metrics` is given — the constructor throws a TypeError otherwise.
   */
  readonly name?: string;
  /** Where time comes from: delays, backoff and metric durations. Default `systemClock` (Date.now and the platform's timers). */
  readonly clock?: Clock;
  /** Where metrics go. Default `noopQueueMetricsProvider` (none). */
  readonly metrics?: QueueMetricsProvider;
}

/** What `get` resolves to: an item to process, or word that the queue has shut down and is empty. */
export type GetResult<T> = { readonly item: T; readonly shutdown: false } | { readonly shutdown: true };

/** The contract of a work queue (client-go's `workqueue.Interface`); `WorkQueue` implements it. */
export interface WorkQueueInterface<T> {
  /** Marks `item` as needing processing. Ignored once the queue is shutting down. */
  add(item: T): void;
  /** How many items wait to be handed out. Informational: never gate add or get on it. */
  len(): number;
  /**
   * Resolves with the next item, waiting while the queue is empty; with `{ shutdown: true }` once
   * the queue is shutting down and empty. The caller must call `done(item)` when it has finished.
   */
  get(): Promise<GetResult<T>>;
  /** Marks `item` as processed; if it was added again meanwhile, it is queued again. */
  done(item: T): void;
  /** Stops accepting adds and releases every waiting getter. */
  shutDown(): void;
  /** Like shutDown, then resolves once no item is being processed. */
  shutDownWithDrain(): Promise<void>;
  /** Whether shutDown or shutDownWithDrain was called. */
  shuttingDown(): boolean;
}

const SHUTDOWN: GetResult<never> = Object.freeze({ shutdown: true });

/**
 * A work queue of keys (client-go's `workqueue.Type`).
 *
 * Guarantees:
 * - Coalescing: an item added while it waits is kept once, at its first position.
 * - Stingy: an item is never handed to two getters at once. An item added while it is being
 *   processed is not handed out again until `done(item)`; then it goes to the back of the queue.
 *   No accepted add is lost: every add is followed by a get of that item that starts after it.
 * - Fair: otherwise items are handed out in the order they were added, and waiting getters are
 *   served in the order they called `get`.
 * - Shutdown: after `shutDown()` adds are ignored, waiting getters resolve `{ shutdown: true }`,
 *   and items still queued are handed out until the queue is empty (as in client-go), so workers
 *   may finish what was queued; `done` keeps working.
 *
 * Assumes: items are compared by SameValueZero (`===`, except that NaN equals NaN), so keys should
 * be strings or other primitives — two equal-looking objects are two items. Every item handed out
 * gets exactly one `done`; a `done` for an item not being processed is ignored (as in client-go),
 * but a second `done` for an item that was handed out again in between would release it early.
 */
export class WorkQueue<T = string> implements WorkQueueInterface<T> {
  /** The queue's name in metrics ('' for none). */
  readonly name: string;
  /** The clock the queue and its subclasses read time from. */
  protected readonly clock: Clock;
  /** The metrics recorder; subclasses report retries through it. */
  protected readonly metrics: QueueMetrics<T>;

  /** The order items are handed out in. Every queued item is dirty and not processing. */
  readonly #queue = new Fifo<T>();
  /** Items that need processing: queued ones, and processing ones added again. */
  readonly #dirty = new Set<T>();
  /** Items handed out and not yet done. */
  readonly #processing = new Set<T>();
  /** Getters waiting for an item; non-empty only while the queue is empty. */
  readonly #getters = new Fifo<(result: GetResult<T>) => void>();
  /** Callers of shutDownWithDrain waiting for `processing` to empty. */
  #drainWaiters: Array<() => void> = [];
  #shuttingDown = false;

  /** A queue with the given options; throws a TypeError when metrics are given without a name. */
  constructor(options: WorkQueueOptions = {}) {
    this.name = options.name ?? '';
    this.clock = options.clock ?? systemClock;
    const provider = options.metrics ?? noopQueueMetricsProvider;
    if (this.name === '' && provider !== noopQueueMetricsProvider) {
      throw new TypeError('workqueue: a queue with a metrics provider needs a name (the name label of its metrics)');
    }
    this.metrics = newQueueMetrics<T>(this.name, this.clock, provider);
  }

  add(item: T): void {
    if (this.#shuttingDown || this.#dirty.has(item)) return;
    this.metrics.add(item);
    this.#dirty.add(item);
    if (this.#processing.has(item)) return;
    this.#queue.push(item);
    this.#handOut();
  }

  len(): number {
    return this.#queue.length;
  }

  /**
   * How many items are handed out and not yet done — counted from the moment `get` takes them,
   * before the getter's promise has resumed its caller. Informational, like len.
   */
  processingLen(): number {
    return this.#processing.size;
  }

  get(): Promise<GetResult<T>> {
    if (this.#queue.length > 0) return Promise.resolve(this.#take());
    if (this.#shuttingDown) return Promise.resolve(SHUTDOWN);
    return new Promise((resolve) => this.#getters.push(resolve));
  }

  done(item: T): void {
    if (!this.#processing.has(item)) return;
    this.metrics.done(item);
    this.#processing.delete(item);
    if (this.#dirty.has(item)) {
      this.#queue.push(item);
      this.#handOut();
    }
    if (this.#processing.size === 0) this.#releaseDrainWaiters();
  }

  /**
   * Stops accepting adds and releases every waiting getter with `{ shutdown: true }`. Items still
   * queued remain gettable. Also ends a pending shutDownWithDrain at once. Idempotent.
   */
  shutDown(): void {
    this.#startShutdown();
    this.#releaseDrainWaiters();
  }

  /**
   * Stops accepting adds, releases waiting getters, and resolves once every item being processed
   * is done (at once if none is). Workers must keep calling `done`, or this never resolves; a
   * later `shutDown()` resolves it at once. Never rejects.
   */
  shutDownWithDrain(): Promise<void> {
    this.#startShutdown();
    if (this.#processing.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.#drainWaiters.push(resolve));
  }

  shuttingDown(): boolean {
    return this.#shuttingDown;
  }

  /** Called once, when the queue starts shutting down; subclasses stop their timers here. */
  protected onShutDown(): void {}

  #startShutdown(): void {
    if (!this.#shuttingDown) {
      this.#shuttingDown = true;
      this.metrics.close();
      this.onShutDown();
    }
    while (this.#getters.length > 0) this.#getters.shift()(SHUTDOWN);
  }

  #releaseDrainWaiters(): void {
    if (this.#drainWaiters.length === 0) return;
    const waiters = this.#drainWaiters;
    this.#drainWaiters = [];
    for (const resolve of waiters) resolve();
  }

  /** Hands queued items to waiting getters, oldest to oldest. */
  #handOut(): void {
    while (this.#getters.length > 0 && this.#queue.length > 0) this.#getters.shift()(this.#take());
  }

  /** Moves the head of the queue to `processing`; the caller checks the queue is not empty. */
  #take(): GetResult<T> {
    const item = this.#queue.shift();
    this.metrics.get(item);
    this.#processing.add(item);
    this.#dirty.delete(item);
    return { item, shutdown: false };
  }
}
