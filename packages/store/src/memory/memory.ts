/**
 * MemoryStore: the Store in process memory, for tests and the in-process test server.
 * Keeps the same contract as the persistent backends (revisions, history, compaction, watch),
 * but nothing survives the process.
 */
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
import { checkKey, checkPrefix, checkRevision, checkValue, compareKeys, resolveLimits, type StoreLimits } from '../validate.js';
import { WatchChannel, type WatchSource } from '../watch-channel.js';

/** One version of a key; `kv` undefined marks a deletion (tombstone). */
interface Version {
  readonly revision: number;
  readonly kv: KeyValue | undefined;
}

/** Keys visited per step of a compaction before it yields to other work. */
const COMPACT_BATCH = 4096;

export class MemoryStore implements Store {
  readonly backend = 'memory';
  private readonly limits: StoreLimits;
  private revision = 0;
  private compacted = 0;
  private closed = false;
  /** Every key that has a version in history, in code-point order. */
  private keys: string[] = [];
  private readonly versions = new Map<string, Version[]>();
  private readonly current = new Map<string, KeyValue>();
  /** Changes after the compact revision, in revision order. */
  private log: WatchEvent[] = [];
  private readonly channels = new Set<{ prefix: string; channel: WatchChannel }>();

  constructor(options: StoreOptions = {}) {
    this.limits = resolveLimits(options);
  }

  async currentRevision(): Promise<number> {
    this.checkOpen();
    return this.revision;
  }

  async compactRevision(): Promise<number> {
    this.checkOpen();
    return this.compacted;
  }

  async get(key: string): Promise<KeyValue | undefined> {
    this.checkOpen();
    checkKey(this.limits, key);
    return this.current.get(key);
  }

  async list(prefix: string, options: ListOptions = {}): Promise<ListResult> {
    this.checkOpen();
    checkPrefix(this.limits, prefix);
    const revision = this.readRevision(options.revision);
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
    this.checkOpen();
    checkPrefix(this.limits, prefix);
    let count = 0;
    for (let i = this.lowerBound(prefix); i < this.keys.length; i++) {
      const key = this.keys[i]!;
      if (!key.startsWith(prefix)) break;
      if (this.current.has(key)) count++;
    }
    return { count, revision: this.revision };
  }

  async create(key: string, value: string): Promise<KeyValue> {
    this.checkOpen();
    checkKey(this.limits, key);
    checkValue(this.limits, key, value);
    if (this.current.has(key)) throw new StoreError('AlreadyExists', `key ${JSON.stringify(key)} already exists`, { key, current: this.current.get(key) });
    const revision = ++this.revision;
    const kv: KeyValue = { key, value, createRevision: revision, modRevision: revision };
    this.record(kv.key, { revision, kv }, { type: 'create', revision, kv });
    return kv;
  }

  async update(key: string, value: string, expectedModRevision: number): Promise<KeyValue> {
    this.checkOpen();
    checkKey(this.limits, key);
    checkValue(this.limits, key, value);
    checkRevision('expectedModRevision', expectedModRevision);
    const prev = this.current.get(key);
    if (prev === undefined) throw new StoreError('NotFound', `key ${JSON.stringify(key)} not found`, { key });
    if (prev.modRevision !== expectedModRevision) {
      throw new StoreError('Conflict', `key ${JSON.stringify(key)} is at revision ${prev.modRevision}, not ${expectedModRevision}`, { key, current: prev });
    }
    const revision = ++this.revision;
    const kv: KeyValue = { key, value, createRevision: prev.createRevision, modRevision: revision };
    this.record(key, { revision, kv }, { type: 'update', revision, kv, prev });
    return kv;
  }

  async delete(key: string, expectedModRevision?: number): Promise<DeleteResult> {
    this.checkOpen();
    checkKey(this.limits, key);
    if (expectedModRevision !== undefined) checkRevision('expectedModRevision', expectedModRevision);
    const prev = this.current.get(key);
    if (prev === undefined) throw new StoreError('NotFound', `key ${JSON.stringify(key)} not found`, { key });
    if (expectedModRevision !== undefined && prev.modRevision !== expectedModRevision) {
      throw new StoreError('Conflict', `key ${JSON.stringify(key)} is at revision ${prev.modRevision}, not ${expectedModRevision}`, { key, current: prev });
    }
    const revision = ++this.revision;
    this.record(key, { revision, kv: undefined }, { type: 'delete', revision, key, prev });
    return { revision, prev };
  }

