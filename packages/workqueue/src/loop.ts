/**
 * KeyedLoop: one worker over a rate-limited queue of keys, for the small in-process loops that
 * keep something level-triggered (the API server's CRD controller and ClusterRole aggregation):
 * coalescing keys, per-key exponential backoff on failure, a look-again delay on success, a
 * periodic resync, and a stop that leaves nothing scheduled.
 */
import { systemClock, type Clock, type Timer } from './clock.js';
import { ItemExponentialFailureRateLimiter, type RateLimiter } from './limiters.js';
import { RateLimitingQueue } from './ratelimiting.js';

/** What a KeyedLoop runs and how it paces it. */
export interface KeyedLoopOptions<T> {
  /** One pass for one key; resolves to a delay (ms) after which to look at the key again, if it must. */
  readonly reconcile: (key: T) => Promise<number | undefined>;
  /** Told of a pass that threw, with the wait before the key is retried. */
  readonly onError: (key: T, err: unknown, retryInMs: number) => void;
  /** Where timers are set. Default `systemClock`. */
  readonly clock?: Clock;
  /** Paces the retries of failing keys. Default per-key exponential, 100 ms doubling to 10 s. */
  readonly rateLimiter?: RateLimiter<T>;
}

/**
 * A single worker draining a RateLimitingQueue.
 *
 * Guarantees: keys are reconciled one at a time, in the order they were queued; a key queued while
 * it is being reconciled (or waiting) is reconciled once more after, never twice at once. A pass
 * that throws is reported to onError and the key is retried after its rate limiter's wait (100 ms,
 * 200 ms … 10 s by default); a pass that succeeds resets that backoff and, when it returns a delay,
 * queues the key again after it. `resyncEvery` calls its function every period until stop. After
 * `stop()` nothing new starts: queued and waiting keys are dropped, every timer is cancelled, the
 * pass in progress finishes. `idle()` resolves when no key is queued or being reconciled (keys
 * waiting for a retry or a look-again do not count).
 */
export class KeyedLoop<T = string> {
  readonly #queue: RateLimitingQueue<T>;
  readonly #options: KeyedLoopOptions<T>;
  readonly #clock: Clock;
  #resync: Timer | undefined;
  #running = false;
  #stopped = false;
  #idleWaiters: Array<() => void> = [];

  constructor(options: KeyedLoopOptions<T>) {
    this.#options = options;
    this.#clock = options.clock ?? systemClock;
    const rateLimiter = options.rateLimiter ?? new ItemExponentialFailureRateLimiter<T>({ baseMs: 100, maxMs: 10_000 });
    this.#queue = new RateLimitingQueue<T>({ clock: this.#clock, rateLimiter });
  }

  /** Queues `key` (coalesced with a queued one); ignored after stop. */
  enqueue(key: T): void {
    // Stryker disable next-line ConditionalExpression: the queue ignores adds once shut down (by stop); this only says so here
    if (this.#stopped) return;
    this.#queue.add(key);
    if (!this.#running) {
      this.#running = true;
      void this.#work();
    }
  }

  /** Calls `fn` every `periodMs` (an unref'd timer) until stop; replaces an earlier resync. */
  resyncEvery(periodMs: number, fn: () => void): void {
    this.#resync?.cancel();
    if (this.#stopped) return;
    this.#resync = this.#clock.setTimeout(() => {
      fn();
      this.resyncEvery(periodMs, fn);
    }, periodMs).unref();
  }

  /** Resolves once no key is queued or being reconciled. */
  async idle(): Promise<void> {
    while (this.#busy()) await new Promise<void>((resolve) => this.#idleWaiters.push(resolve));
  }

  /** A key is being reconciled, or queued for the worker. */
  #busy(): boolean {
    if (this.#queue.processingLen() > 0) return true;
    // Stryker disable next-line ConditionalExpression: the worker takes a key in the same turn it is queued or its pass ends, so none is ever seen queued and not taken (and after stop the queue takes no more)
    return this.#queue.len() > 0;
  }

  /** Stops: drops queued and waiting keys, cancels the resync; the pass in progress finishes. */
  stop(): void {
    this.#stopped = true;
    this.#resync?.cancel();
    this.#resync = undefined;
    this.#queue.shutDown();
    this.#wakeIdle();
  }

  async #work(): Promise<void> {
    for (;;) {
      const next = await this.#queue.get();
      if (next.shutdown) return;
      const key = next.item;
      if (this.#stopped) {
        this.#queue.done(key);
        this.#wakeIdle();
        continue;
      }
      try {
        const again = await this.#options.reconcile(key);
        this.#queue.forget(key);
        if (again !== undefined) this.#queue.addAfter(key, again);
      } catch (err) {
        const retryInMs = this.#queue.rateLimiter.when(key);
        this.#options.onError(key, err, retryInMs);
        this.#queue.addAfter(key, retryInMs);
      } finally {
        this.#queue.done(key);
      }
      this.#wakeIdle();
    }
  }

  #wakeIdle(): void {
    const waiters = this.#idleWaiters;
    this.#idleWaiters = [];
    for (const resolve of waiters) resolve();
  }
}
