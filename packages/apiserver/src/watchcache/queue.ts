/**
 * EventQueue: an async iterator fed by pushes, bounded in items and in bytes, optionally preceded
 * by a lazily pulled source (a watch's initial events).
 *
 * Expected flow: a producer `push`es items; one consumer reads them with `next()` (or `for await`).
 * A consumer that writes what it reads somewhere that buffers (a socket) reports how many of those
 * bytes are still unflushed with `countUnflushed`, so they count against the bound as well.
 *
 * Guarantees:
 * - Items come out in order: first everything the `startWith` source yields (pulled one at a time,
 *   as the consumer reads: never buffered, never counted against the bounds), then pushed items.
 * - The bound: a push that would make more than `limit` items, or more than `maxBytes` bytes
 *   (pushed-and-unread items' sizes plus the consumer's unflushed bytes), wait ends the queue at
 *   once — its buffered items and source are dropped (their memory freed) and reads end with
 *   `overflow()` — so a consumer that stops reading costs bounded memory and the producer never
 *   waits. One item is always accepted into an empty queue, however large, so progress never
 *   depends on the size of one item.
 * - Read slots are cleared as they are read: a read item is no longer referenced by the queue.
 * - `whenEnded` callbacks run exactly once, when the queue ends (by `end`, `fail`, `close` or
 *   overflow).
 */
import { Fifo } from '@setpoint/workqueue';

/** Bounds of an EventQueue; each default is stated on its field. */
export interface EventQueueBounds<T> {
  /** Items buffered at most. */
  readonly limit: number;
  /** Bytes buffered at most (sizes of unread items plus the consumer's unflushed bytes). Default no bound. */
  readonly maxBytes?: number;
  /** The size of an item in bytes. Default 0 (only `limit` applies). */
  readonly sizeOf?: (item: T) => number;
}

export class EventQueue<T> implements AsyncIterableIterator<T> {
  /** Pushed items not yet read, and their sizes (one entry each, in step). */
  private readonly items = new Fifo<T>();
  private readonly sizes = new Fifo<number>();
  private queuedBytes = 0;
  private source: Iterator<T> | undefined;
  private unflushed: () => number = () => 0;
  private waiting: ((r: IteratorResult<T>) => void) | undefined;
  private waitingReject: ((e: unknown) => void) | undefined;
  private ended = false;
  private overflowed = false;
  private error: unknown;
  private readonly onEnd = new Set<() => void>();
  private room: { readonly items: number; readonly bytes: number; readonly resolve: () => void } | undefined;
  private readonly limit: number;
  private readonly maxBytes: number;
  private readonly sizeOf: ((item: T) => number) | undefined;