  watch(prefix: string, fromRevision: number, options: WatchOptions = {}): AsyncIterableIterator<WatchEvent> {
    this.checkOpen();
    checkPrefix(this.limits, prefix);
    checkRevision('fromRevision', fromRevision);
    const source: WatchSource = {
      history: (after, limit) => this.history(prefix, after, limit),
      subscribe: (channel) => {
        const entry = { prefix, channel };
        this.channels.add(entry);
        // Stryker disable next-line ArrowFunction: only frees memory: a watch removes its entry when it finishes, and a finished channel ignores push and pushProgress
        return () => this.channels.delete(entry);
      },
      currentRevision: () => this.revision,
    };
    return new WatchChannel(source, fromRevision, options);
  }

  requestProgress(): void {
    // Stryker disable next-line ConditionalExpression: close() cleared the channels, so after close the loop below is empty either way
    if (this.closed) return;
    for (const { channel } of this.channels) channel.pushProgress(this.revision);
  }

  async compact(revision: number): Promise<CompactResult> {
    this.checkOpen();
    checkRevision('revision', revision);
    if (revision > this.revision) {
      throw new StoreError('FutureRevision', `cannot compact at revision ${revision}: the current revision is ${this.revision}`, {
        currentRevision: this.revision,
      });
    }
    if (revision <= this.compacted) return { compactRevision: this.compacted, removed: 0 };
    this.compacted = revision;
    let removed = 0;
    // Stryker disable next-line ConditionalExpression,EqualityOperator: only frees memory: history() never returns events at or below the compact revision (it refuses after < compacted and starts above after), so keeping more of the log changes no answer
    const firstKept = this.log.findIndex((e) => e.revision > revision);
    // Stryker disable next-line ConditionalExpression,EqualityOperator,MethodExpression: only frees memory, as above (keeping events at or below the compact revision changes no answer)
    this.log = firstKept < 0 ? [] : this.log.slice(firstKept);
    const keys = this.keys;
    // Stryker disable next-line EqualityOperator: one more step past the end finds no key (keys[length] is undefined: no versions, continue)
    for (let i = 0; i < keys.length; i++) {
      if (i > 0 && i % COMPACT_BATCH === 0) {
        await new Promise((resolve) => setImmediate(resolve));
        if (this.closed) break;
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
    return { compactRevision: this.compacted, removed };
  }

  async close(): Promise<void> {
    // Stryker disable next-line ConditionalExpression: a second close() finds the channels already cleared and closed already true: nothing changes
    if (this.closed) return;
    this.closed = true;
    for (const { channel } of [...this.channels]) channel.fail(new StoreError('Closed', 'the store was closed'));
    this.channels.clear();
  }

  private checkOpen(): void {
    if (this.closed) throw new StoreError('Closed', 'the store is closed');
  }

  private readRevision(requested: number | undefined): number {
    if (requested === undefined || requested === 0) return this.revision;
    checkRevision('revision', requested);
    if (requested > this.revision) {
      throw new StoreError('FutureRevision', `revision ${requested} is in the future: the current revision is ${this.revision}`, {
        currentRevision: this.revision,
        requestedRevision: requested,
      });
    }
    if (requested < this.compacted) {
      throw new StoreError('Compacted', `revision ${requested} has been compacted (compact revision ${this.compacted})`, {
        compactRevision: this.compacted,
        currentRevision: this.revision,
      });
    }
    return requested;
  }

  /** The version of `key` live at `revision`, if any. */
  private at(key: string, revision: number): KeyValue | undefined {
    // Stryker disable next-line ConditionalExpression: a shortcut: at the current revision the newest version found by the search below is the current one
    if (revision === this.revision) return this.current.get(key);
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

  private record(key: string, version: Version, event: WatchEvent): void {
    let versions = this.versions.get(key);
    if (versions === undefined) {
      versions = [];
      this.versions.set(key, versions);
      this.keys.splice(this.lowerBound(key), 0, key);
    }
    versions.push(version);
    if (version.kv === undefined) this.current.delete(key);
    else this.current.set(key, version.kv);
    this.log.push(event);
    for (const { prefix, channel } of this.channels) {
      if (key.startsWith(prefix)) channel.push(event);
    }
  }

  private history(prefix: string, after: number, limit: number): { events: WatchEvent[]; caughtUp: boolean } {
    if (this.closed) throw new StoreError('Closed', 'the store was closed');
    if (after < this.compacted) {
      throw new StoreError('Compacted', `revision ${after} has been compacted (compact revision ${this.compacted})`, {
        compactRevision: this.compacted,
        currentRevision: this.revision,
      });
    }
    // Binary search for the first logged event after `after`.
    let lo = 0;
    let hi = this.log.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.log[mid]!.revision <= after) lo = mid + 1;
      else hi = mid;
    }
    const events: WatchEvent[] = [];
    let i = lo;
    for (; i < this.log.length && events.length < limit; i++) {
      const e = this.log[i]!;
      if (keyOf(e).startsWith(prefix)) events.push(e);
    }
    return { events, caughtUp: i >= this.log.length };
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
