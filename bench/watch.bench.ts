/**
 * Watch benchmark: commit-to-delivery latency with 100, 1,000 and 10,000 watchers, and the API
 * server's memory per watcher, on SQLite and on etcd (one server process each, one after the
 * other, in the same run).
 *
 * N clients each hold one watch (HTTPS, one HTTP/1.1 connection per watch, as client-go's
 * watches) on the ConfigMaps of one namespace; then 30 ConfigMaps are created, 10 per second, each
 * carrying its send time (epoch ms) in an annotation, and every watcher records when the event
 * reached it. Every event goes to every watcher (the broadcast case: the fan-out is N events per
 * write). "Write sent → delivered" includes the write itself (a commit happens before the event
 * exists); the write's own latency is given beside it, so commit → delivery lies between the two.
 *
 * Memory: the server's RSS (/proc) and V8 heap (its /metrics) after the watchers connected minus
 * before, divided by N; each watcher here is one TCP+TLS connection and one watch. For scale,
 * etcd's published figures (etcd 3 watch memory benchmark): about 17 KB per client connection,
 * 18 KB per watch stream and 350 B per watching.
 */
import https from 'node:https';
import { startEtcd, type EtcdServer } from '@setpoint/store/testing';
import { ApiClient, metricSum, scrape, startServer, type ServerProcess } from './harness.js';
import { BenchReport, Latencies, MiB, argValue, cpuSecondsOf, nowMs, ratio, rssOf, sleep, smoke, until, type Row } from './lib.js';

const counts = argValue('watchers')?.split(',').map(Number) ?? (smoke ? [50] : [100, 1_000, 10_000]);
const writes = smoke ? 10 : 30;
const writeIntervalMs = 100;
const NS = 'watched';
let round = 0;

interface Watchers {
  readonly connected: number;
  readonly delivered: Latencies;
  close(): void;
}

/** Opens `n` watches from `rv`, `parallel` handshakes at a time; resolves once every one answered 200. */
async function openWatchers(server: ServerProcess, n: number, rv: string, parallel = 100): Promise<Watchers> {
  const base = new URL(server.url);
  const agent = new https.Agent({ keepAlive: false, maxSockets: Infinity, ca: server.ca });
  const delivered = new Latencies();
  const requests: Array<ReturnType<typeof https.request>> = [];
  let connected = 0;
  const open = () =>
    new Promise<void>((resolve, reject) => {
      const req = https.request(
        {
          host: base.hostname,
          port: base.port,
          path: `/api/v1/namespaces/${NS}/configmaps?watch=true&resourceVersion=${rv}`,
          agent,
          headers: { authorization: `Bearer ${server.token}` },
        },
        (res) => {
          if (res.statusCode !== 200) {
            reject(new Error(`watch: ${res.statusCode}`));
            res.resume();
            return;
          }
          connected++;
          resolve();
          let buf = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => {
            buf += chunk;
            let nl: number;
            while ((nl = buf.indexOf('\n')) >= 0) {
              const line = buf.slice(0, nl);
              buf = buf.slice(nl + 1);
              const at = line.indexOf('"sent":"');
              if (at >= 0) delivered.add(performance.timeOrigin + nowMs() - Number(line.slice(at + 8, line.indexOf('"', at + 8))));
            }
          });
          res.on('error', () => undefined);
        },
      );
      req.on('error', (err) => reject(err));
      req.end();
      requests.push(req);
    });
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(parallel, n) }, async () => {
      while (next < n) {
        next++;
        await open();
      }
    }),
  );
  return {
    get connected() {
      return connected;
    },
    delivered,
    close() {
      for (const req of requests) req.destroy();
      agent.destroy();
    },
  };
}

async function memory(server: ServerProcess, admin: ApiClient): Promise<{ rss: number; heap: number }> {
  await sleep(smoke ? 200 : 2000); // let allocation settle (the server collects garbage on its own schedule)
  const samples = await scrape(admin);
  return { rss: rssOf(server.pid), heap: metricSum(samples, 'nodejs_heap_size_used_bytes') };
}

async function measure(store: string, server: ServerProcess, admin: ApiClient, n: number): Promise<Row> {
  const list = JSON.parse((await admin.expect(200, 'GET', `/api/v1/namespaces/${NS}/configmaps`)).text) as { metadata: { resourceVersion: string } };
  const before = await memory(server, admin);
  const t0 = nowMs();
  const watchers = await openWatchers(server, n, list.metadata.resourceVersion);
  const connectSeconds = (nowMs() - t0) / 1000;
  const after = await memory(server, admin);
  const cpu0 = cpuSecondsOf(server.pid);
  const writeLatency = new Latencies();
  const r = round++;
  const start = nowMs();
  for (let i = 0; i < writes; i++) {
    const due = start + i * writeIntervalMs;
    if (due > nowMs()) await sleep(due - nowMs());
    const sent = String(performance.timeOrigin + nowMs());
    const w0 = nowMs();
    await admin.expect(201, 'POST', `/api/v1/namespaces/${NS}/configmaps`, { metadata: { name: `w${r}-${i}`, annotations: { sent } }, data: { v: 'x' } });
    writeLatency.add(nowMs() - w0);
  }
  const complete = await until(() => watchers.delivered.count >= n * writes, smoke ? 10_000 : 120_000, 20);
  const drainSeconds = (nowMs() - start) / 1000;
  const cpu = cpuSecondsOf(server.pid) - cpu0;
  watchers.close();
  await until(async () => metricSum(await scrape(admin), 'apiserver_registered_watchers') === 0, 30_000, 100);
  const d = watchers.delivered;
  return {
    store,
    watchers: n,
    connected: watchers.connected,
    'connect s': connectSeconds,
    delivered: d.count,
    expected: n * writes,
    'write p50 ms': writeLatency.percentile(50),
    'delivery p50 ms': d.percentile(50),
    'delivery p99 ms': d.percentile(99),
    'delivery max ms': d.max,
    'events/s': d.count / drainSeconds,
    'server CPU s': cpu,
    'RSS/watcher KiB': (after.rss - before.rss) / n / 1024,
    'heap/watcher KiB': (after.heap - before.heap) / n / 1024,
    'RSS MiB': after.rss / MiB,
    ...(complete ? {} : { note: 'not every event arrived in time' }),
  };
}

