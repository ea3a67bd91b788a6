import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError, FakeClock, recordingLogger, type Logger } from '@setpoint/api';
import { DeletedFinalStateUnknown, MIN_RESYNC_PERIOD_MS, deletedObject, type InformerErrorStage, type ResourceEventHandler } from './handlers.js';
import { SharedInformer, type SharedInformerOptions } from './informer.js';
import { Listener } from './handlers.js';
import type { DeepReadonly } from './store.js';
import { cm, FakeListWatch, until, type ConfigMap } from './fake-listwatch.test.js';

// Tests that wait have a deadline ({ timeout }), so one that would hang fails instead.

type Obj = DeepReadonly<ConfigMap>;
const id = (o: Obj) => `${o.metadata.name}@${o.metadata.resourceVersion}`;

/** A handler that writes what it receives as lines. */
function recorder(log: string[] = []): ResourceEventHandler<ConfigMap> & { log: string[] } {
  return {
    log,
    onAdd: (obj, initial) => log.push(`add ${id(obj)}${initial ? ' initial' : ''}`),
    onUpdate: (oldObj, newObj) => log.push(`update ${id(oldObj)} -> ${id(newObj)}`),
    onDelete: (obj) => log.push(obj instanceof DeletedFinalStateUnknown ? `delete? ${obj.key} last ${id(obj.obj)}` : `delete ${id(obj)}`),
  };
}

function setup(lw: FakeListWatch, options: SharedInformerOptions<ConfigMap> & { logger?: Logger } = {}) {
  const clock = new FakeClock();
  const informer = new SharedInformer<ConfigMap>(lw, { clock, random: () => 0, ...options });
  const abort = new AbortController();
  let running: Promise<void> | undefined;
  return {
    clock,
    informer,
    abort,
    run: () => (running = informer.run(abort.signal)),
    stop: async () => {
      abort.abort();
      await running;
    },
  };
}

test('syncs the listing, then delivers adds, updates (old, new) and deletes from the watch', { timeout: 15_000 }, async () => {
  const lw = new FakeListWatch();
  lw.objects = [cm('a', 1), cm('b', 2)];
  lw.resourceVersion = '5';
  const s = setup(lw);
  const h = recorder();
  const registration = s.informer.addEventHandler(h);
  assert.equal(s.informer.hasSynced(), false);
  assert.equal(registration.hasSynced(), false);
  assert.equal(s.informer.isRunning(), false);
  assert.equal(s.informer.health().state, 'idle');
  s.run();
  assert.equal(await s.informer.waitForCacheSync(), true);
  assert.equal(registration.hasSynced(), true);
  assert.equal(await s.informer.waitForCacheSync(), true, 'once synced, at once');
  assert.equal(s.informer.lastSyncResourceVersion(), '5');
  const watch = await lw.watchNumber(0);
  watch.send('ADDED', cm('c', 6)).send('MODIFIED', cm('a', 7)).send('DELETED', cm('b', 8)).bookmark(12);
  await until(() => s.informer.lastSyncResourceVersion() === '12', 'the bookmark');
  assert.deepEqual(h.log, ['add a@1 initial', 'add b@2 initial', 'add c@6', 'update a@1 -> a@7', 'delete b@8']);
  assert.deepEqual(s.informer.store.listKeys().sort(), ['default/a', 'default/c']);
  assert.deepEqual(s.informer.health(), { state: 'watching', lastError: undefined, lastErrorAt: undefined, restarts: 0, synced: true });
  await s.stop();
  assert.equal(s.informer.health().state, 'stopped');
  await assert.rejects(s.informer.run(new AbortController().signal), /already started/);
});

