/**
 * RevisionLog: the revision bookkeeping of the stores whose writes all pass through this process
 * (memory, SQLite) — a miniature of kine's logstructured layer, without its storage. Each backend
 * keeps only the versions themselves (maps in memory, tables in SQLite) and asks the log for the rest.
 *
 * Expected flow of a write: `checkWrite` (the store is open, the arguments are well formed), the
 * backend reads the key's current version, `prepare` checks the precondition against it and builds
 * the event the write creates at the next revision (carrying the previous version), the backend
 * stores it and sets `revision` to the event's, then `publish`es it once it is committed.
 *
 * Guarantees: the same errors, with the same words and details, from every backend —
 * AlreadyExists and Conflict carry the current version, NotFound the key; a read at a revision
 * above the current one is FutureRevision, below the compact revision Compacted; a watch from below
 * the compact revision is Compacted. Watches (WatchChannel) are fed from `publish` in the same
 * synchronous step as the commit, and end with Closed when the store closes. Every method is
 * synchronous.
 */
import { StoreError, type KeyValue, type WatchEvent, type WatchOptions } from './store.js';
import { checkKey, checkPrefix, checkRevision, checkValue, type StoreLimits } from './validate.js';
import { WatchChannel, type WatchSource } from './watch-channel.js';

/** A write as the store was asked for it. */
export type Write =
  | { readonly kind: 'create'; readonly key: string; readonly value: string }
  | { readonly kind: 'update'; readonly key: string; readonly value: string; readonly expected: number }
  | { readonly kind: 'delete'; readonly key: string; readonly expected: number | undefined };

export type CreateEvent = Extract<WatchEvent, { type: 'create' }>;
export type UpdateEvent = Extract<WatchEvent, { type: 'update' }> & { readonly prev: KeyValue };
export type DeleteEvent = Extract<WatchEvent, { type: 'delete' }> & { readonly prev: KeyValue };
/** The event a write creates; updates and deletions always carry the version they replaced. */
export type WriteEvent = CreateEvent | UpdateEvent | DeleteEvent;

/** A page of history for a watch: see WatchSource.history. */
export type HistoryPage = ReturnType<WatchSource['history']>;

/**
 * Reads up to `limit` events under `prefix` above revision `after` (the log has already checked
 * that `after` is not compacted).
 */
export type HistoryReader = (prefix: string, after: number, limit: number) => HistoryPage;

export class RevisionLog {
  /** The latest revision written; the backend sets it when it stores an event (and back when a transaction fails). */
  revision: number;
  /** The revision history was compacted at. */
  compacted: number;
  /** Set by `close()`. */
  closed = false;
  private readonly channels = new Set<{ prefix: string; channel: WatchChannel }>();

  constructor(
    readonly limits: StoreLimits,
    private readonly readHistory: HistoryReader,
    revision = 0,
    compacted = 0,
  ) {
    this.revision = revision;
    this.compacted = compacted;
  }

  checkOpen(): void {
    if (this.closed) throw new StoreError('Closed', 'the store is closed');
  }

  /** The store is open and `key` is a valid key. */
  checkKey(key: string): void {
    this.checkOpen();
    checkKey(this.limits, key);
  }

  /** The store is open and `prefix` is a valid prefix. */
  checkPrefix(prefix: string): void {
    this.checkOpen();
    checkPrefix(this.limits, prefix);
  }

  /** The store is open and the write's key, value and expected revision are well formed. */
  checkWrite(write: Write): void {
    this.checkOpen();
    checkKey(this.limits, write.key);
    if (write.kind === 'delete') {
      if (write.expected !== undefined) checkRevision('expectedModRevision', write.expected);
      return;
    }
    checkValue(this.limits, write.key, write.value);
    if (write.kind === 'update') checkRevision('expectedModRevision', write.expected);
  }

