import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError, FakeClock, type Logger } from '@setpoint/api';
import { DeletedFinalStateUnknown, type ResourceEventHandler } from './handlers.js';
import { SharedInformer, type SharedInformerOptions } from './informer.js';
import type { DeepReadonly } from './store.js';
import { cm, FakeListWatch, recordingLogger, until, type ConfigMap } from './fake-listwatch.test.js';

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

test('syncs the listing, then delivers adds, updates (old, new) and deletes from the watch', async () => {
  const lw = new FakeListWatch();
  lw.objects = [cm('a', 1), cm('b', 2)];
  lw.resourceVersion = '5';
  const s = setup(lw);
  const h = recorder();
  const registration = s.informer.addEventHandler(h);
  assert.equal(s.informer.hasSynced(), false);
  assert.equal(s.informer.health().state, 'idle');
  s.run();
  assert.equal(await s.informer.waitForCacheSync(), true);
  assert.equal(registration.hasSynced(), true);
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

test('after a 410 the relist delivers vanished objects as DeletedFinalStateUnknown and changed ones as updates', async () => {
  const lw = new FakeListWatch();
  lw.objects = [cm('a', 1), cm('b', 2), cm('c', 3)];
  lw.resourceVersion = '3';
  const s = setup(lw);
  const h = recorder();
  s.informer.addEventHandler(h);
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
  const health = s.informer.health();
  assert.equal(health.restarts, 1);
  assert.equal((health.lastError as ApiError).code, 410);
  assert.equal(lw.watches[1]!.options.resourceVersion, '11');
  await s.stop();
});

test('periodic resync re-delivers every cached object as onUpdate(obj, obj) on each handler’s own period', async () => {
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

test('indexers added before start serve byIndex; adding one after start throws', async () => {
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

test('objects handed to handlers and held by the store are frozen: mutation throws', async () => {
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

test('a handler added after sync gets synthetic adds for the cache, before addEventHandler returns', async () => {
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

test('a handler that throws is logged and does not stop the handlers after it', async () => {
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

test('waitForCacheSync resolves false when its signal aborts first', async () => {
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