test('after a 410 the relist delivers vanished objects as DeletedFinalStateUnknown and changed ones as updates', { timeout: 15_000 }, async () => {
  const lw = new FakeListWatch();
  lw.objects = [cm('a', 1), cm('b', 2), cm('c', 3)];
  lw.resourceVersion = '3';
  const s = setup(lw);
  const h = recorder();
  s.informer.addEventHandler(h);
  const tombstones: unknown[] = [];
  s.informer.addEventHandler({ onDelete: (o) => void tombstones.push(o) });
  s.run();
  await s.informer.waitForCacheSync();
  const watch = await lw.watchNumber(0);
  watch.send('MODIFIED', cm('c', 4));
  await until(() => h.log.length === 4, 'the update');
  // While the watch is down: b is deleted, a changes, d appears, and history is compacted.
  lw.objects = [cm('a', 9), cm('c', 4), cm('d', 10)];
  lw.resourceVersion = '11';
  watch.fail(ApiError.expired('too old resource version: 4 (11)'));
  await until(() => s.clock.nextDue() !== undefined, 'the backoff');
  await s.clock.set(s.clock.nextDue()!);
  await lw.watchNumber(1);
  assert.deepEqual(h.log.slice(4), ['update a@1 -> a@9', 'add d@10', 'delete? default/b last b@2']);
  assert.ok(tombstones.length === 1 && Object.isFrozen(tombstones[0]), 'a DeletedFinalStateUnknown is frozen');
  const health = s.informer.health();
  assert.equal(health.restarts, 1);
  assert.equal((health.lastError as ApiError).code, 410);
  assert.equal(lw.watches[1]!.options.resourceVersion, '11');
  await s.stop();
});

test('periodic resync re-delivers every cached object as onUpdate(obj, obj) on each handler’s own period', { timeout: 15_000 }, async () => {
  const lw = new FakeListWatch();
  lw.objects = [cm('a', 1), cm('b', 2)];
  const s = setup(lw, { resyncPeriodMs: 30_000 });
  const byDefault = recorder();
  const fast = recorder();
  const never = recorder();
  s.informer.addEventHandler(byDefault);
  s.informer.addEventHandler(fast, { resyncPeriodMs: 10_000 });
  const reg = s.informer.addEventHandler(never, { resyncPeriodMs: 0 });
  assert.equal(reg.resyncPeriodMs, 0);
  s.run();
  await s.informer.waitForCacheSync();
  await s.clock.advance(30_000);
  const resyncs = (h: { log: string[] }) => h.log.filter((l) => l === 'update a@1 -> a@1').length;
  assert.equal(resyncs(byDefault), 1);
  assert.equal(resyncs(fast), 3);
  assert.equal(resyncs(never), 0);
  assert.ok(byDefault.log.includes('update b@2 -> b@2'));
  // A handler added later resyncs on its own schedule, counted from when it was added.
  const late = recorder();
  s.informer.addEventHandler(late, { resyncPeriodMs: 20_000 });
  await s.clock.advance(20_000);
  assert.equal(resyncs(late), 1);
  assert.equal(resyncs(fast), 5);
  await s.stop();
  assert.equal(s.clock.pending(), 0, 'resync timers stop with run()');
});

test('indexers added before start serve byIndex; adding one after start throws', { timeout: 15_000 }, async () => {
  const lw = new FakeListWatch();
  lw.objects = [cm('a', 1, { spec: { nodeName: 'n1' } }), cm('b', 2, { spec: { nodeName: 'n2' } }, 'other'), cm('c', 3, { spec: { nodeName: 'n1' } })];
  const s = setup(lw);
  s.informer.addIndexers({ byNode: (obj) => [obj.spec?.nodeName] });
  s.run();
  await s.informer.waitForCacheSync();
  assert.deepEqual(s.informer.store.byIndex('byNode', 'n1').map((o) => o.metadata.name).sort(), ['a', 'c']);
  assert.deepEqual(s.informer.store.byIndex('namespace', 'other').map((o) => o.metadata.name), ['b']);
  (await lw.watchNumber(0)).send('MODIFIED', cm('c', 4, { spec: { nodeName: 'n2' } }));
  await until(() => s.informer.store.indexKeys('byNode', 'n2').length === 2, 'the index to follow');
  assert.throws(() => s.informer.addIndexers({ late: () => [] }), /before the informer starts/);
  await s.stop();
});

test('objects handed to handlers and held by the store are frozen: mutation throws', { timeout: 15_000 }, async () => {
  const lw = new FakeListWatch();
  lw.objects = [cm('a', 1, { data: { k: 'v' } })];
  const s = setup(lw);
  const seen: Obj[] = [];
  s.informer.addEventHandler({ onAdd: (obj) => seen.push(obj), onUpdate: (_o, obj) => seen.push(obj), onDelete: (obj) => seen.push(obj as Obj) });
  s.run();
  await s.informer.waitForCacheSync();
  (await lw.watchNumber(0)).send('MODIFIED', cm('a', 2, { data: { k: 'w' } })).send('DELETED', cm('a', 3, { data: { k: 'w' } }));
  await until(() => seen.length === 3, 'three events');
  for (const obj of [...seen, ...s.informer.store.list()]) {
    assert.ok(Object.isFrozen(obj) && Object.isFrozen(obj.metadata) && Object.isFrozen(obj.data));
    assert.throws(() => {
      (obj as ConfigMap).metadata.name = 'changed';
    }, TypeError);
    assert.throws(() => {
      (obj as ConfigMap).data!['k'] = 'changed';
    }, TypeError);
  }
  await s.stop();
});

