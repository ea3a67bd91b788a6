/**
 * The iterators behind `Store.watch`.
 *
 * WatchBuffer: what every backend's watch iterator shares — events wait in a bounded buffer for
 * the consumer; a consumer that falls more than `maxBuffered` events behind is ended with
 * WatchOverflow, carrying the last revision it received, and the producer never waits for it. The
 * iterator ends when `options.signal` aborts, and `progressIntervalMs` without events asks the
 * backend for a progress event (`idle`). EtcdWatch fills one from etcd's stream.
 *
 * WatchChannel: the iterator for backends whose writes all pass through this process (memory,
 * SQLite). It first pulls history from the backend, page by page, as the consumer reads (a page
 * only once the buffer is empty); when the history reaches the current revision it subscribes to
 * live events in the same synchronous step, so nothing falls between the two. Live events wait in
 * the WatchBuffer, and writers never wait for the consumer.
 */
import { every, realClock, type Timer } from '@setpoint/api';
import { DEFAULT_WATCH_BUFFER, StoreError, type WatchEvent, type WatchOptions } from './store.js';

/** What a backend offers a channel. Every method is synchronous. */
export interface WatchSource {
  /**
   * Up to `limit` events under the channel's prefix with a revision above `after`, in order.
   * `caughtUp` says that no event above the last one returned exists yet; the channel then
   * subscribes before anything else runs. Throws Compacted when `after` is below the compact point.
   */
  history(after: number, limit: number): { events: WatchEvent[]; caughtUp: boolean };
  /** Starts delivering live events (already filtered by prefix) to `channel.push`; returns the unsubscribe. */
  subscribe(channel: WatchChannel): () => void;
  /** The store's current revision, for progress events. */
  currentRevision(): number;
}

const HISTORY_PAGE = 512;

/** The bounded buffer between a watch's producer and its consumer; see the file comment. */
export abstract class WatchBuffer implements AsyncIterableIterator<WatchEvent> {
  private readonly buffer: WatchEvent[] = [];
  private head = 0;
  /** Set once the watch has ended (by the consumer, the signal or `fail`); it then takes no more events. */
  protected finished = false;
  private failure: StoreError | undefined;
  private waiter: ((r: IteratorResult<WatchEvent>) => void) | undefined;
  private failWaiter: ((e: unknown) => void) | undefined;
  private lastDelivered: number;
  private readonly maxBuffered: number;
  private progressTimer: Timer | undefined;
  private quietSinceTick = true;
  private readonly onAbort = () => this.finish();

