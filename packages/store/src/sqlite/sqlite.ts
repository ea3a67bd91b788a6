/**
 * SqliteStore: the Store on an embedded SQLite database (better-sqlite3), the default backend.
 *
 * Expected flow: `SqliteStore.open({ path })` opens (or creates) the database in WAL mode with
 * synchronous=FULL and takes an exclusive lock on it, so one process owns it. Writes are queued and
 * committed together at the end of the current turn of the event loop: all writes that arrived in
 * that turn share one transaction and one fsync (group commit). A write's promise settles only after
 * its transaction committed, so an acknowledged write survives kill -9 and power loss.
 *
 * Revisions, preconditions and watches are the RevisionLog's; this file keeps the log's rows.
 *
 * Guarantees: revisions are the log's row ids, assigned in commit order and never reused (SQLite's
 * AUTOINCREMENT keeps the high-water mark even when compaction removes the newest rows). Watches are
 * fed from the commit path in the same synchronous step, so they see every change exactly once.
 * Compaction runs in small transactions, records how far it got, and resumes after a restart.
 *
 * Assumptions: only this process writes the database (the exclusive lock enforces it).
 *
 * File modes: a new database file is created mode 0600 before SQLite opens it (it holds Secrets);
 * SQLite gives the -wal and -shm files it makes the mode of the database file, whenever it makes
 * them again. An existing file keeps its mode (the server tightens its data dir at start).
 */
import { closeSync, openSync } from 'node:fs';
import Database from 'better-sqlite3';
import { RevisionLog, type HistoryPage, type Write, type WriteEvent } from '../revision-log.js';
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
import { checkLimit, compareKeys, prefixEnd, resolveLimits } from '../validate.js';
import { DEFAULT_RESERVE_BYTES, SpaceReserve, isDiskFull } from './reserve.js';
import { createSchema, prepareStatements, RowType, type CurrentRow, type EventRow, type Statements, useIncrementalVacuum } from './schema.js';

export interface SqliteStoreOptions extends StoreOptions {
  /** The database file; created when missing. */
  readonly path: string;
  /**
   * fsync each commit (synchronous=FULL). Default true; false trades durability against power loss
   * for speed (a process crash still loses nothing).
   */
  readonly durable?: boolean;
  /** Log revisions removed per compaction transaction. Default 2,000. */
  readonly compactionBatch?: number;
  /**
   * Most writes committed in one transaction. Default 2,048; 1 commits every write on its own
   * (no group commit), which only benchmarks want.
   */
  readonly maxBatch?: number;
  /**
   * Bytes of disk kept in reserve beside the database (`<path>-reserve`), given up when the disk
   * fills so deletes still commit (see SpaceReserve). Default 16 MiB; 0: none (a full disk then
   * refuses deletes too).
   */
  readonly reserveBytes?: number;
  /**
   * How long opening waits for another process that holds the file (SQLite's busy timeout) before
   * it fails with "in use by another process". Default 5,000 ms.
   */
  readonly busyTimeoutMs?: number;
}

/** Counters that show what the store did (for metrics and tests). */
export interface SqliteStoreStats {
  commits: number;
  writes: number;
  compactedRows: number;
  vacuumedPages: number;
}

type Pending =
  | (Extract<Write, { kind: 'create' | 'update' }> & { resolve: (kv: KeyValue) => void; reject: (e: unknown) => void })
  | (Extract<Write, { kind: 'delete' }> & { resolve: (r: DeleteResult) => void; reject: (e: unknown) => void });

const MAX_BATCH = 2048;
/** How much larger an update may make an object while the disk is full (a deletion mark, a status change). */
const LOW_SPACE_GROWTH_BYTES = 1024;

