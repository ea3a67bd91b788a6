/**
 * AuditLogWriter: audit lines to a file, written off the request path, rotated by size.
 *
 * Expected flow: `AuditLogWriter.open({ path })`, then `write(line)` per event from request
 * handling (never waits), `close()` at shutdown (writes what is queued, then closes the file).
 *
 * Guarantees: `write` only queues; lines are appended in the order written by one background loop,
 * batched per turn of the event loop, so a slow disk never holds up a request. The queue is
 * bounded (events and bytes): a line that does not fit is dropped and counted (`onDrop`), as
 * kube-apiserver's batch buffer drops. The file (mode 0600: audit lines name users and objects)
 * never grows past `maxSizeBytes` unless one line alone is larger: before a batch would cross it,
 * the file is renamed `NAME-<UTC time>.EXT` (lumberjack's names, as kube-apiserver's backups are
 * named, e.g. `audit-2025-01-31T10-00-00.000.log`) and a new one started; beyond `maxBackups`
 * (oldest first) and `maxAgeDays` (by the time in the name) backups are deleted.
 *
 * Errors: a failed write is logged (at most once a minute), its lines dropped and counted, and the
 * file reopened for the next batch; requests never see it. `path` "-" writes to standard output
 * without rotation.
 */
import { mkdir, open, readdir, rename, unlink, type FileHandle } from 'node:fs/promises';
import { basename, dirname, extname, join } from 'node:path';
import { realClock, silentLogger, type Clock, type Logger } from '@setpoint/api';

export interface AuditLogWriterOptions {
  /** The log file; "-" is standard output. Its directory is created when missing. */
  readonly path: string;
  /** Rotate before the file would pass this size. Default 100 MiB (kube-apiserver's default). */
  readonly maxSizeBytes?: number;
  /** How many rotated files to keep; 0 keeps all. Default 0. */
  readonly maxBackups?: number;
  /** Delete rotated files older than this many days; 0 keeps them. Default 0. */
  readonly maxAgeDays?: number;
  /** Lines waiting to be written at most. Default 10,000 (kube-apiserver's audit buffer). */
  readonly bufferEvents?: number;
  /** Bytes waiting to be written at most. Default 64 MiB. */
  readonly bufferBytes?: number;
  /** Called for lines dropped: the queue was full, or writing them failed. */
  readonly onDrop?: (count: number, reason: 'buffer' | 'write') => void;
  readonly clock?: Clock;
  readonly logger?: Logger;
}

const MIB = 1024 * 1024;
const DAY_MS = 24 * 60 * 60 * 1000;
const ERROR_LOG_INTERVAL_MS = 60_000;

export class AuditLogWriter {
  readonly path: string;
  private readonly maxSize: number;
  private readonly maxBackups: number;
  private readonly maxAgeMs: number;
  private readonly bufferEvents: number;
  private readonly bufferBytes: number;
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly onDrop: (count: number, reason: 'buffer' | 'write') => void;
  private queue: string[] = [];
  private queuedBytes = 0;
  private loop: Promise<void> | undefined;
  private handle: FileHandle | undefined;
  private size = 0;
  private closed = false;
  private lastBackupMs = 0;
  private lastErrorLogMs = -Infinity;

  private constructor(options: AuditLogWriterOptions) {
    this.path = options.path;
    this.maxSize = options.maxSizeBytes !== undefined && options.maxSizeBytes > 0 ? options.maxSizeBytes : 100 * MIB;
    this.maxBackups = options.maxBackups ?? 0;
    this.maxAgeMs = (options.maxAgeDays ?? 0) * DAY_MS;
    this.bufferEvents = options.bufferEvents ?? 10_000;
    this.bufferBytes = options.bufferBytes ?? 64 * MIB;
    this.clock = options.clock ?? realClock;
    this.logger = options.logger ?? silentLogger;
    this.onDrop = options.onDrop ?? (() => {});
  }

  /** Opens (appends to) the file. Throws when it cannot be opened, so a bad path stops the start. */
  static async open(options: AuditLogWriterOptions): Promise<AuditLogWriter> {
    const writer = new AuditLogWriter(options);
    if (writer.path !== '-') {
      await mkdir(dirname(writer.path), { recursive: true, mode: 0o700 });
      await writer.openFile();
    }
    return writer;
  }

  /** Lines queued and not yet written. */
  get pending(): number {
    return this.queue.length;
  }

  /** Queues one line (without its newline). False when it was dropped (queue full, or closed). */
  write(line: string): boolean {
    if (this.closed) return false;
    const bytes = line.length; // a lower bound of the UTF-8 size: enough for a bound on memory
    if (this.queue.length >= this.bufferEvents || this.queuedBytes + bytes > this.bufferBytes) {
      this.onDrop(1, 'buffer');
      return false;
    }
    this.queue.push(line);
    this.queuedBytes += bytes;
    this.loop ??= this.run();
    return true;
  }

  /** Resolves when every line queued so far has been written (or dropped). */
  async flushed(): Promise<void> {
    while (this.loop !== undefined) await this.loop;
  }

