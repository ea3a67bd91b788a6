/**
 * Controller: reconciles one kind by key. The loop of the seed text:
 *
 *   for {
 *     key, shutdown := queue.Get()   // block until at least one key is pending
 *     if shutdown { return }
 *     if err := reconcile(ctx, key); err != nil { queue.AddRateLimited(key) } else { queue.Forget(key) }
 *     queue.Done(key)
 *   }
 *
 * Expected flow: `watch()` connects informers (its own kind, owned kinds, mapped kinds) to the
 * queue through handlers and predicates; `start(signal)` waits until every watched informer has
 * synced its cache, then runs `concurrency` workers until the signal aborts.
 *
 * A controller can be started again after it stopped (a leader that lost its lease and won it back):
 * each start gets a fresh queue and enqueues every key its caches hold, so nothing that changed
 * while it was stopped is missed.
 *
 * Guarantees: the queue holds keys and coalesces them; one key is never reconciled by two workers
 * at once; a failing key backs off exponentially (per key, reset on success) while other keys keep
 * flowing; a TerminalError is not retried; no worker runs before the caches are synced; on stop,
 * no new key is taken and in-flight reconciles get `gracefulShutdownMs` to finish before their
 * signal aborts.
 */
import { realClock, silentLogger, type Clock, type KubeObject, type Logger } from '@setpoint/api';
import { newRateLimitingQueue, type RateLimiter, type RateLimitingQueue } from '../workqueue/index.js';
import type { EventHandler } from './handlers.js';
import type { ControllerMetrics } from './metrics.js';
import { allows, type Predicate } from './predicates.js';
import { requestFromKey, requestKey, TerminalError, type ReconcileFn, type Request } from './reconciler.js';

/** What a controller needs of an informer. */
export interface WatchedInformer<T extends KubeObject = KubeObject> {
  addEventHandler(handler: {
    onAdd?(obj: T, isInInitialList: boolean): void;
    onUpdate?(oldObj: T, newObj: T): void;
    onDelete?(obj: T | { readonly key: string; readonly obj: T }): void;
  }): { remove(): void };
  hasSynced(): boolean;
  waitForCacheSync(signal?: AbortSignal): Promise<boolean>;
  readonly store: { list(): readonly T[] };
}

export interface ControllerOptions {
  readonly name: string;
  readonly reconcile: ReconcileFn;
  /** Workers (keys reconciled at once). Default 1. */
  readonly concurrency?: number;
  /** Per-key backoff. Default: exponential 5 ms → 1000 s, max'd with a 10 qps / burst 100 bucket. */
  readonly rateLimiter?: RateLimiter<string>;
  /** How long stop waits for in-flight reconciles before aborting their signal. Default 30 s. */
  readonly gracefulShutdownMs?: number;
  readonly clock?: Clock;
  readonly logger?: Logger;
  readonly metrics?: ControllerMetrics;
}

export class Controller {
  readonly name: string;
  private queueValue: RateLimitingQueue<string>;
  private readonly rateLimiter: RateLimiter<string> | undefined;
  private readonly reconcile: ReconcileFn;
  private readonly concurrency: number;
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly metrics: ControllerMetrics | undefined;
  private readonly gracefulShutdownMs: number;
  private readonly informers = new Set<WatchedInformer<KubeObject>>();
  private readonly replays = new Set<() => void>();
  private reconcileAbort = new AbortController();
  private running = false;
  private stopping = false;

  constructor(options: ControllerOptions) {
    this.name = options.name;
    this.reconcile = options.reconcile;
    this.concurrency = Math.max(1, options.concurrency ?? 1);
    this.clock = options.clock ?? realClock;
    this.logger = (options.logger ?? silentLogger).child({ controller: options.name });
    this.metrics = options.metrics;
    this.gracefulShutdownMs = options.gracefulShutdownMs ?? 30_000;
    this.rateLimiter = options.rateLimiter;
    this.queueValue = this.newQueue();
    this.metrics?.setMaxConcurrency(this.name, this.concurrency);
  }

  /** The work queue of the current (or next) run. */
  get queue(): RateLimitingQueue<string> {
    return this.queueValue;
  }

  private newQueue(): RateLimitingQueue<string> {
    return newRateLimitingQueue<string>({
      name: this.name,
      clock: this.clock,
      ...(this.rateLimiter ? { rateLimiter: this.rateLimiter } : {}),
      ...(this.metrics?.queue ? { metrics: this.metrics.queue } : {}),
    });
  }

