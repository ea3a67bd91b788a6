/**
 * Store benchmark, in the shapes of `etcdctl check perf`: 256 B keys, 1 KiB values, 1, 50, 200 and
 * 500 concurrent writers (check perf's s, m and l loads use 50, 200 and 500 clients), each writer
 * creating keys one after the other as fast as the store acknowledges them. Backends, measured side
 * by side at each writer count (a fresh store each time): SQLite with group commit (the default
 * backend; WAL, synchronous=FULL: every commit fsynced) and a real etcd 3.4 started here (one
 * member, data in a temporary directory, fsync on every commit as etcd always does; EtcdStore over
 * gRPC on loopback). For reference also SQLite committing each write on its own (what group commit
 * is measured against) and the memory store (no disk at all).
 *
 * Then check perf's own verdict: writes paced at its rate limits (s: 150/s with 50 clients, m:
 * 1,000/s with 200, l: 8,000/s with 500) for 10 s instead of its 60; PASS needs more than 90% of
 * the rate, no request slower than 500 ms and a standard deviation under 100 ms. In full runs (or
 * with --etcdctl) also etcdctl's own `check perf` (Go client, plain puts, 60 s per load) against a
 * fresh etcd: etcd's capacity without our client in the way. And watch delivery:
 * from a write's call to its event at a watcher (16 writers). etcd's figures are also given as a
 * ratio of SQLite's.
 */
