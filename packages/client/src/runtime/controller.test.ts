/**
 * The controller's loop in isolation (a scripted informer, virtual time): per-key exponential
 * backoff that never starves other keys, reset on success, requeueAfter, terminal errors, the
 * cache-sync barrier, and stopping.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FakeClock, recordingLogger, within, type KubeObject, type Logger } from '@setpoint/api';
import { Controller, type WatchedInformer } from './controller.js';
import { enqueueMapped, enqueueObject } from './handlers.js';
import { ControllerMetrics } from './metrics.js';
import { predicate } from './predicates.js';
import { TerminalError, type ReconcileContext, type Request } from './reconciler.js';

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
  /** Ends the wait unsynced (the informer stopped before its first listing). */
  giveUp(): void {
    for (const w of this.waiters.splice(0)) w(false);
  }
  add(name: string): void {
    const obj: KubeObject = { metadata: { name, namespace: 'ns' } };
    this.objects.push(obj);
    this.handler?.onAdd?.(obj, false);
  }
  /** Delivers raw events, whatever their shape (the informer's side of the contract under test). */
  emit(event: 'add', obj: unknown): void;
  emit(event: 'update', oldObj: unknown, newObj: unknown): void;
  emit(event: 'delete', obj: unknown): void;
  emit(event: 'add' | 'update' | 'delete', a: unknown, b?: unknown): void {
    const h = this.handler;
    if (event === 'add') h?.onAdd?.(a as KubeObject, false);
    else if (event === 'update') h?.onUpdate?.(a as KubeObject, b as KubeObject);
    else h?.onDelete?.(a as KubeObject);
  }
}

/** The sum of a metric's samples whose labels include `labels` (`sample`: e.g. the histogram's "_count"). */
async function metric(metrics: ControllerMetrics, name: string, labels: Record<string, string>, sample = name): Promise<number> {
  const m = metrics.registry.getSingleMetric(name);
  assert.ok(m, `metric ${name} is registered`);
  const { values } = await m.get();
  return values
    .filter((v) => ((v as { metricName?: string }).metricName ?? name) === sample && Object.entries(labels).every(([k, l]) => v.labels[k] === l))
    .reduce((sum, v) => sum + v.value, 0);
}

const obj = (name: string, namespace = 'ns'): KubeObject => ({ metadata: { name, namespace } });

/** Lets promise callbacks and immediate callbacks run (no timers). */
async function settle(turns = 20): Promise<void> {
  for (let i = 0; i < turns; i++) await new Promise((r) => setImmediate(r));
}

