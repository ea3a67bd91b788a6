/**
 * API server benchmark: `setpoint server` (SQLite, TLS, token auth) runs in its own process; this
 * process is the client, over keep-alive HTTPS connections.
 * - creates/s and p50/p99 latency of 1 KiB ConfigMaps with 1 and 32 concurrent clients;
 * - GET p50/p99 of a single ConfigMap;
 * - watch delivery: 1,000 watchers on the namespace; each create carries its send time, and every
 *   watcher records when the event reached it (write sent → event received, p50/p99).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Latencies, nowMs, printTable, smoke, writeResults, type Row } from './lib.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

interface Server {
  url: string;
  ca: string;
  token: string;
  child: ChildProcess;
  dir: string;
}

async function startServer(): Promise<Server> {
  const dir = mkdtempSync(join(tmpdir(), 'setpoint-bench-api-'));
  const child = spawn(
    process.execPath,
    ['--conditions=setpoint-src', '--import', 'tsx', join(root, 'packages/setpoint/src/cli-main.ts'), 'server', '--data-dir', dir, '--port', '0', '--log-level', 'warn'],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const m = /API server at (https:\/\/[^;\s]+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    child.on('exit', (code) => reject(new Error(`server exited with ${code}`)));
  });
  return { url, ca: readFileSync(join(dir, 'ca.crt'), 'utf8'), token: readFileSync(join(dir, 'admin.token'), 'utf8').trim(), child, dir };
}

async function stopServer(server: Server): Promise<void> {
  const exited = new Promise((resolve) => server.child.on('exit', resolve));
  server.child.kill('SIGTERM');
  await exited;
  rmSync(server.dir, { recursive: true, force: true });
}

function client(server: Server, sockets: number) {
  const agent = new https.Agent({ keepAlive: true, maxSockets: sockets, ca: server.ca });
  const base = new URL(server.url);
  return {
    agent,
    call(method: string, path: string, body?: unknown): Promise<{ status: number; text: string }> {
      const payload = body === undefined ? undefined : JSON.stringify(body);
      return new Promise((resolve, reject) => {
        const req = https.request(
          { host: base.hostname, port: base.port, path, method, agent, headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json', accept: 'application/json' } },
          (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (c: Buffer) => chunks.push(c));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString() }));
          },
        );
        req.on('error', reject);
        if (payload !== undefined) req.write(payload);
        req.end();
      });
    },
  };
}

const value = 'x'.repeat(1024);

async function creates(server: Server, concurrency: number, durationMs: number): Promise<Row> {
  const c = client(server, concurrency);
  const lat = new Latencies();
  let seq = 0;
  const start = nowMs();
  const deadline = start + durationMs;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (nowMs() < deadline) {
        const name = `c${concurrency}-${seq++}`;
        const t0 = nowMs();
        const res = await c.call('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name }, data: { v: value } });
        if (res.status !== 201) throw new Error(`create: ${res.status} ${res.text}`);
        lat.add(nowMs() - t0);
      }
    }),
  );
  c.agent.destroy();
  return { op: 'create', clients: concurrency, 'ops/s': lat.count / ((nowMs() - start) / 1000), 'p50 ms': lat.percentile(50), 'p99 ms': lat.percentile(99) };
}

async function gets(server: Server, concurrency: number, durationMs: number): Promise<Row> {
  const c = client(server, concurrency);
  await c.call('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'get-target' }, data: { v: value } });
  const lat = new Latencies();
  const start = nowMs();
  const deadline = start + durationMs;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (nowMs() < deadline) {
        const t0 = nowMs();
        const res = await c.call('GET', '/api/v1/namespaces/default/configmaps/get-target');
        if (res.status !== 200) throw new Error(`get: ${res.status}`);
        lat.add(nowMs() - t0);
      }
    }),
  );
  c.agent.destroy();
  return { op: 'get', clients: concurrency, 'ops/s': lat.count / ((nowMs() - start) / 1000), 'p50 ms': lat.percentile(50), 'p99 ms': lat.percentile(99) };
}

async function watchDelivery(server: Server, watchers: number, writes: number): Promise<Row> {
  const ns = 'watched';
  const c = client(server, 4);
  await c.call('POST', '/api/v1/namespaces', { metadata: { name: ns } });
  const list = JSON.parse((await c.call('GET', `/api/v1/namespaces/${ns}/configmaps`)).text) as { metadata: { resourceVersion: string } };
  const rv = list.metadata.resourceVersion;
  const lat = new Latencies();
  const base = new URL(server.url);
  const watchAgent = new https.Agent({ keepAlive: false, maxSockets: Infinity, ca: server.ca });
  let connected = 0;
  const requests: Array<ReturnType<typeof https.request>> = [];
  await new Promise<void>((allConnected) => {
    for (let i = 0; i < watchers; i++) {
      const req = https.request(
        { host: base.hostname, port: base.port, path: `/api/v1/namespaces/${ns}/configmaps?watch=true&resourceVersion=${rv}`, agent: watchAgent, headers: { authorization: `Bearer ${server.token}` } },
        (res) => {
          if (++connected === watchers) allConnected();
          let buf = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => {
            buf += chunk;
            let nl: number;
            while ((nl = buf.indexOf('\n')) >= 0) {
              const line = buf.slice(0, nl);
              buf = buf.slice(nl + 1);
              const sent = /"sent":"([\d.]+)"/.exec(line);
              if (sent) lat.add(performance.timeOrigin + nowMs() - Number(sent[1]));
            }
          });
        },
      );
      req.on('error', () => undefined);
      req.end();
      requests.push(req);
    }
  });
  for (let i = 0; i < writes; i++) {
    const sent = String(performance.timeOrigin + nowMs());
    await c.call('POST', `/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: `w${i}`, annotations: { sent } }, data: { v: 'x' } });
    await new Promise((r) => setTimeout(r, 10));
  }
  const until = nowMs() + 30_000;
  while (lat.count < watchers * writes && nowMs() < until) await new Promise((r) => setTimeout(r, 20));
  for (const req of requests) req.destroy();
  watchAgent.destroy();
  c.agent.destroy();
  return { watchers, writes, delivered: lat.count, 'p50 ms': lat.percentile(50), 'p99 ms': lat.percentile(99) };
}

export async function run(): Promise<void> {
  const durationMs = smoke ? 500 : 5000;
  const server = await startServer();
  try {
    const rows: Row[] = [];
    for (const concurrency of [1, 32]) rows.push(await creates(server, concurrency, durationMs));
    for (const concurrency of [1, 32]) rows.push(await gets(server, concurrency, durationMs));
    printTable('API server: 1 KiB ConfigMaps over HTTPS (setpoint server, SQLite, durable)', rows);
    const watch = await watchDelivery(server, smoke ? 50 : 1000, smoke ? 10 : 100);
    printTable('watch delivery: create sent → event at each watcher', [watch]);
    console.log(`\nresults: ${writeResults('apiserver', { durationMs, requests: rows, watch })}`);
  } finally {
    await stopServer(server);
  }
}