export async function run(): Promise<void> {
  const report = new BenchReport(
    'watch',
    `Commit-to-delivery latency of watch events with ${counts.map((c) => c.toLocaleString('en-US')).join(', ')} watchers (every event to every watcher), and the API server's memory per watcher, on SQLite and on etcd.`,
  );
  const rows: Row[] = [];
  for (const store of ['sqlite', 'etcd'] as const) {
    let etcd: EtcdServer | undefined;
    let server: ServerProcess | undefined;
    let admin: ApiClient | undefined;
    try {
      if (store === 'etcd') etcd = await startEtcd();
      server = await startServer({ store, ...(etcd ? { etcdEndpoint: etcd.endpoint } : {}) });
      admin = new ApiClient(server, 4);
      await admin.expect(201, 'POST', '/api/v1/namespaces', { metadata: { name: NS } });
      // Warm the server's code paths once (not reported).
      await measure(store, server, admin, Math.min(50, counts[0]!));
      for (const n of counts) {
        const row = await measure(store, server, admin, n);
        rows.push(row);
        console.log(`${store}, ${n} watchers: delivery p99 ${Number(row['delivery p99 ms']).toFixed(1)} ms, ${Number(row['RSS/watcher KiB']).toFixed(1)} KiB RSS per watcher`);
      }
    } finally {
      admin?.close();
      await server?.stop();
      await etcd?.stop();
    }
  }
  report.table(`watch delivery: ${writes} creates at ${1000 / writeIntervalMs}/s, each delivered to every watcher`, rows);
  const ratios: Row[] = counts.map((n) => {
    const s = rows.find((r) => r.store === 'sqlite' && r.watchers === n);
    const e = rows.find((r) => r.store === 'etcd' && r.watchers === n);
    return { watchers: n, 'etcd ÷ sqlite delivery p50': ratio(e?.['delivery p50 ms'], s?.['delivery p50 ms']), 'etcd ÷ sqlite delivery p99': ratio(e?.['delivery p99 ms'], s?.['delivery p99 ms']) };
  });
  report.table('etcd beside SQLite (same run)', ratios);
  for (const r of rows) {
    report.headline(`watch delivery p99, ${Number(r.watchers).toLocaleString('en-US')} watchers, ${r.store}`, `${Number(r['delivery p99 ms']).toFixed(0)} ms`, `write p50 ${Number(r['write p50 ms']).toFixed(1)} ms; ${Math.round(Number(r['events/s']))} events/s delivered`);
  }
  const largest = counts.at(-1)!;
  for (const store of ['sqlite', 'etcd']) {
    const r = rows.find((x) => x.store === store && x.watchers === largest);
    if (r) report.headline(`server memory per watcher (${largest.toLocaleString('en-US')} watchers, ${store})`, `${Number(r['RSS/watcher KiB']).toFixed(1)} KiB RSS, ${Number(r['heap/watcher KiB']).toFixed(1)} KiB heap`, "one connection + one watch each; etcd's own: ~17 KB per connection, ~18 KB per stream, ~350 B per watching");
  }
  const series = (col: string) => ['sqlite', 'etcd'].map((store) => ({ name: store, points: rows.filter((r) => r.store === store).map((r) => [Number(r.watchers), Number(r[col])] as const) }));
  report.chart({ kind: 'line', title: 'Watch delivery p99 (write sent → event at every watcher)', x: 'watchers', y: 'p99 ms', xLog: true, yLog: true, series: series('delivery p99 ms') });
  report.chart({
    kind: 'bar',
    title: `Server memory per watcher at ${largest.toLocaleString('en-US')} watchers (KiB RSS)`,
    unit: 'KiB',
    bars: [
      ...rows.filter((r) => r.watchers === largest).map((r) => ({ label: `setpoint server, ${r.store} (conn + watch)`, value: Number(r['RSS/watcher KiB']), series: 'measured here' })),
      { label: 'etcd: per connection', value: 17, series: "etcd's published figures" },
      { label: 'etcd: per watch stream', value: 18, series: "etcd's published figures" },
      { label: 'etcd: per watching', value: 0.35, series: "etcd's published figures" },
    ],
  });
  report.note(`The watchers and the writer run in the benchmark's process, the server in its own; ${writes} writes at ${1000 / writeIntervalMs}/s per watcher count. Memory per watcher = (RSS after the watchers connected − before) ÷ N; the heap figure from the server's nodejs_heap_size_used_bytes, without a forced GC, so at 100 and 1,000 watchers both are within the noise of the server's own garbage collection (even negative); the figures at 10,000 are the ones to read.`);
  report.write({ writes, writeIntervalMs, rows, etcdVsSqlite: ratios });
}
