/**
 * The informer against a real (in-process) Setpoint API server, over HTTP: sync, live changes, an
 * API server restart mid-watch, a compaction while the watch was down, and @kubernetes/client-node's
 * informer beside ours.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KubeConfig, CoreV1Api, makeInformer, type V1ConfigMap } from '@kubernetes/client-node';
import type { KubeList, KubeObject } from '@setpoint/api';
import { startControlPlane, type ControlPlane } from '@setpoint/testing';
import type { ListWatch, ResourceRef } from '../types.js';
import { DeletedFinalStateUnknown } from './handlers.js';
import { SharedInformer } from './informer.js';
import type { DeepReadonly } from './store.js';
import { collectionUrl, fetchListWatch, throwForStatus } from './testing-listwatch.js';
import { until, type ConfigMap } from './fake-listwatch.test.js';

const configmaps: ResourceRef = { group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap', namespaced: true };

/** Writes through the API, as any client would. */
function api(cp: ControlPlane) {
  const url = (name = '') => `${collectionUrl(cp.url, configmaps, 'default')}${name === '' ? '' : `/${name}`}`;
  const call = async (method: string, target: string, body?: unknown): Promise<ConfigMap> => {
    const init = { method, headers: { 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) };
    let res: Response;
    for (let attempt = 1; ; attempt++) {
      try {
        res = await fetch(target, init);
        break;
      } catch (err) {
        // After cp.restart() a pooled keep-alive socket of the old server may still look open; the
        // request then fails before the server read it ("other side closed"), so trying again is safe.
        const code = ((err as Error).cause as { code?: string } | undefined)?.code;
        if (code !== 'UND_ERR_SOCKET' || attempt === 3) throw err;
      }
    }
    if (!res.ok) return throwForStatus(res);
    return (await res.json()) as ConfigMap;
  };
  return {
    create: (name: string, v = '0') => call('POST', url(), { metadata: { name }, data: { v } }),
    update: async (name: string, v: string) => {
      const current = await call('GET', url(name));
      return call('PUT', url(name), { ...current, data: { v } });
    },
    remove: (name: string) => call('DELETE', url(name)),
    /** name → resourceVersion of everything the server holds. */
    async state(): Promise<Map<string, string>> {
      const list = (await call('GET', url())) as unknown as KubeList<ConfigMap>;
      return new Map(list.items.map((o) => [o.metadata.name!, o.metadata.resourceVersion!]));
    },
  };
}

/** A ListWatch whose calls can be held back (the gate), counting lists and watches. */
function gated(inner: ListWatch<ConfigMap>) {
  let open: Promise<void> = Promise.resolve();
  let release = (): void => {};
  const wait = (signal: AbortSignal | undefined) =>
    new Promise<void>((resolve, reject) => {
      void open.then(resolve);
      signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
    });
  const counts = { lists: 0, watches: 0 };
  const lw: ListWatch<ConfigMap> = {
    async list(options) {
      await wait(options.signal);
      counts.lists++;
      return inner.list(options);
    },
    async *watch(options) {
      try {
        await wait(options.signal);
      } catch {
        return;
      }
      counts.watches++;
      yield* inner.watch(options);
    },
  };
  return {
    lw,
    counts,
    close: () => {
      open = new Promise((resolve) => (release = resolve));
    },
    open: () => release(),
  };
}

/** Per object: how many adds, updates and deletes a handler received, and the tombstones. */
function counter() {
  const counts = new Map<string, { add: number; update: number; delete: number }>();
  const tombstones: Array<DeletedFinalStateUnknown<ConfigMap>> = [];
  const bump = (name: string | undefined, kind: 'add' | 'update' | 'delete') => {
    const c = counts.get(name!) ?? { add: 0, update: 0, delete: 0 };
    c[kind]++;
    counts.set(name!, c);
  };
  return {
    counts,
    tombstones,
    handler: {
      onAdd: (obj: DeepReadonly<ConfigMap>) => bump(obj.metadata.name, 'add'),
      onUpdate: (_old: DeepReadonly<ConfigMap>, obj: DeepReadonly<ConfigMap>) => bump(obj.metadata.name, 'update'),
      onDelete: (obj: DeepReadonly<ConfigMap> | DeletedFinalStateUnknown<ConfigMap>) => {
        if (obj instanceof DeletedFinalStateUnknown) tombstones.push(obj);
        bump(obj instanceof DeletedFinalStateUnknown ? obj.obj.metadata.name : obj.metadata.name, 'delete');
      },
    },
    of: (name: string) => counts.get(name) ?? { add: 0, update: 0, delete: 0 },
  };
}

