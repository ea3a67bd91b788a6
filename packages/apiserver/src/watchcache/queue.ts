/**
 * EventQueue: an async iterator fed by pushes, holding at most `limit` items. Past the limit it
 * ends with `overflow` (thrown by the next read after the buffered items), so a watcher that stops
 * reading costs bounded memory and the producer never waits.
 */
export class EventQueue<T> implements AsyncIterableIterator<T> {
  private items: T[] = [];
  private head = 0;
  private waiting: ((r: IteratorResult<T>) => void) | undefined;
  private waitingReject: ((e: unknown) => void) | undefined;
  private ended = false;
  private error: unknown;
  private readonly onEnd = new Set<() => void>();
  private room: { readonly below: number; readonly resolve: () => void } | undefined;

  constructor(
    private readonly limit: number,
    private readonly overflow: () => Error,
  ) {}

  [Symbol.asyncIterator](): this {
    return this;
  }

  /** Items waiting to be read. */
  get size(): number {
    return this.items.length - this.head;
  }

  get closed(): boolean {
    return this.ended;
  }

  /** Adds an item; false when the queue has ended (or just ended by overflowing). */
  push(item: T): boolean {
    if (this.ended) return false;
    if (this.waiting !== undefined) {
      const resolve = this.waiting;
      this.waiting = undefined;
      this.waitingReject = undefined;
      resolve({ value: item, done: false });
      return true;
    }
    if (this.size >= this.limit) {
      this.fail(this.overflow());
      return false;
    }
    this.items.push(item);
    return true;
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

  /** Ends the queue at once, dropping buffered items; reads throw `error`. */
  fail(error: unknown): void {
    this.items = [];
    this.head = 0;
    this.end(error);
  }

  /**
   * Resolves once fewer than `below` items wait, or the queue has ended: a producer that can wait
   * (a replay of history) goes at the reader's pace instead of overflowing. One waiter at a time.
   */
  whenBelow(below: number): Promise<void> {
    if (this.ended || this.size < below) return Promise.resolve();
    return new Promise((resolve) => (this.room = { below, resolve }));
  }

  /** Runs `f` when the queue ends (at once if it has). */
  whenEnded(f: () => void): void {
    if (this.ended) f();
    else this.onEnd.add(f);
  }

  next(): Promise<IteratorResult<T>> {
    if (this.head < this.items.length) {
      const value = this.items[this.head++]!;
      if (this.head >= 1024 && this.head * 2 >= this.items.length) {
        this.items = this.items.slice(this.head);
        this.head = 0;
      }
      if (this.room !== undefined && this.size < this.room.below) this.wake();
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

  private wake(): void {
    const room = this.room;
    this.room = undefined;
    room?.resolve();
  }

  return(): Promise<IteratorResult<T>> {
    this.fail(undefined);
    return Promise.resolve({ value: undefined, done: true });
  }
}
