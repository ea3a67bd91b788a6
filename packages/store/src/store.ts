/**
 * The versioned key-value store: the one interface every backend (memory, SQLite, etcd) keeps.
 *
 * Model (etcd's, which Kubernetes' resourceVersion is built on):
 * - One global revision counter. Every successful write (create, update, delete) creates exactly one
 *   new revision, strictly greater than every revision before it, also across restarts.
 * - Each live key has a createRevision (the revision that created it) and a modRevision (the revision
 *   of its latest write).
 * - History (superseded versions and deletions) is kept until it is compacted. Reads at a past
 *   revision and watches from a past revision work for any revision >= the compact revision.
 *
 * Keys are non-empty, well-formed strings under the store's prefix (default "/"). They are ordered by
 * code point (the same order as UTF-8 bytes, which is what SQLite and etcd use). Values are
 * well-formed strings (usually JSON) of at most `maxValueBytes` UTF-8 bytes.
 */
import type { Clock } from '@setpoint/api';

export interface Store {
  /** Backend name: "memory", "sqlite", "etcd". */
  readonly backend: string;

  /** The latest revision written (0 for a store that was never written). */
  currentRevision(): Promise<number>;

  /** The current version of `key`, or undefined when it does not exist. */
  get(key: string): Promise<KeyValue | undefined>;

  /**
   * Keys starting with `prefix`, in key order, as they were at `options.revision` (default: now).
   * With `after`, only keys strictly greater than it; with `limit`, at most that many, and `more`
   * tells whether keys remain. Pages read at the same revision form a consistent snapshot.
   * Throws StoreError Compacted when the revision is below the compact revision, and
   * FutureRevision when it is above the current one.
   */
  list(prefix: string, options?: ListOptions): Promise<ListResult>;

  /** How many live keys start with `prefix`, and the revision counted at. */
  count(prefix: string): Promise<CountResult>;

  /** Creates `key`. Throws AlreadyExists when it exists. Returns the new version. */
  create(key: string, value: string): Promise<KeyValue>;

  /**
   * Replaces the value of `key` if its modRevision is still `expectedModRevision`.
   * Throws NotFound when absent, Conflict (carrying the current version) when it has moved on.
   */
  update(key: string, value: string, expectedModRevision: number): Promise<KeyValue>;

  /**
   * Deletes `key`, if given only when its modRevision is still `expectedModRevision`.
   * Throws NotFound when absent, Conflict when it has moved on. Returns the revision of the deletion
   * and the version deleted.
   */
  delete(key: string, expectedModRevision?: number): Promise<DeleteResult>;

  /**
   * Every change to keys under `prefix` with a revision greater than `fromRevision`, in revision order,
   * without gaps or duplicates, until `options.signal` aborts (the iterator then ends normally).
   *
   * Throws (from the iterator) StoreError Compacted when `fromRevision` is below the compact revision,
   * and WatchOverflow when the consumer fell more than `options.maxBuffered` events behind; the error
   * carries `lastRevision`, the revision to resume from. A slow consumer never blocks writers or
   * other watchers.
   */
  watch(prefix: string, fromRevision: number, options?: WatchOptions): AsyncIterableIterator<WatchEvent>;

  /**
   * Asks every open watch that has caught up with history for a `progress` event carrying the
   * current revision, delivered after every change it has already been sent (etcd's
   * RequestProgress). A watcher uses it to learn that it has seen everything up to a revision.
   */
  requestProgress(): void;

  /**
   * Drops history below `revision`: superseded versions and deletions. The latest version of every
   * live key is kept. Works in batches so writes are not stalled. Compacting at or below the current
   * compact revision does nothing. Throws FutureRevision when `revision` is above the current one.
   */
  compact(revision: number): Promise<CompactResult>;

  /** The revision history was last compacted at (0 if never). */
  compactRevision(): Promise<number>;

  /**
   * Closes the store: every open watch ends (its iterator throws StoreError Closed), writes already
   * accepted are committed, files are released. Later calls throw Closed.
   */
  close(): Promise<void>;
}

/** One version of one key. */
export interface KeyValue {
  readonly key: string;
  readonly value: string;
  readonly createRevision: number;
  readonly modRevision: number;
}