function cacheState(informer: SharedInformer<ConfigMap>): Map<string, string> {
  return new Map(informer.store.list().map((o) => [o.metadata.name!, o.metadata.resourceVersion!]));
}

/** Waits until the informer's cache holds exactly what the server holds. */
async function converged(informer: SharedInformer<ConfigMap>, cp: ControlPlane, what: string): Promise<void> {
  const client = api(cp);
  let server = await client.state();
  const deadline = Date.now() + 10_000;
  for (;;) {
    const mine = cacheState(informer);
    if (mine.size === server.size && [...server].every(([k, v]) => mine.get(k) === v)) return;
    if (Date.now() > deadline) assert.deepEqual(Object.fromEntries(mine), Object.fromEntries(server), `cache converged ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
    server = await client.state();
  }
}

async function startInformer(lw: ListWatch<ConfigMap>) {
  const informer = new SharedInformer<ConfigMap>(lw, { namespace: 'default' });
  const abort = new AbortController();
  const events = counter();
  informer.addEventHandler(events.handler);
  const running = informer.run(abort.signal);
  assert.equal(await informer.waitForCacheSync(AbortSignal.timeout(10_000)), true);
  return { informer, events, stop: () => (abort.abort(), running) };
}

test('syncs from the server and sees creates, updates and deletes', async () => {
  await using cp = await startControlPlane();
  const client = api(cp);
  await client.create('a');
  await client.create('b');
  const { informer, events, stop } = await startInformer(fetchListWatch<ConfigMap>(cp.url, configmaps));
  assert.deepEqual([...cacheState(informer).keys()].sort(), ['a', 'b']);
  await client.create('c');
  await client.update('a', '1');
  await client.remove('b');
  await converged(informer, cp, 'after live changes');
  assert.deepEqual(events.of('a'), { add: 1, update: 1, delete: 0 });
  assert.deepEqual(events.of('b'), { add: 1, update: 0, delete: 1 });
  assert.deepEqual(events.of('c'), { add: 1, update: 0, delete: 0 });
  assert.equal(informer.lastSyncResourceVersion(), String(await cp.store.currentRevision()));
  await stop();
});

test('an API server restart mid-watch: the informer resumes, nothing missed or repeated', async () => {
  await using cp = await startControlPlane();
  const client = api(cp);
  for (let i = 0; i < 5; i++) await client.create(`o${i}`);
  const gate = gated(fetchListWatch<ConfigMap>(cp.url, configmaps));
  const { informer, events, stop } = await startInformer(gate.lw);
  await client.update('o0', 'live');
  await until(() => events.of('o0').update === 1, 'the live update');
  gate.close();
  await cp.restart(); // ends the open watch; the informer's next one waits at the gate
  await client.update('o1', 'while-down');
  await client.create('o5');
  await client.remove('o2');
  gate.open();
  await client.update('o3', 'after');
  await client.create('o6');
  await converged(informer, cp, 'after the restart');
  const expected: Record<string, { add: number; update: number; delete: number }> = {
    o0: { add: 1, update: 1, delete: 0 },
    o1: { add: 1, update: 1, delete: 0 },
    o2: { add: 1, update: 0, delete: 1 },
    o3: { add: 1, update: 1, delete: 0 },
    o4: { add: 1, update: 0, delete: 0 },
    o5: { add: 1, update: 0, delete: 0 },
    o6: { add: 1, update: 0, delete: 0 },
  };
  assert.deepEqual(Object.fromEntries(events.counts), expected);
  assert.equal(events.tombstones.length, 0, 'a resumed watch sees the deletion itself');
  assert.equal(gate.counts.lists, 1, 'resumed, not relisted');
  assert.ok(gate.counts.watches >= 2, `watches: ${gate.counts.watches}`);
  await stop();
});

test('history compacted while the watch was down: the informer relists and the deletions arrive as deletes', async () => {
  await using cp = await startControlPlane();
  const client = api(cp);
  const created = new Map<string, string>();
  for (const name of ['a', 'b', 'c', 'd', 'e']) created.set(name, (await client.create(name)).metadata.resourceVersion!);
  const gate = gated(fetchListWatch<ConfigMap>(cp.url, configmaps));
  const { informer, events, stop } = await startInformer(gate.lw);
  gate.close();
  await cp.restart(); // the watch is down
  await client.remove('b');
  await client.remove('c');
  await client.update('d', 'changed');
  await client.create('f');
  await cp.store.compact(await cp.store.currentRevision());
  await cp.restart(); // a fresh watch cache: the informer's resourceVersion can only come from the compacted store
  gate.open();
  await converged(informer, cp, 'after the relist');
  assert.equal(gate.counts.lists, 2, 'relisted once');
  assert.deepEqual(
    events.tombstones.map((t) => [t.key, t.obj.metadata.resourceVersion]).sort(),
    [
      ['default/b', created.get('b')],
      ['default/c', created.get('c')],
    ],
  );
  assert.deepEqual(events.of('d'), { add: 1, update: 1, delete: 0 });
  assert.deepEqual(events.of('f'), { add: 1, update: 0, delete: 0 });
  assert.deepEqual(events.of('a'), { add: 1, update: 0, delete: 0 });
  const health = informer.health();
  assert.equal((health.lastError as { code?: number }).code, 410);
  assert.ok(health.restarts >= 1);
  await stop();
});

test('beside @kubernetes/client-node makeInformer: both caches end with the same names and resourceVersions', async () => {
  await using cp = await startControlPlane();
  const client = api(cp);
  for (let i = 0; i < 5; i++) await client.create(`pre${i}`);
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'c', server: cp.url, skipTLSVerify: true }],
    users: [{ name: 'u' }],
    contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
    currentContext: 'x',
  });
  const core = kc.makeApiClient(CoreV1Api);
  const theirs = makeInformer<V1ConfigMap>(kc, '/api/v1/namespaces/default/configmaps', () => core.listNamespacedConfigMap({ namespace: 'default' }));
  const errors: unknown[] = [];
  theirs.on('error', (err) => errors.push(err));
  await theirs.start();
  const { informer, stop } = await startInformer(fetchListWatch<ConfigMap>(cp.url, configmaps));
  try {
    for (let i = 0; i < 20; i++) await client.create(`c${i}`);
    for (let i = 0; i < 10; i++) await client.update(`c${i}`, 'one');
    for (let i = 0; i < 5; i++) await client.update(`c${i}`, 'two');
    for (let i = 15; i < 20; i++) await client.remove(`c${i}`);
    await client.remove('pre0');
    for (let i = 0; i < 3; i++) await client.create(`d${i}`);
    await converged(informer, cp, 'ours');
    const server = await client.state();
    const theirState = () => new Map(theirs.list('default').map((o: KubeObject | V1ConfigMap) => [o.metadata!.name!, o.metadata!.resourceVersion!]));
    await until(() => {
      const t = theirState();
      return t.size === server.size && [...server].every(([k, v]) => t.get(k) === v);
    }, 'client-node to converge', 10_000);
    assert.deepEqual(Object.fromEntries(cacheState(informer)), Object.fromEntries(theirState()));
    assert.equal(cacheState(informer).size, 5 - 1 + 20 - 5 + 3);
    assert.deepEqual(errors, []);
  } finally {
    await theirs.stop();
    await stop();
  }
});
