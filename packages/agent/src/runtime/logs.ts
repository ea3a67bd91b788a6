/**
 * Container log files: a container's stdout and stderr go, interleaved and unframed, to
 * `<pod dir>/logs/<container>.log`, opened in append mode and handed to the process as its file
 * descriptors — so the process keeps logging while the agent is down or restarting.
 *
 * Files per container, in `<pod dir>/logs/`:
 *
 *   <c>.log                 the current run (or, once it ended, the last one)
 *   <c>.log.1               its part rotated away
 *   <c>.previous.log[.1]    the run before: moved aside when the container restarts (`kubectl logs --previous`)
 *   <file>.times            beside each file: when its bytes were written (below)
 *
 * Rotation is copy-and-truncate (logrotate's copytruncate): once the file passes `maxBytes` (or its
 * time records pass half of that: many tiny writes), it is copied to `<c>.log.1` (replacing the
 * previous copy, by rename) and truncated; the process's appends continue at the new end. Caveat: lines written between the copy and the truncate are
 * lost, and the current file can pass `maxBytes` by what is written between two checks.
 *
 * Times: the process writes raw bytes, with no timestamps. While a run is recorded
 * (`startRecording`, from its start until its exit), the agent watches the file and, whenever it
 * grew, appends `<size> <ms>` to `<file>.times`: every byte before <size> was written at or before
 * <ms> (the file's mtime). Entries are at most `recordIntervalMs` apart while the file grows, so a
 * line's time (the first entry reaching its end) is late by at most about that much. Bytes written
 * while the agent was down get the file's mtime when it sees them again.
 *
 * Guarantees: rotation, recording, and moving a run aside are serialized per ContainerLog; a
 * subscriber sees `appended` events in file order, a `rotated` event whose copy it can open in the
 * listener (the copy is replaced only by the next rotation, which is serialized after the
 * listener ran), and `ended` once after the last record of a run. Every file is created mode 0600
 * (the agent's alone: the process writes through the descriptor it was given).
 */
