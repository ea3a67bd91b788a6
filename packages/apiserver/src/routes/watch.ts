/**
 * Streams a watch: HTTP 200, Content-Type application/json, chunked, one `{"type","object"}` per
 * line (or, for protobuf clients, one length-prefixed frame per event), each written as soon as it
 * is known. The stream ends when timeoutSeconds pass (default: 30 to 60 minutes, as
 * kube-apiserver randomises it), when the client goes away, when the server stops, when the watch
 * cache closes a watcher that fell too far behind, or after an ERROR line (a 410 Expired).
 *
 * Guarantees:
 * - Writes follow the connection's backpressure: after a write the socket does not take at once
 *   (`res.write` false) nothing more is written until 'drain'; the bytes written and not flushed
 *   (`res.writableLength`) count against the queue's byte bound, so a client that stops reading
 *   costs the server at most that bound.
 * - When the client goes away (even one that never read), the queue is dropped at once and every
 *   listener this function added is removed.
 * - When the stream ends for any other reason, the response is ended and given `flushGraceMs` to
 *   be flushed; a connection still holding unflushed bytes then (a client that does not read) is
 *   destroyed, so a closed watch never keeps its connection and buffers.
 * - Resolves only once the connection no longer holds the watch's bytes.
 */
import { ApiError, realClock, type Clock } from '@setpoint/api';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { EventQueue } from '../watchcache/queue.js';
import type { WatchLine } from '../watchcache/cache.js';
import { toApiError } from '../http/respond.js';

export interface StreamOptions {
  /** Ends the stream after this many seconds (undefined: the long default). */
  readonly timeoutSeconds?: number;
  /** Without timeoutSeconds, the stream lasts between this and twice this; 0: until the client leaves. Default 1800. */
  readonly minTimeoutSeconds?: number;
  /** Ends the stream when the server stops. */
  readonly stopping: AbortSignal;
  /** Called per line sent (for metrics). */
  readonly onLine?: () => void;
  /** Encodes a line for this watcher (e.g. as a Table); default: the line's shared JSON. */
  readonly encode?: (line: WatchLine) => string;
  /** Binary frames instead of JSON lines (protobuf): the stream's Content-Type and each event's frame. */
  readonly frames?: { readonly contentType: string; readonly frame: (event: { type: string; object: unknown }) => Buffer };
  /** How long an ended stream may take to flush before its connection is destroyed. Default 10 s (DEFAULT_FLUSH_GRACE_MS). */
  readonly flushGraceMs?: number;
  /** The clock timeoutSeconds and flushGraceMs are measured on. Default the real clock. */
  readonly clock?: Clock;
}

/** Default StreamOptions.flushGraceMs: 10 s. */
export const DEFAULT_FLUSH_GRACE_MS = 10_000;

/** Default watch timeout: kube-apiserver's minRequestTimeout (1800 s by default), randomised up to twice that. */
export function defaultWatchTimeoutSeconds(minSeconds = 1800): number {
  return minSeconds + Math.floor(Math.random() * minSeconds);
}

/** Writes `queue` to the response until it ends. Resolves when the stream has closed. */
export async function streamWatch(req: FastifyRequest, reply: FastifyReply, queue: EventQueue<WatchLine>, options: StreamOptions): Promise<void> {
  reply.hijack();
  const res = reply.raw;
  res.writeHead(200, { 'Content-Type': options.frames?.contentType ?? 'application/json', 'Cache-Control': 'no-cache, private', 'Transfer-Encoding': 'chunked' });
  res.flushHeaders();
  // What the response holds unflushed (Node's buffers and the socket's) counts against the bound.
  queue.countUnflushed(() => res.writableLength);
  // The client went away, the server stops, or the time is up: drop the queue, stop writing.
  const close = () => queue.close();
  req.raw.socket.setTimeout(0);
  req.raw.on('close', close);
  res.on('close', close);
  options.stopping.addEventListener('abort', close, { once: true });
  const clock = options.clock ?? realClock;
  const seconds = options.timeoutSeconds ?? defaultWatchTimeoutSeconds(options.minTimeoutSeconds);
  const timeout = seconds > 0 ? clock.setTimeout(close, seconds * 1000) : undefined;
  // A write waiting for 'drain' also stops waiting when the queue ends (closed for falling behind).
  let stopWaiting: (() => void) | undefined;
  queue.whenEnded(() => stopWaiting?.());
  try {
    for (;;) {
      let result: IteratorResult<WatchLine>;
      try {
        result = await queue.next();
      } catch (err) {
        if (!res.destroyed && options.frames) res.write(options.frames.frame({ type: 'ERROR', object: errorStatus(err) }));
        else if (!res.destroyed) writeLine(res, JSON.stringify({ type: 'ERROR', object: errorStatus(err) }));
        break;
      }
      if (result.done) break;
      if (res.destroyed) break;
      options.onLine?.();
      const written = options.frames ? res.write(options.frames.frame(result.value)) : writeLine(res, options.encode ? options.encode(result.value) : result.value.toJSON());
      if (!written) await drained(res, queue, (f) => (stopWaiting = f));
    }
  } finally {
    timeout?.cancel();
    options.stopping.removeEventListener('abort', close);
    req.raw.off('close', close);
    res.off('close', close);
    stopWaiting = undefined;
    queue.close();
    await finish(res, options.flushGraceMs ?? DEFAULT_FLUSH_GRACE_MS, clock);
  }
}

/** Resolves on 'drain', when the response closes, or when the queue ends. */
function drained(res: FastifyReply['raw'], queue: EventQueue<WatchLine>, onStop: (f: (() => void) | undefined) => void): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      onStop(undefined);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
    onStop(done);
    if (queue.closed || res.destroyed) done();
  });
}

/** Ends the response; destroys the connection if it has not flushed within `graceMs`. */
async function finish(res: FastifyReply['raw'], graceMs: number, clock: Clock): Promise<void> {
  if (res.destroyed) return;
  res.end();
  if (res.writableFinished || res.destroyed) return;
  await new Promise<void>((resolve) => {
    const done = () => {
      timer.cancel();
      res.off('finish', done);
      res.off('close', done);
      resolve();
    };
    const timer = clock.setTimeout(() => {
      res.destroy();
      done();
    }, graceMs);
    res.on('finish', done);
    res.on('close', done);
  });
}

function writeLine(res: FastifyReply['raw'], text: string): boolean {
  return res.write(`${text}\n`);
}

function errorStatus(err: unknown): object {
  const apiError = err instanceof ApiError ? err : toApiError(err);
  return apiError.toStatus();
}
