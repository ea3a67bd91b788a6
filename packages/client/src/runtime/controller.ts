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
 * flowing; a TerminalError is not retried; failures are contained per key: a reconcile that throws
 * (any value, sync or async) is logged with its key, counted and retried, and a predicate or
 * handler that throws drops that one event (logged with the object's namespace/name, counted), so
 * no object can stop a worker, the informer or the process; no worker runs before the caches are synced; on stop,
 * no new key is taken and in-flight reconciles get `gracefulShutdownMs` to finish before their
 * signal aborts.
 */
import { realClock, silentLogger, type Clock, type KubeObject, type Logger } from '@setpoint/api';
import { newRateLimitingQueue, type RateLimiter, type RateLimitingQueue } from '../workqueue/index.js';
import type { Enqueue, EventHandler } from './handlers.js';
import { isPanic, type ControllerMetrics, type EventHandlerStage } from './metrics.js';
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
  #queueValue: RateLimitingQueue<string>;
  readonly #rateLimiter: RateLimiter<string> | undefined;
  readonly #reconcile: ReconcileFn;
  readonly #concurrency: number;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #metrics: ControllerMetrics | undefined;
  readonly #gracefulShutdownMs: number;
  readonly #informers = new Set<WatchedInformer<KubeObject>>();
  readonly #replays = new Set<() => void>();
  #reconcileAbort = new AbortController();
  #running = false;
  // Stryker disable next-line BooleanLiteral: start() sets it before any worker reads it
  #stopping = false;

  constructor(options: ControllerOptions) {
    this.name = options.name;
    this.#reconcile = options.reconcile;
    this.#concurrency = Math.max(1, options.concurrency ?? 1);
    this.#clock = options.clock ?? realClock;
    this.#logger = (options.logger ?? silentLogger).child({ controller: options.name });
    this.#metrics = options.metrics;
    this.#gracefulShutdownMs = options.gracefulShutdownMs ?? 30_000;
    this.#rateLimiter = options.rateLimiter;
    this.#queueValue = this.#newQueue();
    this.#metrics?.setMaxConcurrency(this.name, this.#concurrency);
  }

  /** The work queue of the current (or next) run. */
  get queue(): RateLimitingQueue<string> {
    return this.#queueValue;
  }

  #newQueue(): RateLimitingQueue<string> {
    return newRateLimitingQueue<string>({
      name: this.name,
      clock: this.#clock,
      ...(this.#rateLimiter ? { rateLimiter: this.#rateLimiter } : {}),
      ...(this.#metrics?.queue ? { metrics: this.#metrics.queue } : {}),
    });
  }

  /**
   * Connects an informer: its events pass the predicates, then the handler turns them into keys.
   * May be called after start (a kind that appears later); the new informer's initial list then
   * enqueues its keys like any other event.
   */
  watch<T extends KubeObject>(informer: WatchedInformer<T>, handler: EventHandler<T>, ...predicates: Predicate<T>[]): { remove(): void } {
    this.#informers.add(informer as unknown as WatchedInformer<KubeObject>);
    // Each event is contained: a predicate or handler that throws (or a request that is not a pair
    // of strings) is logged with the object's namespace/name, counted, and that event dropped.
    const deliver = (event: 'add' | 'update' | 'delete', obj: T, pass: () => boolean, handle: (enqueue: Enqueue) => void): void => {
      let stage: EventHandlerStage = 'predicate';
      try {
        if (!pass()) return;
        stage = 'handler';
        handle((request) => this.#add(request, event, obj));
      } catch (err) {
        this.#eventFailed(stage, event, obj, err);
      }
    };
    const replay = () => {
      for (const obj of informer.store.list()) {
        deliver('add', obj, () => predicates.every((p) => allows.create(p, obj)), (enqueue) => handler.create(obj, enqueue));
      }
    };
    this.#replays.add(replay);
    const registration = informer.addEventHandler({
      onAdd: (obj) => deliver('add', obj, () => predicates.every((p) => allows.create(p, obj)), (enqueue) => handler.create(obj, enqueue)),
      onUpdate: (oldObj, newObj) =>
        deliver('update', newObj, () => predicates.every((p) => allows.update(p, oldObj, newObj)), (enqueue) => handler.update(oldObj, newObj, enqueue)),
      onDelete: (deleted) => {
        const obj = isTombstone(deleted) ? deleted.obj : deleted;
        deliver('delete', obj, () => predicates.every((p) => allows.delete(p, obj)), (enqueue) => handler.delete(obj, enqueue));
      },
    });
    return {
      remove: () => {
        this.#replays.delete(replay);
        registration.remove();
      },
    };
  }

  /** Queues a request a handler made; one whose namespace or name is not a string is dropped (logged, counted). */
  #add(request: Request, event: string, obj: KubeObject): void {
    if (isRequest(request)) {
      if (request.name !== '') this.queue.add(requestKey(request));
      return;
    }
    this.#eventFailed('request', event, obj, new TypeError(`the handler made a request whose namespace and name are not both strings: ${describe(request)}`));
  }

  #eventFailed(stage: EventHandlerStage, event: string, obj: KubeObject, err: unknown): void {
    try {
      const { namespace, name } = metaOf(obj);
      this.#logger.error({ err, stage, event, namespace, name }, `event dropped: the ${stage === 'request' ? 'handler made an invalid request' : `${stage} threw`}`);
      // Stryker disable next-line OptionalChaining: without metrics the call throws inside this try, after the line is logged, and is swallowed: nothing differs
      this.#metrics?.eventHandlerFailed(this.name, stage);
    } catch {
      // Logging or counting must not take the informer down either.
    }
  }

  /** Adds a key by hand (tests, or a controller that enqueues related keys itself). Throws a TypeError unless namespace and name are strings. */
  enqueue(request: Request): void {
    if (!isRequest(request)) throw new TypeError(`controller ${this.name}: a request's namespace and name must be strings: ${describe(request)}`);
    this.queue.add(requestKey(request));
  }

  /** Whether the workers are running. */
  get started(): boolean {
    return this.#running;
  }

  /**
   * Waits for the caches, runs the workers until `signal` aborts, then drains: resolves when every
   * worker has returned. Throws if started twice.
   */
  async start(signal: AbortSignal): Promise<void> {
    if (this.#running) throw new Error(`controller ${this.name} is already running`);
    this.#running = true;
    if (this.#queueValue.shuttingDown()) this.#queueValue = this.#newQueue();
    this.#reconcileAbort = new AbortController();
    this.#stopping = false;
    try {
      for (const informer of this.#informers) {
        const synced = await informer.waitForCacheSync(signal);
        if (!synced || signal.aborted) return;
      }
      // Every key the caches hold gets one look, whatever happened while no worker ran.
      for (const replay of this.#replays) replay();
      this.#logger.info({ workers: this.#concurrency }, 'caches synced; starting workers');
      const workers = Array.from({ length: this.#concurrency }, () => this.#work());
      await new Promise<void>((resolve) => {
        if (signal.aborted) {
          resolve();
        } else {
          // Stryker disable next-line ObjectLiteral,BooleanLiteral: a signal aborts once, so once: true changes nothing but memory
          signal.addEventListener('abort', () => resolve(), { once: true });
        }
      });
      this.#stopping = true;
      this.#logger.info({}, 'stopping: no new keys; waiting for reconciles in flight');
      let timer: ReturnType<Clock['setTimeout']> | undefined;
      const deadline = new Promise<'deadline'>((resolve) => {
        timer = this.#clock.setTimeout(() => resolve('deadline'), this.#gracefulShutdownMs);
      });
      const drained = this.queue.shutDownWithDrain().then(() => Promise.all(workers));
      if ((await Promise.race([drained, deadline])) === 'deadline') {
        this.#reconcileAbort.abort(new Error('graceful shutdown period passed'));
        this.#logger.warn({ afterMs: this.#gracefulShutdownMs }, 'reconciles still running after the graceful shutdown period; their signal is aborted');
      }
      // Stryker disable next-line OptionalChaining: the promise executor above sets timer synchronously
      timer?.cancel();
    } finally {
      this.queue.shutDown();
      this.#running = false;
    }
  }

  async #work(): Promise<void> {
    for (;;) {
      const next = await this.queue.get();
      if (next.shutdown) return;
      const key = next.item;
      if (this.#stopping) {
        // Stopping: take no new key. It is not lost: the next start enqueues every cached key.
        this.queue.done(key);
        return;
      }
      try {
        await this.#process(key);
      } catch (err) {
        // process() contains every failure of a reconcile; this is the last line, so no key can end a worker.
        this.#logger.error({ key, err }, 'processing a key failed');
      } finally {
        this.queue.done(key);
      }
    }
  }

  /**
   * Reconciles one key. Every failure is contained here: a reconcile that throws (synchronously or
   * by rejecting) is logged with the key, counted (errors; panics too for runtime errors), and the
   * key requeued with its rate-limited backoff (a TerminalError: forgotten until the object changes).
   */
  async #process(key: string): Promise<void> {
    const started = this.#clock.now();
    this.#metrics?.workerStarted(this.name);
    try {
      const result = await this.#reconcile(requestFromKey(key), { signal: this.#reconcileAbort.signal, logger: this.#logger.child({ key }) });
      if (result && 'requeueAfterMs' in result && result.requeueAfterMs > 0) {
        this.queue.forget(key);
        this.queue.addAfter(key, result.requeueAfterMs);
        this.#metrics?.reconciled(this.name, 'requeue_after');
      } else if (result && 'requeue' in result && result.requeue) {
        this.queue.addRateLimited(key);
        this.#metrics?.reconciled(this.name, 'requeue');
      } else {
        this.queue.forget(key);
        this.#metrics?.reconciled(this.name, 'success');
      }
    } catch (err) {
      this.#metrics?.reconciled(this.name, 'error');
      if (err instanceof TerminalError) {
        this.queue.forget(key);
        this.#logger.error({ key, err }, 'reconcile failed with a terminal error; not retrying until the object changes');
      } else {
        const panic = isPanic(err);
        if (panic) this.#metrics?.panicked(this.name);
        this.queue.addRateLimited(key);
        this.#logger.warn({ key, err, panic, retries: this.queue.numRequeues(key) }, panic ? 'reconcile panicked; retrying with backoff' : 'reconcile failed; retrying with backoff');
      }
    } finally {
      this.#metrics?.workerFinished(this.name, (this.#clock.now() - started) / 1000);
    }
  }
}

function isRequest(request: unknown): request is Request {
  if (typeof request !== 'object' || request === null) return false;
  const { namespace, name } = request as { namespace?: unknown; name?: unknown };
  return typeof namespace === 'string' && typeof name === 'string';
}

function describe(value: unknown): string {
  try {
    return JSON.stringify(value)?.slice(0, 200) ?? String(value);
  } catch {
    return String(value);
  }
}

function metaOf(obj: unknown): { namespace?: unknown; name?: unknown } {
  const meta: unknown = typeof obj === 'object' && obj !== null ? (obj as { metadata?: unknown }).metadata : undefined;
  if (typeof meta !== 'object' || meta === null) return {};
  const { namespace, name } = meta as { namespace?: unknown; name?: unknown };
  return { namespace, name };
}

function isTombstone<T>(x: T | { readonly key: string; readonly obj: T }): x is { readonly key: string; readonly obj: T } {
  return typeof x === 'object' && x !== null && 'key' in x && 'obj' in x && !('metadata' in x);
}
