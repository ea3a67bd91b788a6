/**
 * A binary min-heap whose items know their position, so one can be removed or re-sorted in
 * O(log n). An item is in at most one Heap at a time (it carries one `heapIndex`).
 */

/** What a Heap holds: any object with a slot for its position (-1 when in no heap). */
export interface HeapItem {
  heapIndex: number;
}

export class Heap<T extends HeapItem> {
  readonly #items: T[] = [];

  readonly #before: (a: T, b: T) => boolean;

  /** `before(a, b)`: a comes out first. */
  constructor(before: (a: T, b: T) => boolean) {
    this.#before = before;
  }

  get size(): number {
    return this.#items.length;
  }

  /** The item that comes out first, left in place. */
  peek(): T | undefined {
    return this.#items[0];
  }

  /** Adds an item that is in no heap. */
  push(item: T): void {
    item.heapIndex = this.#items.length;
    this.#items.push(item);
    this.#up(item.heapIndex);
  }

  /** Removes and returns the item that comes out first. */
  pop(): T | undefined {
    const top = this.#items[0];
    if (top !== undefined) this.remove(top);
    return top;
  }

  /** Removes `item` if it is in this heap; returns whether it was. */
  remove(item: T): boolean {
    const i = item.heapIndex;
    if (i < 0 || this.#items[i] !== item) return false;
    const last = this.#items.pop()!;
    item.heapIndex = -1;
    if (last !== item) {
      this.#items[i] = last;
      last.heapIndex = i;
      this.fix(last);
    }
    return true;
  }

  /** Restores the order after `item`'s sort key changed. */
  fix(item: T): void {
    if (item.heapIndex < 0 || this.#items[item.heapIndex] !== item) return;
    this.#up(item.heapIndex);
    this.#down(item.heapIndex);
  }

  /** Whether `item` is in this heap. */
  has(item: T): boolean {
    return item.heapIndex >= 0 && this.#items[item.heapIndex] === item;
  }

  #swap(i: number, j: number): void {
    const a = this.#items[i]!;
    const b = this.#items[j]!;
    this.#items[i] = b;
    this.#items[j] = a;
    a.heapIndex = j;
    b.heapIndex = i;
  }

  #up(i: number): void {
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.#before(this.#items[i]!, this.#items[parent]!)) return;
      this.#swap(i, parent);
      i = parent;
    }
  }

  #down(i: number): void {
    const n = this.#items.length;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) return;
      const r = l + 1;
      const child = r < n && this.#before(this.#items[r]!, this.#items[l]!) ? r : l;
      if (!this.#before(this.#items[child]!, this.#items[i]!)) return;
      this.#swap(i, child);
      i = child;
    }
  }
}
