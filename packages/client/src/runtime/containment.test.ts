/**
 * Failures are contained per key: a reconcile that throws (synchronously, by rejecting, a non-Error),
 * a predicate, a handler or map function that throws, or a handler that makes a request that is not
 * a pair of strings (the `spec.nodeName: {}` crash of issue 19) — each is logged with the key or the
 * object's namespace/name, counted, and (for reconciles) the key retried with its backoff on the
 * fake clock, while every other key keeps flowing.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FakeClock, recordingLogger, type KubeObject } from '@setpoint/api';
import { Client } from '../client/index.js';
import { Controller, type WatchedInformer } from './controller.js';
import { Manager } from './manager.js';
import { enqueueMapped, enqueueObject, enqueueOwner } from './handlers.js';
import { ControllerMetrics, isPanic } from './metrics.js';
import { predicate } from './predicates.js';
import type { ReconcileFn, Request } from './reconciler.js';

/** An informer whose sync the test controls; it calls the handler bare (no guard of its own). */
class ScriptedInformer implements WatchedInformer<KubeObject> {
  private handler: Parameters<WatchedInformer['addEventHandler']>[0] | undefined;
  readonly objects: KubeObject[] = [];
  readonly store = { list: () => this.objects };
  addEventHandler(handler: Parameters<WatchedInformer['addEventHandler']>[0]) {
    this.handler = handler;
    return { remove: () => (this.handler = undefined) };
  }
  hasSynced(): boolean {
    return true;
  }
  waitForCacheSync(): Promise<boolean> {
    return Promise.resolve(true);
  }
  add(obj: KubeObject): void {
    this.objects.push(obj);
    this.handler?.onAdd?.(obj, false);
  }
  update(oldObj: KubeObject, newObj: KubeObject): void {
    this.handler?.onUpdate?.(oldObj, newObj);
  }
  delete(obj: KubeObject): void {
    this.handler?.onDelete?.(obj);
  }
}

async function settle(turns = 20): Promise<void> {
  for (let i = 0; i < turns; i++) await new Promise((r) => setImmediate(r));
}

async function counter(metrics: ControllerMetrics, name: string, labels: Record<string, string>): Promise<number> {
  const metric = metrics.registry.getSingleMetric(name);
  assert.ok(metric, `metric ${name} is registered`);
  const { values } = await metric.get();
  return values.filter((v) => Object.entries(labels).every(([k, l]) => v.labels[k] === l)).reduce((sum, v) => sum + v.value, 0);
}

const obj = (name: string, extra: Partial<KubeObject> = {}): KubeObject => ({ ...extra, metadata: { name, namespace: 'ns', ...extra.metadata } });

function harness(reconcile: ReconcileFn, name = 'test') {
  const clock = new FakeClock();
  const metrics = new ControllerMetrics();
  const logger = recordingLogger();
  const controller = new Controller({ name, clock, metrics, logger, reconcile });
  const informer = new ScriptedInformer();
  const stop = new AbortController();
  return { clock, metrics, logger, controller, informer, stop };
}