import { closeSync, openSync, watch, type FSWatcher } from 'node:fs';
import { appendFile, copyFile, readFile, rename, rm, stat, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { every, realClock, silentLogger, type Clock, type Logger, type Timer } from '@setpoint/api';

/** The default size cap of one log file: 10 MiB. */
export const DEFAULT_MAX_LOG_BYTES = 10 * 1024 * 1024;
/** The default shortest time between two time records of one file. */
export const DEFAULT_RECORD_INTERVAL_MS = 100;

/** Where a container's current log is, in its pod's directory; the rotated part has ".1" appended. */
export function containerLogPath(podDir: string, container: string): string {
  return join(podDir, 'logs', `${container}.log`);
}

/** Where the log of a container's previous run is kept (container names are DNS labels: no dots, no clash). */
export function previousLogPath(podDir: string, container: string): string {
  return join(podDir, 'logs', `${container}.previous.log`);
}

/** The rotated part of a log file. */
export function rotatedLogPath(path: string): string {
  return `${path}.1`;
}

/** The time records of a log file. */
export function logTimesPath(path: string): string {
  return `${path}.times`;
}

/** Every byte of a log file before `end` was written at or before `ms` (epoch ms). */
export interface LogTime {
  readonly end: number;
  readonly ms: number;
}

/** Parses a `.times` file; malformed or out-of-order lines are skipped. */
export function parseLogTimes(text: string): LogTime[] {
  const out: LogTime[] = [];
  for (const line of text.split('\n')) {
    const m = /^(\d+) (\d+)$/.exec(line);
    if (m === null) continue;
    const time = { end: Number(m[1]), ms: Number(m[2]) };
    const last = out[out.length - 1];
    if (last === undefined || time.end > last.end) out.push(time);
  }
  return out;
}

function timesText(times: readonly LogTime[]): string {
  return times.map((t) => `${t.end} ${t.ms}\n`).join('');
}

function isMissing(err: unknown): boolean {
  return (err as NodeJS.ErrnoException).code === 'ENOENT';
}

/** What a ContainerLog tells its subscribers. */
export type ContainerLogEvent =
  /** The current file grew to `time.end` bytes. */
  | { readonly type: 'appended'; readonly time: LogTime }
  /** The current file's first `bytes` bytes were copied to `path` (with `times`), then it was truncated. */
  | { readonly type: 'rotated'; readonly path: string; readonly bytes: number; readonly times: readonly LogTime[] }
  /** The recorded run ended: nothing more will be appended to it. */
  | { readonly type: 'ended' };

export interface ContainerLogOptions {
  /** Rotate past this size. Default DEFAULT_MAX_LOG_BYTES. */
  readonly maxBytes?: number;
  /** Where the previous run's log goes. Default `<dir>/<name>.previous.log` beside `path`. */
  readonly previousPath?: string;
  /** Shortest time between two time records. Default DEFAULT_RECORD_INTERVAL_MS. */
  readonly recordIntervalMs?: number;
  /** How often a recorded file is checked besides file-change notifications. Default 1000 ms. */
  readonly pollIntervalMs?: number;
  readonly logger?: Logger;
  /** The clock the recording's poll and record intervals run on, and rotation's time record reads. Default the real clock. */
  readonly clock?: Clock;
}

interface Recording {
  watcher?: FSWatcher;
  poll: Timer;
  timer?: Timer;
  lastAt: number;
}

/** One container's log files (see the file comment). */
export class ContainerLog {
  readonly path: string;
  readonly maxBytes: number;
  readonly previousPath: string;
  readonly #recordIntervalMs: number;
  readonly #pollIntervalMs: number;
  readonly #logger: Logger;
  readonly #clock: Clock;
  readonly #listeners = new Set<(event: ContainerLogEvent) => void>();
  #queue: Promise<unknown> = Promise.resolve();
  #recording: Recording | undefined;
  /** Bytes of the current file its times cover. */
  #end = 0;
  #generation = 0;

  constructor(path: string, options: ContainerLogOptions = {}) {
    this.path = path;
    this.maxBytes = options.maxBytes ?? DEFAULT_MAX_LOG_BYTES;
    this.previousPath = options.previousPath ?? path.replace(/\.log$/, '') + '.previous.log';
    this.#recordIntervalMs = options.recordIntervalMs ?? DEFAULT_RECORD_INTERVAL_MS;
    this.#pollIntervalMs = options.pollIntervalMs ?? 1000;
    this.#logger = options.logger ?? silentLogger;
    this.#clock = options.clock ?? realClock;
  }

  /** The rotated part's path. */
  get rotatedPath(): string {
    return rotatedLogPath(this.path);
  }

  /** Whether a run is being recorded (its process runs). */
  get recording(): boolean {
    return this.#recording !== undefined;
  }

  /**
   * Grows by one, synchronously, just before the current file is truncated by a rotation: a reader
   * that read the current file while it changed discards what it read and takes the rotated copy.
   */
  get generation(): number {
    return this.#generation;
  }

  /** Calls `listener` with every event from now on; returns the unsubscribe function. */
  subscribe(listener: (event: ContainerLogEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #emit(event: ContainerLogEvent): void {
    for (const listener of [...this.#listeners]) {
      try {
        listener(event);
      } catch (err) {
        this.#logger.warn({ err, path: this.path }, 'a log subscriber threw; ignored');
      }
    }
  }

  #serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(fn, fn);
    this.#queue = run.catch(() => undefined);
    return run;
  }

  /**
   * Opens the current file for appending (creating it) and returns the descriptor for a child's
   * stdout and stderr. The caller closes it once the child has it (`closeFd`).
   */
  openForChild(): number {
    return openSync(this.path, 'a', 0o600);
  }

  /** Closes a descriptor from openForChild (the child keeps its own copy). */
  closeFd(fd: number): void {
    closeSync(fd);
  }

  /**
   * Before a restart: moves the current run's files (and their parts and times) aside as the
   * previous run's, replacing those, so the new run starts an empty file. Missing files are not
   * an error (a previous file without a counterpart is removed).
   */
  moveToPrevious(): Promise<void> {
    return this.#serial(async () => {
      for (const [from, to] of [
        [this.path, this.previousPath],
        [rotatedLogPath(this.path), rotatedLogPath(this.previousPath)],
      ] as const) {
        for (const [f, t] of [
          [from, to],
          [logTimesPath(from), logTimesPath(to)],
        ] as const) {
          try {
            await rename(f, t);
          } catch (err) {
            if (!isMissing(err)) throw err;
            await rm(t, { force: true });
          }
        }
      }
      this.#end = 0;
    });
  }

  /** Starts recording when the current file grows (the run's process runs). Idempotent. */
  startRecording(): void {
    if (this.#recording !== undefined) return;
    const trigger = () => this.#schedule();
    const rec: Recording = { poll: every(this.#clock, this.#pollIntervalMs, trigger).unref(), lastAt: 0 };
    this.#recording = rec;
    try {
      rec.watcher = watch(this.path, { persistent: false }, trigger);
      rec.watcher.on('error', (err) => this.#logger.debug({ err, path: this.path }, 'log file watch failed; polling only'));
    } catch (err) {
      this.#logger.debug({ err, path: this.path }, 'cannot watch the log file; polling only');
    }
    void this.#serial(async () => {
      let text = '';
      try {
        text = await readFile(logTimesPath(this.path), 'utf8');
      } catch (err) {
        if (!isMissing(err)) throw err;
      }
      this.#end = parseLogTimes(text).at(-1)?.end ?? 0;
    }).then(trigger, (err: unknown) => this.#logger.warn({ err, path: this.path }, 'cannot read the log times; recording from the start'));
  }

  #schedule(): void {
    const rec = this.#recording;
    if (rec === undefined || rec.timer !== undefined) return;
    rec.timer = this.#clock.setTimeout(
      () => {
        rec.timer = undefined;
        rec.lastAt = this.#clock.now();
        this.#serial(() => this.#record()).catch((err: unknown) => this.#logger.warn({ err, path: this.path }, 'cannot record log times; trying again at the next change'));
      },
      Math.max(0, rec.lastAt + this.#recordIntervalMs - this.#clock.now()),
    );
    rec.timer.unref();
  }

  /** Records the current file's size and mtime if it grew. */
  async #record(): Promise<void> {
    let size: number;
    let mtimeMs: number;
    try {
      ({ size, mtimeMs } = await stat(this.path));
    } catch (err) {
      if (isMissing(err)) return;
      throw err;
    }
    if (size < this.#end) {
      // Truncated by someone else: its times no longer match.
      await writeFile(logTimesPath(this.path), '', { mode: 0o600 });
      this.#end = 0;
    }
    if (size <= this.#end) return;
    const time = { end: size, ms: Math.round(mtimeMs) };
    await appendFile(logTimesPath(this.path), timesText([time]), { mode: 0o600 });
    this.#end = size;
    this.#emit({ type: 'appended', time });
  }

  /** Stops recording after a last record, and tells subscribers the run ended. Idempotent. */
  async stopRecording(): Promise<void> {
    const rec = this.#recording;
    if (rec === undefined) return;
    this.#recording = undefined;
    rec.watcher?.close();
    rec.poll.cancel();
    rec.timer?.cancel();
    await this.#serial(async () => {
      try {
        await this.#record();
      } catch (err) {
        this.#logger.warn({ err, path: this.path }, 'cannot record the last log times of a run');
      } finally {
        this.#emit({ type: 'ended' });
      }
    });
  }

  /** Rotates when the current file is larger than maxBytes; returns whether it did. A missing file is not an error. */
  rotateIfNeeded(): Promise<boolean> {
    return this.#serial(() => this.#rotate());
  }

  async #rotate(): Promise<boolean> {
    let size: number;
    try {
      size = (await stat(this.path)).size;
    } catch (err) {
      if (isMissing(err)) return false;
      throw err;
    }
    // Many small writes make many time records: their file counts against the cap too.
    let timesSize = 0;
    try {
      timesSize = (await stat(logTimesPath(this.path))).size;
    } catch (err) {
      if (!isMissing(err)) throw err;
    }
    if (size <= this.maxBytes && (timesSize <= this.maxBytes / 2 || size === 0)) return false;
    if (this.#recording !== undefined) await this.#record(); // every byte copied has a time
    const rotated = rotatedLogPath(this.path);
    const temp = `${rotated}.tmp`;
    await copyFile(this.path, temp);
    const bytes = (await stat(temp)).size;
    await rename(temp, rotated); // a new file: a reader holding the old copy keeps it
    let text = '';
    try {
      text = await readFile(logTimesPath(this.path), 'utf8');
    } catch (err) {
      if (!isMissing(err)) throw err;
    }
    const times = parseLogTimes(text).filter((t) => t.end <= bytes);
    if ((times.at(-1)?.end ?? 0) < bytes) times.push({ end: bytes, ms: this.#clock.now() });
    await writeFile(logTimesPath(rotated), timesText(times), { mode: 0o600 });
    this.#generation++;
    await truncate(this.path, 0);
    await writeFile(logTimesPath(this.path), '', { mode: 0o600 });
    this.#end = 0;
    this.#emit({ type: 'rotated', path: rotated, bytes, times });
    return true;
  }
}
