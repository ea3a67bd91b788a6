/**
 * Work queue benchmark: keys/s through a rate-limiting queue (the one controllers use) with a no-op
 * reconcile (get → done), for 1, 4 and 16 async workers, on the real clock, with and without
 * Prometheus metrics. Two producers: "trickle" adds in batches of 100 and yields to the event loop
 * between batches (workers keep up, little coalescing); "burst" adds everything at once and then
 * lets the workers drain (maximal coalescing). Reports keys/s (items handed out and done per
 * second), adds/s and the coalescing ratio (adds per processed item).
 */
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { Registry } from 'prom-client';
import { newRateLimitingQueue, PrometheusQueueMetrics, type QueueMetricsProvider } from '@setpoint/client';
import { realClock } from '@setpoint/api';
import { BenchReport, nowMs, smoke, type Row } from './lib.js';

const totalAdds = smoke ? 20_000 : 200_000;
const distinctKeys = smoke ? 1_000 : 10_000;
const batch = 100;
const repeats = smoke ? 1 : 3;

/** The key sequence: pseudo-random over `distinctKeys` namespace/name keys, the same every run. */
const keySequence: string[] = (() => {
  const names = Array.from({ length: distinctKeys }, (_, i) => `ns-${i % 50}/obj-${i}`);
  const seq: string[] = [];
  let seed = 12345;
  for (let i = 0; i < totalAdds; i++) {
    seed = (seed * 48271) % 2147483647;
    seq.push(names[seed % distinctKeys]!);
  }
  return seq;
})();

type Producer = 'trickle' | 'burst';

interface Measurement {
  elapsedMs: number;
  processed: number;
}

async function once(workers: number, producer: Producer, metrics: QueueMetricsProvider | undefined): Promise<Measurement> {
  const q = newRateLimitingQueue<string>({
    clock: realClock,
    ...(metrics ? { name: `bench-${workers}-${producer}`, metrics } : {}),
  });
  let processed = 0;
  const worker = async (): Promise<void> => {
    for (;;) {
      const next = await q.get();
      if (next.shutdown) return;
      processed++;
      q.done(next.item);
    }
  };
  const start = nowMs();
  const running = Array.from({ length: workers }, worker);
  for (let i = 0; i < keySequence.length; i++) {
    q.add(keySequence[i]!);
    if (producer === 'trickle' && i % batch === batch - 1) await yieldToLoop();
  }
  // Workers keep taking what is queued after shutDown and stop once the queue is empty.
  q.shutDown();
  await Promise.all(running);
  return { elapsedMs: nowMs() - start, processed };
}

async function measure(workers: number, producer: Producer, withMetrics: boolean): Promise<Row> {
  const registry = new Registry();
  const metrics = withMetrics ? new PrometheusQueueMetrics(registry) : undefined;
  await once(workers, producer, metrics); // warm-up
  const runs: Measurement[] = [];
  for (let r = 0; r < repeats; r++) runs.push(await once(workers, producer, metrics));
  runs.sort((a, b) => a.elapsedMs - b.elapsedMs);
  const median = runs[Math.floor(runs.length / 2)]!;
  const seconds = median.elapsedMs / 1000;
  return {
    producer,
    metrics: withMetrics ? 'prometheus' : 'none',
    workers: String(workers),
    adds: totalAdds,
    processed: median.processed,
    'keys/s': median.processed / seconds,
    'adds/s': totalAdds / seconds,
    'adds per item': totalAdds / median.processed,
    ms: median.elapsedMs,
  };
}

export async function run(): Promise<void> {
  const rows: Row[] = [];
  for (const producer of ['trickle', 'burst'] as const) {
    for (const withMetrics of [false, true]) {
      for (const workers of [1, 4, 16]) rows.push(await measure(workers, producer, withMetrics));
    }
  }
  const report = new BenchReport('queue', 'Keys per second through the rate-limiting work queue controllers use, with a no-op reconcile, for 1, 4 and 16 async workers, with and without Prometheus metrics; and how many adds coalesce into one item.');
  report.table(`work queue: ${totalAdds.toLocaleString('en-US')} adds over ${distinctKeys.toLocaleString('en-US')} keys, no-op reconcile (median of ${repeats})`, rows);
  const best = (producer: string, metrics: string) => Math.max(...rows.filter((r) => r.producer === producer && r.metrics === metrics).map((r) => Number(r['keys/s'])));
  report.headline('work queue keys/s, trickle producer, no-op reconcile (best of 1/4/16 workers)', `${Math.round(best('trickle', 'none')).toLocaleString('en-US')} (with Prometheus metrics ${Math.round(best('trickle', 'prometheus')).toLocaleString('en-US')})`);
  const burst = rows.find((r) => r.producer === 'burst' && r.metrics === 'none' && r.workers === '1');
  if (burst) report.headline('adds coalesced per processed item, burst producer', Number(burst['adds per item']).toFixed(1), `${distinctKeys.toLocaleString('en-US')} distinct keys, ${totalAdds.toLocaleString('en-US')} adds`);
  report.chart({
    kind: 'bar',
    title: 'Work queue keys/s (no-op reconcile)',
    unit: 'keys/s',
    bars: rows.map((r) => ({ label: `${r.producer}, ${r.workers} worker${r.workers === '1' ? '' : 's'}`, value: Number(r['keys/s']), series: r.metrics === 'none' ? 'no metrics' : 'Prometheus metrics' })),
  });
  report.write({ totalAdds, distinctKeys, batch, repeats, rows });
}