  constructor(
    fromRevision: number,
    private readonly options: WatchOptions,
  ) {
    this.lastDelivered = fromRevision;
    this.maxBuffered = options.maxBuffered ?? DEFAULT_WATCH_BUFFER;
    if (options.signal?.aborted) {
      this.finished = true;
      return;
    }
    options.signal?.addEventListener('abort', this.onAbort, { once: true });
    if (options.progressIntervalMs !== undefined && options.progressIntervalMs > 0) {
      this.progressTimer = every(options.clock ?? realClock, options.progressIntervalMs, () => this.tickProgress()).unref();
    }
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  /** Ends the watch with `err` (thrown by the next read). Buffered events are dropped. */
  fail(err: StoreError): void {
    if (this.finished) return;
    this.failure = err;
    this.buffer.length = 0;
    this.head = 0;
    this.finish();
  }

  next(): Promise<IteratorResult<WatchEvent>> {
    for (;;) {
      if (this.head < this.buffer.length) {
        const event = this.buffer[this.head++]!;
        if (this.head > 1024 && this.head * 2 > this.buffer.length) {
          this.buffer.splice(0, this.head);
          this.head = 0;
        }
        if (event.type !== 'progress') this.lastDelivered = event.revision;
        return Promise.resolve({ value: event, done: false });
      }
      if (this.failure !== undefined) {
        const err = this.failure;
        this.failure = undefined;
        return Promise.reject(err);
      }
      if (this.finished) return Promise.resolve({ value: undefined, done: true });
      if (this.refill()) continue;
      return new Promise<IteratorResult<WatchEvent>>((resolve, reject) => {
        this.waiter = resolve;
        this.failWaiter = reject;
      });
    }
  }

  async return(): Promise<IteratorResult<WatchEvent>> {
    this.finish();
    return { value: undefined, done: true };
  }

  /**
   * Hands `event` to the waiting consumer, or buffers it; a consumer already `maxBuffered` events
   * behind ends the watch with WatchOverflow instead.
   */
  protected enqueue(event: WatchEvent): void {
    this.quietSinceTick = false;
    if (this.waiter !== undefined && this.head === this.buffer.length) {
      this.deliver(event);
      return;
    }
    if (this.buffer.length - this.head >= this.maxBuffered) {
      this.fail(
        new StoreError('WatchOverflow', `watch fell more than ${this.maxBuffered} events behind; resume from revision ${this.lastDelivered}`, {
          lastRevision: this.lastDelivered,
        }),
      );
      return;
    }
    this.buffer.push(event);
  }

  /** Buffers events read on the consumer's demand (history), outside the bound. */
  protected bufferAll(events: readonly WatchEvent[]): void {
    for (const e of events) this.buffer.push(e);
  }

  /** Whether the consumer has been handed every buffered event. */
  protected get drained(): boolean {
    return this.head === this.buffer.length;
  }

  /** Hands a progress event for `revision` to the consumer, outside the bound. */
  protected sendProgress(revision: number): void {
    const event: WatchEvent = { type: 'progress', revision };
    if (this.waiter !== undefined) this.deliver(event);
    else this.buffer.push(event);
  }

  /**
   * Called by `next()` when the buffer is empty and the watch goes on: true when it buffered more
   * (or failed the watch) and `next()` should look again, false to wait for the producer.
   */
  protected refill(): boolean {
    return false;
  }

  /** Called when `progressIntervalMs` passed without an event, while the watch goes on. */
  protected abstract idle(): void;

  /** Called once when the watch finishes, before a waiting consumer is told: let go of the producer. */
  protected abstract release(): void;

  private deliver(event: WatchEvent): void {
    const resolve = this.waiter!;
    this.waiter = undefined;
    this.failWaiter = undefined;
    if (event.type !== 'progress') this.lastDelivered = event.revision;
    resolve({ value: event, done: false });
  }

  private tickProgress(): void {
    if (this.quietSinceTick && !this.finished) this.idle();
    this.quietSinceTick = true;
  }

  private finish(): void {
    if (this.finished) return;
    this.finished = true;
    this.options.signal?.removeEventListener('abort', this.onAbort);
    this.progressTimer?.cancel();
    this.release();
    const resolve = this.waiter;
    const reject = this.failWaiter;
    this.waiter = undefined;
    this.failWaiter = undefined;
    if (resolve === undefined) return;
    if (this.failure !== undefined) {
      const err = this.failure;
      this.failure = undefined;
      reject!(err);
    } else {
      resolve({ value: undefined, done: true });
    }
  }
}

export class WatchChannel extends WatchBuffer {
  private live = false;
  private unsubscribe: (() => void) | undefined;
  private cursor: number;

  constructor(
    private readonly source: WatchSource,
    fromRevision: number,
    options: WatchOptions = {},
  ) {
    super(fromRevision, options);
    this.cursor = fromRevision;
  }

  /** Delivers one live event (called by the backend for every committed change under the prefix). */
  push(event: WatchEvent, progress = false): void {
    if (this.finished) return;
    if (!progress) {
      if (event.revision <= this.cursor) return;
      this.cursor = event.revision;
    }
    this.enqueue(event);
  }

  /**
   * Delivers a progress event for `revision` (the store's current one) if the channel is live: it
   * has been sent every change up to that revision.
   */
  pushProgress(revision: number): void {
    if (this.finished || !this.live || revision < this.cursor) return;
    this.cursor = revision;
    this.push({ type: 'progress', revision }, true);
  }

  protected override refill(): boolean {
    if (this.live) return false;
    this.pullHistory();
    return true;
  }

  protected override idle(): void {
    if (this.live && this.drained) this.sendProgress(this.source.currentRevision());
  }

  protected override release(): void {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
  }

  private pullHistory(): void {
    try {
      const { events, caughtUp } = this.source.history(this.cursor, HISTORY_PAGE);
      this.bufferAll(events);
      if (events.length > 0) this.cursor = events[events.length - 1]!.revision;
      if (caughtUp) {
        this.live = true;
        this.unsubscribe = this.source.subscribe(this);
      }
    } catch (err) {
      this.fail(err instanceof StoreError ? err : new StoreError('Unavailable', 'reading watch history failed', { cause: err }));
    }
  }
}