export class SqliteStore implements Store {
  readonly backend = 'sqlite';
  readonly stats: SqliteStoreStats = { commits: 0, writes: 0, compactedRows: 0, vacuumedPages: 0 };
  private readonly log: RevisionLog;
  private readonly db: Database.Database;
  private readonly stmt: Statements;
  private readonly compactionBatch: number;
  private readonly maxBatch: number;
  private compactedThrough: number;
  private queue: Pending[] = [];
  private flushScheduled = false;
  private compaction: Promise<CompactResult> | undefined;
  private readonly applyBatch: (ops: Pending[]) => Array<WriteEvent | StoreError>;
  private readonly path: string;
  private readonly reserve: SpaceReserve;
  /**
   * The disk is full (or was at the last try): only writes that free space or barely add to it are
   * committed — deletes, and updates growing an object by at most LOW_SPACE_GROWTH_BYTES — until
   * the reserve can be made again.
   */
  private lowSpace = false;
  private damagedFile: string | undefined;

  private constructor(options: SqliteStoreOptions) {
    const limits = resolveLimits(options);
    this.compactionBatch = options.compactionBatch ?? 2000;
    this.maxBatch = Math.max(1, options.maxBatch ?? MAX_BATCH);
    try {
      createPrivately(options.path);
      this.db = new Database(options.path, { timeout: options.busyTimeoutMs ?? 5000 });
    } catch (err) {
      throw new StoreError('Unavailable', `cannot open the database ${options.path}: ${(err as Error).message}`, { cause: err });
    }
    try {
      this.db.pragma('locking_mode = EXCLUSIVE');
      useIncrementalVacuum(this.db, isDiskFull);
      this.db.pragma('journal_mode = WAL');
      this.db.pragma(`synchronous = ${options.durable === false ? 'NORMAL' : 'FULL'}`);
      this.db.pragma('journal_size_limit = 67108864');
      this.db.pragma('cache_size = -65536');
      createSchema(this.db);
      this.stmt = prepareStatements(this.db);
      const revision = this.stmt.sequence.get()?.seq ?? 0;
      // Stryker disable next-line OptionalChaining: createSchema() made the row
      const compacted = this.stmt.getMeta.get('compact_revision')?.value ?? 0;
      this.log = new RevisionLog(limits, (prefix, after, limit) => this.history(prefix, after, limit), revision, compacted);
      // Stryker disable next-line OptionalChaining,LogicalOperator,StringLiteral: createSchema() made the row; read as 0, compaction after a restart starts over and removes nothing more (it removes the same rows at or below a revision every time): how far it got only spares redoing that
      this.compactedThrough = this.stmt.getMeta.get('compacted_through')?.value ?? 0;
    } catch (err) {
      // A file that is damaged, in use, or another program's database (its tables have other columns).
      this.db.close();
      const message = (err as { code?: string }).code === 'SQLITE_BUSY' ? 'it is in use by another process' : (err as Error).message;
      if (isCorruptDatabase(err)) throw corruptError(options.path, err);
      throw new StoreError('Unavailable', `cannot open the database ${options.path}: ${message}`, { cause: err });
    }
    this.applyBatch = this.db.transaction((ops: Pending[]) => ops.map((op) => this.apply(op)));
    this.path = options.path;
    this.reserve = new SpaceReserve(options.path, options.path === ':memory:' || options.path === '' ? 0 : (options.reserveBytes ?? DEFAULT_RESERVE_BYTES));
    this.lowSpace = !this.reserve.acquire();
  }

  /**
   * SQLite's words ("database disk image is malformed") once a read or write found the database
   * file damaged (SQLITE_CORRUPT, SQLITE_NOTADB); undefined while none has.
   */
  get damaged(): string | undefined {
    return this.damagedFile;
  }

  /** Whether the disk is full as far as the store knows: it then takes only deletes and small updates. */
  get diskFull(): boolean {
    return this.lowSpace;
  }

  /** Opens (creating if needed) the database at `options.path`. Resumes an unfinished compaction. */
  static async open(options: SqliteStoreOptions): Promise<SqliteStore> {
    const store = new SqliteStore(options);
    // Stryker disable next-line ConditionalExpression,EqualityOperator: a compaction resumed with nothing left to do removes nothing
    if (store.compactedThrough < store.log.compacted) {
      store.compaction = store.runCompaction(store.log.compacted).finally(() => (store.compaction = undefined));
    }
    return store;
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
    const row = this.reading(() => this.stmt.get.get(key));
    return row === undefined ? undefined : toKeyValue(row);
  }

