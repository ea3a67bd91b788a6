/**
 * A watch response read as events: one JSON `{type, object}` per line of a chunked response, as
 * every Kubernetes API server streams them. The iterator pulls: while the consumer is behind, the
 * response (and so the socket, and so the server) is paused.
 */
import type { IncomingMessage } from 'node:http';
import { StringDecoder } from 'node:string_decoder';
import { ApiError, type KubeObject, type Logger, silentLogger } from '@setpoint/api';
import type { WatchEvent, WatchEventType } from '../types.js';

const EVENT_TYPES: ReadonlySet<string> = new Set<WatchEventType>(['ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK']);

/** Opens the watch response; rejects with ApiError (or the signal's reason once it aborted). */
export type OpenWatch = (signal: AbortSignal) => Promise<IncomingMessage>;

type Item<T extends KubeObject> = { readonly event: WatchEvent<T> } | { readonly error: unknown };

interface Waiter<T extends KubeObject> {
  resolve(result: IteratorResult<WatchEvent<T>>): void;
  reject(err: unknown): void;
}

/**
 * Parses one line of a watch stream. Returns the event, or throws: ApiError.fromStatus(object)
 * for an ERROR event, ApiError InternalError for a line that is not a watch event.
 */
export function parseWatchLine<T extends KubeObject>(line: string): WatchEvent<T> {
  let doc: unknown;
  try {
    doc = JSON.parse(line);
  } catch (err) {
    throw new ApiError('InternalError', `watch: the server sent a line that is not JSON: ${line.slice(0, 120)}`, { cause: err });
  }
  const { type, object } = (doc ?? {}) as { type?: unknown; object?: unknown };
  if (type === 'ERROR') throw ApiError.fromStatus(typeof object === 'object' && object !== null ? object : undefined);
  if (typeof type !== 'string' || !EVENT_TYPES.has(type) || typeof object !== 'object' || object === null) {
    throw new ApiError('InternalError', `watch: the server sent something that is not a watch event: ${line.slice(0, 120)}`);
  }
  return { type: type as WatchEventType, object: object as T };
}

/**
 * The events of one watch request.
 *
 * Guarantees: the request is sent on the first next(), not before; events come in the order the
 * server sent them; blank lines are skipped; an ERROR event is thrown (ApiError.fromStatus of its
 * Status) after the events before it, and ends the stream. The iterator finishes (done) when the
 * server ends the response, when the connection breaks after the response began (as client-go's
 * watch does: the caller re-watches from its last resourceVersion), when `signal` aborts, or when
 * return() is called — the last two abort the request at once, also while a next() is pending.
 * While events are queued that nobody asked for, the response is paused.
 *
 * Throws (from next()) what `open` throws — ApiError for an error response or a connection that
 * could not be made — except after an abort, which finishes quietly.
 */
export class WatchStream<T extends KubeObject = KubeObject> implements AsyncIterableIterator<WatchEvent<T>> {
  readonly #open: OpenWatch;
  readonly #signal: AbortSignal | undefined;
  readonly #logger: Logger;
  readonly #abort = new AbortController();
  readonly #queue: Item<T>[] = [];
  readonly #waiters: Waiter<T>[] = [];
  #state: 'idle' | 'opening' | 'streaming' | 'ended' | 'closed' = 'idle';
  #response: IncomingMessage | undefined;
  #paused = false;
  readonly #onAbort = () => this.#close();

  constructor(open: OpenWatch, options: { readonly signal?: AbortSignal; readonly logger?: Logger } = {}) {
    this.#open = open;
    this.#signal = options.signal;
    this.#logger = options.logger ?? silentLogger;
  }

  /** Events received and not yet taken by next(). */
  get buffered(): number {
    return this.#queue.length;
  }