  /**
   * Connects an informer: its events pass the predicates, then the handler turns them into keys.
   * May be called after start (a kind that appears later); the new informer's initial list then
   * enqueues its keys like any other event.
   */
  watch<T extends KubeObject>(informer: WatchedInformer<T>, handler: EventHandler<T>, ...predicates: Predicate<T>[]): { remove(): void } {
    const enqueue = (request: Request) => {
      if (request.name !== '') this.queue.add(requestKey(request));
    };
    this.informers.add(informer as unknown as WatchedInformer<KubeObject>);
    const replay = () => {
      for (const obj of informer.store.list()) if (predicates.every((p) => allows.create(p, obj))) handler.create(obj, enqueue);
    };
    this.replays.add(replay);
    const registration = informer.addEventHandler({
      onAdd: (obj) => {
        if (predicates.every((p) => allows.create(p, obj))) handler.create(obj, enqueue);
      },
      onUpdate: (oldObj, newObj) => {
        if (predicates.every((p) => allows.update(p, oldObj, newObj))) handler.update(oldObj, newObj, enqueue);
      },
      onDelete: (deleted) => {
        const obj = isTombstone(deleted) ? deleted.obj : deleted;
        if (predicates.every((p) => allows.delete(p, obj))) handler.delete(obj, enqueue);
      },
    });
    return {
      remove: () => {
        this.replays.delete(replay);
        registration.remove();
      },
    };
  }

  /** Adds a key by hand (tests, or a controller that enqueues related keys itself). */
  enqueue(request: Request): void {
    this.queue.add(requestKey(request));
  }

  /** Whether the workers are running. */
  get started(): boolean {
    return this.running;
  }

  /**
   * Waits for the caches, runs the workers until `signal` aborts, then drains: resolves when every
   * worker has returned. Throws if started twice.
   */
  async start(signal: AbortSignal): Promise<void> {
    if (this.running) throw new Error(`controller ${this.name} is already running`);
    this.running = true;
    if (this.queueValue.shuttingDown()) this.queueValue = this.newQueue();
    this.reconcileAbort = new AbortController();
    this.stopping = false;
    try {
      for (const informer of this.informers) {
        const synced = await informer.waitForCacheSync(signal);
        if (!synced || signal.aborted) return;
      }
      // Every key the caches hold gets one look, whatever happened while no worker ran.
      for (const replay of this.replays) replay();
      this.logger.info({ workers: this.concurrency }, 'caches synced; starting workers');
      const workers = Array.from({ length: this.concurrency }, () => this.work());
      await new Promise<void>((resolve) => {
        if (signal.aborted) resolve();
        else signal.addEventListener('abort', () => resolve(), { once: true });
      });
      this.stopping = true;
      this.logger.info({}, 'stopping: no new keys; waiting for reconciles in flight');
      let timer: ReturnType<Clock['setTimeout']> | undefined;
      const deadline = new Promise<'deadline'>((resolve) => {
        timer = this.clock.setTimeout(() => resolve('deadline'), this.gracefulShutdownMs);
      });
      const drained = this.queue.shutDownWithDrain().then(() => Promise.all(workers));
      if ((await Promise.race([drained, deadline])) === 'deadline') {
        this.reconcileAbort.abort(new Error('graceful shutdown period passed'));
        this.logger.warn({ afterMs: this.gracefulShutdownMs }, 'reconciles still running after the graceful shutdown period; their signal is aborted');
      }
      timer?.cancel();
    } finally {
      this.queue.shutDown();
      this.running = false;
    }
  }

  private async work(): Promise<void> {
    for (;;) {
      const next = await this.queue.get();
      if (next.shutdown) return;
      const key = next.item;
      if (this.stopping) {
        // Stopping: take no new key. It is not lost: the next start enqueues every cached key.
        this.queue.done(key);
        return;
      }
      try {
        await this.process(key);
      } finally {
        this.queue.done(key);
      }
    }
  }

  private async process(key: string): Promise<void> {
    const request = requestFromKey(key);
    const started = this.clock.now();
    this.metrics?.workerStarted(this.name);
    try {
      const result = await this.reconcile(request, { signal: this.reconcileAbort.signal, logger: this.logger.child({ key }) });
      if (result && 'requeueAfterMs' in result && result.requeueAfterMs > 0) {
        this.queue.forget(key);
        this.queue.addAfter(key, result.requeueAfterMs);
        this.metrics?.reconciled(this.name, 'requeue_after');
      } else if (result && 'requeue' in result && result.requeue) {
        this.queue.addRateLimited(key);
        this.metrics?.reconciled(this.name, 'requeue');
      } else {
        this.queue.forget(key);
        this.metrics?.reconciled(this.name, 'success');
      }
    } catch (err) {
      this.metrics?.reconciled(this.name, 'error');
      if (err instanceof TerminalError) {
        this.queue.forget(key);
        this.logger.error({ key, err }, 'reconcile failed with a terminal error; not retrying until the object changes');
      } else {
        this.queue.addRateLimited(key);
        this.logger.warn({ key, err, retries: this.queue.numRequeues(key) }, 'reconcile failed; retrying with backoff');
      }
    } finally {
      this.metrics?.workerFinished(this.name, (this.clock.now() - started) / 1000);
    }
  }
}

function isTombstone<T>(x: T | { readonly key: string; readonly obj: T }): x is { readonly key: string; readonly obj: T } {
  return typeof x === 'object' && x !== null && 'key' in x && 'obj' in x && !('metadata' in x);
}