  async list(prefix: string, options: ListOptions = {}): Promise<ListResult> {
    this.log.checkPrefix(prefix);
    checkLimit(options.limit);
    const revision = this.log.readRevision(options.revision);
    // Stryker disable next-line ConditionalExpression: `undefined > 0` is false too (the test is for the type)
    const limit = options.limit !== undefined && options.limit > 0 ? options.limit : -1;
    const end = prefixEnd(prefix) ?? '\u{10FFFF}\u{10FFFF}';
    const after = options.after !== undefined && compareKeys(options.after, prefix) >= 0 ? options.after : undefined;
    // Stryker disable next-line ConditionalExpression,EqualityOperator: reading one row past the limit only saves reading the rest (limit is -1 or at least 1); `more` and the page come out the same
    const fetch = limit < 0 ? -1 : limit + 1;
    const rows = this.reading((): CurrentRow[] => {
      // Stryker disable next-line ConditionalExpression: the log at the current revision reads the same; kv is only the faster way to the present
      if (revision === this.log.revision) return after === undefined ? this.stmt.listFrom.all(prefix, end, fetch) : this.stmt.listAfter.all(after, end, fetch);
      return after === undefined ? this.stmt.listPastFrom.all(prefix, end, revision, fetch) : this.stmt.listPastAfter.all(after, end, revision, fetch);
    });
    // Stryker disable next-line EqualityOperator: limit is -1 or at least 1
    const more = limit >= 0 && rows.length > limit;
    if (more) rows.length = limit;
    return { items: rows.map(toKeyValue), revision, more };
  }

  async count(prefix: string): Promise<CountResult> {
    this.log.checkPrefix(prefix);
    // COUNT(*) returns one row.
    const row = this.reading(() => this.stmt.count.get(prefix, prefixEnd(prefix) ?? '\u{10FFFF}\u{10FFFF}'))!;
    return { count: row.n, revision: this.log.revision };
  }

  create(key: string, value: string): Promise<KeyValue> {
    return new Promise((resolve, reject) => this.enqueue({ kind: 'create', key, value, resolve, reject }));
  }

  update(key: string, value: string, expectedModRevision: number): Promise<KeyValue> {
    return new Promise((resolve, reject) => this.enqueue({ kind: 'update', key, value, expected: expectedModRevision, resolve, reject }));
  }

  delete(key: string, expectedModRevision?: number): Promise<DeleteResult> {
    // Stryker disable next-line StringLiteral: prepare() takes every kind but create and update for a delete
    return new Promise((resolve, reject) => this.enqueue({ kind: 'delete', key, expected: expectedModRevision, resolve, reject }));
  }

  watch(prefix: string, fromRevision: number, options: WatchOptions = {}): AsyncIterableIterator<WatchEvent> {
    return this.log.watch(prefix, fromRevision, options);
  }

  requestProgress(): void {
    this.log.requestProgress();
  }

  compact(revision: number): Promise<CompactResult> {
    try {
      this.log.checkCompact(revision);
    } catch (err) {
      return Promise.reject(err);
    }
    const run = async (): Promise<CompactResult> => {
      // One compaction at a time: a second caller waits for the first, then continues from there.
      while (this.compaction !== undefined) await this.compaction.catch(() => undefined);
      // At or below the compact revision: only what a compaction that failed left undone, if any.
      const target = Math.max(revision, this.log.compacted);
      const promise = this.runCompaction(target);
      this.compaction = promise;
      try {
        return await promise;
      } finally {
        this.compaction = undefined;
      }
    };
    return run();
  }

  /** Pages in the database file (its size is this times the page size, 4 KiB). */
  pageCount(): number {
    this.log.checkOpen();
    return this.db.pragma('page_count', { simple: true }) as number;
  }

