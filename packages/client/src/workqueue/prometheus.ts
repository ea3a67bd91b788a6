/**
 * Work queue metrics into prom-client: `PrometheusQueueMetrics`, the `QueueMetricsProvider` (of
 * @setpoint/workqueue) that writes controller-runtime's metric names, help texts and buckets into a
 * prom-client `Registry`. It lives here, not in @setpoint/workqueue, so that the queue itself
 * depends on no metrics library.
 */
import { queueDurationBuckets, type CounterMetric, type GaugeMetric, type HistogramMetric, type QueueMetricsProvider, type UnfinishedWork } from '@setpoint/workqueue';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

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