export interface ListOptions {
  /** Read at this revision; 0 or absent: the current one. */
  readonly revision?: number;
  /** At most this many items (0 or absent: no limit). */
  readonly limit?: number;
  /** Only keys strictly greater than this one (the last key of the previous page). */
  readonly after?: string;
}

export interface ListResult {
  readonly items: KeyValue[];
  /** The revision the list was read at; pass it back as `revision` for the next page. */
  readonly revision: number;
  /** Whether keys remain after the last item returned. */
  readonly more: boolean;
}

export interface CountResult {
  readonly count: number;
  readonly revision: number;
}

export interface DeleteResult {
  /** The revision created by the deletion. */
  readonly revision: number;
  /** The version that was deleted. */
  readonly prev: KeyValue;
}

export interface WatchOptions {
  /** Ends the watch; the iterator then finishes without an error. */
  readonly signal?: AbortSignal;
  /** Events held for a consumer that is not reading before the watch is ended with WatchOverflow. Default 10,000. */
  readonly maxBuffered?: number;
  /**
   * When set, a `progress` event carrying the current revision is sent after this many milliseconds
   * without any event for this watch, so idle watchers learn how far the store has moved.
   */
  readonly progressIntervalMs?: number;
  /** The clock `progressIntervalMs` is measured on. Default the real clock. */
  readonly clock?: Clock;
}

/** A change seen by a watch. `revision` is the revision the change created. */
export type WatchEvent =
  | { readonly type: 'create'; readonly revision: number; readonly kv: KeyValue }
  | { readonly type: 'update'; readonly revision: number; readonly kv: KeyValue; readonly prev: KeyValue | undefined }
  | { readonly type: 'delete'; readonly revision: number; readonly key: string; readonly prev: KeyValue | undefined }
  | { readonly type: 'progress'; readonly revision: number };

export interface CompactResult {
  /** The compact revision after this call. */
  readonly compactRevision: number;
  /** Rows (superseded versions and tombstones) removed by this call. */
  readonly removed: number;
}

/** Why a store operation failed. */
export type StoreErrorCode =
  | 'NotFound'
  | 'AlreadyExists'
  | 'Conflict'
  | 'Compacted'
  | 'FutureRevision'
  | 'InvalidKey'
  | 'InvalidValue'
  | 'ValueTooLarge'
  | 'WatchOverflow'
  | 'Closed'
  | 'Unavailable';

export interface StoreErrorDetails {
  readonly key?: string;
  /** Conflict: the version the key has now. */
  readonly current?: KeyValue;
  /** Compacted: the revision history was compacted at. */
  readonly compactRevision?: number;
  /** FutureRevision, Compacted: the store's current revision. */
  readonly currentRevision?: number;
  /** FutureRevision of a read: the revision asked for. */
  readonly requestedRevision?: number;
  /** WatchOverflow: the last revision delivered to the consumer, to resume from. */
  readonly lastRevision?: number;
  readonly cause?: unknown;
}

/** The one error class stores throw; `code` says why. */
export class StoreError extends Error {
  override readonly name = 'StoreError';
  readonly code: StoreErrorCode;
  readonly key: string | undefined;
  readonly current: KeyValue | undefined;
  readonly compactRevision: number | undefined;
  readonly currentRevision: number | undefined;
  readonly requestedRevision: number | undefined;
  readonly lastRevision: number | undefined;

  constructor(code: StoreErrorCode, message: string, details: StoreErrorDetails = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.code = code;
    this.key = details.key;
    this.current = details.current;
    this.compactRevision = details.compactRevision;
    this.currentRevision = details.currentRevision;
    this.requestedRevision = details.requestedRevision;
    this.lastRevision = details.lastRevision;
  }
}

/** True when `err` is a StoreError with the given code. */
export function isStoreError(err: unknown, code?: StoreErrorCode): err is StoreError {
  return err instanceof StoreError && (code === undefined || err.code === code);
}

/** Options every backend accepts. */
export interface StoreOptions {
  /** Every key must start with this prefix. Default "/". */
  readonly prefix?: string;
  /** Largest value accepted, in UTF-8 bytes. Default 1.5 MiB (etcd's default request limit). */
  readonly maxValueBytes?: number;
}

export const DEFAULT_MAX_VALUE_BYTES = 1.5 * 1024 * 1024;
export const DEFAULT_WATCH_BUFFER = 10_000;
