/**
 * The work queue family, as @setpoint/client has always exported it: the queues, rate limiters and
 * metrics interface now live in @setpoint/workqueue (which the API server may import too) and are
 * re-exported here unchanged, so `import { newRateLimitingQueue } from '@setpoint/client'` keeps
 * working; the prom-client provider, `PrometheusQueueMetrics`, stays in the client.
 */
export {
  BucketRateLimiter,
  DelayingQueue,
  ItemExponentialFailureRateLimiter,
  ItemFastSlowRateLimiter,
  MaxOfRateLimiter,
  RateLimitingQueue,
  WorkQueue,
  defaultControllerRateLimiter,
  newDelayingQueue,
  newRateLimitingQueue,
  newWorkQueue,
  noopQueueMetricsProvider,
  queueDurationBuckets,
} from '@setpoint/workqueue';
export type {
  BucketOptions,
  CounterMetric,
  DelayingInterface,
  ExponentialFailureOptions,
  FastSlowOptions,
  GaugeMetric,
  GetResult,
  HistogramMetric,
  QueueMetricsProvider,
  RateLimiter,
  RateLimitingInterface,
  RateLimitingQueueOptions,
  UnfinishedWork,
  WorkQueueInterface,
  WorkQueueOptions,
} from '@setpoint/workqueue';
export { PrometheusQueueMetrics } from './prometheus.js';
