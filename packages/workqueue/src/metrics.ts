/**
 * Work queue metrics, as client-go's workqueue reports them: the queue drives a small recorder
 * (`QueueMetrics`), the recorder writes into metrics made by a `QueueMetricsProvider`. The default
 * provider records nothing; @setpoint/client's `PrometheusQueueMetrics` writes controller-runtime's
 * metric names into a prom-client `Registry` (this package depends on no metrics library).
 */
import type { Clock } from './clock.js';

/** A value that goes up and down (the queue's depth). */
export interface GaugeMetric {
  inc(): void;
  dec(): void;
}

/** A value that only goes up (adds, retries). */
export interface CounterMetric {
  inc(): void;
}

/** A distribution of observations, in seconds. */
export interface HistogramMetric {
  observe(seconds: number): void;
}

/** How much work is in flight in one queue, read when the provider wants fresh values. */
export interface UnfinishedWork {
  /** Sum over the items being processed of how long each has been processed, in seconds. */
  readonly unfinishedWorkSeconds: number;
  /** How long the longest-running item has been processed, in seconds (0 when none is). */
  readonly longestRunningProcessorSeconds: number;
}

/**
 * Makes the metrics of a named queue (client-go's `MetricsProvider`). Each `new…Metric(name)` is
 * called once per queue, when the queue is built. The two in-flight gauges are pulled rather than
 * pushed: `trackUnfinishedWork` hands the provider a probe, which it calls whenever it wants fresh
 * values (on every scrape for prom-client, or on a period of its own), and returns a function the
 * queue calls when it shuts down, after which the probe must no longer be called.
 */
export interface QueueMetricsProvider {
  /** workqueue_depth: items waiting to be processed (added and not yet handed out). */
  newDepthMetric(name: string): GaugeMetric;
  /** workqueue_adds_total: adds the queue accepted (coalesced adds are not counted). */
  newAddsMetric(name: string): CounterMetric;
  /** workqueue_queue_duration_seconds: from an item's first accepted add to its get. */
  newLatencyMetric(name: string): HistogramMetric;
  /** workqueue_work_duration_seconds: from an item's get to its done. */
  newWorkDurationMetric(name: string): HistogramMetric;
  /** workqueue_retries_total: delayed and rate-limited adds. */
  newRetriesMetric(name: string): CounterMetric;
  /** workqueue_unfinished_work_seconds and workqueue_longest_running_processor_seconds. */
  trackUnfinishedWork(name: string, probe: () => UnfinishedWork): () => void;
}

const noopMetric: GaugeMetric & CounterMetric & HistogramMetric = {
  inc() {},
  dec() {},
  observe() {},
};

/** The default provider: records nothing, and a queue using it keeps no timing state at all. */
export const noopQueueMetricsProvider: QueueMetricsProvider = Object.freeze({
  newDepthMetric: () => noopMetric,
  newAddsMetric: () => noopMetric,
  newLatencyMetric: () => noopMetric,
  newWorkDurationMetric: () => noopMetric,
  newRetriesMetric: () => noopMetric,
  trackUnfinishedWork: () => () => {},
});

/**
 * What a queue tells its metrics. Internal to this package (not exported by index.ts):
 * the queue calls `add` for every accepted add, `get` when it hands an item out, `done` when the
 * item is done, `retry` for every addAfter, and `close` once, when it shuts down.
 */
export interface QueueMetrics<T> {
  add(item: T): void;
  get(item: T): void;
  done(item: T): void;
  retry(): void;
  close(): void;
}

const noopQueueMetrics: QueueMetrics<never> = {
  add() {},
  get() {},
  done() {},
  retry() {},
  close() {},
};

/**
 * The recorder for one queue: a no-op one when `provider` is the no-op provider, otherwise one that
 * remembers when each item was added and when its processing started, reading time from `clock`.
 */
export function newQueueMetrics<T>(name: string, clock: Clock, provider: QueueMetricsProvider): QueueMetrics<T> {
  if (provider === noopQueueMetricsProvider) return noopQueueMetrics;
  return new QueueMetricsRecorder<T>(name, clock, provider);
}

class QueueMetricsRecorder<T> implements QueueMetrics<T> {
  readonly #clock: Clock;
  readonly #depth: GaugeMetric;
  readonly #adds: CounterMetric;
  readonly #latency: HistogramMetric;
  readonly #workDuration: HistogramMetric;
  readonly #retries: CounterMetric;
  readonly #untrack: () => void;
  /** When each waiting item was first added (ms); cleared by get. */
  readonly #addTimes = new Map<T, number>();
  /** When each item being processed was handed out (ms); cleared by done. */
  readonly #processingStartTimes = new Map<T, number>();

  constructor(name: string, clock: Clock, provider: QueueMetricsProvider) {
    this.#clock = clock;
    this.#depth = provider.newDepthMetric(name);
    this.#adds = provider.newAddsMetric(name);
    this.#latency = provider.newLatencyMetric(name);
    this.#workDuration = provider.newWorkDurationMetric(name);
    this.#retries = provider.newRetriesMetric(name);
    this.#untrack = provider.trackUnfinishedWork(name, () => this.#unfinishedWork());
  }

  add(item: T): void {
    this.#adds.inc();
    this.#depth.inc();
    if (!this.#addTimes.has(item)) this.#addTimes.set(item, this.#clock.now());
  }

  get(item: T): void {
    const now = this.#clock.now();
    this.#depth.dec();
    this.#processingStartTimes.set(item, now);
    const added = this.#addTimes.get(item);
    if (added !== undefined) {
      this.#latency.observe(seconds(now - added));
      this.#addTimes.delete(item);
    }
  }

  done(item: T): void {
    const started = this.#processingStartTimes.get(item);
    if (started === undefined) return;
    this.#workDuration.observe(seconds(this.#clock.now() - started));
    this.#processingStartTimes.delete(item);
  }

  retry(): void {
    this.#retries.inc();
  }

  close(): void {
    this.#untrack();
  }

  #unfinishedWork(): UnfinishedWork {
    const now = this.#clock.now();
    let total = 0;
    let oldest = 0;
    for (const started of this.#processingStartTimes.values()) {
      const age = seconds(now - started);
      total += age;
      if (age > oldest) oldest = age;
    }
    return { unfinishedWorkSeconds: total, longestRunningProcessorSeconds: oldest };
  }
}

function seconds(ms: number): number {
  return Math.max(0, ms) / 1000;
}

/** controller-runtime's buckets for both duration histograms: 10 ns to 1,000 s, ×10 per bucket. */
export const queueDurationBuckets: readonly number[] = Object.freeze([
  1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1, 10, 100, 1000,
]);
