/**
 * The API server of the watchmemory benchmark, in a child process of its own (node --expose-gc):
 * plain HTTP on 127.0.0.1, SQLite in a temporary directory, no authentication (every request is
 * the anonymous admin), no watch count limit. It says `{ url }` over IPC once it listens, and
 * answers each `{ id, op: 'memory' }` with the process's memory after two full garbage
 * collections and the number of watchers the ConfigMap watch cache holds; `{ op: 'stop' }` stops
 * it. Not a benchmark itself (run.ts loads only *.bench.ts).
 */
import { mkdtempSync, readdirSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiServer } from '@setpoint/apiserver';
import { SqliteStore } from '@setpoint/store';

/** What the child answers to `memory`. */
export interface ServerMemory {
  readonly rss: number;
  readonly heapUsed: number;
  readonly external: number;
  readonly arrayBuffers: number;
  /** Watchers registered in the ConfigMap watch cache. */
  readonly cacheWatchers: number;
  /** TCP sockets the process holds open (/proc/self/fd), its listening socket and IPC channel included. */
  readonly sockets: number;
}

function openSockets(): number {
  let n = 0;
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      if (readlinkSync(`/proc/self/fd/${fd}`).startsWith('socket:')) n++;
    } catch {
      // closed meanwhile
    }
  }
  return n;
}

const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error('watchmemory-server needs node --expose-gc');
const dir = mkdtempSync(join(tmpdir(), 'setpoint-bench-watchmemory-'));
const store = await SqliteStore.open({ path: join(dir, 'state.db') });
const watchCache = process.env.WATCHMEMORY_CACHE_OPTIONS ? (JSON.parse(process.env.WATCHMEMORY_CACHE_OPTIONS) as object) : undefined;
const server = await ApiServer.start({
  port: 0,
  host: '127.0.0.1',
  store,
  compaction: false,
  limits: { maxWatchesPerUser: 0 },
  ...(watchCache ? { watchCache } : {}),
});
const configmaps = server.storageFor('', 'v1', 'configmaps');

async function stop(): Promise<void> {
  await server.stop();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
}

process.on('message', (message: { id?: number; op: string }) => {
  if (message.op === 'memory') {
    // Two collections: the first may only queue finalizers (sockets, buffers) the second frees.
    gc();
    gc();
    const m = process.memoryUsage();
    const answer: ServerMemory = { rss: m.rss, heapUsed: m.heapUsed, external: m.external, arrayBuffers: m.arrayBuffers, cacheWatchers: configmaps.cache.watcherCount, sockets: openSockets() };
    process.send!({ id: message.id, memory: answer });
  } else if (message.op === 'stop') {
    void stop().then(() => process.exit(0));
  }
});
process.on('disconnect', () => void stop().then(() => process.exit(0)));
process.send!({ url: server.url });
