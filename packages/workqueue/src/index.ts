/**
 * @setpoint/workqueue — the work queue family (client-go's util/workqueue): a coalescing FIFO of
 * keys, a delaying layer, a rate-limiting layer, the rate limiters, the queue metrics interface,
 * `KeyedLoop` (one worker over a rate-limited queue, for small in-process loops), and the two
 * pieces other loops share: the head-indexed `Fifo` and `exponentialBackoff`. Imports nothing of ours, so every package (the API server too) may use it.
 */
import { DelayingQueue } from './delaying.js';
import { WorkQueue, type WorkQueueOptions } from './queue.js';
import { RateLimitingQueue, type RateLimitingQueueOptions } from './ratelimiting.js';

export { WorkQueue } from './queue.js';
export type { GetResult, WorkQueueInterface, WorkQueueOptions } from './queue.js';
export { DelayingQueue } from './delaying.js';
export type { DelayingInterface } from './delaying.js';
export { RateLimitingQueue } from './ratelimiting.js';
export type { RateLimitingInterface, RateLimitingQueueOptions } from './ratelimiting.js';
export {
  BucketRateLimiter,
  ItemExponentialFailureRateLimiter,
  ItemFastSlowRateLimiter,
  MaxOfRateLimiter,
  defaultControllerRateLimiter,
} from './limiters.js';
export type { BucketOptions, ExponentialFailureOptions, FastSlowOptions, RateLimiter } from './limiters.js';
export { noopQueueMetricsProvider, queueDurationBuckets } from './metrics.js';
export { KeyedLoop } from './loop.js';
export type { KeyedLoopOptions } from './loop.js';
export { Fifo } from './fifo.js';
export { exponentialBackoff } from './backoff.js';
export { systemClock } from './clock.js';
export type { Clock, Timer } from './clock.js';
export type {
  CounterMetric,
  GaugeMetric,
  HistogramMetric,
  QueueMetricsProvider,
  UnfinishedWork,
} from './metrics.js';

/** A work queue (see WorkQueue); options as documented on WorkQueueOptions. */
export function newWorkQueue<T = string>(options: WorkQueueOptions = {}): WorkQueue<T> {
  return new WorkQueue<T>(options);
}

/** A delaying work queue (see DelayingQueue); options as documented on WorkQueueOptions. */
export function newDelayingQueue<T = string>(options: WorkQueueOptions = {}): DelayingQueue<T> {
  return new DelayingQueue<T>(options);
}

/**
 * A rate-limiting work queue (see RateLimitingQueue), the one controllers use: `name` (metrics
 * label, default none), `rateLimiter` (default defaultControllerRateLimiter on the queue's clock),
 * `clock` (default systemClock), `metrics` (default none; needs a name).
 */
export function newRateLimitingQueue<T = string>(options: RateLimitingQueueOptions<T> = {}): RateLimitingQueue<T> {
  return new RateLimitingQueue<T>(options);
}
