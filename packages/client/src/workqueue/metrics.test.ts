import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock } from '@setpoint/api';
import { Gauge, Registry } from 'prom-client';
import { noopQueueMetricsProvider, type QueueMetricsProvider, type UnfinishedWork } from '@setpoint/workqueue';
import { PrometheusQueueMetrics } from './prometheus.js';
import { newRateLimitingQueue, newWorkQueue } from './index.js';

/** The value of one series of `metric` in `registry` (suffix: _sum, _count, _bucket). */
async function value(registry: Registry, metric: string, queue: string, suffix = '', le?: number): Promise<number | undefined> {
  const m = registry.getSingleMetric(metric);
  assert.ok(m, `${metric} is registered`);
  const { values } = await m.get();
  const found = values.find(
    (v) =>
      v.labels.name === queue &&
      ((v as { metricName?: string }).metricName ?? metric) === metric + suffix &&
      (le === undefined || v.labels.le === le),
  );
  return found?.value;
}

const close = (actual: number | undefined, expected: number): void => {
  assert.ok(actual !== undefined && Math.abs(actual - expected) < 1e-9, `got ${actual}, want ${expected}`);
};

// A deadline per suite: a queue that stops handing items out fails the test instead of hanging it.
describe('PrometheusQueueMetrics', { timeout: 15_000 }, () => {
  it('records a scripted sequence, in the queue clock`s time', async () => {
    const clock = new FakeClock();
    const registry = new Registry();
    const q = newRateLimitingQueue({ name: 'pods', clock, metrics: new PrometheusQueueMetrics(registry) });
    const get = async (): Promise<string> => {
      const next = await q.get();
      assert.equal(next.shutdown, false);
      return next.shutdown ? '' : next.item;
    };

    // the series exist at 0 before anything happens
    assert.equal(await value(registry, 'workqueue_depth', 'pods'), 0);
    assert.equal(await value(registry, 'workqueue_adds_total', 'pods'), 0);
    assert.equal(await value(registry, 'workqueue_queue_duration_seconds', 'pods', '_count'), 0);

    q.add('a');
    q.add('b');
    q.add('a'); // coalesced: not an add
    assert.equal(await value(registry, 'workqueue_adds_total', 'pods'), 2);
    assert.equal(await value(registry, 'workqueue_depth', 'pods'), 2);

    await clock.advance(100);
    assert.equal(await get(), 'a'); // waited 0.1 s
    await clock.advance(50);
    assert.equal(await get(), 'b'); // waited 0.15 s
    assert.equal(await value(registry, 'workqueue_depth', 'pods'), 0);
    assert.equal(await value(registry, 'workqueue_queue_duration_seconds', 'pods', '_count'), 2);
    close(await value(registry, 'workqueue_queue_duration_seconds', 'pods', '_sum'), 0.25);
    assert.equal(await value(registry, 'workqueue_queue_duration_seconds', 'pods', '_bucket', 0.1), 1);
    assert.equal(await value(registry, 'workqueue_queue_duration_seconds', 'pods', '_bucket', 1), 2);

    await clock.advance(25);
    // a: 75 ms in flight, b: 25 ms
    close(await value(registry, 'workqueue_unfinished_work_seconds', 'pods'), 0.1);
    close(await value(registry, 'workqueue_longest_running_processor_seconds', 'pods'), 0.075);

    q.add('a'); // re-added while in flight: an add, and depth counts it
    assert.equal(await value(registry, 'workqueue_adds_total', 'pods'), 3);
    assert.equal(await value(registry, 'workqueue_depth', 'pods'), 1);
    q.done('a'); // worked 0.075 s; queued again
    q.addRateLimited('b'); // a retry, due in 5 ms
    q.done('b'); // worked 0.025 s
    assert.equal(await value(registry, 'workqueue_retries_total', 'pods'), 1);
    assert.equal(await value(registry, 'workqueue_work_duration_seconds', 'pods', '_count'), 2);
    close(await value(registry, 'workqueue_work_duration_seconds', 'pods', '_sum'), 0.1);
    assert.equal(await value(registry, 'workqueue_unfinished_work_seconds', 'pods'), 0);
    assert.equal(await value(registry, 'workqueue_longest_running_processor_seconds', 'pods'), 0);

    await clock.advance(5); // b falls due
    assert.equal(await value(registry, 'workqueue_depth', 'pods'), 2);
    assert.equal(await value(registry, 'workqueue_adds_total', 'pods'), 4);
    assert.equal(await get(), 'a'); // queued since its re-add 5 ms ago
    close(await value(registry, 'workqueue_queue_duration_seconds', 'pods', '_sum'), 0.255);
    q.addAfter('c', 1000);
    assert.equal(await value(registry, 'workqueue_retries_total', 'pods'), 2);

    await clock.advance(2000);
    close(await value(registry, 'workqueue_longest_running_processor_seconds', 'pods'), 2);
    q.shutDown();
    // after shutdown the in-flight gauges are no longer computed
    assert.equal(await value(registry, 'workqueue_unfinished_work_seconds', 'pods'), 0);
    q.done('a');
    close(await value(registry, 'workqueue_work_duration_seconds', 'pods', '_sum'), 2.1);
  });

  it('lets several queues and providers share one registry, one series per queue name', async () => {
    const clock = new FakeClock();
    const registry = new Registry();
    const a = newWorkQueue({ name: 'a', clock, metrics: new PrometheusQueueMetrics(registry) });
    const b = newWorkQueue({ name: 'b', clock, metrics: new PrometheusQueueMetrics(registry) });
    a.add('x');
    b.add('x');
    b.add('y');
    assert.equal(await value(registry, 'workqueue_adds_total', 'a'), 1);
    assert.equal(await value(registry, 'workqueue_adds_total', 'b'), 2);
    const text = await registry.metrics();
    for (const name of [
      'workqueue_depth',
      'workqueue_adds_total',
      'workqueue_queue_duration_seconds',
      'workqueue_work_duration_seconds',
      'workqueue_retries_total',
      'workqueue_unfinished_work_seconds',
      'workqueue_longest_running_processor_seconds',
    ]) {
      assert.match(text, new RegExp(`^# TYPE ${name} `, 'm'));
    }
  });

  it('refuses a registry holding a foreign metric of the same name', () => {
    const registry = new Registry();
    new Gauge({ name: 'workqueue_depth', help: 'someone else`s', registers: [registry] });
    assert.throws(() => new PrometheusQueueMetrics(registry), /already been registered/);
  });
});

describe('queue metrics through a provider', { timeout: 15_000 }, () => {
  it('pulls in-flight work through the probe until shutdown', async () => {
    const clock = new FakeClock();
    const probes = new Map<string, () => UnfinishedWork>();
    const provider: QueueMetricsProvider = {
      ...noopQueueMetricsProvider,
      trackUnfinishedWork(name, probe) {
        probes.set(name, probe);
        return () => probes.delete(name);
      },
    };
    const q = newWorkQueue({ name: 'q', clock, metrics: provider });
    q.add('a');
    await q.get();
    await clock.advance(1500);
    assert.deepEqual(probes.get('q')?.(), { unfinishedWorkSeconds: 1.5, longestRunningProcessorSeconds: 1.5 });
    q.shutDown();
    assert.equal(probes.has('q'), false);
  });

  it('records nothing by default', async () => {
    const q = newWorkQueue();
    q.add('a');
    await q.get();
    q.done('a');
    assert.equal(q.name, '');
  });
});