test('a handler added after sync gets synthetic adds for the cache, before addEventHandler returns', { timeout: 15_000 }, async () => {
  const lw = new FakeListWatch();
  lw.objects = [cm('a', 1), cm('b', 2)];
  const s = setup(lw);
  s.run();
  await s.informer.waitForCacheSync();
  const late = recorder();
  const registration = s.informer.addEventHandler(late);
  assert.deepEqual(late.log.sort(), ['add a@1 initial', 'add b@2 initial']);
  assert.equal(registration.hasSynced(), true);
  (await lw.watchNumber(0)).send('ADDED', cm('c', 3));
  await until(() => late.log.length === 3, 'the live add');
  assert.equal(late.log[2], 'add c@3');
  registration.remove();
  lw.watches[0]!.send('ADDED', cm('d', 4));
  await until(() => s.informer.store.get('default/d') !== undefined, 'd cached');
  assert.equal(late.log.length, 3, 'a removed handler hears nothing');
  await s.stop();
});

test('a handler that throws is logged and does not stop the handlers after it', { timeout: 15_000 }, async () => {
  const lw = new FakeListWatch();
  lw.objects = [cm('a', 1)];
  const logger = recordingLogger();
  const s = setup(lw, { logger });
  s.informer.addEventHandler({
    onAdd: () => {
      throw new Error('boom');
    },
    onUpdate: async () => {
      throw new Error('async boom');
    },
  });
  const second = recorder();
  s.informer.addEventHandler(second);
  s.run();
  await s.informer.waitForCacheSync();
  (await lw.watchNumber(0)).send('MODIFIED', cm('a', 2)).send('ADDED', cm('b', 3));
  await until(() => second.log.length === 3, 'the second handler to hear everything');
  assert.deepEqual(second.log, ['add a@1 initial', 'update a@1 -> a@2', 'add b@3']);
  await until(() => logger.lines.filter((l) => l.message === 'event handler failed').length === 3, 'three logged failures');
  const failures = logger.lines.filter((l) => l.message === 'event handler failed');
  assert.deepEqual(
    failures.map((l) => (l.fields as { err: Error }).err.message),
    ['boom', 'async boom', 'boom'],
  );
  assert.equal(s.informer.health().state, 'watching');
  await s.stop();
});

test('waitForCacheSync resolves false when its signal aborts first', { timeout: 15_000 }, async () => {
  const lw = new FakeListWatch();
  lw.listErrors.push(new Error('down'));
  const s = setup(lw);
  s.run();
  const waiting = new AbortController();
  const result = s.informer.waitForCacheSync(waiting.signal);
  waiting.abort();
  assert.equal(await result, false);
  await until(() => s.informer.health().state === 'backoff', 'backoff');
  assert.equal(s.informer.health().synced, false);
  const synced = s.informer.waitForCacheSync();
  await s.clock.set(s.clock.nextDue()!);
  assert.equal(await synced, true);
  await s.stop();
});

/** Counts informerError calls as "informer/stage". */
function countingMetrics(): { informerError(informer: string, stage: InformerErrorStage): void; counts: Record<string, number> } {
  const counts: Record<string, number> = {};
  return {
    counts,
    informerError: (informer, stage) => {
      counts[`${informer}/${stage}`] = (counts[`${informer}/${stage}`] ?? 0) + 1;
    },
  };
}

const raw = (metadata: unknown): ConfigMap => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata }) as unknown as ConfigMap;

