/**
 * An informer contains what one object can break: a handler that throws or rejects, an index
 * function that throws, an object without a usable key (metadata.name not a string, metadata not
 * an object). Each is logged with the object's namespace/name (or key), counted per informer and
 * stage, and the informer keeps listing, watching and delivering every other object.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FakeClock, recordingLogger } from '@setpoint/api';
import type { InformerErrorStage, InformerMetrics } from './handlers.js';
import { SharedInformer } from './informer.js';
import { cm, FakeListWatch, until, type ConfigMap } from './fake-listwatch.test.js';

class CountingMetrics implements InformerMetrics {
  readonly counts = new Map<string, number>();
  informerError(informer: string, stage: InformerErrorStage): void {
    const k = `${informer}/${stage}`;
    this.counts.set(k, (this.counts.get(k) ?? 0) + 1);
  }
}

test('a throwing handler, a throwing index function and objects without a usable key are logged, counted and skipped; the rest flows', async () => {
  const lw = new FakeListWatch();
  const malformedName = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: {}, namespace: 'default', resourceVersion: '2' } } as unknown as ConfigMap;
  const noMetadata = { apiVersion: 'v1', kind: 'ConfigMap', metadata: null } as unknown as ConfigMap;
  lw.objects = [cm('a', 1), malformedName, cm('bad-index', 3, { spec: { nodeName: {} as string } })];
  lw.resourceVersion = '5';
  const metrics = new CountingMetrics();
  const logger = recordingLogger();
  const informer = new SharedInformer<ConfigMap>(lw, {
    clock: new FakeClock(),
    random: () => 0,
    logger,
    metrics,
    name: 'configmaps',
    indexers: {
      byNode: (o) => {
        const node: unknown = o.spec?.nodeName;
        if (node !== undefined && typeof node !== 'string') throw new TypeError('node.toLowerCase is not a function');
        return [node];
      },
    },
  });
  const seen: string[] = [];
  informer.addEventHandler({
    onAdd: (o) => {
      if (o.metadata.name === 'boom') throw new TypeError('handler failed');
      seen.push(`add ${o.metadata.name}`);
    },
    onUpdate: async (_o, n) => {
      if (n.metadata.name === 'a') throw new RangeError('async handler failed');
      seen.push(`update ${n.metadata.name}`);
    },
  });
  const abort = new AbortController();
  const running = informer.run(abort.signal);
  try {
    assert.equal(await informer.waitForCacheSync(), true);
    assert.deepEqual(informer.store.listKeys().sort(), ['default/a', 'default/bad-index'], 'the object without a usable key is not cached');
    const watch = await lw.watchNumber(0);
    watch.send('ADDED', noMetadata).send('ADDED', cm('boom', 6)).send('MODIFIED', cm('a', 7)).send('ADDED', cm('c', 8, { spec: { nodeName: 'n1' } }));
    await until(() => seen.includes('add c'), 'the object after the failures');
    await until(() => (metrics.counts.get('configmaps/handler') ?? 0) === 2, 'the async handler failure to be counted');
    assert.deepEqual(seen, ['add a', 'add bad-index', 'add c']);
    assert.deepEqual(informer.store.byIndex('byNode', 'n1').map((o) => o.metadata.name), ['c']);
    assert.deepEqual(Object.fromEntries(metrics.counts), { 'configmaps/key': 2, 'configmaps/index': 1, 'configmaps/handler': 2 });
    const keyLine = logger.lines.find((l) => /usable key/.test(l.message));
    assert.equal((keyLine?.fields as { namespace?: string }).namespace, 'default');
    const handlerLine = logger.lines.find((l) => l.message === 'event handler failed');
    assert.equal((handlerLine?.fields as { name?: string }).name, 'boom');
    assert.equal(informer.isRunning(), true);
  } finally {
    abort.abort();
    await running;
  }
});
