/**
 * The delaying queue: a work queue that can add an item later (client-go's delaying_queue.go).
 * Waiting items sit in a min-heap on their due time; one clock timer is armed for the heap's head.
 */
import type { Timer } from './clock.js';
import { WorkQueue, type WorkQueueInterface } from './queue.js';

/** The contract of a delaying queue (client-go's `DelayingInterface`). */
export interface DelayingInterface<T> extends WorkQueueInterface<T> {
  /** Adds `item` once `delayMs` milliseconds have passed on the queue's clock; now if ≤ 0. */
  addAfter(item: T, delayMs: number): void;
}

/** One item waiting in the heap. */
interface Waiting<T> {
  readonly item: T;
  readyAt: number;
  /** Breaks ties between equal due times: first come, first added. */
  readonly seq: number;
  /** Position in the heap, kept up to date by every move. */
  index: number;
}

function before<T>(a: Waiting<T>, b: Waiting<T>): boolean {
  return a.readyAt < b.readyAt || (a.readyAt === b.readyAt && a.seq < b.seq);
}

/**
 * A work queue with `addAfter` (client-go's delaying queue).
 *
 * Guarantees: an item is added (with `add`, so it coalesces as usual) at the first moment the
 * queue's clock reaches its due time; items falling due together are added in due-time order, ties
 * in the order `addAfter` was called. While an item waits, further `addAfter`s for it keep only the
 * earliest due time (a later one never postpones it). At most one clock timer is pending, for the
 * earliest due time, and it is unref'd, so waiting items do not keep the process alive. Shutting
 * down drops every waiting item and cancels the timer.
 *
 * Assumes the clock never goes back. A `delayMs` ≤ 0 or NaN adds at once. Every `addAfter` while
 * the queue accepts adds counts as a retry in the metrics (workqueue_retries_total), as in client-go.
 */
export class DelayingQueue<T = string> extends WorkQueue<T> implements DelayingInterface<T> {
  /** Binary min-heap on (readyAt, seq). */
  readonly #heap: Array<Waiting<T>> = [];
  /** The heap entry of each waiting item, so a second addAfter finds it. */
  readonly #waiting = new Map<T, Waiting<T>>();
  #seq = 0;
  #timer: Timer | undefined;
  /** The due time the timer is armed for (Infinity when none is). */
  #timerDue = Number.POSITIVE_INFINITY;

  addAfter(item: T, delayMs: number): void {
    if (this.shuttingDown()) return;
    this.metrics.retry();
    if (!(delayMs > 0)) {
      this.add(item);
      return;
    }
    const readyAt = this.clock.now() + delayMs;
    const existing = this.#waiting.get(item);
    if (existing !== undefined) {
      if (readyAt >= existing.readyAt) return;
      existing.readyAt = readyAt;
      this.#siftUp(existing);
    } else {
      const entry: Waiting<T> = { item, readyAt, seq: this.#seq++, index: this.#heap.length };
      this.#heap.push(entry);
      this.#waiting.set(item, entry);
      this.#siftUp(entry);
    }
    this.#arm();
  }

  /** How many items wait for their due time (not yet added). */
  waitingLen(): number {
    return this.#heap.length;
  }

  protected override onShutDown(): void {
    this.#timer?.cancel();
    this.#timer = undefined;
    this.#timerDue = Number.POSITIVE_INFINITY;
    this.#heap.length = 0;
    this.#waiting.clear();
  }

  /** Arms the timer for the heap's head, unless it is armed for that time already. */
  #arm(): void {
    const head = this.#heap[0];
    const due = head?.readyAt ?? Number.POSITIVE_INFINITY;
    if (due === this.#timerDue) return;
    this.#timer?.cancel();
    this.#timer = undefined;
    this.#timerDue = due;
    if (head === undefined) return;
    this.#timer = this.clock.setTimeout(() => this.#fire(), due - this.clock.now()).unref();
  }

  /** Adds every item that has fallen due, then re-arms for the next one. */
  #fire(): void {
    this.#timer = undefined;
    this.#timerDue = Number.POSITIVE_INFINITY;
    const now = this.clock.now();
    for (;;) {
      const head = this.#heap[0];
      if (head === undefined || head.readyAt > now) break;
      this.#popHead();
      this.#waiting.delete(head.item);
      this.add(head.item);
    }
    // A timer clamped by the clock (delays over ~24.8 days) fires early and simply re-arms.
    if (!this.shuttingDown()) this.#arm();
  }

  #popHead(): void {
    const heap = this.#heap;
    const last = heap.pop();
    if (last === undefined || heap.length === 0) return;
    last.index = 0;
    heap[0] = last;
    this.#siftDown(last);
  }

  #siftUp(entry: Waiting<T>): void {
    const heap = this.#heap;
    let i = entry.index;
    while (i > 0) {
      const parentIndex = (i - 1) >> 1;
      const parent = heap[parentIndex] as Waiting<T>;
      if (!before(entry, parent)) break;
      heap[i] = parent;
      parent.index = i;
      i = parentIndex;
    }
    heap[i] = entry;
    entry.index = i;
  }

  #siftDown(entry: Waiting<T>): void {
    const heap = this.#heap;
    let i = entry.index;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= heap.length) break;
      const right = left + 1;
      let childIndex = left;
      if (right < heap.length && before(heap[right] as Waiting<T>, heap[left] as Waiting<T>)) childIndex = right;
      const child = heap[childIndex] as Waiting<T>;
      if (!before(child, entry)) break;
      heap[i] = child;
      child.index = i;
      i = childIndex;
    }
    heap[i] = entry;
    entry.index = i;
  }
}