describe('failures are contained per key', () => {
  for (const [what, fail] of [
    ['rejects with a TypeError', async () => Promise.reject(new TypeError("Cannot read properties of null (reading 'image')"))],
    ['throws synchronously', (() => {
      throw new TypeError('key.indexOf is not a function');
    }) as unknown as ReconcileFn],
    ['throws a non-Error', async () => Promise.reject('a string')],
  ] as const) {
    it(`a reconcile that ${what}: logged with its key, counted as a panic and an error, retried with backoff; other keys flow`, async () => {
      const attempts: number[] = [];
      const done = new Set<string>();
      const h = harness((req, ctx) => {
        if (req.name === 'bad') {
          attempts.push(h.clock.now());
          return (fail as ReconcileFn)(req, ctx);
        }
        done.add(req.name);
        return Promise.resolve(undefined);
      });
      h.controller.watch(h.informer, enqueueObject());
      const running = h.controller.start(h.stop.signal);
      await settle();
      const t0 = h.clock.now();
      h.informer.add(obj('bad'));
      for (let i = 0; i < 20; i++) h.informer.add(obj(`good-${i}`));
      await settle();
      assert.equal(done.size, 20, 'every other key was reconciled');
      for (let i = 0; i < 8; i++) {
        await h.clock.advance(5);
        await settle();
      }
      assert.deepEqual(attempts.map((t) => t - t0), [0, 5, 15, 35], 'the failing key backs off 5, 10, 20 ms …');
      assert.equal(await counter(h.metrics, 'controller_runtime_reconcile_panics_total', { controller: 'test' }), 4);
      assert.equal(await counter(h.metrics, 'controller_runtime_reconcile_errors_total', { controller: 'test' }), 4);
      const logged = h.logger.lines.filter((l) => l.fields.key === 'ns/bad');
      assert.equal(logged.length, 4, 'each failure is logged with its key');
      assert.match(logged[0]!.message, /panicked; retrying with backoff/);
      // The controller still serves a key created after the failures.
      h.informer.add(obj('later'));
      await settle();
      assert.ok(done.has('later'));
      h.stop.abort();
      await running;
    });
  }

  it('an ordinary Error is an error, not a panic', async () => {
    assert.equal(isPanic(new Error('conflict')), false);
    assert.equal(isPanic(new TypeError('x')), true);
    assert.equal(isPanic(new RangeError('Invalid time value')), true);
    assert.equal(isPanic(undefined), true);
    const h = harness(() => Promise.reject(new Error('the API server said no')));
    h.controller.watch(h.informer, enqueueObject());
    const running = h.controller.start(h.stop.signal);
    await settle();
    h.informer.add(obj('a'));
    await settle();
    assert.equal(await counter(h.metrics, 'controller_runtime_reconcile_errors_total', { controller: 'test' }), 1);
    assert.equal(await counter(h.metrics, 'controller_runtime_reconcile_panics_total', { controller: 'test' }), 0);
    h.stop.abort();
    await running;
  });

  it('a predicate that throws drops that event only (logged with namespace/name, counted)', async () => {
    const done: string[] = [];
    const h = harness(async (req) => void done.push(req.name));
    const picky = predicate<KubeObject>((o) => {
      if (o.metadata.name === 'bad') throw new TypeError('o.spec.selector.matchLabels.map is not a function');
      return true;
    });
    h.controller.watch(h.informer, enqueueObject(), picky);
    const running = h.controller.start(h.stop.signal);
    await settle();
    h.informer.add(obj('bad'));
    h.informer.update(obj('bad'), obj('bad'));
    h.informer.delete(obj('bad'));
    h.informer.add(obj('good'));
    await settle();
    assert.deepEqual(done, ['good']);
    assert.equal(await counter(h.metrics, 'controller_runtime_event_handler_errors_total', { controller: 'test', stage: 'predicate' }), 3);
    const line = h.logger.lines.find((l) => l.fields.stage === 'predicate');
    assert.equal(line?.fields.namespace, 'ns');
    assert.equal(line?.fields.name, 'bad');
    h.stop.abort();
    await running;
  });

  it('a map function that throws, or makes a request that is not two strings (spec.nodeName: {}), drops that event; the workers live on', async () => {
    const done: string[] = [];
    const h = harness(async (req) => void done.push(req.name));
    const byNode = (pod: KubeObject): Request[] => {
      const spec = (pod as { spec?: { nodeName?: unknown; explode?: boolean } }).spec;
      if (spec?.explode === true) throw new TypeError('boom');
      return spec?.nodeName ? [{ namespace: '', name: spec.nodeName as string }] : [];
    };
    h.controller.watch(h.informer, enqueueMapped(byNode));
    const running = h.controller.start(h.stop.signal);
    await settle();
    h.informer.add({ metadata: { name: 'p1', namespace: 'ns' }, spec: { nodeName: {} } } as KubeObject);
    h.informer.add({ metadata: { name: 'p2', namespace: 'ns' }, spec: { nodeName: 0 } } as KubeObject);
    h.informer.add({ metadata: { name: 'p3', namespace: 'ns' }, spec: { nodeName: ['x'] } } as KubeObject);
    h.informer.add({ metadata: { name: 'p4', namespace: 'ns' }, spec: { explode: true } } as KubeObject);
    h.informer.add({ metadata: { name: 'p5', namespace: 'ns' }, spec: { nodeName: 'node-a' } } as KubeObject);
    await settle();
    assert.deepEqual(done, ['node-a']);
    assert.equal(await counter(h.metrics, 'controller_runtime_event_handler_errors_total', { controller: 'test', stage: 'request' }), 2, '{} and ["x"] (0 is falsy: no request)');
    assert.equal(await counter(h.metrics, 'controller_runtime_event_handler_errors_total', { controller: 'test', stage: 'handler' }), 1);
    const line = h.logger.lines.find((l) => l.fields.stage === 'request');
    assert.deepEqual([line?.fields.namespace, line?.fields.name], ['ns', 'p1']);
    // The replay at a restart goes through the same guard.
    h.stop.abort();
    await running;
    done.length = 0;
    const again = new AbortController();
    const rerun = h.controller.start(again.signal);
    await settle();
    assert.deepEqual(done, ['node-a']);
    again.abort();
    await rerun;
  });

  it('ownerReferences of the wrong shape name no owner; well-formed ones still do', async () => {
    const done: string[] = [];
    const h = harness(async (req) => void done.push(req.name));
    h.controller.watch(h.informer, enqueueOwner({ group: 'apps', kind: 'ReplicaSet' }));
    const running = h.controller.start(h.stop.signal);
    await settle();
    const refs = (ownerReferences: unknown) => obj('p', { metadata: { name: 'p', namespace: 'ns', ownerReferences } } as Partial<KubeObject>);
    h.informer.add(refs({ kind: 'ReplicaSet' }));
    h.informer.add(refs([null, 5, { apiVersion: 7, kind: 'ReplicaSet', name: 'x', controller: true }, { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: {}, controller: true }]));
    h.informer.add(refs([null, { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: 'u', controller: true }]));
    await settle();
    assert.deepEqual(done, ['rs']);
    h.stop.abort();
    await running;
  });

  it('enqueue by hand refuses a request that is not two strings', () => {
    const h = harness(async () => undefined);
    assert.throws(() => h.controller.enqueue({ namespace: '', name: {} as string }), TypeError);
    assert.equal(h.controller.queue.len(), 0);
  });

  it('a runnable added after start that fails is logged; the manager runs on (no unhandled rejection)', async () => {
    const client = new Client({ server: 'http://127.0.0.1:9' });
    const logger = recordingLogger();
    const manager = new Manager({ client, logger });
    // Something that runs until stopped, so the manager does too.
    manager.add({ name: 'steady', start: (signal) => new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true })) });
    const abort = new AbortController();
    let settled = false;
    const running = manager.start(abort.signal).finally(() => (settled = true));
    try {
      await settle();
      for (const needsLeaderElection of [false, true]) {
        manager.add({ name: `late-${String(needsLeaderElection)}`, needsLeaderElection, start: () => Promise.reject(new TypeError('late runnable failed')) });
      }
      await settle();
      assert.deepEqual(
        logger.lines.filter((l) => l.message === 'a runnable failed').map((l) => l.fields.runnable),
        ['late-false', 'late-true'],
      );
      assert.equal(settled, false, 'the manager is still running');
    } finally {
      abort.abort();
      await running;
      client.close();
    }
  });
});
