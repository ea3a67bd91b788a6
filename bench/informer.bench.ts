/**
 * Informer benchmark: time to sync and heap bytes per cached object, for 50,000 ConfigMaps of about
 * 1 KiB (1,000 with --smoke), Setpoint's SharedInformer beside @kubernetes/client-node's
 * makeInformer, one after the other against the same in-process control plane (plain HTTP, memory
 * store; the objects are written straight into the store before the server starts).
 *
 * Sync: from start to "the cache holds the complete listing" (ours: waitForCacheSync; client-node:
 * start() resolving, which it does once the list is cached and the watch requested).
 * Heap: heapUsed after a full GC with the informer synced and referenced, minus heapUsed after a
 * full GC before it started, divided by the object count. Needs global.gc: run node with
 * --expose-gc (NODE_OPTIONS=--expose-gc npm run bench -- informer); without it the output says so
 * and falls back to enabling the flag at run time.
 *
 * Both informers first sync a separate warm-up namespace (1,000 objects), so neither is measured
 * with cold code.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { CoreV1Api, KubeConfig, makeInformer, type V1ConfigMap } from '@kubernetes/client-node';
import { ApiError, type KubeList, type KubeObject, type Status } from '@setpoint/api';
import { SharedInformer, type ListWatch, type ListOptions, type WatchEvent, type WatchOptions } from '@setpoint/client';
import { startControlPlane, type ControlPlane } from '@setpoint/testing';
import { MemoryStore } from '@setpoint/store';
import { BenchReport, nowMs, ratio, smoke, type Row } from './lib.js';

const objects = smoke ? 1_000 : 50_000;

function clientNodeVersion(): string {
  try {
    return (JSON.parse(readFileSync(createRequire(import.meta.url).resolve('@kubernetes/client-node/package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return '(version unknown)';
  }
}
const warmup = 1_000;

function findGc(): { gc: () => void; note: string | undefined } {
  const global = (globalThis as { gc?: () => void }).gc;
  if (typeof global === 'function') return { gc: global, note: undefined };
  const missing = 'global.gc is missing: run node with --expose-gc (NODE_OPTIONS=--expose-gc npm run bench -- informer)';
  try {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    return { gc, note: `${missing}; enabled it at run time with v8.setFlagsFromString instead` };
  } catch {
    return { gc: () => undefined, note: `${missing}; heap figures below include garbage and are unreliable` };
  }
}

function heapAfterGc(gc: () => void): number {
  for (let i = 0; i < 3; i++) gc();
  return process.memoryUsage().heapUsed;
}

/**
 * The heap once what a stopped informer left behind is gone: closed sockets and aborted requests
 * release their objects a few event-loop turns after stop(). Reads until two readings 50 ms apart
 * agree within 256 KiB (at most 5 s).
 */
async function settledHeap(gc: () => void): Promise<number> {
  let last = heapAfterGc(gc);
  const deadline = nowMs() + 5000;
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    const now = heapAfterGc(gc);
    if (Math.abs(now - last) < 256 * 1024 || nowMs() > deadline) return now;
    last = now;
  }
}

/** About 1 KiB of JSON per object, as the store holds it (no resourceVersion). */
function configMapJson(namespace: string, i: number): string {
  const name = `cm-${String(i).padStart(6, '0')}`;
  return JSON.stringify({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace, uid: crypto.randomUUID(), creationTimestamp: '2026-01-01T00:00:00Z', labels: { app: 'bench', shard: String(i % 16) } },
    data: { payload: `${i}:`.padEnd(820, 'abcdefghijklmnopqrstuvwxyz') },
  });
}

/** A minimal ListWatch over fetch for a plain-HTTP server (the real HTTP client is not in use here). */
function fetchListWatch(server: string, namespace: string): ListWatch {
  const base = `${server}/api/v1/namespaces/${namespace}/configmaps`;
  const query = (q: Record<string, unknown>) =>
    new URLSearchParams(Object.entries(q).flatMap(([k, v]): Array<[string, string]> => (v === undefined || v === '' ? [] : [[k, String(v)]]))).toString();
  const fail = async (res: Response): Promise<never> => {
    throw ApiError.fromStatus((await res.json().catch(() => undefined)) as Partial<Status> | undefined, res.status);
  };
  return {
    async list(o: ListOptions): Promise<KubeList> {
      const res = await fetch(`${base}?${query({ limit: o.limit, continue: o.continue, resourceVersion: o.resourceVersion })}`, o.signal ? { signal: o.signal } : {});
      return res.ok ? ((await res.json()) as KubeList) : fail(res);
    },
    async *watch(o: WatchOptions): AsyncGenerator<WatchEvent> {
      const q = query({ watch: 1, resourceVersion: o.resourceVersion, allowWatchBookmarks: o.allowWatchBookmarks, timeoutSeconds: o.timeoutSeconds });
      let res: Response;
      try {
        res = await fetch(`${base}?${q}`, o.signal ? { signal: o.signal } : {});
      } catch (err) {
        if (o.signal?.aborted === true) return;
        throw err;
      }
      if (!res.ok || res.body === null) return fail(res);
      const decoder = new TextDecoder();
      let buffered = '';
      try {
        for await (const chunk of res.body) {
          buffered += decoder.decode(chunk as Uint8Array, { stream: true });
          let nl: number;
          while ((nl = buffered.indexOf('\n')) >= 0) {
            const line = buffered.slice(0, nl);
            buffered = buffered.slice(nl + 1);
            if (line.trim() === '') continue;
            const event = JSON.parse(line) as { type: string; object: KubeObject };
            if (event.type === 'ERROR') throw ApiError.fromStatus(event.object as unknown as Status);
            yield event as WatchEvent;
          }
        }
      } catch (err) {
        if (o.signal?.aborted === true) return;
        throw err;
      }
    },
  };
}