test('objects without a usable key (listed, applied or deleted) are logged, counted and never cached or delivered', { timeout: 15_000 }, async () => {
  const lw = new FakeListWatch();
  const unusable = [
    raw(null),
    raw(['a']),
    raw({ namespace: 'default', resourceVersion: '2' }),
    raw({ name: '', namespace: 'default' }),
    raw({ name: 7, namespace: 'default' }),
    raw({ name: 'n', namespace: 3 }),
    null as unknown as ConfigMap,
  ];
  lw.objects = [cm('a', 1), ...unusable, { apiVersion: 'v1', kind: 'Node', metadata: { name: 'cluster-scoped', resourceVersion: '1' } }];
  const logger = recordingLogger();
  const metrics = countingMetrics();
  const s = setup(lw, { logger, metrics, name: 'configmaps' });
  const h = recorder();
  s.informer.addEventHandler(h);
  s.run();
  await s.informer.waitForCacheSync();
  assert.deepEqual(s.informer.store.listKeys().sort(), ['cluster-scoped', 'default/a']);
  assert.equal(metrics.counts['configmaps/key'], unusable.length);
  const watch = await lw.watchNumber(0);
  watch.send('ADDED', raw({ name: {}, namespace: 'default', resourceVersion: '3' })).send('DELETED', raw({ namespace: 'default', resourceVersion: '4' }));
  watch.send('MODIFIED', cm('a', 5));
  await until(() => h.log.length === 3, 'the update after the unusable events');
  assert.deepEqual(h.log, ['add a@1 initial', 'add cluster-scoped@1 initial', 'update a@1 -> a@5']);
  assert.equal(metrics.counts['configmaps/key'], unusable.length + 2);
  const lines = logger.lines.filter((l) => /without a usable key/.test(l.message));
  assert.equal(lines.length, unusable.length + 2);
  assert.equal(lines[0]!.level, 'error');
  assert.deepEqual(lines.map((l) => l.fields), [
    { namespace: undefined, name: undefined },
    { namespace: undefined, name: undefined },
    { namespace: 'default', name: undefined },
    { namespace: 'default', name: '' },
    { namespace: 'default', name: 7 },
    { namespace: 3, name: 'n' },
    { namespace: undefined, name: undefined },
    { namespace: 'default', name: {} },
    { namespace: 'default', name: undefined },
  ]);
  await s.stop();
});

test('handler and index failures are logged and counted by informer and stage; a metrics sink that throws changes nothing', { timeout: 15_000 }, async () => {
  const lw = new FakeListWatch();
  lw.objects = [cm('a', 1), cm('bad-index', 2)];
  const logger = recordingLogger();
  const metrics = countingMetrics();
  const s = setup(lw, {
    logger,
    metrics,
    name: 'cms',
    indexers: {
      picky: (o) => {
        if (o.metadata.name === 'bad-index') throw new Error('index says no');
        return ['ok'];
      },
    },
  });
  s.informer.addEventHandler({
    onAdd: (o) => {
      if (o.metadata.name === 'a') throw new Error('handler says no');
    },
    onDelete: async () => {
      throw new Error('async no');
    },
  });
  s.run();
  await s.informer.waitForCacheSync();
  assert.deepEqual(s.informer.store.indexKeys('picky', 'ok'), ['default/a']);
  assert.deepEqual(s.informer.store.listKeys().sort(), ['default/a', 'default/bad-index'], 'the object is cached, only not indexed by the failing index');
  const indexLine = logger.lines.find((l) => /index function failed/.test(l.message));
  assert.deepEqual([indexLine?.level, (indexLine?.fields as { index?: string }).index, (indexLine?.fields as { key?: string }).key], ['error', 'picky', 'default/bad-index']);
  assert.equal(((indexLine?.fields as { err?: Error }).err as Error).message, 'index says no');
  (await lw.watchNumber(0)).send('DELETED', cm('bad-index', 3));
  await until(() => metrics.counts['cms/handler'] === 2, 'the async failure to be counted');
  const failed = logger.lines.filter((l) => l.message === 'event handler failed');
  assert.deepEqual(failed.map((l) => [l.level, (l.fields as { event: string }).event, (l.fields as { name: string }).name]), [
    ['error', 'add', 'a'],
    ['error', 'delete', 'bad-index'],
  ]);
  assert.deepEqual(metrics.counts, { 'cms/index': 2, 'cms/handler': 2 }, 'the listing and the delete each ran the index');
  await s.stop();

  const lw2 = new FakeListWatch();
  lw2.objects = [cm('a', 1), raw(null)];
  const broken = new SharedInformer<ConfigMap>(lw2, {
    clock: new FakeClock(),
    metrics: {
      informerError: () => {
        throw new Error('sink down');
      },
    },
  });
  broken.addEventHandler({
    onAdd: () => {
      throw new Error('no');
    },
  });
  const abort = new AbortController();
  const running = broken.run(abort.signal);
  assert.equal(await broken.waitForCacheSync(), true);
  assert.deepEqual(broken.store.listKeys(), ['default/a']);
  abort.abort();
  await running;
});

