/**
 * Work queue metrics, as client-go's workqueue reports them: the queue drives a small recorder
 * (`QueueMetrics`), the recorder writes into metrics made by a `QueueMetricsProvider`. The default
 * provider records nothing; `PrometheusQueueMetrics` writes controller-runtime's metric
 * names into a prom-client `Registry`.
 */
import type { Clock } from '@setpoint/api';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

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
 * What a queue tells its metrics. Internal to the workqueue folder (not exported by index.ts):
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

type Label = 'name';

/** The seven metrics of one registry, shared by every provider on that registry. */
class PrometheusQueueMetricSet {
  /** The probes of the live queues, by queue name. */
  readonly probes = new Map<string, () => UnfinishedWork>();
  readonly depth: Gauge<Label>;
  readonly adds: Counter<Label>;
  readonly latency: Histogram<Label>;
  readonly workDuration: Histogram<Label>;
  readonly unfinished: Gauge<Label>;
  readonly longestRunning: Gauge<Label>;
  readonly retries: Counter<Label>;

  constructor(registry: Registry) {
    const registers = [registry];
    const labelNames: Label[] = ['name'];
    const buckets = [...queueDurationBuckets];
    const probes = this.probes;
    this.depth = new Gauge({ name: 'workqueue_depth', help: 'Current depth of workqueue', labelNames, registers });
    this.adds = new Counter({ name: 'workqueue_adds_total', help: 'Total number of adds handled by workqueue', labelNames, registers });
    this.latency = new Histogram({
      name: 'workqueue_queue_duration_seconds',
      help: 'How long in seconds an item stays in workqueue before being requested',
      labelNames,
      buckets,
      registers,
    });
    this.workDuration = new Histogram({
      name: 'workqueue_work_duration_seconds',
      help: 'How long in seconds processing an item from workqueue takes.',
      labelNames,
      buckets,
      registers,
    });
    const unfinished: Gauge<Label> = new Gauge({
      name: 'workqueue_unfinished_work_seconds',
      help:
        'How many seconds of work has been done that is in progress and hasn\'t been observed by work_duration. ' +
        'Large values indicate stuck threads. One can deduce the number of stuck threads by observing the rate at which this increases.',
      labelNames,
      registers,
      collect() {
        for (const [name, probe] of probes) unfinished.set({ name }, probe().unfinishedWorkSeconds);
      },
    });
    const longestRunning: Gauge<Label> = new Gauge({
      name: 'workqueue_longest_running_processor_seconds',
      help: 'How many seconds has the longest running processor for workqueue been running.',
      labelNames,
      registers,
      collect() {
        for (const [name, probe] of probes) longestRunning.set({ name }, probe().longestRunningProcessorSeconds);
      },
    });
    this.unfinished = unfinished;
    this.longestRunning = longestRunning;
    this.retries = new Counter({ name: 'workqueue_retries_total', help: 'Total number of retries handled by workqueue', labelNames, registers });
  }
}

const metricSets = new WeakMap<Registry, PrometheusQueueMetricSet>();

/**
 * Writes queue metrics into a prom-client registry, with controller-runtime's names, help texts,
 * histogram buckets and a `name` label (the queue's name): workqueue_depth, workqueue_adds_total,
 * workqueue_queue_duration_seconds, workqueue_work_duration_seconds, workqueue_retries_total,
 * workqueue_unfinished_work_seconds and workqueue_longest_running_processor_seconds. The last two
 * are computed on every scrape, from the queue's clock.
 *
 * Guarantees: any number of providers (and queues) may share one registry; the metrics are
 * registered once per registry, on the first provider. Assumes queue names are unique per
 * registry: two live queues with one name share their series and only the later one's in-flight
 * work is reported. Throws (prom-client's Error) when the registry already holds a metric of one of
 * these names that another component registered.
 */
export class PrometheusQueueMetrics implements QueueMetricsProvider {
  readonly #set: PrometheusQueueMetricSet;

  /** Metrics in `registry` (required: no global registry is assumed). */
  constructor(registry: Registry) {
    let set = metricSets.get(registry);
    if (set === undefined) {
      set = new PrometheusQueueMetricSet(registry);
      metricSets.set(registry, set);
    }
    this.#set = set;
  }

  newDepthMetric(name: string): GaugeMetric {
    const depth = this.#set.depth;
    const labels = { name };
    depth.set(labels, 0);
    return { inc: () => depth.inc(labels), dec: () => depth.dec(labels) };
  }

  newAddsMetric(name: string): CounterMetric {
    const adds = this.#set.adds;
    const labels = { name };
    adds.inc(labels, 0);
    return { inc: () => adds.inc(labels) };
  }

  newLatencyMetric(name: string): HistogramMetric {
    const latency = this.#set.latency;
    const labels = { name };
    latency.zero(labels);
    return { observe: (s) => latency.observe(labels, s) };
  }

  newWorkDurationMetric(name: string): HistogramMetric {
    const workDuration = this.#set.workDuration;
    const labels = { name };
    workDuration.zero(labels);
    return { observe: (s) => workDuration.observe(labels, s) };
  }

  newRetriesMetric(name: string): CounterMetric {
    const retries = this.#set.retries;
    const labels = { name };
    retries.inc(labels, 0);
    return { inc: () => retries.inc(labels) };
  }

  trackUnfinishedWork(name: string, probe: () => UnfinishedWork): () => void {
    const set = this.#set;
    set.probes.set(name, probe);
    return () => {
      if (set.probes.get(name) !== probe) return;
      set.probes.delete(name);
      set.unfinished.set({ name }, 0);
      set.longestRunning.set({ name }, 0);
    };
  }
}