  /**
   * @param bounds items at most (a number), or items, bytes and how to size an item.
   * @param overflow the error reads end with after an overflow; undefined: they just end (done).
   */
  constructor(
    bounds: number | EventQueueBounds<T>,
    private readonly overflow: () => Error | undefined,
  ) {
    const b = typeof bounds === 'number' ? { limit: bounds } : bounds;
    this.limit = b.limit;
    this.maxBytes = b.maxBytes ?? Infinity;
    this.sizeOf = b.sizeOf;
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  /** Pushed items waiting to be read (the source's are not counted). */
  get size(): number {
    return this.items.length;
  }

  /** Bytes the queue holds against its bound: sizes of unread pushed items plus the consumer's unflushed bytes. */
  get bytes(): number {
    return this.queuedBytes + this.unflushed();
  }

  /** Whether the queue has ended (reads may still return what it buffered). */
  get closed(): boolean {
    return this.ended;
  }

  /** Whether the queue ended because a push went past its bounds. */
  get overflowedBounds(): boolean {
    return this.overflowed;
  }

  /** Reads yield everything `source` yields, pulled one at a time, before any pushed item. Call before reading. */
  startWith(source: Iterator<T>): void {
    if (!this.ended) this.source = source;
  }

  /** How many bytes the consumer took from the queue and has not flushed yet; they count against maxBytes. */
  countUnflushed(unflushed: () => number): void {
    this.unflushed = unflushed;
  }

  /** Adds an item; false when the queue has ended (or just ended by overflowing). */
  push(item: T): boolean {
    if (this.ended) return false;
    // A reader waits only once the source is drained (startWith comes before any read).
    if (this.waiting !== undefined) {
      const resolve = this.waiting;
      this.waiting = undefined;
      this.waitingReject = undefined;
      resolve({ value: item, done: false });
      return true;
    }
    const size = this.sizeOf?.(item) ?? 0;
    if (!this.fits(size)) {
      this.overflowed = true;
      this.fail(this.overflow());
      return false;
    }
    this.items.push(item);
    this.sizes.push(size);
    this.queuedBytes += size;
    return true;
  }

  /** Adds an item if it fits; an item that does not is dropped (false) and the queue stays open. */
  offer(item: T): boolean {
    if (this.waiting === undefined && !this.fits(this.sizeOf?.(item) ?? 0)) return false;
    return this.push(item);
  }

  /** Ends the queue after the buffered items; with `error`, reads throw it then. */
  end(error?: unknown): void {
    if (this.ended) return;
    this.ended = true;
    this.error = error;
    this.wake();
    for (const f of this.onEnd) f();
    this.onEnd.clear();
    if (this.waiting !== undefined) {
      const resolve = this.waiting;
      const reject = this.waitingReject!;
      this.waiting = undefined;
      this.waitingReject = undefined;
      if (error === undefined) resolve({ value: undefined, done: true });
      else reject(error);
    }
  }

  /** Ends the queue at once, dropping buffered items and the source; reads throw `error` (or just end without one). */
  fail(error: unknown): void {
    this.items.clear();
    this.sizes.clear();
    this.queuedBytes = 0;
    this.source = undefined;
    this.unflushed = () => 0;
    this.end(error);
  }

  /** Ends the queue at once, dropping everything it holds; reads end (done). The consumer went away. */
  close(): void {
    this.fail(undefined);
  }

  /**
   * Resolves once fewer than `items` pushed items of fewer than `bytes` bytes wait unread, or the queue has ended: a
   * producer that can wait (a replay of history) goes at the reader's pace instead of
   * overflowing. One waiter at a time.
   */
  whenBelow(items: number, bytes = Infinity): Promise<void> {
    if (this.ended || (this.size < items && this.queuedBytes < bytes)) return Promise.resolve();
    return new Promise((resolve) => (this.room = { items, bytes, resolve }));
  }

  /** Runs `f` when the queue ends (at once if it has). */
  whenEnded(f: () => void): void {
    if (this.ended) f();
    else this.onEnd.add(f);
  }

  next(): Promise<IteratorResult<T>> {
    if (this.source !== undefined) {
      const r = this.source.next();
      if (r.done !== true) return Promise.resolve({ value: r.value, done: false });
      this.source = undefined;
    }
    if (this.items.length > 0) {
      const value = this.items.shift();
      this.queuedBytes -= this.sizes.shift();
      if (this.room !== undefined && this.size < this.room.items && this.queuedBytes < this.room.bytes) this.wake();
      return Promise.resolve({ value, done: false });
    }
    if (this.ended) {
      if (this.error !== undefined) {
        const error = this.error;
        this.error = undefined;
        return Promise.reject(error);
      }
      return Promise.resolve({ value: undefined, done: true });
    }
    return new Promise((resolve, reject) => {
      this.waiting = resolve;
      this.waitingReject = reject;
    });
  }

  return(): Promise<IteratorResult<T>> {
    this.close();
    return Promise.resolve({ value: undefined, done: true });
  }

  private fits(size: number): boolean {
    if (this.size >= this.limit) return false;
    const held = this.bytes;
    // One item always fits into an empty queue, whatever its size.
    return held === 0 || held + size <= this.maxBytes;
  }

  private wake(): void {
    const room = this.room;
    this.room = undefined;
    room?.resolve();
  }
}
