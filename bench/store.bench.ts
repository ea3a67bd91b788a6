/**
 * Store benchmark: writes/s and p50/p99 write latency with 1, 16 and 128 concurrent writers of
 * 1 KiB values, for the memory store, SQLite with group commit, and SQLite committing each write on
 * its own (the baseline group commit is measured against). Every SQLite commit is fsynced.
 * Then watch delivery latency: from a write's call to its event reaching a watcher.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemoryStore, SqliteStore, type Store } from '@setpoint/store';
import { Latencies, nowMs, printTable, smoke, writeResults, type Row } from './lib.js';

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

const backends: Backend[] = [
  {
    name: 'memory',
    async open() {
      const store = new MemoryStore();
      return { store, dispose: () => store.close() };
    },
  },
  sqliteBackend('sqlite (group commit)'),
  sqliteBackend('sqlite (commit per write)', 1),
];

const value = 'x'.repeat(1024);
const durationMs = smoke ? 300 : 3000;

async function writeLoad(store: Store, writers: number): Promise<Row> {
  const latencies = new Latencies();
  const start = nowMs();
  const deadline = start + durationMs;
  let seq = 0;
  await Promise.all(
    Array.from({ length: writers }, async (_, w) => {
      while (nowMs() < deadline) {
        const t0 = nowMs();
        await store.create(`/bench/w${w}/${seq++}`, value);
        latencies.add(nowMs() - t0);
      }
    }),
  );
  const elapsed = (nowMs() - start) / 1000;
  return {
    writers,
    'writes/s': latencies.count / elapsed,
    'p50 ms': latencies.percentile(50),
    'p99 ms': latencies.percentile(99),
  };
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
        const key = `/watched/${seq++}`;
        started.set(key, nowMs());
        await store.create(key, value);
      }
    }),
  );
  // Every write is acknowledged; wait until the watcher has seen them all (bounded).
  const until = nowMs() + 10_000;
  while (latencies.count < started.size && nowMs() < until) await new Promise((r) => setTimeout(r, 5));
  abort.abort();
  await watcher;
  return { writers, events: latencies.count, 'p50 ms': latencies.percentile(50), 'p99 ms': latencies.percentile(99) };
}

export async function run(): Promise<void> {
  const results: Record<string, Row[]> = {};
  for (const backend of backends) {
    const rows: Row[] = [];
    for (const writers of [1, 16, 128]) {
      const { store, dispose } = await backend.open();
      try {
        rows.push(await writeLoad(store, writers));
      } finally {
        await dispose();
      }
    }
    printTable(`writes of 1 KiB values — ${backend.name}`, rows);
    results[backend.name] = rows;
  }
  const watchRows: Row[] = [];
  for (const backend of backends.slice(0, 2)) {
    const { store, dispose } = await backend.open();
    try {
      watchRows.push({ backend: backend.name, ...(await watchLatency(store, 16)) });
    } finally {
      await dispose();
    }
  }
  printTable('watch delivery: write call → event at a watcher (16 writers)', watchRows);
  const file = writeResults('store', { durationMs, writes: results, watch: watchRows });
  console.log(`\nresults: ${file}`);
}
