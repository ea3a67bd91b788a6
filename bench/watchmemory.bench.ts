/**
 * Watch memory benchmark: the API server's memory with many watches nobody reads, and after they
 * close (issue #19: 1,500 unread watches took a server from 261 MB to 3.7 GB, and it kept it).
 *
 * The server (bench/watchmemory-server.ts) runs in a child process started with --expose-gc, so
 * every figure is read after two full garbage collections. It holds N ConfigMaps of ~1 KiB (2,000,
 * a ~2 MB list). W clients (1,500) each open one watch from resourceVersion=0 — so each starts
 * with the whole list as ADDED events — on a plain TCP connection, read the response's first
 * bytes (the 200) and then never read again. Then U ConfigMaps are updated (2,000 updates of
 * 8 KiB), so every watch falls ~16 MiB further behind; then every connection is closed. The server's RSS is read after each phase.
 *
 * What the kernel buffers for a socket (its send and receive buffers, several MB each on Linux
 * loopback) is not in the server's RSS: only what the server holds in its own memory is. "server
 * sockets" counts the sockets the server process holds (the listener, the IPC channel and idle
 * keep-alive connections of the benchmark's own requests included):
 * the paused clients cannot see the server end or drop a connection, the server's side can.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import net from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ServerMemory } from './watchmemory-server.js';
import { BenchReport, MiB, argValue, nowMs, sleep, smoke, until, type Row } from './lib.js';

const objects = Number(argValue('objects') ?? (smoke ? 200 : 2_000));
const watchers = Number(argValue('watchers') ?? (smoke ? 50 : 1_500));
const updates = Number(argValue('updates') ?? (smoke ? 200 : 2_000));
/** Size of each update's data: 2,000 updates of 8 KiB put ~16 MiB of events behind every watch, past the 10 MiB default bound. */
const updateKiB = 8;
const NS = 'watched';
const here = dirname(fileURLToPath(import.meta.url));

/** The server child and a request/answer channel to it. */
class ServerChild {
  private nextId = 0;
  private readonly pending = new Map<number, (m: ServerMemory) => void>();

  private constructor(
    readonly child: ChildProcess,
    readonly url: URL,
  ) {
    child.on('message', (msg: { id?: number; memory?: ServerMemory }) => {
      if (msg.id !== undefined && msg.memory !== undefined) this.pending.get(msg.id)?.(msg.memory);
    });
  }

  static async start(): Promise<ServerChild> {
    const child = fork(join(here, 'watchmemory-server.ts'), [], {
      execArgv: ['--expose-gc', '--conditions=setpoint-src', '--import', 'tsx'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const [first] = (await Promise.race([once(child, 'message'), once(child, 'exit').then(() => Promise.reject(new Error('the server exited before listening')))])) as [{ url: string }];
    return new ServerChild(child, new URL(first.url));
  }

  memory(): Promise<ServerMemory> {
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.pending.set(id, (m) => {
        this.pending.delete(id);
        resolve(m);
      });
      this.child.send({ id, op: 'memory' });
    });
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null) return;
    const exited = once(this.child, 'exit');
    this.child.send({ op: 'stop' });
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 15_000);
    await exited;
    clearTimeout(timer);
  }
}

/** One HTTP/1.1 request on its own connection; resolves with status and body. */
async function call(url: URL, method: string, path: string, body?: unknown): Promise<{ status: number; text: string }> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  const res = await fetch(new URL(path, url), { method, ...(payload === undefined ? {} : { body: payload, headers: { 'content-type': 'application/json' } }) });
  return { status: res.status, text: await res.text() };
}

function configMap(name: string, version: number, kib = 1): object {
  return { metadata: { name, namespace: NS }, data: { v: String(version), blob: 'x'.repeat(kib * 1024 - 24) } };
}

interface UnreadWatch {
  readonly socket: net.Socket;
}

/** Opens a watch and stops reading as soon as the status line has arrived. */
function openUnread(url: URL, path: string): Promise<UnreadWatch> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: url.hostname, port: Number(url.port) });
    const watch: UnreadWatch = { socket };
    socket.once('error', reject);
    socket.write(`GET ${path} HTTP/1.1\r\nHost: ${url.host}\r\nAccept: application/json\r\n\r\n`);
    socket.once('data', (chunk: Buffer) => {
      socket.pause(); // from here on nothing reads: the server's writes back up
      socket.off('error', reject);
      socket.on('error', () => undefined);
      const status = chunk.toString('latin1', 0, 12);
      if (status !== 'HTTP/1.1 200') {
        socket.destroy();
        reject(new Error(`watch answered ${chunk.toString('latin1', 0, 200)}`));
        return;
      }
      resolve(watch);
    });
  });
}

