/** A bounded map that forgets the least recently used entry first (groupcache's lru, as client-go uses it). */

/**
 * Guarantees: holds at most `capacity` entries; get and set make an entry the most recently used;
 * set beyond capacity drops the least recently used one.
 * Throws: the constructor throws a RangeError for a capacity that is not an integer ≥ 1.
 */
export class LruCache<K, V> {
  readonly #capacity: number;
  /** Insertion order is recency order: the first key is the least recently used. */
  readonly #entries = new Map<K, V>();

  constructor(capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`LruCache: capacity must be an integer >= 1, got ${capacity}`);
    this.#capacity = capacity;
  }

  get size(): number {
    return this.#entries.size;
  }

  get(key: K): V | undefined {
    if (!this.#entries.has(key)) return undefined;
    const value = this.#entries.get(key) as V;
    this.#entries.delete(key);
    this.#entries.set(key, value);
    return value;
  }

  set(key: K, value: V): void {
    this.#entries.delete(key);
    this.#entries.set(key, value);
    if (this.#entries.size > this.#capacity) {
      const oldest = this.#entries.keys().next();
      if (!oldest.done) this.#entries.delete(oldest.value);
    }
  }
}