  /**
   * The event `write` creates at the next revision, given the key's `current` version; or the
   * error of its precondition: AlreadyExists, NotFound, Conflict. Changes nothing.
   */
  prepare(write: Write, current: KeyValue | undefined): WriteEvent | StoreError {
    const key = write.key;
    const revision = this.revision + 1;
    if (write.kind === 'create') {
      if (current !== undefined) return new StoreError('AlreadyExists', `key ${JSON.stringify(key)} already exists`, { key, current });
      return { type: 'create', revision, kv: { key, value: write.value, createRevision: revision, modRevision: revision } };
    }
    if (current === undefined) return new StoreError('NotFound', `key ${JSON.stringify(key)} not found`, { key });
    if (write.expected !== undefined && current.modRevision !== write.expected) {
      return new StoreError('Conflict', `key ${JSON.stringify(key)} is at revision ${current.modRevision}, not ${write.expected}`, { key, current });
    }
    if (write.kind === 'update') {
      return { type: 'update', revision, kv: { key, value: write.value, createRevision: current.createRevision, modRevision: revision }, prev: current };
    }
    return { type: 'delete', revision, key, prev: current };
  }

  /** The revision a read at `requested` (0 or absent: now) happens at; FutureRevision or Compacted when it cannot. */
  readRevision(requested: number | undefined): number {
    if (requested === undefined || requested === 0) return this.revision;
    checkRevision('revision', requested);
    if (requested > this.revision) {
      throw new StoreError('FutureRevision', `revision ${requested} is in the future: the current revision is ${this.revision}`, {
        currentRevision: this.revision,
        requestedRevision: requested,
      });
    }
    if (requested < this.compacted) throw this.compactedError(requested);
    return requested;
  }

  /** The store is open and history may be compacted at `revision` (FutureRevision when it is above the current one). */
  checkCompact(revision: number): void {
    this.checkOpen();
    checkRevision('revision', revision);
    if (revision > this.revision) {
      throw new StoreError('FutureRevision', `cannot compact at revision ${revision}: the current revision is ${this.revision}`, {
        currentRevision: this.revision,
      });
    }
  }

  /** A watch of keys under `prefix` from `fromRevision`: history from the backend's reader, then what is published. */
  watch(prefix: string, fromRevision: number, options: WatchOptions): WatchChannel {
    this.checkPrefix(prefix);
    checkRevision('fromRevision', fromRevision);
    const source: WatchSource = {
      history: (after, limit) => this.history(prefix, after, limit),
      subscribe: (channel) => {
        const entry = { prefix, channel };
        this.channels.add(entry);
        // Stryker disable next-line ArrowFunction: unsubscribing only frees the entry: a finished WatchChannel ignores what it is pushed
        return () => this.channels.delete(entry);
      },
      currentRevision: () => this.revision,
    };
    return new WatchChannel(source, fromRevision, options);
  }

  /** Sends a committed event on `key` to every watch of a prefix of it. */
  publish(key: string, event: WatchEvent): void {
    for (const { prefix, channel } of this.channels) {
      if (key.startsWith(prefix)) channel.push(event);
    }
  }

  /** A progress event at the current revision for every live watch (Store.requestProgress). */
  requestProgress(): void {
    // Stryker disable next-line ConditionalExpression: close() has ended and dropped every channel
    if (this.closed) return;
    for (const { channel } of this.channels) channel.pushProgress(this.revision);
  }

  /** Marks the store closed and ends every watch with Closed. */
  close(): void {
    this.closed = true;
    for (const { channel } of [...this.channels]) channel.fail(new StoreError('Closed', 'the store was closed'));
    this.channels.clear();
  }

  private history(prefix: string, after: number, limit: number): HistoryPage {
    if (this.closed) throw new StoreError('Closed', 'the store was closed');
    if (after < this.compacted) throw this.compactedError(after);
    return this.readHistory(prefix, after, limit);
  }

  private compactedError(revision: number): StoreError {
    return new StoreError('Compacted', `revision ${revision} has been compacted (compact revision ${this.compacted})`, {
      compactRevision: this.compacted,
      currentRevision: this.revision,
    });
  }
}
