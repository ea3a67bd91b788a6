import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock, recordingLogger } from '@setpoint/api';
import type { ResourceRef } from '../types.js';
import { SharedInformerFactory, type InformerSelectors, type SharedInformerFactoryOptions } from './factory.js';
import { cm, FakeListWatch, until } from './fake-listwatch.test.js';

// Tests that wait have a deadline ({ timeout }), so one that would hang fails instead.

const configmaps: ResourceRef = { group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap', namespaced: true };
const nodes: ResourceRef = { group: '', version: 'v1', resource: 'nodes', kind: 'Node', namespaced: false };

function factory(options: Omit<SharedInformerFactoryOptions, 'clock'> = {}) {
  const made: Array<{ ref: ResourceRef; selectors: InformerSelectors; lw: FakeListWatch }> = [];
  const clock = new FakeClock();
  const f = new SharedInformerFactory(
    (ref, selectors) => {
      const lw = new FakeListWatch();
      lw.objects = [cm(`${ref.resource}-1`, 1)];
      made.push({ ref, selectors, lw });
      return lw;
    },
    { clock, ...options },
  );
  return { f, made, clock };
}

test('one informer per resource, namespace and selectors', () => {
  const { f, made } = factory({ namespace: 'team' });
  const a = f.forResource(configmaps);
  assert.equal(f.forResource(configmaps), a);
  assert.equal(f.forResource(configmaps, { namespace: 'team' }), a, 'the factory namespace is the default');
  assert.notEqual(f.forResource(configmaps, { namespace: 'other' }), a);
  assert.notEqual(f.forResource(configmaps, { labelSelector: 'app=x' }), a);
  assert.notEqual(f.forResource(configmaps, { fieldSelector: 'metadata.name=x' }), a);
  assert.equal(f.forResource(nodes, { namespace: 'ignored' }), f.forResource(nodes), 'cluster-scoped kinds have no namespace');
  assert.equal(made.length, 5);
  assert.deepEqual(made[0]!.selectors, { namespace: 'team', labelSelector: '', fieldSelector: '' });
  assert.equal(made.at(-1)!.selectors.namespace, '');
  assert.equal(f.informers().length, 5);
  assert.ok(f.informers().includes(a));
});

test('start runs every informer, and ones asked for later; waitForCacheSync waits for all of them', { timeout: 15_000 }, async () => {
  const { f, made } = factory();
  const cms = f.forResource(configmaps);
  const abort = new AbortController();
  f.start(abort.signal);
  const later = f.forResource(nodes);
  assert.equal(await f.waitForCacheSync(abort.signal), true);
  assert.equal(cms.hasSynced() && later.hasSynced(), true);
  assert.deepEqual(later.store.listKeys(), ['default/nodes-1']);
  f.start(abort.signal); // a second start does not start anything twice
  await made[0]!.lw.watchNumber(0);
  assert.equal(made[0]!.lw.lists.length, 1);
  abort.abort();
  await f.stopped();
  assert.equal(cms.isRunning() || later.isRunning(), false);
});

const deployments: ResourceRef = { group: 'apps', version: 'v1', resource: 'deployments', kind: 'Deployment', namespaced: true };

test('each informer is named by resource (and group) and logs with its name and namespace; the shared options reach it', { timeout: 15_000 }, async () => {
  const logger = recordingLogger();
  const bindings: object[] = [];
  const counted: string[] = [];
  const { f, made } = factory({
    logger: { ...logger, child: (b: object) => (bindings.push(b), logger) },
    metrics: { informerError: (informer, stage) => void counted.push(`${informer}/${stage}`) },
    namespace: 'team',
  });
  f.forResource(configmaps);
  f.forResource(deployments, { namespace: 'web' });
  f.forResource(nodes);
  assert.deepEqual(bindings, [
    { informer: 'configmaps', namespace: 'team' },
    { informer: 'deployments.apps', namespace: 'web' },
    { informer: 'nodes', namespace: '' },
  ]);
  assert.deepEqual(made[1]!.selectors, { namespace: 'web', labelSelector: '', fieldSelector: '' });
  for (const { lw } of made) lw.objects.push({ apiVersion: 'v1', kind: 'X', metadata: { name: '' } });
  const abort = new AbortController();
  f.start(abort.signal);
  assert.equal(await f.waitForCacheSync(abort.signal), true);
  assert.deepEqual(counted.sort(), ['configmaps/key', 'deployments.apps/key', 'nodes/key']);
  abort.abort();
  await f.stopped();
});

test('the selectors reach the ListWatch and the watch; informers asked for after the start signal aborted are not started', { timeout: 15_000 }, async () => {
  const { f, made } = factory();
  const abort = new AbortController();
  f.start(abort.signal);
  const selected = f.forResource(configmaps, { namespace: 'ns', labelSelector: 'app=x', fieldSelector: 'metadata.name=y' });
  assert.deepEqual(made[0]!.selectors, { namespace: 'ns', labelSelector: 'app=x', fieldSelector: 'metadata.name=y' });
  await f.waitForCacheSync(abort.signal);
  const watch = await made[0]!.lw.watchNumber(0);
  assert.deepEqual([made[0]!.lw.lists[0]!.labelSelector, watch.options.fieldSelector], ['app=x', 'metadata.name=y']);
  abort.abort();
  await f.stopped();
  assert.equal(selected.isRunning(), false);
  const late = f.forResource(nodes);
  assert.equal(await f.waitForCacheSync(), true, 'only started informers are waited for');
  assert.equal(late.isRunning(), false);
  assert.equal(made[1]!.lw.lists.length, 0, 'it never listed');
  await f.stopped();
});

test('waitForCacheSync is false when its signal aborts before every informer synced; nothing started: true at once', { timeout: 15_000 }, async () => {
  const { f, made } = factory();
  assert.equal(await f.waitForCacheSync(), true);
  f.forResource(configmaps);
  assert.equal(made[0]!.selectors.namespace, '', 'no namespace given: all of them');
  made[0]!.lw.listErrors.push(new Error('down'));
  const abort = new AbortController();
  f.start(abort.signal);
  const synced = f.forResource(nodes);
  await until(() => synced.hasSynced(), 'the nodes informer to sync');
  const waiting = new AbortController();
  const result = f.waitForCacheSync(waiting.signal);
  waiting.abort();
  assert.equal(await result, false);
  abort.abort();
  await f.stopped();
});

test('the informers run on the factory’s clock (resyncs, backoff)', { timeout: 15_000 }, async () => {
  const { f, clock } = factory({ resyncPeriodMs: 60_000 });
  const informer = f.forResource(configmaps);
  const resyncs: string[] = [];
  informer.addEventHandler({ onUpdate: (_o, n) => void resyncs.push(n.metadata.name ?? '') });
  const abort = new AbortController();
  f.start(abort.signal);
  assert.equal(await f.waitForCacheSync(abort.signal), true);
  await clock.advance(60_000);
  assert.deepEqual(resyncs, ['configmaps-1']);
  abort.abort();
  await f.stopped();
});

test('an informer whose run fails is logged; stopped() still resolves', { timeout: 15_000 }, async () => {
  const logger = recordingLogger();
  const broken = new FakeListWatch();
  broken.list = async () => null as never; // a ListWatch that breaks its contract
  const f = new SharedInformerFactory(() => broken, { clock: new FakeClock(), logger });
  const informer = f.forResource(configmaps);
  const abort = new AbortController();
  f.start(abort.signal);
  assert.equal(await f.waitForCacheSync(abort.signal), false, 'it stopped unsynced');
  await f.stopped();
  const line = logger.lines.find((l) => l.message === 'informer stopped with an error');
  assert.equal(line?.level, 'error');
  assert.ok((line?.fields as { err?: unknown }).err instanceof TypeError);
  assert.equal(informer.isRunning(), false);
  abort.abort();
});