test('waitForCacheSync: false once run() ended unsynced or for an aborted signal; before run() it waits', { timeout: 15_000 }, async () => {
  const lw = new FakeListWatch();
  lw.listErrors.push(new Error('down'));
  const s = setup(lw);
  const aborted = new AbortController();
  aborted.abort();
  assert.equal(await s.informer.waitForCacheSync(aborted.signal), false);
  let early: boolean | undefined;
  void s.informer.waitForCacheSync().then((v) => (early = v));
  await new Promise((r) => setImmediate(r));
  assert.equal(early, undefined, 'before run() a wait waits');
  s.run();
  await until(() => s.informer.health().state === 'backoff', 'backoff');
  await s.stop();
  await until(() => early !== undefined, 'the early waiter to wake');
  assert.equal(early, false);
  assert.equal(await s.informer.waitForCacheSync(), false, 'run() ended unsynced');
  assert.equal(s.informer.isRunning(), false);
});

test('a waiter whose signal aborted is not woken again by the sync', { timeout: 15_000 }, async () => {
  const lw = new FakeListWatch();
  lw.objects = [cm('a', 1)];
  const s = setup(lw);
  const signal = new AbortController();
  const results: boolean[] = [];
  void s.informer.waitForCacheSync(signal.signal).then((v) => results.push(v));
  signal.abort();
  await new Promise((r) => setImmediate(r));
  s.run();
  assert.equal(await s.informer.waitForCacheSync(), true);
  assert.deepEqual(results, [false]);
  await s.stop();
});

test('a handler added while the first listing is delivered gets the whole cache, once', { timeout: 15_000 }, async () => {
  const lw = new FakeListWatch();
  lw.objects = [cm('a', 1), cm('b', 2), cm('c', 3)];
  const s = setup(lw);
  const late = recorder();
  let registration: ReturnType<typeof s.informer.addEventHandler> | undefined;
  s.informer.addEventHandler({
    onAdd: () => {
      registration ??= s.informer.addEventHandler(late);
    },
  });
  s.run();
  await s.informer.waitForCacheSync();
  assert.deepEqual(late.log.sort(), ['add a@1 initial', 'add b@2 initial', 'add c@3 initial']);
  assert.equal(registration?.hasSynced(), true);
  await s.stop();
});

test('resync periods: below the minimum are raised to it, 0 or less is none; a removed handler’s timer stops; none after run() ends', { timeout: 15_000 }, async () => {
  const lw = new FakeListWatch();
  lw.objects = [cm('a', 1)];
  const s = setup(lw);
  const fast = recorder();
  const fastReg = s.informer.addEventHandler(fast, { resyncPeriodMs: 10 });
  assert.equal(fastReg.resyncPeriodMs, MIN_RESYNC_PERIOD_MS);
  assert.equal(s.informer.addEventHandler(recorder(), { resyncPeriodMs: -5 }).resyncPeriodMs, 0);
  assert.equal(s.informer.addEventHandler(recorder()).resyncPeriodMs, 0, 'the informer default is none');
  s.run();
  await s.informer.waitForCacheSync();
  await s.clock.advance(MIN_RESYNC_PERIOD_MS - 1);
  assert.equal(fast.log.length, 1);
  await s.clock.advance(1);
  assert.deepEqual(fast.log, ['add a@1 initial', 'update a@1 -> a@1']);
  assert.equal(s.clock.pending(), 1, 'only the fast handler has a timer');
  const slow = recorder();
  const slowReg = s.informer.addEventHandler(slow, { resyncPeriodMs: 5000 });
  assert.equal(s.clock.pending(), 2);
  fastReg.remove();
  assert.equal(s.clock.pending(), 1, 'removing a handler stops its timer');
  fastReg.remove();
  await s.clock.advance(5000);
  assert.equal(fast.log.length, 2, 'a removed handler is not resynced');
  assert.deepEqual(slow.log, ['add a@1 initial', 'update a@1 -> a@1']);
  slowReg.remove();
  await s.stop();
  const after = recorder();
  const afterReg = s.informer.addEventHandler(after, { resyncPeriodMs: 1000 });
  assert.deepEqual(after.log, ['add a@1 initial'], 'a handler added after run() still gets the cache');
  assert.equal(afterReg.hasSynced(), true);
  assert.equal(s.clock.pending(), 0, 'but no resync timer: the informer is not running');
});

