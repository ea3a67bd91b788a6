/**
 * MemoryStore: the Store in process memory, for tests and the in-process test server.
 * Keeps the same contract as the persistent backends (revisions, history, compaction, watch),
 * but nothing survives the process. The revisions, preconditions and watches are the RevisionLog's;
 * this file keeps the versions: every key's history, the current versions and the event log.
 */
import { RevisionLog, type CreateEvent, type DeleteEvent, type HistoryPage, type UpdateEvent, type Write, type WriteEvent } from '../revision-log.js';
import {
  StoreError,
  type CompactResult,
  type CountResult,
  type DeleteResult,
  type KeyValue,
  type ListOptions,
  type ListResult,
  type Store,
  type StoreOptions,
  type WatchEvent,
  type WatchOptions,
} from '../store.js';
import { checkLimit, compareKeys, resolveLimits } from '../validate.js';

/** One version of a key; `kv` undefined marks a deletion (tombstone). */
interface Version {
  readonly revision: number;
  readonly kv: KeyValue | undefined;
}

/** Keys visited per step of a compaction before it yields to other work. */
const COMPACT_BATCH = 4096;

export class MemoryStore implements Store {
  readonly backend = 'memory';
  private readonly log: RevisionLog;
  /** Every key that has a version in history, in code-point order. */
  private keys: string[] = [];
  private readonly versions = new Map<string, Version[]>();
  private readonly current = new Map<string, KeyValue>();
  /** Changes after the compact revision, in revision order. */
  private events: WriteEvent[] = [];

  constructor(options: StoreOptions = {}) {
    this.log = new RevisionLog(resolveLimits(options), (prefix, after, limit) => this.history(prefix, after, limit));
  }

  async currentRevision(): Promise<number> {
    this.log.checkOpen();
    return this.log.revision;
  }

  async compactRevision(): Promise<number> {
    this.log.checkOpen();
    return this.log.compacted;
  }

  async get(key: string): Promise<KeyValue | undefined> {
    this.log.checkKey(key);
    return this.current.get(key);
  }

  async list(prefix: string, options: ListOptions = {}): Promise<ListResult> {
    this.log.checkPrefix(prefix);
    checkLimit(options.limit);
    const revision = this.log.readRevision(options.revision);
    const limit = options.limit !== undefined && options.limit > 0 ? options.limit : Infinity;
    const items: KeyValue[] = [];
    let more = false;
    const from = options.after !== undefined && compareKeys(options.after, prefix) >= 0 ? options.after : prefix;
    let i = this.lowerBound(from);
    if (options.after !== undefined && this.keys[i] === options.after) i++;
    for (; i < this.keys.length; i++) {
      const key = this.keys[i]!;
      if (!key.startsWith(prefix)) break;
      const kv = this.at(key, revision);
      if (kv === undefined) continue;
      if (items.length >= limit) {
        more = true;
        break;
      }
      items.push(kv);
    }
    return { items, revision, more };
  }

  async count(prefix: string): Promise<CountResult> {
    this.log.checkPrefix(prefix);
    let count = 0;
    for (let i = this.lowerBound(prefix); i < this.keys.length; i++) {
      const key = this.keys[i]!;
      if (!key.startsWith(prefix)) break;
      if (this.current.has(key)) count++;
    }
    return { count, revision: this.log.revision };
  }

  async create(key: string, value: string): Promise<KeyValue> {
    return (this.write({ kind: 'create', key, value }) as CreateEvent).kv;
  }

  async update(key: string, value: string, expectedModRevision: number): Promise<KeyValue> {
    return (this.write({ kind: 'update', key, value, expected: expectedModRevision }) as UpdateEvent).kv;
  }

  async delete(key: string, expectedModRevision?: number): Promise<DeleteResult> {
    const event = this.write({ kind: 'delete', key, expected: expectedModRevision }) as DeleteEvent;
    return { revision: event.revision, prev: event.prev };
  }

  watch(prefix: string, fromRevision: number, options: WatchOptions = {}): AsyncIterableIterator<WatchEvent> {
    return this.log.watch(prefix, fromRevision, options);
  }

  requestProgress(): void {
    this.log.requestProgress();
  }

