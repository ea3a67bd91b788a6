/**
 * Streams a watch: HTTP 200, Content-Type application/json, chunked, one `{"type","object"}` per
 * line (or, for protobuf clients, one length-prefixed frame per event), each written as soon as it
 * is known. The stream ends when timeoutSeconds pass (default: 30 to 60 minutes, as
 * kube-apiserver randomises it), when the client goes away, when the server stops, or after an
 * ERROR line (a 410 Expired or a watcher that fell too far behind).
 */
import { ApiError } from '@setpoint/api';
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
}

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
  const end = () => queue.end();
  req.raw.socket.setTimeout(0);
  req.raw.on('close', end);
  res.on('close', end);
  options.stopping.addEventListener('abort', end, { once: true });
  const seconds = options.timeoutSeconds ?? defaultWatchTimeoutSeconds(options.minTimeoutSeconds);
  const timeout = seconds > 0 ? setTimeout(end, seconds * 1000) : undefined;
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
      if (!written) {
        await new Promise<void>((resolve) => {
          const done = () => {
            res.off('drain', done);
            res.off('close', done);
            resolve();
          };
          res.on('drain', done);
          res.on('close', done);
        });
      }
    }
  } finally {
    clearTimeout(timeout);
    options.stopping.removeEventListener('abort', end);
    req.raw.off('close', end);
    queue.end();
    if (!res.destroyed) res.end();
  }
}

function writeLine(res: FastifyReply['raw'], text: string): boolean {
  return res.write(`${text}\n`);
}

function errorStatus(err: unknown): object {
  const apiError = err instanceof ApiError ? err : toApiError(err);
  return apiError.toStatus();
}