const mib = (bytes: number) => Math.round((bytes / MiB) * 10) / 10;

export async function run(): Promise<void> {
  const report = new BenchReport(
    'watchmemory',
    `The API server's memory (RSS after GC) with ${watchers.toLocaleString('en-US')} watches nobody reads, each from resourceVersion=0 of ${objects.toLocaleString('en-US')} ConfigMaps of ~1 KiB, then ${updates.toLocaleString('en-US')} updates of ${updateKiB} KiB, then after the connections close.`,
  );
  const server = await ServerChild.start();
  const open: UnreadWatch[] = [];
  const rows: Row[] = [];
  try {
    const base = server.url;
    if ((await call(base, 'POST', '/api/v1/namespaces', { metadata: { name: NS } })).status !== 201) throw new Error('namespace create failed');
    const startup = await server.memory();
    for (let i = 0; i < objects; i += 50) {
      await Promise.all(
        Array.from({ length: Math.min(50, objects - i) }, async (_, j) => {
          const res = await call(base, 'POST', `/api/v1/namespaces/${NS}/configmaps`, configMap(`cm-${i + j}`, 0));
          if (res.status !== 201) throw new Error(`create: ${res.status} ${res.text.slice(0, 200)}`);
        }),
      );
    }
    const listBytes = (await call(base, 'GET', `/api/v1/namespaces/${NS}/configmaps`)).text.length;
    const phase = (name: string, m: ServerMemory, seconds: number, extra: Row = {}): void => {
      const row: Row = { phase: name, 'RSS MiB': mib(m.rss), 'heap MiB': mib(m.heapUsed), 'external MiB': mib(m.external), 'cache watchers': m.cacheWatchers, 'server sockets': m.sockets, seconds, ...extra };
      rows.push(row);
      console.log(`${name}: RSS ${row['RSS MiB']} MiB, heap ${row['heap MiB']} MiB, ${m.cacheWatchers} watchers in the cache`);
    };
    phase('server started (empty)', startup, 0);
    phase(`${objects} ConfigMaps stored (list ${mib(listBytes)} MiB)`, await server.memory(), 0);

    let t0 = nowMs();
    const path = `/api/v1/namespaces/${NS}/configmaps?watch=true&resourceVersion=0`;
    let next = 0;
    await Promise.all(
      Array.from({ length: Math.min(50, watchers) }, async () => {
        while (next < watchers) {
          next++;
          open.push(await openUnread(base, path));
        }
      }),
    );
    // Let the server write what the sockets take; then read its memory.
    await sleep(smoke ? 500 : 5_000);
    phase(`${watchers} unread watches from resourceVersion=0`, await server.memory(), (nowMs() - t0) / 1000);

    t0 = nowMs();
    for (let i = 0; i < updates; i += 50) {
      await Promise.all(
        Array.from({ length: Math.min(50, updates - i) }, async (_, j) => {
          const n = i + j;
          const res = await call(base, 'PUT', `/api/v1/namespaces/${NS}/configmaps/cm-${n % objects}`, configMap(`cm-${n % objects}`, n + 1, updateKiB));
          if (res.status !== 200) throw new Error(`update: ${res.status} ${res.text.slice(0, 200)}`);
        }),
      );
    }
    // Longer than the 10 s a closed watch's connection gets to flush before the server drops it.
    await sleep(smoke ? 500 : 12_000);
    phase(`after ${updates} updates of ${updateKiB} KiB (${mib(updates * (updateKiB * 1024 + 200))} MiB of events per watch)`, await server.memory(), (nowMs() - t0) / 1000);

    t0 = nowMs();
    for (const w of open) w.socket.destroy();
    await until(async () => (await server.memory()).cacheWatchers === 0, 60_000, 200);
    await sleep(smoke ? 200 : 2_000);
    phase('after every connection closed', await server.memory(), (nowMs() - t0) / 1000);
  } finally {
    for (const w of open) w.socket.destroy();
    await server.stop();
  }
  report.table(`server memory after GC, ${watchers} unread watches of a ${objects}-object list`, rows);
  const rss = (i: number) => Number(rows[i]?.['RSS MiB']);
  report.headline(`server RSS with ${watchers.toLocaleString('en-US')} unread watches of ${objects.toLocaleString('en-US')} ConfigMaps`, `${rss(2)} MiB`, `${rss(1)} MiB before they opened; ${rss(3)} MiB after ${updates} updates`);
  report.headline('server RSS after those watches closed', `${rss(4)} MiB`, 'after GC');
  report.note('The server runs in its own process (node --expose-gc) and collects garbage twice before each reading. Kernel socket buffers are not in RSS.');
  report.write({ objects, watchers, updates, rows });
}
