/**
 * LogFile: the file the process log (pino) writes its lines to, in place of pino's own file
 * destination. That one, on a write error other than EPIPE (a full disk: ENOSPC), emits an
 * `error` nobody handles, so the first log line on a full disk ended the whole control plane; and
 * its flush at exit retries a failing write forever, so the process then never ended either.
 *
 * Guarantees: `write` never throws and never blocks: it queues the line, and one write at a time
 * appends the queue to the file in order. The queue is bounded (bytes); a line that does not fit is
 * dropped. A failed write drops its lines; both are counted, reported on standard error at most
 * once a minute (`setpoint: cannot write the log FILE: ENOSPC …`), and, once writing works again,
 * the count goes into the log as a warning of its own. At exit, what is queued gets one
 * synchronous attempt; if that fails too it is dropped: a process must be able to end on a full
 * disk.
 */
import { closeSync, openSync, write as fsWrite, writeSync } from 'node:fs';

/** The file operations a LogFile uses (tests put failing ones in). */
export interface LogFileIO {
  write(fd: number, buffer: Buffer, callback: (err: NodeJS.ErrnoException | null, written: number) => void): void;
  writeSync(fd: number, buffer: Buffer): number;
}

export interface LogFileOptions {
  /** Bytes queued at most; beyond, lines are dropped. Default 8 MiB. */
  readonly bufferBytes?: number;
  /** Where the notice of failed writes goes. Default: standard error. */
  readonly report?: (line: string) => void;
  readonly io?: LogFileIO;
  /** Milliseconds since the epoch (for the rate of notices and the dropped-lines warning). */
  readonly now?: () => number;
}

const NODE_IO: LogFileIO = {
  write: (fd, buffer, callback) => fsWrite(fd, buffer, 0, buffer.length, null, callback),
  writeSync: (fd, buffer) => writeSync(fd, buffer),
};
const REPORT_INTERVAL_MS = 60_000;

export class LogFile {
  readonly path: string;
  readonly #fd: number;
  readonly #io: LogFileIO;
  readonly #bufferBytes: number;
  readonly #report: (line: string) => void;
  readonly #now: () => number;
  #queue: Buffer[] = [];
  #queuedBytes = 0;
  #writing = false;
  #closed = false;
  /** Lines dropped since the last one written. */
  #dropped = 0;
  #droppedTotal = 0;
  #lastReportMs = -Infinity;
  readonly #onExit = () => this.flushSync();

  /** Opens (appends to, creating with mode 0600) `path`; throws when it cannot be opened. */
  constructor(path: string, options: LogFileOptions = {}) {
    this.path = path;
    this.#fd = openSync(path, 'a', 0o600);
    this.#io = options.io ?? NODE_IO;
    this.#bufferBytes = options.bufferBytes ?? 8 * 1024 * 1024;
    this.#report = options.report ?? ((line) => void process.stderr.write(`${line}\n`));
    this.#now = options.now ?? Date.now;
    process.on('exit', this.#onExit);
  }

  /** Lines dropped so far (the queue was full, or writing them failed). */
  get dropped(): number {
    return this.#droppedTotal;
  }

  /** Queues `line` (pino's, with its newline). False when it was dropped. Never throws. */
  write(line: string): boolean {
    if (this.#closed) return false;
    const buf = Buffer.from(line, 'utf8');
    if (this.#queuedBytes + buf.length > this.#bufferBytes) {
      this.#drop(1, 'the queue is full');
      return false;
    }
    this.#queue.push(buf);
    this.#queuedBytes += buf.length;
    if (!this.#writing) this.#next();
    return true;
  }

  /** One synchronous attempt to write what is queued (at exit); false when something was dropped. */
  flushSync(): boolean {
    if (this.#queue.length === 0) return true;
    const { buf, lines, notice } = this.#take();
    try {
      let done = 0;
      while (done < buf.length) {
        const n = this.#io.writeSync(this.#fd, buf.subarray(done));
        if (n <= 0) throw Object.assign(new Error('nothing was written'), { code: 'EIO' });
        done += n;
      }
      return true;
    } catch {
      this.#dropped += notice + lines;
      this.#droppedTotal += lines;
      return false;
    }
  }

  /** Writes what is queued (one attempt), then closes the file. Idempotent. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    process.off('exit', this.#onExit);
    if (!this.#writing) this.flushSync();
    try {
      closeSync(this.#fd);
    } catch {
      // already closed
    }
  }

  /**
   * The queue as one buffer, emptied, with how many lines it holds; a notice of the `notice` lines
   * dropped before them goes first.
   */
  #take(): { buf: Buffer; lines: number; notice: number } {
    const lines = this.#queue.length;
    const notice = this.#dropped;
    if (notice > 0) {
      const notice = Buffer.from(
        `${JSON.stringify({ level: 40, time: this.#now(), pid: process.pid, dropped: this.#dropped, msg: 'log lines were dropped: the log could not be written (a full disk?) or was written faster than the disk takes' })}\n`,
      );
      this.#queue.unshift(notice);
      this.#queuedBytes += notice.length;
      this.#dropped = 0;
    }
    const buf = this.#queue.length === 1 ? this.#queue[0]! : Buffer.concat(this.#queue, this.#queuedBytes);
    this.#queue = [];
    this.#queuedBytes = 0;
    return { buf, lines, notice };
  }

  #next(): void {
    if (this.#queue.length === 0 || this.#closed) {
      this.#writing = false;
      return;
    }
    this.#writing = true;
    const { buf, lines, notice } = this.#take();
    this.#writeAll(buf, 0, (err) => {
      if (err !== null) {
        this.#dropped += notice;
        this.#drop(lines, err.code ?? err.message);
      }
      this.#next();
    });
  }

  #writeAll(buf: Buffer, from: number, done: (err: NodeJS.ErrnoException | null) => void): void {
    try {
      this.#io.write(this.#fd, buf.subarray(from), (err, n) => {
        if (err !== null) done(err);
        else if (from + n >= buf.length) done(null);
        else if (n <= 0) done(Object.assign(new Error('nothing was written'), { code: 'EIO' }));
        else this.#writeAll(buf, from + n, done);
      });
    } catch (err) {
      done(err as NodeJS.ErrnoException);
    }
  }

  #drop(lines: number, why: string): void {
    this.#dropped += lines;
    this.#droppedTotal += lines;
    const now = this.#now();
    if (now - this.#lastReportMs < REPORT_INTERVAL_MS) return;
    this.#lastReportMs = now;
    try {
      this.#report(`setpoint: cannot write the log ${this.path}: ${why}; log lines are dropped (${this.#droppedTotal} so far) until it can`);
    } catch {
      // standard error closed: nothing more to do
    }
  }
}