  /** Writes what is queued, then closes the file. Later writes are dropped. Idempotent. */
  async close(): Promise<void> {
    this.closed = true;
    await this.flushed();
    const handle = this.handle;
    this.handle = undefined;
    await handle?.close().catch(() => undefined);
  }

  private async run(): Promise<void> {
    // One turn of the event loop gathers the lines of concurrent requests into one write.
    await new Promise<void>((resolve) => setImmediate(resolve));
    try {
      while (this.queue.length > 0) {
        const batch = this.queue;
        this.queue = [];
        this.queuedBytes = 0;
        try {
          await this.writeBatch(batch);
        } catch (err) {
          this.failed(err, batch.length);
        }
      }
    } finally {
      this.loop = undefined;
    }
  }

  private async writeBatch(lines: readonly string[]): Promise<void> {
    if (this.path === '-') {
      await writeStdout(`${lines.join('\n')}\n`);
      return;
    }
    let chunk: Buffer[] = [];
    let chunkBytes = 0;
    let written = 0;
    try {
      for (const line of lines) {
        const buf = Buffer.from(`${line}\n`, 'utf8');
        if (this.size + chunkBytes + buf.length > this.maxSize && this.size + chunkBytes > 0) {
          await this.append(chunk, chunkBytes);
          written += chunk.length;
          chunk = [];
          chunkBytes = 0;
          await this.rotate();
        }
        chunk.push(buf);
        chunkBytes += buf.length;
      }
      await this.append(chunk, chunkBytes);
    } catch (err) {
      // Lines already appended are not counted as dropped.
      throw Object.assign(new Error('writing the audit log failed', { cause: err }), { droppedFrom: written });
    }
  }

  private async append(chunk: readonly Buffer[], bytes: number): Promise<void> {
    if (chunk.length === 0) return;
    if (this.handle === undefined) await this.openFile();
    await this.handle!.appendFile(chunk.length === 1 ? chunk[0]! : Buffer.concat(chunk, bytes));
    this.size += bytes;
  }

  private async openFile(): Promise<void> {
    const handle = await open(this.path, 'a', 0o600);
    try {
      this.size = (await handle.stat()).size;
    } catch (err) {
      await handle.close().catch(() => undefined);
      throw err;
    }
    this.handle = handle;
  }

  private async rotate(): Promise<void> {
    const handle = this.handle;
    this.handle = undefined;
    await handle?.close();
    const ms = Math.max(this.clock.now(), this.lastBackupMs + 1);
    this.lastBackupMs = ms;
    await rename(this.path, backupPath(this.path, ms));
    await this.openFile();
    await this.prune();
  }

  /** Deletes the backups beyond maxBackups and older than maxAgeDays. */
  private async prune(): Promise<void> {
    if (this.maxBackups <= 0 && this.maxAgeMs <= 0) return;
    const backups = await listBackups(this.path);
    const now = this.clock.now();
    const doomed = backups.filter((b, i) => (this.maxBackups > 0 && i >= this.maxBackups) || (this.maxAgeMs > 0 && now - b.time > this.maxAgeMs));
    for (const b of doomed) await unlink(b.path).catch((err: NodeJS.ErrnoException) => (err.code === 'ENOENT' ? undefined : Promise.reject(err)));
  }

  private failed(err: unknown, batchLength: number): void {
    const from = (err as { droppedFrom?: number }).droppedFrom ?? 0;
    this.onDrop(batchLength - from, 'write');
    const handle = this.handle;
    this.handle = undefined;
    void handle?.close().catch(() => undefined);
    const now = this.clock.now();
    if (now - this.lastErrorLogMs >= ERROR_LOG_INTERVAL_MS) {
      this.lastErrorLogMs = now;
      this.logger.error({ err, path: this.path, dropped: batchLength - from }, 'writing the audit log failed; events dropped');
    }
  }
}

function writeStdout(text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    process.stdout.write(text, (err) => (err ? reject(err) : resolve()));
  });
}

/** `dir/audit-2025-01-31T10-00-00.000.log` for `dir/audit.log` at that UTC time. */
export function backupPath(path: string, epochMs: number): string {
  const ext = extname(path);
  const name = basename(path, ext);
  const stamp = new Date(epochMs).toISOString().slice(0, 23).replace(/:/g, '-');
  return join(dirname(path), `${name}-${stamp}${ext}`);
}

/** The backups of `path`, newest first, with the times in their names. */
export async function listBackups(path: string): Promise<Array<{ path: string; time: number }>> {
  const ext = extname(path);
  const name = basename(path, ext);
  const dir = dirname(path);
  const out: Array<{ path: string; time: number }> = [];
  for (const entry of await readdir(dir)) {
    if (!entry.startsWith(`${name}-`) || !entry.endsWith(ext)) continue;
    const stamp = entry.slice(name.length + 1, entry.length - ext.length);
    const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2})-(\d{2})-(\d{2})\.(\d{3})$/.exec(stamp);
    if (m === null) continue;
    const time = Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!, +m[7]!);
    out.push({ path: join(dir, entry), time });
  }
  return out.sort((a, b) => b.time - a.time);
}