  async compact(revision: number): Promise<CompactResult> {
    this.log.checkCompact(revision);
    if (revision <= this.log.compacted) return { compactRevision: this.log.compacted, removed: 0 };
    this.log.compacted = revision;
    let removed = 0;
    // Stryker disable next-line ConditionalExpression,EqualityOperator: only frees memory: history() never returns events at or below the compact revision (it refuses after < compacted and starts above after), so keeping more of the log changes no answer
    const firstKept = this.events.findIndex((e) => e.revision > revision);
    // Stryker disable next-line ConditionalExpression,EqualityOperator,MethodExpression: only frees memory, as above (keeping events at or below the compact revision changes no answer)
    this.events = firstKept < 0 ? [] : this.events.slice(firstKept);
    const keys = this.keys;
    // Stryker disable next-line EqualityOperator: one more step past the end finds no key (keys[length] is undefined: no versions, continue)
    for (let i = 0; i < keys.length; i++) {
      if (i > 0 && i % COMPACT_BATCH === 0) {
        await new Promise((resolve) => setImmediate(resolve));
        if (this.log.closed) break;
      }
      const key = keys[i]!;
      const versions = this.versions.get(key);
      if (versions === undefined) continue;
      let latest = -1; // index of the latest version at or below the compact revision
      // Stryker disable next-line EqualityOperator: index 0 is never a tombstone with older versions (they sort before it), so not looking at it leaves drop at 0 when it would be 0
      for (let j = versions.length - 1; j >= 0; j--) {
        if (versions[j]!.revision <= revision) {
          latest = j;
          break;
        }
      }
      // Stryker disable next-line EqualityOperator: latest 0 means drop 0 (index 0 is a live version, see above): skipping it changes nothing
      if (latest < 0) continue;
      const drop = versions[latest]!.kv === undefined ? latest + 1 : latest;
      // Stryker disable next-line ConditionalExpression: splice(0, 0) and removed += 0 change nothing; the early continue only saves the work
      if (drop === 0) continue;
      versions.splice(0, drop);
      removed += drop;
      // Stryker disable next-line ConditionalExpression: only frees memory: a key left with an empty version list reads as absent (no version at or below any revision) and stays in keys once
      if (versions.length === 0) this.versions.delete(key);
    }
    this.keys = this.keys.filter((k) => this.versions.has(k));
    return { compactRevision: this.log.compacted, removed };
  }

  async close(): Promise<void> {
    this.log.close();
  }

  /** Checks and applies one write; throws its precondition's error. */
  private write(write: Write): WriteEvent {
    this.log.checkWrite(write);
    const event = this.log.prepare(write, this.current.get(write.key));
    if (event instanceof StoreError) throw event;
    this.record(write.key, { revision: event.revision, kv: event.type === 'delete' ? undefined : event.kv }, event);
    return event;
  }

  /** The version of `key` live at `revision`, if any. */
  private at(key: string, revision: number): KeyValue | undefined {
    // Stryker disable next-line ConditionalExpression: a shortcut: at the current revision the newest version found by the search below is the current one
    if (revision === this.log.revision) return this.current.get(key);
    const versions = this.versions.get(key);
    if (versions === undefined) return undefined;
    for (let j = versions.length - 1; j >= 0; j--) {
      const v = versions[j]!;
      if (v.revision <= revision) return v.kv;
    }
    return undefined;
  }

  /** Index of the first key >= `key` in the sorted key array. */
  private lowerBound(key: string): number {
    let lo = 0;
    let hi = this.keys.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (compareKeys(this.keys[mid]!, key) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  private record(key: string, version: Version, event: WriteEvent): void {
    let versions = this.versions.get(key);
    if (versions === undefined) {
      versions = [];
      this.versions.set(key, versions);
      this.keys.splice(this.lowerBound(key), 0, key);
    }
    versions.push(version);
    if (version.kv === undefined) this.current.delete(key);
    else this.current.set(key, version.kv);
    this.events.push(event);
    this.log.revision = event.revision;
    this.log.publish(key, event);
  }

  private history(prefix: string, after: number, limit: number): HistoryPage {
    // Binary search for the first logged event after `after`.
    let lo = 0;
    let hi = this.events.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.events[mid]!.revision <= after) lo = mid + 1;
      else hi = mid;
    }
    const events: WatchEvent[] = [];
    let i = lo;
    for (; i < this.events.length && events.length < limit; i++) {
      const e = this.events[i]!;
      if (keyOf(e).startsWith(prefix)) events.push(e);
    }
    return { events, caughtUp: i >= this.events.length };
  }
}

function keyOf(e: WatchEvent): string {
  switch (e.type) {
    case 'create':
    case 'update':
      return e.kv.key;
    case 'delete':
      return e.key;
    // Stryker disable next-line ConditionalExpression,StringLiteral: unreachable: progress events are never recorded in the log
    case 'progress':
      // Stryker disable next-line StringLiteral: unreachable, as above
      return '';
  }
}