import { execFile, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, fdatasyncSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { EtcdStore, MemoryStore, SqliteStore, type Store } from '@setpoint/store';
import { etcdBinary, startEtcd } from '@setpoint/store/testing';
import { BenchReport, Latencies, nowMs, ratio, sleep, smoke, type Row } from './lib.js';

interface Backend {
  name: string;
  open(): Promise<{ store: Store; dispose(): Promise<void> }>;
}

function sqliteBackend(name: string, maxBatch?: number): Backend {
  return {
    name,
    async open() {
      const dir = mkdtempSync(join(tmpdir(), 'setpoint-bench-'));
      const store = await SqliteStore.open({ path: join(dir, 'db.sqlite'), ...(maxBatch === undefined ? {} : { maxBatch }) });
      return {
        store,
        async dispose() {
          await store.close();
          rmSync(dir, { recursive: true, force: true });
        },
      };
    },
  };
}

const SQLITE = 'sqlite (group commit)';
const ETCD = 'etcd 3.4';
const backends: Backend[] = [
  sqliteBackend(SQLITE),
  {
    name: ETCD,
    async open() {
      const etcd = await startEtcd();
      const store = await EtcdStore.open({ endpoints: etcd.endpoints });
      return {
        store,
        async dispose() {
          await store.close();
          await etcd.stop();
        },
      };
    },
  },
  sqliteBackend('sqlite (commit per write)', 1),
  {
    name: 'memory',
    async open() {
      const store = new MemoryStore();
      return { store, dispose: () => store.close() };
    },
  },
];
const compared = [SQLITE, ETCD];

const KEY_BYTES = 256;
const value = 'v'.repeat(1024);
const writerCounts = smoke ? [1, 50] : [1, 50, 200, 500];
const durationMs = smoke ? 300 : 4000;
const checkPerfSeconds = smoke ? 1 : 10;
const checkPerfLoads = [
  { load: 's', limit: 150, clients: 50 },
  { load: 'm', limit: 1000, clients: 200 },
  { load: 'l', limit: 8000, clients: 500 },
];

/** A fresh 256-byte key under /bench/ (random, as check perf's are). */
function key(prefix = '/bench/'): string {
  return prefix + randomBytes(KEY_BYTES).toString('hex').slice(0, KEY_BYTES - prefix.length);
}

function stddev(samples: number[]): number {
  const mean = samples.reduce((a, b) => a + b, 0) / samples.length;
  return Math.sqrt(samples.reduce((a, b) => a + (b - mean) ** 2, 0) / samples.length);
}

async function writeLoad(store: Store, writers: number): Promise<Row> {
  const latencies = new Latencies();
  const start = nowMs();
  const deadline = start + durationMs;
  let errors = 0;
  await Promise.all(
    Array.from({ length: writers }, async () => {
      while (nowMs() < deadline) {
        const t0 = nowMs();
        try {
          await store.create(key(), value);
          latencies.add(nowMs() - t0);
        } catch {
          errors++;
        }
      }
    }),
  );
  const elapsed = (nowMs() - start) / 1000;
  return { writers, 'writes/s': latencies.count / elapsed, 'p50 ms': latencies.percentile(50), 'p99 ms': latencies.percentile(99), 'max ms': latencies.max, errors };
}

/** check perf's loop: `limit` writes per second handed to `clients` writers, for `seconds`. */
async function checkPerf(store: Store, limit: number, clients: number, seconds: number): Promise<Row> {
  const samples: number[] = [];
  let errors = 0;
  let next = 0;
  const total = limit * seconds;
  const start = nowMs();
  await Promise.all(
    Array.from({ length: clients }, async () => {
      for (;;) {
        const i = next++;
        if (i >= total) return;
        const due = start + (i * 1000) / limit;
        const wait = due - nowMs();
        if (wait > 1) await sleep(wait);
        const t0 = nowMs();
        try {
          await store.create(key('/etcdctl-check-perf/'), value);
          samples.push((nowMs() - t0) / 1000);
        } catch {
          errors++;
        }
      }
    }),
  );
  const rps = samples.length / ((nowMs() - start) / 1000);
  const slowest = Math.max(...samples);
  const sd = stddev(samples);
  const failures = [
    ...(errors > 0 ? ['errors'] : []),
    ...(rps / limit <= 0.9 ? ['throughput'] : []),
    ...(slowest > 0.5 ? ['slowest'] : []),
    ...(sd > 0.1 ? ['stddev'] : []),
  ];
  return { 'writes/s': rps, 'slowest ms': slowest * 1000, 'stddev ms': sd * 1000, verdict: failures.length === 0 ? 'PASS' : `FAIL (${failures.join(', ')})` };
}

/** `etcdctl check perf --load=LOAD` against a fresh etcd; its verdict lines, parsed. */
async function etcdctlCheckPerf(load: string): Promise<Row> {
  const etcd = await startEtcd();
  try {
    const out = await new Promise<string>((resolve) => {
      execFile('etcdctl', ['check', 'perf', `--load=${load}`, `--endpoints=${etcd.endpoint}`], { env: { ...process.env, ETCDCTL_API: '3' }, timeout: 120_000 }, (_err, stdout, stderr) =>
        resolve(`${stdout}\n${stderr}`),
      );
    });
    const num = (re: RegExp) => Number(re.exec(out)?.[1] ?? NaN);
    return {
      'writes/s': num(/Throughput (?:is|too low:) (\d+) writes\/s/),
      'slowest ms': num(/[Ss]lowest request took(?: too long)?:? ([\d.]+)s/) * 1000,
      'stddev ms': num(/Stddev (?:is|too high:) ([\d.]+)s/) * 1000,
      verdict: /^PASS$/m.test(out) ? 'PASS' : /^FAIL$/m.test(out) ? 'FAIL' : `? ${out.trim().split('\n').pop() ?? ''}`,
    };
  } finally {
    await etcd.stop();
  }
}

async function watchLatency(store: Store, writers: number): Promise<Row> {
  const started = new Map<string, number>();
  const latencies = new Latencies();
  const abort = new AbortController();
  const from = await store.currentRevision();
  const watcher = (async () => {
    for await (const event of store.watch('/watched/', from, { signal: abort.signal, maxBuffered: 10_000_000 })) {
      if (event.type !== 'create') continue;
      const t0 = started.get(event.kv.key);
      if (t0 !== undefined) latencies.add(nowMs() - t0);
    }
  })();
  const deadline = nowMs() + durationMs;
  let seq = 0;
  await Promise.all(
    Array.from({ length: writers }, async () => {
      while (nowMs() < deadline) {
        const k = `/watched/${seq++}`;
        started.set(k, nowMs());
        await store.create(k, value);
      }
    }),
  );
  // Every write is acknowledged; wait until the watcher has seen them all (bounded).
  const until = nowMs() + 10_000;
  while (latencies.count < started.size && nowMs() < until) await sleep(5);
  abort.abort();
  await watcher;
  return { writers, events: latencies.count, 'p50 ms': latencies.percentile(50), 'p99 ms': latencies.percentile(99) };
}

async function withStore<T>(backend: Backend, fn: (store: Store) => Promise<T>): Promise<T> {
  const { store, dispose } = await backend.open();
  try {
    return await fn(store);
  } finally {
    await dispose();
  }
}

/**
 * What one fsync costs on the disk the stores write to: 4 KiB appended and fdatasync'ed, over and
 * over, for a second (etcd's guidance: p99 of its WAL fsync under 10 ms).
 */
function fsyncProbe(): Row {
  const dir = mkdtempSync(join(tmpdir(), 'setpoint-bench-fsync-'));
  const fd = openSync(join(dir, 'probe'), 'w');
  const block = Buffer.alloc(4096, 1);
  const l = new Latencies();
  try {
    const end = nowMs() + (smoke ? 200 : 1000);
    while (nowMs() < end) {
      const t0 = nowMs();
      writeSync(fd, block);
      fdatasyncSync(fd);
      l.add(nowMs() - t0);
    }
  } finally {
    closeSync(fd);
    rmSync(dir, { recursive: true, force: true });
  }
  return { 'fsyncs': l.count, 'p50 ms': l.percentile(50), 'p99 ms': l.percentile(99), 'max ms': l.max };
}

function versions(): Record<string, string> {
  const db = new Database(':memory:');
  const sqlite = (db.prepare('select sqlite_version() as v').get() as { v: string }).v;
  db.close();
  let etcd = 'unknown';
  try {
    etcd = /etcd Version: (\S+)/.exec(execFileSync(etcdBinary(), ['--version'], { encoding: 'utf8' }))?.[1] ?? etcd;
  } catch {
    // Reported as unknown.
  }
  return { sqlite, etcd };
}

export async function run(): Promise<void> {
  const report = new BenchReport(
    'store',
    'Writes of 1 KiB values under 256 B keys (the shapes of `etcdctl check perf`) by 1–500 concurrent writers: SQLite (group commit, fsync on every commit) beside a real etcd 3.4 (one member on this machine, fsync on every commit), each writer creating keys back to back.',
  );
  const v = versions();
  report.note(`SQLite ${v.sqlite} (WAL, synchronous=FULL); etcd ${v.etcd} from ${etcdBinary()} (one member, default fsync); data in ${tmpdir()}; ${durationMs / 1000} s per measurement.`);
  const fsync = fsyncProbe();
  report.table(`the disk: 4 KiB write + fdatasync in ${tmpdir()}, back to back for ${smoke ? 0.2 : 1} s`, [fsync]);
  const results: Record<string, Row[]> = {};
  for (const writers of writerCounts) {
    for (const backend of backends) {
      const row = await withStore(backend, (store) => writeLoad(store, writers));
      (results[backend.name] ??= []).push(row);
    }
  }
  for (const backend of backends) report.table(`writes, 256 B keys, 1 KiB values — ${backend.name}`, results[backend.name]!);

  const checkRows: Row[] = [];
  for (const load of checkPerfLoads) {
    for (const name of compared) {
      const backend = backends.find((b) => b.name === name)!;
      const row = await withStore(backend, (store) => checkPerf(store, load.limit, load.clients, checkPerfSeconds));
      checkRows.push({ backend: name, load: load.load, 'target writes/s': load.limit, clients: load.clients, ...row });
    }
  }
  if (!smoke || process.argv.includes('--etcdctl')) {
    for (const load of checkPerfLoads) {
      checkRows.push({ backend: 'etcd 3.4 via etcdctl check perf (60 s)', load: load.load, 'target writes/s': load.limit, clients: load.clients, ...(await etcdctlCheckPerf(load.load)) });
    }
  }
  report.table(`etcdctl check perf's loads, paced, ${checkPerfSeconds} s each (its pass criteria: > 90% of the target rate, slowest ≤ 500 ms, stddev ≤ 100 ms)`, checkRows);

  const watchRows: Row[] = [];
  for (const name of [SQLITE, ETCD, 'memory']) {
    const backend = backends.find((b) => b.name === name)!;
    watchRows.push({ backend: name, ...(await withStore(backend, (store) => watchLatency(store, 16))) });
  }
  report.table('watch delivery: write call → event at a watcher (16 writers)', watchRows);

  const ratios: Row[] = writerCounts.map((writers, i) => {
    const s = results[SQLITE]![i]!;
    const e = results[ETCD]![i]!;
    return { writers, 'sqlite writes/s': s['writes/s']!, 'etcd writes/s': e['writes/s']!, 'sqlite ÷ etcd writes/s': ratio(s['writes/s'], e['writes/s']), 'etcd ÷ sqlite p99': ratio(e['p99 ms'], s['p99 ms']) };
  });
  const sw = watchRows.find((r) => r.backend === SQLITE);
  const ew = watchRows.find((r) => r.backend === ETCD);
  report.table('SQLite beside etcd (same run)', ratios);
  report.table('watch delivery, etcd ÷ sqlite', [{ 'p50 ratio': ratio(ew?.['p50 ms'], sw?.['p50 ms']), 'p99 ratio': ratio(ew?.['p99 ms'], sw?.['p99 ms']) }]);

  for (const r of ratios) {
    report.headline(
      `store writes/s, ${r.writers} writer${r.writers === 1 ? '' : 's'}: SQLite vs etcd`,
      `${Math.round(Number(r['sqlite writes/s']))} vs ${Math.round(Number(r['etcd writes/s']))} (×${Number(r['sqlite ÷ etcd writes/s']).toFixed(2)})`,
    );
  }
  const p99 = (name: string, i: number) => Number(results[name]![i]!['p99 ms']).toFixed(1);
  const most = writerCounts.length - 1;
  report.headline(`store write p99 at ${writerCounts[most]} writers: SQLite vs etcd`, `${p99(SQLITE, most)} ms vs ${p99(ETCD, most)} ms`);
  for (const load of ['s', 'm', 'l']) {
    const verdict = (name: string) => String(checkRows.find((r) => r.backend === name && r.load === load)?.verdict ?? '?');
    report.headline(`check perf load ${load}: SQLite / etcd`, `${verdict(SQLITE)} / ${verdict(ETCD)}`, `${checkPerfSeconds} s instead of 60 s`);
  }

  const series = (col: string) => backends.map((b) => ({ name: b.name, points: results[b.name]!.map((r) => [Number(r.writers), Number(r[col])] as const) }));
  report.chart({ kind: 'line', title: 'Store writes/s against concurrent writers (256 B keys, 1 KiB values)', x: 'concurrent writers', y: 'writes/s', xLog: true, yLog: true, series: series('writes/s') });
  report.chart({ kind: 'line', title: 'Store write latency p99', x: 'concurrent writers', y: 'p99 ms', xLog: true, yLog: true, series: series('p99 ms') });
  report.headline('one fsync (4 KiB write + fdatasync) on this disk', `p50 ${Number(fsync['p50 ms']).toFixed(2)} ms, p99 ${Number(fsync['p99 ms']).toFixed(2)} ms`, 'bounds one committer\'s writes/s; etcd asks for p99 < 10 ms');
  report.write({ fsync, durationMs, keyBytes: KEY_BYTES, valueBytes: value.length, versions: v, writes: results, checkPerf: checkRows, watch: watchRows, sqliteVsEtcd: ratios });
}