test('a listing that fails part-way is dropped: the cache holds only the next complete listing', { timeout: 15_000 }, async () => {
  const lw = new FakeListWatch();
  lw.objects = [cm('a', 1), cm('b', 2)];
  lw.listErrors.push(undefined, new Error('page 2 failed'));
  const s = setup(lw, { pageSize: 1 });
  const h = recorder();
  s.informer.addEventHandler(h);
  s.run();
  await until(() => s.clock.nextDue() !== undefined, 'the backoff after the failed page');
  lw.objects = [cm('b', 2), cm('c', 3)];
  await s.clock.set(s.clock.nextDue()!);
  assert.equal(await s.informer.waitForCacheSync(), true);
  assert.deepEqual(s.informer.store.listKeys().sort(), ['default/b', 'default/c']);
  assert.deepEqual(h.log.sort(), ['add b@2 initial', 'add c@3 initial']);
  await s.stop();
});

test('deletes update the cache’s resourceVersion and indices; a handler returning a non-promise "then" is fine', { timeout: 15_000 }, async () => {
  const lw = new FakeListWatch();
  lw.objects = [cm('a', 1), cm('b', 2)];
  const logger = recordingLogger();
  const s = setup(lw, { logger });
  s.informer.addEventHandler({ onAdd: () => ({ then: 'not a function' }) as unknown as void });
  const deleted: string[] = [];
  s.informer.addEventHandler({ onDelete: (o) => deleted.push(`${deletedObject(o).metadata.name} ${o instanceof DeletedFinalStateUnknown}`) });
  s.run();
  await s.informer.waitForCacheSync();
  (await lw.watchNumber(0)).send('DELETED', cm('a', 9));
  await until(() => deleted.length === 1, 'the delete');
  assert.deepEqual(deleted, ['a false']);
  assert.ok(Object.isFrozen(s.informer.store.byIndex('namespace', 'default')[0]));
  assert.deepEqual(s.informer.store.indexKeys('namespace', 'default'), ['default/b']);
  assert.equal((s.informer.store as unknown as { resourceVersion: string }).resourceVersion, '9');
  assert.equal(logger.lines.filter((l) => l.message === 'event handler failed').length, 0);
  await s.stop();
});

test('a Listener logs a failed delivery with the event and the object’s namespace/name (none when metadata is not an object); only promises are awaited', async () => {
  const logger = recordingLogger();
  let errors = 0;
  const returns: unknown[] = [undefined, null, 5, { then: 'not a function' }];
  const listener = new Listener<ConfigMap>(
    {
      onAdd: (o) => {
        if (o.metadata === null || typeof o.metadata !== 'object') throw new Error('bad metadata');
        return returns.shift() as void;
      },
      onUpdate: async () => Promise.reject(new Error('async update')),
      onDelete: () => {
        throw new Error('delete');
      },
    },
    0,
    { clock: new FakeClock(), logger, onError: () => errors++, list: () => [] },
  );
  for (let i = 0; i < 4; i++) listener.add(cm('fine', i) as Obj, false);
  assert.equal(logger.lines.length, 0, 'undefined, null, a number and a non-callable then are plain results');
  listener.add(raw(null) as Obj, false);
  listener.add(raw('a string') as Obj, false);
  listener.add(raw(undefined) as Obj, false);
  listener.update(cm('u', 1) as Obj, cm('u', 2) as Obj);
  listener.delete(new DeletedFinalStateUnknown<ConfigMap>('ns/t', cm('t', 3, {}, 'ns') as Obj));
  await until(() => logger.lines.length === 5, 'the async failure');
  assert.deepEqual(
    logger.lines.map((l) => [l.level, l.message, (l.fields as { event: string }).event, (l.fields as { namespace?: string }).namespace, (l.fields as { name?: string }).name]),
    [
      ['error', 'event handler failed', 'add', undefined, undefined],
      ['error', 'event handler failed', 'add', undefined, undefined],
      ['error', 'event handler failed', 'add', undefined, undefined],
      ['error', 'event handler failed', 'delete', 'ns', 't'],
      ['error', 'event handler failed', 'update', 'default', 'u'],
    ],
  );
  assert.equal(errors, 5);
  // A handler without a callback for an event is simply not called.
  const partial = new Listener<ConfigMap>({}, 0, { clock: new FakeClock(), logger, list: () => [] });
  partial.add(cm('p', 1) as Obj, false);
  partial.update(cm('p', 1) as Obj, cm('p', 2) as Obj);
  partial.delete(cm('p', 3) as Obj);
  await new Promise((r) => setImmediate(r));
  assert.equal(logger.lines.length, 5, 'nothing failed');
});