  /** Writes a consistent copy of the database to `destination` while the store keeps serving. */
  async backup(destination: string): Promise<void> {
    this.log.checkOpen();
    await this.db.backup(destination);
  }

  async close(): Promise<void> {
    if (this.log.closed) return;
    // Stryker disable next-line ConditionalExpression,EqualityOperator: flush() of an empty queue returns at once; the test only saves the call
    if (this.queue.length > 0) this.flush();
    this.log.close();
    await this.compaction?.catch(() => undefined);
    // Stryker disable next-line BlockStatement: closing the file's last connection checkpoints and deletes the write-ahead log as well; the explicit checkpoint only makes a failing one an error of close()
    try {
      this.db.pragma('wal_checkpoint(TRUNCATE)');
    } finally {
      this.db.close();
    }
  }

  /** Runs a read; a corrupt database file becomes a StoreError naming the file. */
  private reading<T>(read: () => T): T {
    try {
      return read();
    } catch (err) {
      if (isCorruptDatabase(err)) throw this.damage(err);
      throw err;
    }
  }

  /** Records that the file is damaged and returns the error that says so. */
  private damage(err: unknown): StoreError {
    this.damagedFile ??= (err as Error).message;
    return corruptError(this.path, err);
  }

  /** Checks `op` (throwing, which rejects its promise) and queues it for the next commit. */
  private enqueue(op: Pending): void {
    this.log.checkWrite(op);
    this.queue.push(op);
    if (this.queue.length >= this.maxBatch) {
      this.flush();
      return;
    }
    // Stryker disable next-line ConditionalExpression: only how writes are grouped, as for the flag below: a flush scheduled for every write finds the queue empty, or takes the writes that arrived since
    if (!this.flushScheduled) {
      // Stryker disable next-line BooleanLiteral: only how writes are grouped: without the flag every write schedules a flush, and the ones after the first find the queue empty (or take writes that arrived since, a commit sooner)
      this.flushScheduled = true;
      setImmediate(() => this.flush());
    }
  }

  /**
   * Commits every queued write in one transaction, then tells watchers and writers. When the disk
   * is full, the reserve is given up and the batch tried again with only what frees space.
   */
  private flush(): void {
    this.flushScheduled = false;
    const ops = this.queue;
    if (ops.length === 0) return;
    this.queue = [];
    if (this.lowSpace && this.reserve.acquire()) this.lowSpace = false;
    let err = this.commit(ops);
    if (this.giveUpReserve(err)) err = this.commit(ops);
    if (err === undefined) return;
    const error = isDiskFull(err)
      ? new StoreError('Unavailable', `the write could not be committed: the disk is full (${this.path}): ${(err as Error).message}`, { cause: err })
      : isCorruptDatabase(err)
        ? this.damage(err)
        : new StoreError('Unavailable', `the write could not be committed: ${(err as Error).message}`, { cause: err });
    for (const op of ops) op.reject(error);
  }

  /** Commits `ops` in one transaction and settles them; returns the error (settling nothing) when it failed. */
  private commit(ops: Pending[]): unknown {
    const before = this.log.revision;
    let results: Array<WriteEvent | StoreError>;
    try {
      results = this.applyBatch(ops);
    } catch (err) {
      this.log.revision = before;
      return err;
    }
    this.stats.commits++;
    for (let i = 0; i < ops.length; i++) {
      const op = ops[i]!;
      const event = results[i]!;
      if (event instanceof StoreError) {
        op.reject(event);
        continue;
      }
      this.stats.writes++;
      this.log.publish(op.key, event);
      if (event.type === 'delete') (op as Extract<Pending, { kind: 'delete' }>).resolve({ revision: event.revision, prev: event.prev });
      else (op as Extract<Pending, { kind: 'create' | 'update' }>).resolve(event.kv);
    }
    return undefined;
  }