interface Running {
  size(): number;
  stop(): Promise<void>;
}

async function startOurs(cp: ControlPlane, namespace: string): Promise<Running> {
  const informer = new SharedInformer(fetchListWatch(cp.url, namespace), { namespace });
  const abort = new AbortController();
  const run = informer.run(abort.signal);
  if (!(await informer.waitForCacheSync())) throw new Error('our informer did not sync');
  return {
    size: () => informer.store.size,
    stop: async () => {
      abort.abort();
      await run;
    },
  };
}

async function startTheirs(cp: ControlPlane, namespace: string): Promise<Running> {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'c', server: cp.url, skipTLSVerify: true }],
    users: [{ name: 'u' }],
    contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
    currentContext: 'x',
  });
  const core = kc.makeApiClient(CoreV1Api);
  const informer = makeInformer<V1ConfigMap>(kc, `/api/v1/namespaces/${namespace}/configmaps`, () => core.listNamespacedConfigMap({ namespace }));
  await informer.start();
  return { size: () => informer.list(namespace).length, stop: () => informer.stop() };
}

async function measure(name: string, gc: () => void, start: () => Promise<Running>, count: number): Promise<Row> {
  const before = await settledHeap(gc);
  const t0 = nowMs();
  let running: Running | undefined = await start();
  const syncMs = nowMs() - t0;
  const after = heapAfterGc(gc);
  const cached = running.size(); // keeps the informer referenced until after the measurement
  if (cached !== count) throw new Error(`${name}: cached ${cached} objects, expected ${count}`);
  await running.stop();
  running = undefined;
  return { informer: name, objects: count, 'sync ms': syncMs, 'objects/s': count / (syncMs / 1000), 'heap MiB': (after - before) / 2 ** 20, 'bytes/object': (after - before) / count };
}

export async function run(): Promise<void> {
  const { gc, note } = findGc();
  if (note !== undefined) console.log(note);
  const store = new MemoryStore();
  let jsonBytes = 0;
  for (const [namespace, count] of [['warmup', warmup], ['bench', objects]] as const) {
    for (let i = 0; i < count; i++) {
      const value = configMapJson(namespace, i);
      if (namespace === 'bench') jsonBytes += value.length;
      await store.create(`/registry/core/configmaps/${namespace}/cm-${String(i).padStart(6, '0')}`, value);
    }
  }
  const cp = await startControlPlane({ store });
  try {
    for (const start of [startOurs, startTheirs]) await (await start(cp, 'warmup')).stop();
    const rows: Row[] = [];
    rows.push(await measure('setpoint SharedInformer', gc, () => startOurs(cp, 'bench'), objects));
    rows.push(await measure('client-node makeInformer', gc, () => startTheirs(cp, 'bench'), objects));
    const report = new BenchReport(
      'informer',
      `Time to sync and heap bytes per cached object for ${objects.toLocaleString('en-US')} ConfigMaps of about 1 KiB: Setpoint's SharedInformer beside @kubernetes/client-node's makeInformer, against the same in-process control plane.`,
    );
    report.table(`informer sync: ${objects.toLocaleString('en-US')} ConfigMaps of ~${Math.round(jsonBytes / objects)} B JSON, in-process control plane over HTTP`, rows);
    const [ours, theirs] = rows as [Row, Row];
    const ratios = { 'sync time, ours ÷ client-node': ratio(ours['sync ms'], theirs['sync ms']), 'heap per object, ours ÷ client-node': ratio(ours['bytes/object'], theirs['bytes/object']) };
    report.table('ours beside client-node (same run)', [ratios]);
    report.headline(`informer sync of ${objects.toLocaleString('en-US')} ConfigMaps: ours vs client-node`, `${(Number(ours['sync ms']) / 1000).toFixed(2)} s vs ${(Number(theirs['sync ms']) / 1000).toFixed(2)} s (×${ratios['sync time, ours ÷ client-node'].toFixed(2)})`);
    report.headline('informer heap per object: ours vs client-node', `${Math.round(Number(ours['bytes/object']))} B vs ${Math.round(Number(theirs['bytes/object']))} B (×${ratios['heap per object, ours ÷ client-node'].toFixed(2)})`, `JSON ~${Math.round(jsonBytes / objects)} B per object`);
    report.chart({ kind: 'bar', title: `Informer sync time, ${objects.toLocaleString('en-US')} ConfigMaps`, unit: 's', bars: rows.map((r) => ({ label: String(r.informer), value: Number(r['sync ms']) / 1000 })) });
    report.chart({ kind: 'bar', title: 'Heap per cached object', unit: 'B', bars: [...rows.map((r) => ({ label: String(r.informer), value: Number(r['bytes/object']) })), { label: 'the JSON itself', value: jsonBytes / objects }] });
    if (note !== undefined) report.note(note);
    report.note(`@kubernetes/client-node ${clientNodeVersion()}; both informers first synced a warm-up namespace of ${warmup.toLocaleString('en-US')} objects; the store is in memory, the server in this process over plain HTTP.`);
    report.write({ objects, jsonBytesPerObject: jsonBytes / objects, gc: note ?? 'global.gc', rows, oursVsClientNode: ratios });
  } finally {
    await cp.stop();
  }
}