  /** Whether the response is paused because the consumer is behind. */
  get paused(): boolean {
    return this.#paused;
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  next(): Promise<IteratorResult<WatchEvent<T>>> {
    const item = this.#queue.shift();
    if (item !== undefined) {
      if (this.#queue.length === 0) this.#resume();
      if ('error' in item) {
        this.#close();
        return Promise.reject(item.error);
      }
      return Promise.resolve({ value: item.event, done: false });
    }
    if (this.#state === 'idle') this.#start();
    if (this.#state === 'ended' || this.#state === 'closed') {
      this.#close();
      return Promise.resolve({ value: undefined, done: true });
    }
    this.#resume();
    return new Promise((resolve, reject) => this.#waiters.push({ resolve, reject }));
  }

  /** Stops the watch: aborts the request and finishes pending and later next() calls. */
  return(): Promise<IteratorResult<WatchEvent<T>>> {
    this.#close();
    return Promise.resolve({ value: undefined, done: true });
  }

  #start(): void {
    this.#state = 'opening';
    if (this.#signal?.aborted) {
      this.#close();
      return;
    }
    this.#signal?.addEventListener('abort', this.#onAbort, { once: true });
    this.#open(this.#abort.signal).then(
      (res) => this.#attach(res),
      (err: unknown) => {
        if (this.#state === 'closed') return;
        this.#push({ error: err });
      },
    );
  }

  #attach(res: IncomingMessage): void {
    if (this.#state === 'closed') {
      res.destroy();
      return;
    }
    this.#state = 'streaming';
    this.#response = res;
    const decoder = new StringDecoder('utf8');
    let buffer = '';
    let failed = false;
    const lines = (text: string): void => {
      buffer += text;
      let start = 0;
      for (let nl = buffer.indexOf('\n', start); nl !== -1 && !failed; nl = buffer.indexOf('\n', start)) {
        this.#line(buffer.slice(start, nl), () => (failed = true));
        start = nl + 1;
      }
      buffer = buffer.slice(start);
    };
    res.on('data', (chunk: Buffer) => {
      if (failed || this.#state !== 'streaming') return;
      lines(decoder.write(chunk));
      if (this.#queue.length > 0 && !this.#paused && this.#state === 'streaming') {
        this.#paused = true;
        res.pause();
      }
    });
    res.on('end', () => {
      if (!failed) lines(decoder.end() + '\n');
      this.#finish();
    });
    res.on('error', (err) => {
      if (this.#state !== 'closed') this.#logger.debug({ err: err.message }, 'watch connection broke; ending the watch');
      this.#finish();
    });
    res.on('close', () => this.#finish());
  }

  #line(raw: string, onError: () => void): void {
    const line = raw.trim();
    if (line === '') return;
    try {
      this.#push({ event: parseWatchLine<T>(line) });
    } catch (err) {
      onError();
      this.#push({ error: err });
      this.#response?.destroy();
      this.#finish();
    }
  }

  #push(item: Item<T>): void {
    const waiter = this.#waiters.shift();
    if (waiter === undefined) {
      this.#queue.push(item);
      return;
    }
    if ('error' in item) {
      this.#close();
      waiter.reject(item.error);
    } else {
      waiter.resolve({ value: item.event, done: false });
    }
  }

  #resume(): void {
    if (this.#paused && this.#state === 'streaming') {
      this.#paused = false;
      this.#response?.resume();
    }
  }

  /** The server ended the stream: queued events are still delivered, then done. */
  #finish(): void {
    if (this.#state !== 'streaming' && this.#state !== 'opening') return;
    this.#state = 'ended';
    this.#signal?.removeEventListener('abort', this.#onAbort);
    if (this.#queue.length === 0) for (const w of this.#waiters.splice(0)) w.resolve({ value: undefined, done: true });
  }

  /** Stops everything now: the request is aborted, queued events are dropped. */
  #close(): void {
    if (this.#state === 'closed') return;
    this.#state = 'closed';
    this.#signal?.removeEventListener('abort', this.#onAbort);
    this.#queue.length = 0;
    this.#abort.abort();
    this.#response?.destroy();
    for (const w of this.#waiters.splice(0)) w.resolve({ value: undefined, done: true });
  }
}