  /** The error of a write refused because the disk is full. */
  private diskFullError(key: string): StoreError {
    return new StoreError(
      'Unavailable',
      `the disk is full (${this.path}): only deletes and small updates are committed until ${this.reserve.bytes * 2} bytes are free on its volume`,
      { key },
    );
  }

  /** Applies one write inside the batch transaction. Precondition failures are returned, not thrown. */
  private apply(op: Pending): WriteEvent | StoreError {
    const row = this.stmt.get.get(op.key);
    const event = this.log.prepare(op, row === undefined ? undefined : toKeyValue(row));
    if (event instanceof StoreError) return event;
    const key = op.key;
    const revision = event.revision;
    if (event.type === 'create') {
      if (this.lowSpace) return this.diskFullError(key);
      this.stmt.insert.run(revision, key, RowType.Create, revision, 0, event.kv.value);
      this.stmt.putKv.run(key, revision);
    } else if (event.type === 'update') {
      const prev = event.prev;
      if (this.lowSpace && event.kv.value.length > prev.value.length + LOW_SPACE_GROWTH_BYTES) return this.diskFullError(key);
      this.stmt.insert.run(revision, key, RowType.Update, prev.createRevision, prev.modRevision, event.kv.value);
      this.stmt.putKv.run(key, revision);
    } else {
      this.stmt.insert.run(revision, key, RowType.Delete, event.prev.createRevision, event.prev.modRevision, null);
      this.stmt.deleteKv.run(key);
    }
    this.log.revision = revision;
    return event;
  }

  private history(prefix: string, after: number, limit: number): HistoryPage {
    const end = prefixEnd(prefix) ?? '\u{10FFFF}\u{10FFFF}';
    const rows = this.reading(() => this.stmt.history.all(after, prefix, end, limit));
    return { events: rows.map(toEvent), caughtUp: rows.length < limit };
  }

  /** Removes history up to `target` in batches, recording progress so a restart resumes it. */
  private async runCompaction(target: number): Promise<CompactResult> {
    // Stryker disable next-line ConditionalExpression,EqualityOperator: target is never below the compact revision; at it, recording it again changes nothing
    if (target > this.log.compacted) {
      // Recorded first, so that a restart resumes the work; the log says it only once it is recorded.
      this.usingReserve(() => this.stmt.setMeta.run(target, 'compact_revision'));
      this.log.compacted = target;
    }
    let removed = 0;
    const step = this.db.transaction((lo: number, hi: number) => {
      const n = this.stmt.compactSuperseded.run(lo, hi).changes + this.stmt.compactTombstones.run(lo, hi).changes;
      // Stryker disable next-line StringLiteral: how far compaction got only spares a restart redoing batches (see the constructor)
      this.stmt.setMeta.run(hi, 'compacted_through');
      return n;
    });
    while (this.compactedThrough < target) {
      if (this.log.closed) break;
      const lo = this.compactedThrough;
      const hi = Math.min(target, lo + this.compactionBatch);
      const n = this.usingReserve(() => step(lo, hi));
      this.compactedThrough = hi;
      removed += n;
      this.stats.compactedRows += n;
      // Let queued writes and reads run between batches.
      await new Promise((resolve) => setImmediate(resolve));
    }
    // Stryker disable next-line ConditionalExpression: close() waits for the compaction before it closes the connection; reclaiming space first only delays it
    if (!this.log.closed) this.reclaimSpace();
    return { compactRevision: this.log.compacted, removed };
  }

  /**
   * Runs a write of compaction; on a full disk, gives up the reserve and runs it again: compaction is
   * how deleted data leaves the disk.
   */
  private usingReserve<T>(write: () => T): T {
    try {
      return write();
    } catch (err) {
      if (!this.giveUpReserve(err)) throw err;
      return write();
    }
  }

  /** When `err` is a full disk and the reserve is still held, gives it up; true: try the write again. */
  private giveUpReserve(err: unknown): boolean {
    if (!isDiskFull(err) || this.lowSpace) return false;
    this.lowSpace = true;
    this.reserve.release();
    return true;
  }

