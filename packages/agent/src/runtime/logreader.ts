/**
 * Reading a container's log as the kubelet serves it: one run's files (its rotated part, then its
 * current file), with PodLogOptions — tailLines, since, limitBytes, timestamps, follow.
 *
 * Expected flow: `readContainerLog(instance, options, sink, signal)` writes the log to `sink` and
 * resolves when it is done: at the end of the files, or, when following a run that still runs,
 * once that run ended and everything it wrote was sent; or when `signal` aborts; or once
 * limitBytes were sent.
 *
 * Guarantees (as the kubelet): tailLines is applied first (the last N lines of the run's files),
 * then since (lines whose time is before it are skipped); limitBytes counts what is sent,
 * timestamps included, and may cut the last line. A line's time is from the files' time records
 * (logs.ts). Following survives rotation: what was copied away unread is read from the copy.
 * While following, a line is sent once it is complete (or when the run ends); without follow, a
 * last line without a newline is sent as it is.
 *
 * Assumes: the instance was chosen in the same tick as the call (this function opens the files
 * and subscribes before its first await, so a run ending or restarting meanwhile is seen).
 */
import { closeSync, fstatSync, openSync, read, readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { type ContainerLog, type ContainerLogEvent, type LogTime, logTimesPath, parseLogTimes, rotatedLogPath } from './logs.js';
import { realClock, type Clock } from '@setpoint/api';

const readAt = promisify(read);

/** What to read of a run's log. */
export interface LogReadOptions {
  /** Keep reading the run while it runs. */
  readonly follow?: boolean;
  /** Only the last N lines. */
  readonly tailLines?: number;
  /** Only lines written at or after this time (epoch ms). */
  readonly sinceMs?: number;
  /** Stop after this many bytes. */
  readonly limitBytes?: number;
  /** Prefix each line with its RFC 3339 time and a space. */
  readonly timestamps?: boolean;
  /** Where "now" is read: the time of a live run's bytes not yet recorded. Default the real clock. */
  readonly clock?: Clock;
}

/** One run's log: its files, and the live log while the run is recorded. */
export interface LogInstance {
  /** The run's current file; its rotated part is `${path}.1`. */
  readonly path: string;
  /** Set while the run's process runs: following reads on until it ends. */
  readonly live?: ContainerLog;
}

/** Where the log goes; a returned promise is awaited before more is read (backpressure). */
export type LogSink = (chunk: Buffer) => Promise<void> | void;

const CHUNK = 64 * 1024;
/** A line longer than this is sent in pieces (one timestamp, at its first piece). */
const MAX_LINE = 64 * 1024;
const NEWLINE = 0x0a;

/** Go's RFC3339Nano for a time in ms: fraction without trailing zeros, UTC. */
export function rfc3339Nano(ms: number): string {
  const iso = new Date(Math.round(ms)).toISOString();
  return iso.replace(/\.(\d*?)0*Z$/, (_m, digits: string) => (digits === '' ? 'Z' : `.${digits}Z`));
}

interface Part {
  fd: number;
  /** Bytes known to be there (read up to this). */
  size: number;
  times: LogTime[];
  /** Time of bytes past the last record. */
  fallbackMs: number;
}

function openPart(path: string, live: boolean, clock: Clock = realClock): Part | undefined {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  try {
    const st = fstatSync(fd);
    let text = '';
    try {
      text = readFileSync(logTimesPath(path), 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    return { fd, size: st.size, times: parseLogTimes(text), fallbackMs: live ? clock.now() : st.mtimeMs };
  } catch (err) {
    closeSync(fd);
    throw err;
  }
}

/** The time of the byte range ending at `end`: the first record reaching it, else the part's fallback. */
function timeAt(part: Part, end: number): number {
  const times = part.times;
  let lo = 0;
  let hi = times.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (times[mid]!.end >= end) hi = mid;
    else lo = mid + 1;
  }
  return lo < times.length ? times[lo]!.ms : part.fallbackMs;
}

/** Splits bytes into lines, filters them and writes them to the sink, batched. */
class LineWriter {
  #carry: Buffer[] = [];
  #carryLength = 0;
  /** The carried bytes continue a line whose first piece was already sent. */
  #midLine = false;
  #pending: Buffer[] = [];
  #pendingLength = 0;
  #written = 0;
  done = false;

  readonly #options: LogReadOptions;
  readonly #sink: LogSink;

  constructor(options: LogReadOptions, sink: LogSink) {
    this.#options = options;
    this.#sink = sink;
  }

  /** Takes `bytes` read from `part` at `offset`. */
  async take(part: Part, offset: number, bytes: Buffer): Promise<void> {
    let start = 0;
    for (;;) {
      const nl = bytes.indexOf(NEWLINE, start);
      if (nl < 0) break;
      const piece = bytes.subarray(start, nl + 1);
      const line = this.#carryLength === 0 ? piece : Buffer.concat([...this.#carry, piece]);
      const continued = this.#midLine;
      this.#carry = [];
      this.#carryLength = 0;
      this.#midLine = false;
      await this.#line(line, timeAt(part, offset + nl + 1), continued);
      if (this.done) return;
      start = nl + 1;
    }
    if (start < bytes.length) {
      this.#carry.push(Buffer.from(bytes.subarray(start)));
      this.#carryLength += bytes.length - start;
      if (this.#carryLength >= MAX_LINE) {
        const piece = Buffer.concat(this.#carry);
        const continued = this.#midLine;
        this.#carry = [];
        this.#carryLength = 0;
        this.#midLine = true;
        await this.#line(piece, timeAt(part, offset + bytes.length), continued);
      }
    }
  }

  /** Sends what is carried as a last, unterminated line. */
  async finishLine(ms: number): Promise<void> {
    if (this.#carryLength === 0) return;
    const line = Buffer.concat(this.#carry);
    const continued = this.#midLine;
    this.#carry = [];
    this.#carryLength = 0;
    this.#midLine = false;
    await this.#line(line, ms, continued);
  }

  async #line(line: Buffer, ms: number, continued: boolean): Promise<void> {
    const { sinceMs, timestamps, limitBytes } = this.#options;
    if (sinceMs !== undefined && ms < sinceMs) return;
    let out = timestamps && !continued ? Buffer.concat([Buffer.from(`${rfc3339Nano(ms)} `), line]) : line;
    if (limitBytes !== undefined) {
      const room = limitBytes - this.#written;
      if (out.length >= room) {
        out = out.subarray(0, room);
        this.done = true;
      }
    }
    this.#written += out.length;
    this.#pending.push(out);
    this.#pendingLength += out.length;
    if (this.#pendingLength >= CHUNK || this.done) await this.flush();
  }

  async flush(): Promise<void> {
    if (this.#pendingLength === 0) return;
    const chunk = this.#pending.length === 1 ? this.#pending[0]! : Buffer.concat(this.#pending);
    this.#pending = [];
    this.#pendingLength = 0;
    await this.#sink(chunk);
  }
}

/** Where the last `n` lines of `parts` start: [part index, offset]. */
async function tailStart(parts: readonly Part[], n: number): Promise<[number, number]> {
  const end: [number, number] = [parts.length - 1, parts[parts.length - 1]?.size ?? 0];
  if (n === 0 || parts.length === 0) return end;
  let newlines = 0;
  let last = true; // the very last byte: a newline there ends the last line, it does not start one
  const buf = Buffer.allocUnsafe(CHUNK);
  for (let i = parts.length - 1; i >= 0; i--) {
    const part = parts[i]!;
    let pos = part.size;
    while (pos > 0) {
      const from = Math.max(0, pos - CHUNK);
      const { bytesRead } = await readAt(part.fd, buf, 0, pos - from, from);
      for (let j = bytesRead - 1; j >= 0; j--) {
        if (buf[j] === NEWLINE && !last) {
          newlines++;
          if (newlines === n) return [i, from + j + 1];
        }
        last = false;
      }
      pos = from;
    }
  }
  return [0, 0];
}

/**
 * Reads [from, to) of `part` into the writer; returns where it stopped (short of `to` at the
 * file's end, when done, or when `valid` says a read raced a truncation: that read is dropped).
 */
async function readRange(part: Part, from: number, to: number, writer: LineWriter, signal: AbortSignal, valid: () => boolean = () => true): Promise<number> {
  const buf = Buffer.allocUnsafe(CHUNK);
  let pos = from;
  while (pos < to && !writer.done && !signal.aborted) {
    const { bytesRead } = await readAt(part.fd, buf, 0, Math.min(CHUNK, to - pos), pos);
    if (bytesRead === 0 || !valid()) break;
    await writer.take(part, pos, buf.subarray(0, bytesRead));
    pos += bytesRead;
  }
  return pos;
}

type QueuedEvent = ContainerLogEvent | { readonly type: 'copy'; readonly part: Part | undefined; readonly bytes: number };

/** Writes a run's log to `sink` as `options` ask (see the file comment). Throws what the file system throws. */
export async function readContainerLog(instance: LogInstance, options: LogReadOptions, sink: LogSink, signal: AbortSignal): Promise<void> {
  // Everything up to the first await happens in the caller's tick: subscribe, then open.
  const clock = options.clock ?? realClock;
  const live = instance.live?.recording === true ? instance.live : undefined;
  const queue: QueuedEvent[] = [];
  let wake: (() => void) | undefined;
  const unsubscribe = live?.subscribe((event) => {
    if (event.type === 'rotated') {
      // Open the copy now: the next rotation replaces the file, not what this descriptor reads.
      const part = openPart(event.path, false);
      if (part !== undefined) {
        part.size = Math.min(part.size, event.bytes);
        part.times = [...event.times];
      }
      queue.push({ type: 'copy', part, bytes: event.bytes });
    } else {
      queue.push(event);
    }
    wake?.();
  });
  const opened: Part[] = [];
  const onAbort = () => wake?.();
  signal.addEventListener('abort', onAbort);
  try {
    const rotated = openPart(rotatedLogPath(instance.path), false);
    if (rotated !== undefined) opened.push(rotated);
    const current = openPart(instance.path, live !== undefined, clock);
    if (current !== undefined) opened.push(current);
    const writer = new LineWriter(options, sink);
    const [startPart, startOffset] = options.tailLines === undefined ? [0, 0] : await tailStart(opened, options.tailLines);
    // The rotated part, when the tail starts there; the current file is read below.
    const last = opened.length - 1;
    for (let i = startPart; i < last; i++) await readRange(opened[i]!, i === startPart ? startOffset : 0, opened[i]!.size, writer, signal);
    const cur = opened[last];
    if (cur === undefined || live === undefined) {
      if (cur !== undefined) await readRange(cur, startPart === last ? startOffset : 0, cur.size, writer, signal);
      await writer.finishLine(cur?.fallbackMs ?? clock.now());
      await writer.flush();
      return;
    }
    await followCurrent(live, cur, startPart === last ? startOffset : 0, options.follow === true, writer, queue, signal, (w) => (wake = w), opened, clock);
  } finally {
    unsubscribe?.();
    signal.removeEventListener('abort', onAbort);
    for (const part of opened) closeSync(part.fd);
    for (const event of queue) if (event.type === 'copy' && event.part !== undefined) closeSync(event.part.fd);
  }
}

/**
 * Reads the live current file from `start`: to its size at open (no follow) or until the run
 * ended (follow), taking rotations and time records from the queue.
 */
async function followCurrent(
  live: ContainerLog,
  cur: Part,
  start: number,
  follow: boolean,
  writer: LineWriter,
  queue: QueuedEvent[],
  signal: AbortSignal,
  setWake: (wake: (() => void) | undefined) => void,
  opened: Part[],
  clock: Clock,
): Promise<void> {
  const wait = async () => {
    await writer.flush(); // what was read goes out before waiting for more
    await new Promise<void>((resolve) => {
      setWake(resolve);
      if (queue.length > 0 || signal.aborted) resolve();
    });
    setWake(undefined);
  };
  let pos = start;
  /** Without follow: where the file ended at open (in the coordinates of the file then). */
  let target = follow ? Infinity : cur.size;
  /** Rotations whose copy was taken; behind live.generation while one is under way. */
  let rotations = live.generation;
  let ended = false;
  for (;;) {
    while (queue.length > 0) {
      const event = queue.shift()!;
      if (event.type === 'appended') {
        const lastTime = cur.times[cur.times.length - 1];
        if (lastTime === undefined || event.time.end > lastTime.end) cur.times.push(event.time);
        cur.size = Math.max(cur.size, event.time.end);
      } else if (event.type === 'copy') {
        rotations++;
        // What was not read yet of the file before its truncation is in the copy.
        if (event.part !== undefined) {
          opened.push(event.part);
          const to = Math.min(event.part.size, target);
          if (pos < to) await readRange(event.part, pos, to, writer, signal);
        }
        if (!follow) target = 0;
        pos = 0;
        cur.size = 0;
        cur.times = [];
      } else {
        ended = true;
      }
    }
    if (writer.done || signal.aborted) break;
    if (live.generation !== rotations) {
      await wait(); // a rotation is under way: its copy comes with its event
      continue;
    }
    const to = Math.min(cur.size, target);
    if (pos < to) {
      const generation = live.generation;
      pos = await readRange(cur, pos, to, writer, signal, () => live.generation === generation);
      if (live.generation !== generation || pos >= to) continue;
      // Shorter than recorded: truncated by someone else.
      if (!follow || ended) break;
      await wait();
      continue;
    }
    if (!follow || ended) break;
    await wait();
  }
  if (!writer.done && !signal.aborted) {
    await writer.finishLine(cur.times[cur.times.length - 1]?.ms ?? clock.now());
    await writer.flush();
  }
}
