/**
 * The rate-limiting queue: a delaying queue that asks a rate limiter how long to wait before an
 * item is retried (client-go's rate_limiting_queue.go). This is the queue a controller's workers
 * use: failure → addRateLimited(key); success → forget(key); always done(key).
 */
import { DelayingQueue, type DelayingInterface } from './delaying.js';
import { defaultControllerRateLimiter, type RateLimiter } from './limiters.js';
import type { WorkQueueOptions } from './queue.js';

/** Options of a rate-limiting queue: the work queue's, plus the limiter. */
export interface RateLimitingQueueOptions<T> extends WorkQueueOptions {
  /**
   * Decides each retry's wait. Default `defaultControllerRateLimiter({ clock })` on the queue's
   * clock: per-item exponential 5 ms → 1000 s, max'd with a 10 qps / burst 100 bucket.
   */
  readonly rateLimiter?: RateLimiter<T>;
}

/** The contract of a rate-limiting queue (client-go's `RateLimitingInterface`). */
export interface RateLimitingInterface<T> extends DelayingInterface<T> {
  /** Adds `item` after the wait its rate limiter gives for one more retry. */
  addRateLimited(item: T): void;
  /** Resets `item`'s retry history in the rate limiter (call it on success). Does not remove the item. */
  forget(item: T): void;
  /** How many retries the rate limiter has recorded for `item` since it was last forgotten. */
  numRequeues(item: T): number;
}

/**
 * A delaying queue whose retries are paced by a rate limiter.
 *
 * Guarantees: `addRateLimited(item)` is `addAfter(item, rateLimiter.when(item))`, so a failing key
 * backs off on its own while other keys keep flowing, and a retry already waiting keeps its
 * earlier due time. Once the queue is shutting down, `addRateLimited` does nothing and does not
 * consult the limiter. `forget` and `numRequeues` go straight to the limiter.
 */
export class RateLimitingQueue<T = string> extends DelayingQueue<T> implements RateLimitingInterface<T> {
  /** The limiter deciding each retry's wait. */
  readonly rateLimiter: RateLimiter<T>;

  /** A queue with the given options; throws a TypeError when metrics are given without a name. */
  constructor(options: RateLimitingQueueOptions<T> = {}) {
    super(options);
    this.rateLimiter = options.rateLimiter ?? defaultControllerRateLimiter<T>({ clock: this.clock });
  }

  addRateLimited(item: T): void {
    if (this.shuttingDown()) return;
    this.addAfter(item, this.rateLimiter.when(item));
  }

  forget(item: T): void {
    this.rateLimiter.forget(item);
  }

  numRequeues(item: T): number {
    return this.rateLimiter.numRequeues(item);
  }
}