describe('Controller', { timeout: 15_000 }, () => {
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

describe('Controller: results, metrics and logs', { timeout: 15_000 }, () => {
  it('counts each reconcile by outcome (panics apart), its time on the clock, and the workers busy', async () => {
    const clock = new FakeClock();
    const metrics = new ControllerMetrics();
    const calls = new Map<string, number>();
    const controller = new Controller({
      name: 'm',
      clock,
      metrics,
      concurrency: 3,
      reconcile: async (req) => {
        const n = (calls.get(req.name) ?? 0) + 1;
        calls.set(req.name, n);
        if (n > 1) return undefined; // every retry succeeds
        switch (req.name) {
          case 'slow':
            await clock.sleep(2000);
            return undefined;
          case 'after':
            return { requeueAfterMs: 60_000 };
          case 'again':
            return { requeue: true };
          case 'fail':
            throw new Error('the API server said no');
          case 'panic':
            throw new TypeError("Cannot read properties of undefined (reading 'spec')");
          case 'terminal':
            throw new TerminalError('bad spec');
        }
        return undefined;
      },
    });
    assert.equal(await metric(metrics, 'controller_runtime_max_concurrent_reconciles', { controller: 'm' }), 3);
    const stop = new AbortController();
    const running = controller.start(stop.signal);
    for (const name of ['slow', 'after', 'again', 'fail', 'panic', 'terminal']) controller.enqueue({ namespace: 'ns', name });
    await settle();
    assert.equal(await metric(metrics, 'controller_runtime_active_workers', { controller: 'm' }), 1, 'only the slow reconcile is still running');
    await clock.advance(2000);
    await settle();
    const total = (result: string) => metric(metrics, 'controller_runtime_reconcile_total', { controller: 'm', result });
    assert.deepEqual(
      { success: await total('success'), requeue_after: await total('requeue_after'), requeue: await total('requeue'), error: await total('error') },
      { success: 4, requeue_after: 1, requeue: 1, error: 3 },
      'slow, and the retries of again, fail and panic, succeeded; terminal was not retried',
    );
    assert.equal(calls.get('terminal'), 1);
    assert.equal(calls.get('after'), 1, 'requeueAfter waits its 60 s');
    assert.equal(await metric(metrics, 'controller_runtime_reconcile_errors_total', { controller: 'm' }), 3);
    assert.equal(await metric(metrics, 'controller_runtime_reconcile_panics_total', { controller: 'm' }), 1, 'only the TypeError is a panic');
    assert.equal(await metric(metrics, 'controller_runtime_active_workers', { controller: 'm' }), 0);
    const seconds = 'controller_runtime_reconcile_time_seconds';
    assert.equal(await metric(metrics, seconds, { controller: 'm' }, `${seconds}_count`), 9);
    assert.equal(await metric(metrics, seconds, { controller: 'm' }, `${seconds}_sum`), 2, 'the slow reconcile took 2 s on the clock, the others none');
    assert.ok((await metric(metrics, 'workqueue_adds_total', { name: 'm' })) >= 6, 'the queue reports its metrics under the controller’s name');
    stop.abort();
    await running;
  });

  it('{ requeue: true } retries with the key’s backoff; { requeueAfterMs } resets it; { requeueAfterMs: 0 } is done', async () => {
    const clock = new FakeClock();
    const times = new Map<string, number[]>();
    let script: Array<'throw' | 'after' | 'requeue' | 'done'> = ['throw', 'throw', 'after', 'throw', 'done'];
    const controller = new Controller({
      name: 'requeue',
      clock,
      reconcile: async (req) => {
        times.set(req.name, [...(times.get(req.name) ?? []), clock.now()]);
        if (req.name === 'zero') return { requeueAfterMs: 0 };
        if (req.name === 'again') return (times.get('again')!.length < 3 ? { requeue: true } : undefined);
        const step = script.shift() ?? 'done';
        if (step === 'throw') throw new Error('not yet');
        if (step === 'after') return { requeueAfterMs: 100 };
        return undefined;
      },
    });
    const stop = new AbortController();
    const running = controller.start(stop.signal);
    const t0 = clock.now();
    controller.enqueue({ namespace: 'ns', name: 'k' });
    controller.enqueue({ namespace: 'ns', name: 'zero' });
    controller.enqueue({ namespace: 'ns', name: 'again' });
    await settle();
    for (let i = 0; i < 30; i++) {
      await clock.advance(5);
      await settle();
    }
    // k: fails at 0 and +5, asks for +100 at +15 (its backoff forgotten), fails at +115, retried 5 ms later.
    assert.deepEqual(times.get('k')!.map((t) => t - t0), [0, 5, 15, 115, 120]);
    assert.deepEqual(times.get('again')!.map((t) => t - t0), [0, 5, 15], 'requeue: true backs off 5, then 10 ms');
    assert.equal(controller.queue.numRequeues('ns/again'), 0, 'its success forgot the backoff');
    assert.deepEqual(times.get('zero')!.map((t) => t - t0), [0], 'requeueAfterMs: 0 asks for nothing more');
    script = [];
    stop.abort();
    await running;
  });

  it('a custom rate limiter decides the retry delay', async () => {
    const clock = new FakeClock();
    const attempts: number[] = [];
    const controller = new Controller({
      name: 'limiter',
      clock,
      rateLimiter: { when: () => 1000, forget: () => {}, numRequeues: () => 0 },
      reconcile: async () => {
        attempts.push(clock.now());
        if (attempts.length < 3) throw new Error('again');
      },
    });
    const stop = new AbortController();
    const running = controller.start(stop.signal);
    const t0 = clock.now();
    controller.enqueue({ namespace: 'ns', name: 'k' });
    await settle();
    await clock.advance(999);
    assert.equal(attempts.length, 1);
    await clock.advance(1);
    await clock.advance(1000);
    assert.deepEqual(attempts.map((t) => t - t0), [0, 1000, 2000]);
    stop.abort();
    await running;
  });

  it('logs with the controller and key: the reconcile’s own logger, failures (retries, panic or not), terminal errors', async () => {
    const logger = recordingLogger();
    const clock = new FakeClock();
    const controller = new Controller({
      name: 'logs',
      clock,
      logger,
      concurrency: 2,
      reconcile: async (req, ctx: ReconcileContext) => {
        ctx.logger.info({ step: 1 }, 'reconciling');
        if (req.name === 'fail') throw new Error('no');
        if (req.name === 'panic') throw new RangeError('Invalid time value');
        if (req.name === 'terminal') throw new TerminalError('bad spec');
        if (req.name === 'requeue') return { requeue: true };
        return undefined;
      },
    });
    const stop = new AbortController();
    const running = controller.start(stop.signal);
    await settle();
    const started = logger.lines.find((l) => l.message.includes('caches synced'));
    assert.deepEqual([started?.bindings, started?.fields], [{ controller: 'logs' }, { workers: 2 }]);
    for (const name of ['fine', 'fail', 'panic', 'terminal', 'requeue']) controller.enqueue({ namespace: 'ns', name });
    await settle();
    const own = logger.lines.filter((l) => l.message === 'reconciling');
    assert.deepEqual(own.map((l) => l.bindings), ['fine', 'fail', 'panic', 'terminal', 'requeue'].map((n) => ({ controller: 'logs', key: `ns/${n}` })));
    assert.equal(logger.lines.filter((l) => l.fields.key === 'ns/requeue').length, 0, 'a requeue is no failure (without metrics too)');
    assert.equal(logger.lines.filter((l) => l.message === 'processing a key failed').length, 0);
    const failed = logger.lines.find((l) => l.fields.key === 'ns/fail')!;
    assert.equal(failed.level, 'warn');
    assert.deepEqual([failed.fields.panic, failed.fields.retries, (failed.fields.err as Error).message], [false, 1, 'no']);
    assert.match(failed.message, /^reconcile failed; retrying with backoff/);
    const panicked = logger.lines.find((l) => l.fields.key === 'ns/panic')!;
    assert.deepEqual([panicked.level, panicked.fields.panic], ['warn', true]);
    assert.match(panicked.message, /^reconcile panicked; retrying with backoff/);
    const terminal = logger.lines.find((l) => l.fields.key === 'ns/terminal')!;
    assert.equal(terminal.level, 'error');
    assert.match(terminal.message, /terminal error; not retrying/);
    assert.equal((terminal.fields.err as Error).message, 'bad spec');
    assert.equal(logger.lines.filter((l) => l.fields.key === 'ns/fine' && l.message !== 'reconciling').length, 0, 'a success logs nothing');
    stop.abort();
    await running;
    assert.equal(logger.lines.some((l) => l.message.startsWith('stopping: no new keys')), true);
  });

  it('a failure outside the reconcile (a metrics sink that throws) is logged with the key; the key is done and the worker lives on', async () => {
    const logger = recordingLogger();
    class Flaky extends ControllerMetrics {
      failures = 1;
      override workerFinished(controller: string, seconds: number): void {
        super.workerFinished(controller, seconds);
        if (this.failures-- > 0) throw new Error('sink down');
      }
    }
    const seen: string[] = [];
    const controller = new Controller({ name: 'sink', clock: new FakeClock(), logger, metrics: new Flaky(), reconcile: async (req) => void seen.push(req.name) });
    const stop = new AbortController();
    const running = controller.start(stop.signal);
    controller.enqueue({ namespace: 'ns', name: 'a' });
    await settle();
    const line = logger.lines.find((l) => l.message === 'processing a key failed');
    assert.deepEqual([line?.level, line?.fields.key, (line?.fields.err as Error | undefined)?.message], ['error', 'ns/a', 'sink down']);
    controller.enqueue({ namespace: 'ns', name: 'a' });
    controller.enqueue({ namespace: 'ns', name: 'b' });
    await settle();
    assert.deepEqual(seen, ['a', 'a', 'b'], 'the same key can be reconciled again, and the worker takes the next');
    stop.abort();
    await running;
  });
});

describe('Controller: workers, start and stop', { timeout: 15_000 }, () => {
  for (const [concurrency, expected] of [
    [2, 2],
    [0, 1],
  ] as const) {
    it(`concurrency ${concurrency}: ${expected} key(s) reconciled at once, never one key twice`, async () => {
      const metrics = new ControllerMetrics();
      let inFlight = 0;
      let most = 0;
      const releases: Array<() => void> = [];
      const started: string[] = [];
      const controller = new Controller({
        name: 'workers',
        clock: new FakeClock(),
        metrics,
        concurrency,
        reconcile: async (req) => {
          started.push(req.name);
          inFlight++;
          most = Math.max(most, inFlight);
          await new Promise<void>((r) => releases.push(r));
          inFlight--;
        },
      });
      assert.equal(await metric(metrics, 'controller_runtime_max_concurrent_reconciles', { controller: 'workers' }), expected);
      const stop = new AbortController();
      const running = controller.start(stop.signal);
      for (const name of ['a', 'b', 'c']) controller.enqueue({ namespace: 'ns', name });
      await settle();
      assert.deepEqual(started, ['a', 'b', 'c'].slice(0, expected));
      controller.enqueue({ namespace: 'ns', name: 'a' }); // while a is being reconciled
      while (started.length < 4 || releases.length > 0) {
        releases.shift()?.();
        await settle();
      }
      assert.equal(most, expected);
      assert.deepEqual([...started].sort(), ['a', 'a', 'b', 'c']);
      stop.abort();
      await running;
    });
  }

  for (const [what, options, grace] of [
    ['gracefulShutdownMs', { gracefulShutdownMs: 1000 }, 1000],
    ['the default 30 s', {}, 30_000],
  ] as const) {
    it(`a reconcile still running ${what} after stop has its signal aborted, and start returns`, async () => {
      const clock = new FakeClock();
      const logger = recordingLogger();
      let signal: AbortSignal | undefined;
      const controller = new Controller({
        name: 'grace',
        clock,
        logger,
        ...options,
        reconcile: (_req, ctx) => {
          signal = ctx.signal;
          return new Promise((resolve) => ctx.signal.addEventListener('abort', () => resolve(undefined), { once: true }));
        },
      });
      const stop = new AbortController();
      const running = controller.start(stop.signal);
      let returned = false;
      void running.then(() => (returned = true));
      controller.enqueue({ namespace: 'ns', name: 'stuck' });
      await settle();
      assert.equal(signal?.aborted, false);
      stop.abort();
      await settle();
      await clock.advance(grace - 1);
      assert.equal(signal.aborted, false, 'not before the grace period');
      assert.equal(returned, false, 'stop waits for the reconcile in flight');
      await clock.advance(1);
      await within(running, 'start to return after the grace period');
      assert.equal(signal.aborted, true);
      assert.match(String((signal.reason as Error).message), /graceful shutdown period passed/);
      const warned = logger.lines.find((l) => l.level === 'warn');
      assert.equal(warned?.fields.afterMs, grace);
      assert.match(warned?.message ?? '', /^reconciles still running after the graceful shutdown period/);
      assert.equal(controller.started, false);
    });
  }

  it('a clean stop cancels its grace-period timer and leaves no timer behind', async () => {
    const clock = new FakeClock();
    const logger = recordingLogger();
    const signals: AbortSignal[] = [];
    const controller = new Controller({ name: 'clean', clock, logger, reconcile: async (_req, ctx) => void signals.push(ctx.signal) });
    controller.enqueue({ namespace: 'ns', name: 'before-start' });
    const stop = new AbortController();
    const running = controller.start(stop.signal);
    controller.enqueue({ namespace: 'ns', name: 'a' });
    await settle();
    assert.equal(signals.length, 2, 'a key enqueued before the first start is reconciled too');
    assert.equal(controller.started, true);
    stop.abort();
    await within(running, 'the stop');
    assert.equal(clock.pending(), 0);
    assert.equal(controller.started, false);
    assert.equal(signals.some((s) => s.aborted), false, 'a stop within the grace period aborts no reconcile');
    assert.equal(logger.lines.filter((l) => l.level === 'warn').length, 0);
  });

  it('a queue shut down by hand ends the workers without a reconcile of a phantom key', async () => {
    const seen: unknown[] = [];
    const controller = new Controller({ name: 'by-hand', clock: new FakeClock(), reconcile: async (req) => void seen.push(req) });
    const stop = new AbortController();
    const running = controller.start(stop.signal);
    controller.enqueue({ namespace: 'ns', name: 'a' });
    await settle();
    controller.queue.shutDown();
    await settle();
    assert.deepEqual(seen, [{ namespace: 'ns', name: 'a' }]);
    stop.abort();
    await within(running, 'the stop');
  });

  it('start twice throws; a start whose signal is already aborted returns at once', async () => {
    const controller = new Controller({ name: 'twice', clock: new FakeClock(), reconcile: async () => undefined });
    const stop = new AbortController();
    const running = controller.start(stop.signal);
    await assert.rejects(controller.start(new AbortController().signal), /controller twice is already running/);
    stop.abort();
    await running;
    const aborted = new AbortController();
    aborted.abort();
    await within(controller.start(aborted.signal), 'a start with an aborted signal');
    assert.equal(controller.started, false);
  });

  it('a start whose caches never sync (aborted, or the informer gave up) runs no worker; the next start can', async () => {
    const seen: string[] = [];
    const controller = new Controller({ name: 'unsynced', clock: new FakeClock(), reconcile: async (req) => void seen.push(req.name) });
    const informer = new ScriptedInformer();
    informer.objects.push(obj('cached'));
    controller.watch(informer, enqueueObject());
    const stop = new AbortController();
    const first = controller.start(stop.signal);
    await settle();
    stop.abort();
    await within(first, 'the aborted start');
    const second = controller.start(new AbortController().signal);
    await settle();
    informer.giveUp();
    await within(second, 'the start whose informer gave up');
    assert.equal(controller.started, false);
    assert.deepEqual(seen, [], 'no worker ran');
    informer.sync();
    const third = new AbortController();
    const running = controller.start(third.signal);
    await settle();
    assert.deepEqual(seen, ['cached']);
    third.abort();
    await running;
  });

  it('a watch removed is neither delivered nor replayed at the next start', async () => {
    const seen: string[] = [];
    const controller = new Controller({ name: 'remove', clock: new FakeClock(), reconcile: async (req) => void seen.push(req.name) });
    const kept = new ScriptedInformer();
    const dropped = new ScriptedInformer();
    kept.sync();
    dropped.sync();
    controller.watch(kept, enqueueObject());
    const registration = controller.watch(dropped, enqueueObject());
    kept.add('k');
    dropped.add('d');
    const first = new AbortController();
    const running = controller.start(first.signal);
    await settle();
    assert.deepEqual(seen.sort(), ['d', 'k']);
    first.abort();
    await running;
    registration.remove();
    dropped.add('late'); // the informer no longer delivers to the controller
    seen.length = 0;
    const second = new AbortController();
    const rerun = controller.start(second.signal);
    await settle();
    assert.deepEqual(seen, ['k'], 'only the kept watch is replayed');
    second.abort();
    await rerun;
  });
});

describe('Controller: events, predicates and containment', { timeout: 15_000 }, () => {
  function harness() {
    const seen: string[] = [];
    const logger = recordingLogger();
    const metrics = new ControllerMetrics();
    const controller = new Controller({ name: 'events', clock: new FakeClock(), logger, metrics, reconcile: async (req) => void seen.push(`${req.namespace}/${req.name}`) });
    const informer = new ScriptedInformer();
    informer.sync();
    const stop = new AbortController();
    const failures = (stage: string) => metric(metrics, 'controller_runtime_event_handler_errors_total', { controller: 'events', stage });
    return { seen, logger, metrics, controller, informer, stop, failures };
  }

  it('predicates filter adds, updates (given old and new) and deletes, and the replay at start; tombstones name their object', async () => {
    const h = harness();
    const gen = (name: string, generation: number): KubeObject => ({ metadata: { name, namespace: 'ns', generation } });
    h.controller.watch(h.informer, enqueueObject(), {
      create: (o) => o.metadata.name !== 'skip',
      update: (o, n) => o.metadata.generation !== n.metadata.generation,
      delete: (o) => o.metadata.name !== 'keep',
    }, predicate((o: KubeObject) => o.metadata.name !== 'veto'));
    h.informer.objects.push(obj('cached'), obj('skip'), obj('veto'));
    const running = h.controller.start(h.stop.signal);
    await settle();
    assert.deepEqual(h.seen.sort(), ['ns/cached'], 'the replay passes the create predicate');
    h.seen.length = 0;
    h.informer.emit('add', obj('skip'));
    h.informer.emit('add', obj('new'));
    h.informer.emit('update', gen('same', 1), gen('same', 1));
    h.informer.emit('update', gen('old-name', 1), gen('new-name', 2));
    h.informer.emit('delete', obj('keep'));
    h.informer.emit('delete', obj('gone'));
    h.informer.emit('delete', { key: 'ns/tomb', obj: obj('tomb') });
    // Every predicate must pass: the second one vetoes these.
    h.informer.emit('add', obj('veto'));
    h.informer.emit('update', gen('veto', 1), gen('veto', 2));
    h.informer.emit('delete', obj('veto'));
    // An object that happens to have key and obj fields is still the object.
    h.informer.emit('delete', { ...obj('odd'), key: 'x', obj: obj('not-this') });
    await settle();
    assert.deepEqual(h.seen, ['ns/new', 'ns/new-name', 'ns/gone', 'ns/tomb', 'ns/odd']);
    h.stop.abort();
    await running;
  });

  it('a predicate or handler that throws, or a request that is not two strings, drops that event (logged, counted); an empty name is dropped quietly', async () => {
    const h = harness();
    h.controller.watch(
      h.informer,
      enqueueMapped((o: KubeObject): Request[] => {
        const name = o.metadata?.name;
        if (name === 'handler-throws') throw new TypeError('boom');
        if (name === 'bad-request') return [{ namespace: 'ns', name: 42 as unknown as string }];
        if (name === 'no-name') return [{ namespace: 'ns', name: '' }];
        return [{ namespace: o.metadata?.namespace ?? '', name: name ?? '' }];
      }),
      predicate((o: KubeObject) => {
        if (o.metadata?.name === 'predicate-throws') throw new RangeError('nope');
        return true;
      }),
    );
    const running = h.controller.start(h.stop.signal);
    await settle();
    h.informer.emit('add', obj('predicate-throws'));
    h.informer.emit('update', obj('x'), obj('handler-throws'));
    h.informer.emit('delete', obj('bad-request'));
    h.informer.emit('add', obj('no-name'));
    h.informer.emit('add', obj('fine'));
    await settle();
    assert.deepEqual(h.seen, ['ns/fine']);
    assert.deepEqual([await h.failures('predicate'), await h.failures('handler'), await h.failures('request')], [1, 1, 1]);
    const dropped = h.logger.lines.filter((l) => l.message.startsWith('event dropped'));
    assert.deepEqual(
      dropped.map((l) => [l.level, l.message, l.fields.stage, l.fields.event, l.fields.namespace, l.fields.name]),
      [
        ['error', 'event dropped: the predicate threw', 'predicate', 'add', 'ns', 'predicate-throws'],
        ['error', 'event dropped: the handler threw', 'handler', 'update', 'ns', 'handler-throws'],
        ['error', 'event dropped: the handler made an invalid request', 'request', 'delete', 'ns', 'bad-request'],
      ],
    );
    assert.equal((dropped[0]!.fields.err as Error).message, 'nope');
    assert.match((dropped[2]!.fields.err as Error).message, /not both strings: \{"namespace":"ns","name":42\}/);
    h.stop.abort();
    await running;
  });

  it('an event whose object has no metadata, or none at all, is contained too, and so is a logger that throws', async () => {
    const h = harness();
    h.controller.watch(h.informer, enqueueObject());
    const running = h.controller.start(h.stop.signal);
    await settle();
    assert.doesNotThrow(() => h.informer.emit('add', { metadata: null }));
    assert.doesNotThrow(() => h.informer.emit('delete', null));
    assert.doesNotThrow(() => h.informer.emit('delete', 'a string'));
    assert.doesNotThrow(() => h.informer.emit('update', obj('a'), 'not an object'));
    await settle();
    assert.equal(await h.failures('handler'), 4);
    const dropped = h.logger.lines.filter((l) => l.message.startsWith('event dropped'));
    assert.deepEqual(dropped.map((l) => [l.fields.event, l.fields.namespace, l.fields.name]), [
      ['add', undefined, undefined],
      ['delete', undefined, undefined],
      ['delete', undefined, undefined],
      ['update', undefined, undefined],
    ]);
    h.stop.abort();
    await running;

    const throwing: Logger = { ...recordingLogger(), error: () => { throw new Error('log sink down'); }, child: () => throwing };
    const controller = new Controller({ name: 'quiet', clock: new FakeClock(), logger: throwing, reconcile: async () => undefined });
    const informer = new ScriptedInformer();
    controller.watch(informer, enqueueObject());
    assert.doesNotThrow(() => informer.emit('add', { metadata: null }));
  });

  it('enqueue by hand takes namespace/name strings (cluster-scoped: namespace ""), and says what it refused', async () => {
    const h = harness();
    const running = h.controller.start(h.stop.signal);
    h.controller.enqueue({ namespace: '', name: 'node-1' });
    await settle();
    assert.deepEqual(h.seen, ['/node-1']);
    const refused = (request: unknown) => {
      try {
        h.controller.enqueue(request as Request);
      } catch (err) {
        assert.ok(err instanceof TypeError);
        return err.message;
      }
      return assert.fail('enqueue accepted a request that is not two strings');
    };
    assert.equal(refused({ namespace: 'ns', name: 7 }), 'controller events: a request\'s namespace and name must be strings: {"namespace":"ns","name":7}');
    assert.match(refused({ name: 'x' }), /must be strings: \{"name":"x"\}$/);
    assert.match(refused(null), /must be strings: null$/);
    assert.match(refused(undefined), /must be strings: undefined$/);
    const circular: Record<string, unknown> = { namespace: 'ns' };
    circular['self'] = circular;
    assert.match(refused(circular), /must be strings: \[object Object\]$/);
    const long = refused({ namespace: 'ns', name: 1, pad: 'x'.repeat(500) });
    assert.equal(long.length, long.indexOf('must be strings: ') + 'must be strings: '.length + 200, 'the description is cut at 200 characters');
    assert.equal(h.controller.queue.len(), 0);
    h.stop.abort();
    await running;
  });

  it('a predicate that throws on the replay at start drops that object as an add event', async () => {
    const h = harness();
    h.informer.objects.push(obj('bad'), obj('good'));
    h.controller.watch(h.informer, enqueueObject(), {
      create: (o) => {
        if (o.metadata.name === 'bad') throw new Error('no');
        return true;
      },
    });
    const running = h.controller.start(h.stop.signal);
    await settle();
    assert.deepEqual(h.seen, ['ns/good']);
    const line = h.logger.lines.find((l) => l.message.startsWith('event dropped'));
    assert.deepEqual([line?.fields.stage, line?.fields.event, line?.fields.name], ['predicate', 'add', 'bad']);
    h.stop.abort();
    await running;
  });
});
