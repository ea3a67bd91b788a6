/**
 * Fifo: an array-backed first-in-first-out queue with O(1) amortised push and shift — a head index
 * instead of Array.prototype.shift (which is O(n)), and a compaction that bounds memory.
 */

/**
 * A FIFO of items.
 *
 * Guarantees: items come out of `shift` in the order they were pushed; `length` is how many are
 * in; a shifted slot is cleared at once (the FIFO keeps no reference to an item it handed out);
 * once more than half the backing array (and at least 1024 slots) has been shifted, it is compacted.
 * Assumes the caller checks `length` (or `peek`) before `shift`: shifting an empty FIFO returns
 * undefined typed as T.
 */
export class Fifo<T> {
  #items: Array<T | undefined> = [];
  #head = 0;

  /** How many items are in. */
  get length(): number {
    return this.#items.length - this.#head;
  }

  /** Adds `item` at the back. */
  push(item: T): void {
    this.#items.push(item);
  }

  /** The oldest item, left in place; undefined when the FIFO is empty. */
  peek(): T | undefined {
    return this.#items[this.#head];
  }

  /** Removes and returns the oldest item; the caller checks `length` first. */
  shift(): T {
    const item = this.#items[this.#head] as T;
    this.#items[this.#head] = undefined;
    this.#head++;
    if (this.#head === this.#items.length) {
      this.#items = [];
      this.#head = 0;
      return item;
    }
    // Compaction only bounds memory and keeps shift O(1) amortised: every mutant of its condition or
    // block leaves the items and length as they are (the FIFO test crosses it), so no test can tell;
    // speed is for benchmarks, not tests.
    // Stryker disable next-line all: equivalent — memory and speed only, not behaviour
    if (this.#head >= 1024 && this.#head * 2 >= this.#items.length) {
      this.#items = this.#items.slice(this.#head);
      this.#head = 0;
    }
    return item;
  }

  /** Drops every item. */
  clear(): void {
    this.#items = [];
    this.#head = 0;
  }
}
