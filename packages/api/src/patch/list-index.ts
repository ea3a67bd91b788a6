/**
 * ListIndex: finds the elements of a list by identity — the value of a merge key for lists of
 * maps, the element itself for lists of primitives — in constant time when the identity is a
 * primitive (the usual case), so that merging large lists stays linear. Internal to patch/.
 */
import { hasKey, isJsonObject, jsonEqual } from './value.js';

/** The identity of a list element: the value of `by` for maps (`undefined` when missing), or the element when `by` is ''. */
export function identityOf(item: unknown, by: string): unknown {
  if (by === '') return item;
  return isJsonObject(item) && hasKey(item, by) ? item[by] : undefined;
}

export class ListIndex {
  readonly #primitive = new Map<unknown, number[]>();
  readonly #complex: Array<[unknown, number]> = [];
  readonly #by: string;

  /** Indexes `items` (positions 0…n-1) by identity under merge key `by` ('' for primitives). */
  constructor(items: readonly unknown[], by: string) {
    this.#by = by;
    items.forEach((item, i) => this.add(item, i));
  }

  /** Records that `item` is at `position`. */
  add(item: unknown, position: number): void {
    const id = identityOf(item, this.#by);
    if (typeof id === 'object' && id !== null) {
      this.#complex.push([id, position]);
      return;
    }
    const positions = this.#primitive.get(id);
    if (positions === undefined) this.#primitive.set(id, [position]);
    else positions.push(position);
  }

  /** Every recorded position of an element with the same identity as `item`, in recording order. */
  positionsOf(item: unknown): readonly number[] {
    const id = identityOf(item, this.#by);
    if (typeof id === 'object' && id !== null) return this.#complex.filter(([c]) => jsonEqual(c, id)).map(([, p]) => p);
    return this.#primitive.get(id) ?? [];
  }

  /** The first recorded position of an element with the same identity as `item`, or -1. */
  firstOf(item: unknown): number {
    return this.positionsOf(item)[0] ?? -1;
  }

  /** Whether an element with the same identity as `item` was recorded. */
  has(item: unknown): boolean {
    return this.positionsOf(item).length > 0;
  }
}

/** The list without repeated elements (first occurrences, in order). */
export function dedupe(values: readonly unknown[]): unknown[] {
  const seen = new ListIndex([], '');
  const out: unknown[] = [];
  for (const v of values) {
    if (seen.has(v)) continue;
    seen.add(v, out.length);
    out.push(v);
  }
  return out;
}
