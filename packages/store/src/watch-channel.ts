/**
 * WatchChannel: the iterator behind `Store.watch` for backends whose writes all pass through this
 * process (memory, SQLite). It first pulls history from the backend, page by page, as the consumer
 * reads; when the history reaches the current revision it subscribes to live events in the same
 * synchronous step, so nothing falls between the two. Live events wait in a bounded buffer: a
 * consumer that falls more than `maxBuffered` events behind is ended with WatchOverflow, carrying
 * the last revision it received, and writers never wait for it.
 */
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

export class WatchChannel implements AsyncIterableIterator<WatchEvent> {
  private readonly buffer: WatchEvent[] = [];
  private head = 0;
  private live = false;
  private finished = false;
  private failure: StoreError | undefined;
  private waiter: ((r: IteratorResult<WatchEvent>) => void) | undefined;
  private failWaiter: ((e: unknown) => void) | undefined;
  private unsubscribe: (() => void) | undefined;
  private lastDelivered: number;
  private cursor: number;
  private readonly maxBuffered: number;
  private progressTimer: NodeJS.Timeout | undefined;
  private quietSinceTick = true;
  private readonly onAbort = () => this.finish();

  constructor(
    private readonly source: WatchSource,
    fromRevision: number,
    private readonly options: WatchOptions = {},
  ) {
    this.lastDelivered = fromRevision;
    this.cursor = fromRevision;
    this.maxBuffered = options.maxBuffered ?? DEFAULT_WATCH_BUFFER;
    if (options.signal?.aborted) {
      this.finished = true;
      return;
    }
    options.signal?.addEventListener('abort', this.onAbort, { once: true });
    if (options.progressIntervalMs !== undefined && options.progressIntervalMs > 0) {
      this.progressTimer = setInterval(() => this.tickProgress(), options.progressIntervalMs);
      this.progressTimer.unref();
    }
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  /** Delivers one live event (called by the backend for every committed change under the prefix). */
  push(event: WatchEvent, progress = false): void {
    if (this.finished) return;
    if (!progress) {
      if (event.revision <= this.cursor) return;
      this.cursor = event.revision;
    }
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

  /**
   * Delivers a progress event for `revision` (the store's current one) if the channel is live: it
   * has been sent every change up to that revision.
   */
  pushProgress(revision: number): void {
    if (this.finished || !this.live || revision < this.cursor) return;
    this.cursor = revision;
    this.push({ type: 'progress', revision }, true);
  }

  /** Ends the channel with `err` (thrown by the next read). Buffered events are dropped. */
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
      if (!this.live) {
        this.pullHistory();
        continue;
      }
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

  private pullHistory(): void {
    try {
      const { events, caughtUp } = this.source.history(this.cursor, HISTORY_PAGE);
      for (const e of events) this.buffer.push(e);
      if (events.length > 0) this.cursor = events[events.length - 1]!.revision;
      if (caughtUp) {
        this.live = true;
        this.unsubscribe = this.source.subscribe(this);
      }
    } catch (err) {
      this.fail(err instanceof StoreError ? err : new StoreError('Unavailable', 'reading watch history failed', { cause: err }));
    }
  }

  private deliver(event: WatchEvent): void {
    const resolve = this.waiter!;
    this.waiter = undefined;
    this.failWaiter = undefined;
    if (event.type !== 'progress') this.lastDelivered = event.revision;
    resolve({ value: event, done: false });
  }

  private tickProgress(): void {
    if (this.live && this.quietSinceTick && this.head === this.buffer.length && !this.finished) {
      const revision = this.source.currentRevision();
      const event: WatchEvent = { type: 'progress', revision };
      if (this.waiter !== undefined) this.deliver(event);
      else this.buffer.push(event);
    }
    this.quietSinceTick = true;
  }

  private finish(): void {
    if (this.finished) return;
    this.finished = true;
    this.options.signal?.removeEventListener('abort', this.onAbort);
    if (this.progressTimer !== undefined) clearInterval(this.progressTimer);
    this.unsubscribe?.();
    this.unsubscribe = undefined;
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