  /**
   * Returns free pages to the file system once they are a large part of the file; on a full disk,
   * all of them, and the write-ahead log's space too (truncated after a checkpoint).
   */
  private reclaimSpace(): void {
    const free = this.db.pragma('freelist_count', { simple: true }) as number;
    const total = this.db.pragma('page_count', { simple: true }) as number;
    // On a full disk even without a free page: incremental_vacuum then has nothing to do.
    if (worthReclaiming(free, total) || this.lowSpace) {
      try {
        this.db.pragma(`incremental_vacuum(${free})`);
        this.stats.vacuumedPages += total - (this.db.pragma('page_count', { simple: true }) as number);
      } catch (err) {
        if (!isDiskFull(err)) throw err;
      }
    }
    // Stryker disable next-line ConditionalExpression: truncating the write-ahead log after every compaction would only cost time (it grows back)
    if (this.lowSpace) {
      try {
        this.db.pragma('wal_checkpoint(TRUNCATE)');
      } catch {
        // Readers in the way, or no room even now: the next compaction tries again.
      }
    }
  }
}

/**
 * Whether `free` of a file's `total` pages are worth handing back to the file system: more than
 * 1 MiB (256 pages of 4 KiB) and more than a quarter of the file. Fewer stay for the next writes.
 */
export function worthReclaiming(free: number, total: number): boolean {
  return free > 256 && free * 4 > total;
}

function toKeyValue(row: CurrentRow): KeyValue {
  return { key: row.key, value: row.value, createRevision: row.create_revision, modRevision: row.revision };
}

function toEvent(row: EventRow): WatchEvent {
  const prev: KeyValue | undefined =
    // Stryker disable next-line ConditionalExpression,LogicalOperator,EqualityOperator: only create rows have no previous version (and their event none); compaction removes only versions replaced at or below the compact revision, and history reads only rows above it
    row.prev_revision > 0 && row.p_value !== null
      ? // Stryker disable next-line LogicalOperator: the version replaced has the same createRevision as the row
        { key: row.key, value: row.p_value, createRevision: row.p_create ?? row.create_revision, modRevision: row.prev_revision }
      : undefined;
  switch (row.type) {
    case RowType.Create:
      // Stryker disable next-line StringLiteral: a create row always has a value
      return { type: 'create', revision: row.revision, kv: { key: row.key, value: row.value ?? '', createRevision: row.revision, modRevision: row.revision } };
    case RowType.Update:
      return {
        type: 'update',
        revision: row.revision,
        // Stryker disable next-line StringLiteral: an update row always has a value
        kv: { key: row.key, value: row.value ?? '', createRevision: row.create_revision, modRevision: row.revision },
        prev,
      };
    default:
      return { type: 'delete', revision: row.revision, key: row.key, prev };
  }
}

/**
 * Creates the database file `path`, empty, mode 0600 (whatever the umask), unless it exists or is
 * SQLite's in-memory or temporary name. better-sqlite3 takes no URIs: `file:x` is a file of that name.
 */
function createPrivately(path: string): void {
  if (path === '' || path === ':memory:') return;
  let fd: number;
  try {
    fd = openSync(path, 'wx', 0o600);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return;
    throw err;
  }
  closeSync(fd);
}

/**
 * Whether `err` (or an error it was caused by) says an SQLite database file is damaged:
 * SQLITE_CORRUPT ("database disk image is malformed") or SQLITE_NOTADB ("file is not a database").
 */
export function isCorruptDatabase(err: unknown): boolean {
  for (let e = err, depth = 0; e !== null && typeof e === 'object' && depth < 8; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && (code.startsWith('SQLITE_CORRUPT') || code === 'SQLITE_NOTADB')) return true;
  }
  return false;
}

function corruptError(path: string, err: unknown): StoreError {
  return new StoreError('Unavailable', `the database ${path} is damaged: ${(err as Error).message}`, { cause: err });
}
