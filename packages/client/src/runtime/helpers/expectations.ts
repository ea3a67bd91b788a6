/**
 * Expectations: a controller that has just created or deleted children must not act on them again
 * before its cache shows those changes, or a lagging cache makes it create duplicates. Before
 * creating N children it records the expectation; each create seen by the informer lowers it;
 * while it is unmet the controller does nothing for that key (client-go's ControllerExpectations,
 * with deletions tracked by uid).
 *
 * Guarantees: an expectation expires after `ttlMs` (default 5 minutes), so a lost event (a create
 * that failed after being counted) cannot block a key forever.
 */
import { realClock, type Clock } from '@setpoint/api';

interface Record {
  adds: number;
  deletes: Set<string>;
  at: number;
}

export class Expectations {
  readonly #records = new Map<string, Record>();
  readonly #ttlMs: number;
  readonly #clock: Clock;

  constructor(options: { ttlMs?: number; clock?: Clock } = {}) {
    this.#ttlMs = options.ttlMs ?? 5 * 60_000;
    this.#clock = options.clock ?? realClock;
  }

  /** Whether the controller may act on `key`: nothing pending, or the record expired. */
  satisfied(key: string): boolean {
    const r = this.#records.get(key);
    if (r === undefined) return true;
    if ((r.adds <= 0 && r.deletes.size === 0) || this.#clock.now() - r.at > this.#ttlMs) {
      this.#records.delete(key);
      return true;
    }
    return false;
  }

  /** Records that `count` creates are on their way for `key`. */
  expectCreations(key: string, count: number): void {
    const r = this.#record(key);
    r.adds += count;
    r.at = this.#clock.now();
  }

  /** Records that the objects with these uids are being deleted for `key`. */
  expectDeletions(key: string, uids: readonly string[]): void {
    const r = this.#record(key);
    for (const uid of uids) r.deletes.add(uid);
    r.at = this.#clock.now();
  }

  /** The informer saw a create for `key` (or a create failed and will not be seen). */
  creationObserved(key: string): void {
    const r = this.#records.get(key);
    if (r !== undefined) r.adds--;
  }

  /** The informer saw the deletion of `uid` for `key` (or the delete failed and will not be seen). */
  deletionObserved(key: string, uid: string): void {
    this.#records.get(key)?.deletes.delete(uid);
  }

  /** Forgets `key` (its object was deleted). */
  delete(key: string): void {
    this.#records.delete(key);
  }

  #record(key: string): Record {
    let r = this.#records.get(key);
    if (r === undefined) {
      r = { adds: 0, deletes: new Set(), at: this.#clock.now() };
      this.#records.set(key, r);
    }
    return r;
  }
}
