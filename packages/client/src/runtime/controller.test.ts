/**
 * The controller's loop in isolation (a scripted informer, virtual time): per-key exponential
 * backoff that never starves other keys, reset on success, requeueAfter, terminal errors, the
 * cache-sync barrier, and stopping.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FakeClock, type KubeObject } from '@setpoint/api';
import { Controller, type WatchedInformer } from './controller.js';
import { enqueueObject } from './handlers.js';
import { TerminalError, type Request } from './reconciler.js';

/** An informer whose sync the test controls. */
class ScriptedInformer implements WatchedInformer<KubeObject> {
  private synced = false;
  private readonly waiters: Array<(ok: boolean) => void> = [];
  private handler: Parameters<WatchedInformer['addEventHandler']>[0] | undefined;
  readonly objects: KubeObject[] = [];
  readonly store = { list: () => this.objects };
  addEventHandler(handler: Parameters<WatchedInformer['addEventHandler']>[0]) {
    this.handler = handler;
    return { remove: () => (this.handler = undefined) };
  }
  hasSynced(): boolean {
    return this.synced;
  }
  waitForCacheSync(signal?: AbortSignal): Promise<boolean> {
    if (this.synced) return Promise.resolve(true);
    return new Promise((resolve) => {
      this.waiters.push(resolve);
      signal?.addEventListener('abort', () => resolve(false), { once: true });
    });
  }
  sync(): void {
    this.synced = true;
    for (const w of this.waiters.splice(0)) w(true);
  }
  add(name: string): void {
    const obj: KubeObject = { metadata: { name, namespace: 'ns' } };
    this.objects.push(obj);
    this.handler?.onAdd?.(obj, false);
  }
}

/** Lets promise callbacks and immediate callbacks run (no timers). */
async function settle(turns = 20): Promise<void> {
  for (let i = 0; i < turns; i++) await new Promise((r) => setImmediate(r));
}

describe('Controller', () => {
  it('backs a failing key off exponentially (5, 10, 20, 40 ms …) while other keys keep flowing, and resets on success', async () => {
    const clock = new FakeClock();
    const attempts: number[] = [];
    const done = new Set<string>();
    let failUntil = 6;
    const controller = new Controller({
      name: 'backoff',
      clock,
      reconcile: async (req: Request) => {
        if (req.name === 'bad') {
          attempts.push(clock.now());
          if (attempts.length < failUntil) throw new Error('not yet');
          return;
        }
        done.add(req.name);
      },
    });
    const informer = new ScriptedInformer();
    controller.watch(informer, enqueueObject());
    informer.sync();
    const stop = new AbortController();
    const running = controller.start(stop.signal);
    const t0 = clock.now();
    informer.add('bad');
    for (let i = 0; i < 100; i++) informer.add(`good-${i}`);
    await settle();
    assert.equal(done.size, 100, 'every other key was reconciled while the bad one waits');
    assert.equal(attempts.length, 1, 'the bad key ran once, then waits for its backoff');
    for (let i = 0; i < 12; i++) {
      await clock.advance(5);
      await settle();
    }
    // Failures at t0, +5, +15, +35 — the fifth attempt would be at +75: not within 60 ms.
    assert.deepEqual(attempts.map((t) => t - t0), [0, 5, 15, 35]);
    await clock.advance(200);
    await settle();
    assert.deepEqual(attempts.map((t) => t - t0), [0, 5, 15, 35, 75, 155], 'the sixth attempt succeeds');
    assert.equal(controller.queue.numRequeues('ns/bad'), 0, 'success forgot the backoff');
    // After a success the next failure starts again from 5 ms.
    failUntil = Infinity;
    attempts.length = 0;
    const t1 = clock.now();
    controller.enqueue({ namespace: 'ns', name: 'bad' });
    await settle();
    await clock.advance(5);
    await settle();
    assert.deepEqual(attempts.map((t) => t - t1), [0, 5]);
    stop.abort();
    await running;
  });

  it('requeueAfter brings a key back after that long; a TerminalError is not retried', async () => {
    const clock = new FakeClock();
    const seen: string[] = [];
    const controller = new Controller({
      name: 'results',
      clock,
      reconcile: async (req) => {
        seen.push(req.name);
        if (req.name === 'later') return { requeueAfterMs: 1000 };
        if (req.name === 'terminal') throw new TerminalError('bad spec');
        return undefined;
      },
    });
    const informer = new ScriptedInformer();
    controller.watch(informer, enqueueObject());
    informer.sync();
    const stop = new AbortController();
    const running = controller.start(stop.signal);
    informer.add('later');
    informer.add('terminal');
    await settle();
    assert.deepEqual(seen, ['later', 'terminal']);
    await clock.advance(999);
    await settle();
    assert.deepEqual(seen, ['later', 'terminal']);
    await clock.advance(1);
    await settle();
    assert.deepEqual(seen, ['later', 'terminal', 'later']);
    await clock.advance(60_000);
    await settle();
    assert.equal(seen.filter((s) => s === 'terminal').length, 1, 'a terminal error is not retried');
    stop.abort();
    await running;
  });

  it('runs no worker before every watched informer has synced, and enqueues every cached key at start', async () => {
    const seen: string[] = [];
    const controller = new Controller({ name: 'sync', reconcile: async (req) => void seen.push(req.name) });
    const a = new ScriptedInformer();
    const b = new ScriptedInformer();
    controller.watch(a, enqueueObject());
    controller.watch(b, enqueueObject());
    const stop = new AbortController();
    const running = controller.start(stop.signal);
    a.sync();
    a.add('x');
    await settle();
    assert.deepEqual(seen, [], 'b has not synced: no reconcile yet');
    b.sync();
    await settle();
    assert.deepEqual(seen, ['x']);
    stop.abort();
    await running;
    // Restarted (a leader that won the lease back): every cached key gets one look.
    const again = new AbortController();
    const rerun = controller.start(again.signal);
    await settle();
    assert.deepEqual(seen, ['x', 'x']);
    again.abort();
    await rerun;
  });

  it('on stop takes no new key and waits for the reconcile in flight', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const seen: string[] = [];
    let finished = false;
    const controller = new Controller({
      name: 'stop',
      reconcile: async (req) => {
        seen.push(req.name);
        if (req.name === 'slow') {
          await gate;
          finished = true;
        }
      },
    });
    const informer = new ScriptedInformer();
    controller.watch(informer, enqueueObject());
    informer.sync();
    const stop = new AbortController();
    const running = controller.start(stop.signal);
    informer.add('slow');
    await settle();
    informer.add('queued');
    stop.abort();
    let stopped = false;
    void running.then(() => (stopped = true));
    await settle();
    assert.equal(stopped, false, 'stop waits for the reconcile in flight');
    release();
    await running;
    assert.equal(finished, true);
    assert.deepEqual(seen, ['slow'], 'no new key was taken after stop');
  });
});