test('a handler removed while an event is being delivered misses it; the others keep receiving', async () => {
  const lw = new FakeListWatch();
  const s = setup(lw);
  const first = recorder();
  const second = recorder();
  const third = recorder();
  const toRemove: Array<{ remove(): void }> = [];
  s.informer.addEventHandler({ onAdd: (o) => (o.metadata.name === 'x' ? toRemove.forEach((r) => r.remove()) : undefined) });
  s.informer.addEventHandler(first);
  toRemove.push(s.informer.addEventHandler(second));
  s.informer.addEventHandler(third);
  s.run();
  await s.informer.waitForCacheSync();
  (await lw.watchNumber(0)).send('ADDED', cm('x', 2)).send('ADDED', cm('y', 3));
  await until(() => third.log.length === 2, 'both adds');
  assert.deepEqual(first.log, ['add x@2', 'add y@3']);
  assert.deepEqual(second.log, [], 'removed during the delivery of x, before its turn');
  assert.deepEqual(third.log, ['add x@2', 'add y@3']);
  await s.stop();
});

test('a handler that removes itself during its resync leaves no timer behind', async () => {
  const lw = new FakeListWatch();
  lw.objects = [cm('a', 1), cm('b', 2)];
  const s = setup(lw);
  let resyncs = 0;
  const reg = s.informer.addEventHandler(
    {
      onUpdate: () => {
        resyncs++;
        reg.remove();
      },
    },
    { resyncPeriodMs: 1000 },
  );
  s.run();
  await s.informer.waitForCacheSync();
  assert.equal(s.clock.pending(), 1);
  await s.clock.advance(1000);
  assert.equal(resyncs, 1, 'removed after the first object');
  assert.equal(s.clock.pending(), 0, 'and no next resync is scheduled');
  await s.stop();
});

test('a handler added while a relist is delivered gets each cached object once', async () => {
  const lw = new FakeListWatch();
  lw.objects = [cm('a', 1), cm('b', 2)];
  lw.resourceVersion = '2';
  const s = setup(lw);
  const late = recorder();
  let added = false;
  s.informer.addEventHandler({
    onUpdate: () => {
      if (!added) s.informer.addEventHandler(late);
      added = true;
    },
  });
  s.run();
  await s.informer.waitForCacheSync();
  const watch = await lw.watchNumber(0);
  lw.objects = [cm('a', 3), cm('b', 2)];
  lw.resourceVersion = '3';
  watch.fail(ApiError.expired('too old resource version: 2 (3)'));
  await until(() => s.clock.nextDue() !== undefined, 'the backoff');
  await s.clock.set(s.clock.nextDue()!);
  await lw.watchNumber(1);
  assert.deepEqual(late.log.sort(), ['add a@3 initial', 'add b@2 initial']);
  await s.stop();
});

test('health changes are logged at debug level; an informer without a name counts under ""', async () => {
  const lw = new FakeListWatch();
  lw.objects = [raw(null)];
  const logger = recordingLogger();
  const metrics = countingMetrics();
  const s = setup(lw, { logger, metrics });
  s.run();
  await s.informer.waitForCacheSync();
  await lw.watchNumber(0);
  await until(() => s.informer.health().state === 'watching', 'watching');
  const health = logger.lines.filter((l) => l.message === 'informer health');
  assert.ok(health.length >= 1);
  assert.ok(health.every((l) => l.level === 'debug'));
  assert.deepEqual(health.at(-1)!.fields, { health: 'watching', restarts: 0 });
  assert.deepEqual(metrics.counts, { '/key': 1 });
  await s.stop();
});
