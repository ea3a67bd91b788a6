/**
 * Event handlers of a shared informer, and the listener that delivers to one handler: its own
 * resync timer, and the guard that keeps a failing handler from stopping the others
 * (client-go's ResourceEventHandler, processorListener and DeletedFinalStateUnknown).
 */
import type { Clock, KubeObject, Logger, Timer } from '@setpoint/api';
import type { DeepReadonly } from './store.js';

/**
 * A deletion the informer did not see happen: the object was gone from a relisting (the watch was
 * down, or its history compacted, while it went). `obj` is its last state the cache knew, which
 * may be older than its real final state.
 */
export class DeletedFinalStateUnknown<T extends KubeObject = KubeObject> {
  constructor(
    readonly key: string,
    readonly obj: DeepReadonly<T>,
  ) {
    Object.freeze(this);
  }
}

/** The object of a delete notification, whether it was seen or inferred. */
export function deletedObject<T extends KubeObject>(deleted: DeepReadonly<T> | DeletedFinalStateUnknown<T>): DeepReadonly<T> {
  return deleted instanceof DeletedFinalStateUnknown ? deleted.obj : deleted;
}

/**
 * Callbacks for the changes an informer sees. Every one is optional. Objects are the cache's own,
 * frozen: read them, never change them. A handler should be quick (enqueue a key and return);
 * it runs inline with the informer's event processing. A thrown error (or a rejected promise) is
 * logged and does not stop the other handlers or later events.
 */
export interface ResourceEventHandler<T extends KubeObject = KubeObject> {
  /** A new object; `isInInitialList` is true for the objects of the first listing (and the synthetic adds of a late handler). */
  onAdd?(obj: DeepReadonly<T>, isInInitialList: boolean): void;
  /** A changed object, or the same one twice on a periodic resync (compare resourceVersions to tell). */
  onUpdate?(oldObj: DeepReadonly<T>, newObj: DeepReadonly<T>): void;
  /** A deleted object (its final state), or a DeletedFinalStateUnknown when the deletion was inferred from a relist. */
  onDelete?(obj: DeepReadonly<T> | DeletedFinalStateUnknown<T>): void;
}

/** Options of one handler. */
export interface EventHandlerOptions {
  /**
   * Re-deliver every cached object as onUpdate(obj, obj) this often, in ms (at least 1000; client-go's
   * minimum). 0: never. Default: the informer's resyncPeriodMs.
   */
  readonly resyncPeriodMs?: number;
}

/** The handle addEventHandler returns. */
export interface EventHandlerRegistration {
  /** Stops deliveries to the handler (and its resync timer). Idempotent. */
  remove(): void;
  /** Whether the handler has received the adds of the cache's first complete listing. */
  hasSynced(): boolean;
  /** The resync period in effect for this handler (0: none). */
  readonly resyncPeriodMs: number;
}

/** The smallest resync period honoured, as client-go's minimumResyncPeriod. */
export const MIN_RESYNC_PERIOD_MS = 1000;

/** Where an informer contained a failure: a handler threw, an index function threw, an object had no usable key. */
export type InformerErrorStage = 'handler' | 'index' | 'key';

/** Counts the failures an informer contained (ControllerMetrics is one: controller_runtime_informer_errors_total). */
export interface InformerMetrics {
  informerError(informer: string, stage: InformerErrorStage): void;
}

interface ListenerContext<T extends KubeObject> {
  readonly clock: Clock;
  readonly logger: Logger;
  /** Called once per failed delivery, after it is logged. */
  readonly onError?: () => void;
  /** The cache's objects, for resyncs. */
  list(): DeepReadonly<T>[];
}

/** Delivers to one handler. */
export class Listener<T extends KubeObject> {
  synced = false;
  removed = false;
  readonly resyncPeriodMs: number;
  readonly #handler: ResourceEventHandler<T>;
  readonly #ctx: ListenerContext<T>;
  #timer: Timer | undefined;

  constructor(handler: ResourceEventHandler<T>, resyncPeriodMs: number, ctx: ListenerContext<T>) {
    this.#handler = handler;
    this.resyncPeriodMs = resyncPeriodMs > 0 ? Math.max(resyncPeriodMs, MIN_RESYNC_PERIOD_MS) : 0;
    this.#ctx = ctx;
  }

  add(obj: DeepReadonly<T>, isInInitialList: boolean): void {
    const h = this.#handler;
    if (!this.removed && h.onAdd !== undefined) this.#guard('add', obj, () => h.onAdd!(obj, isInInitialList));
  }

  update(oldObj: DeepReadonly<T>, newObj: DeepReadonly<T>): void {
    const h = this.#handler;
    if (!this.removed && h.onUpdate !== undefined) this.#guard('update', newObj, () => h.onUpdate!(oldObj, newObj));
  }

  delete(obj: DeepReadonly<T> | DeletedFinalStateUnknown<T>): void {
    const h = this.#handler;
    if (!this.removed && h.onDelete !== undefined) this.#guard('delete', deletedObject(obj), () => h.onDelete!(obj));
  }

  /** Starts the resync timer, if the handler has a period and it is not running yet. */
  startResync(): void {
    if (this.resyncPeriodMs === 0) return;
    // Stryker disable next-line ConditionalExpression,LogicalOperator: a guard only: the informer starts each listener's resync once, and never after remove()
    if (this.removed || this.#timer !== undefined) return;
    const fire = (): void => {
      this.#timer = undefined;
      for (const obj of this.#ctx.list()) this.update(obj, obj);
      // A handler that removed itself while it was resynced gets no next timer.
      if (!this.removed) this.#timer = this.#ctx.clock.setTimeout(fire, this.resyncPeriodMs).unref();
    };
    this.#timer = this.#ctx.clock.setTimeout(fire, this.resyncPeriodMs).unref();
  }

  stopResync(): void {
    this.#timer?.cancel();
    this.#timer = undefined;
  }

  #guard(event: string, obj: DeepReadonly<T>, call: () => unknown): void {
    const failed = (err: unknown): void => {
      try {
        const meta: unknown = obj.metadata;
        const { namespace, name } = typeof meta === 'object' && meta !== null ? (meta as { namespace?: unknown; name?: unknown }) : {};
        this.#ctx.logger.error({ err, event, namespace, name }, 'event handler failed');
        // Stryker disable next-line OptionalChaining: without onError the call throws inside this try, after the line is logged, and is swallowed: nothing differs
        this.#ctx.onError?.();
      } catch {
        // A logger or counter that throws must not take the informer down either.
      }
    };
    try {
      const result = call();
      if (isThenable(result)) result.then(undefined, failed);
    } catch (err) {
      failed(err);
    }
  }
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';
}
