/**
 * HttpClient: how every call of the client reaches the API server — rate-limited, authenticated,
 * retried when that is safe, timed out, with errors as ApiError — and how watches are streamed.
 */
import type { Agent, IncomingHttpHeaders, IncomingMessage, OutgoingHttpHeaders } from 'node:http';
import { arch, platform, version } from 'node:process';
import { ApiError, Backoff, type Clock, type KubeObject, type Logger, realClock, silentLogger } from '@setpoint/api';
import type { ClientConfig } from '../types.js';
import { CredentialSource, type RequestCredentials } from './credentials.js';
import { TokenBucket } from './ratelimit.js';
import { parseRetryAfter, retryForStatus, retryForTransportError } from './retry.js';
import { createAgent, discard, dispatch, errorFromResponse, parseBody, readBody } from './transport.js';
import { WatchStream } from './watchstream.js';

/** The User-Agent sent when the config names none. */
export const DEFAULT_USER_AGENT = `setpoint-client/0.1.0 (${platform}/${arch}) node/${version}`;

export interface HttpClientOptions {
  /** Requests per second (token bucket refill). Default 5 (client-go's); Infinity or <= 0: unlimited. */
  readonly qps?: number;
  /** Token bucket size. Default 10 (client-go's). */
  readonly burst?: number;
  /** Where rate limits, backoff waits and timeouts are timed. Default realClock. */
  readonly clock?: Clock;
  /** Retries after the first attempt (see retry.ts for which failures). Default 10, as client-go. */
  readonly maxRetries?: number;
  /** Per attempt, until the whole body is read (for watches: until the response starts). 0: none. Default 60,000. */
  readonly timeoutMs?: number;
  /** The backoff between retries without Retry-After. Default { initialMs: 250, maxMs: 8000, jitter: 0.5 }. */
  readonly retryBackoff?: { readonly initialMs?: number; readonly maxMs?: number; readonly jitter?: number };
  /** The random source of the backoff jitter, [0, 1). Default Math.random. */
  readonly random?: () => number;
  /** Retries and token-file problems are logged here. Default silent. */
  readonly logger?: Logger;
}

export type HttpMethod = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * Asked whether a write (POST, PUT, PATCH, DELETE) may go: before each attempt — after the rate
 * limiter and any wait between retries — and again when the attempt's connection is ready to carry
 * it (a new connection may take long). An error it returns is thrown instead of sending (an
 * ApiError as it is, another error as the cause of an ApiError ServiceUnavailable), and the write is
 * not retried. A leader-elected Manager fences its client with it, so that a leader whose lease ran
 * out (say, a process paused past it) sends no write, even before its timers have run.
 */
export type WriteFence = (method: HttpMethod, path: string) => Error | undefined;

export interface HttpRequest {
  readonly method: HttpMethod;
  /** The path below the server URL, starting with '/', its segments already percent-encoded. */
  readonly path: string;
  /** Query parameters; undefined and empty values are left out (as client-go leaves out unset options). */
  readonly query?: Readonly<Record<string, string | number | boolean | undefined>>;
  /** Sent as is when a string or Buffer, else as JSON. */
  readonly body?: unknown;
  /** Default application/json when there is a body. */
  readonly contentType?: string;
  /** The Accept header. Default application/json (a Table: `application/json;as=Table;v=v1;g=meta.k8s.io,application/json`). */
  readonly accept?: string;
  readonly signal?: AbortSignal;
  /** Overrides the client's timeoutMs for this request. */
  readonly timeoutMs?: number;
}

export interface HttpResponse<T = unknown> {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  /** Parsed JSON, the text of a non-JSON body, or undefined when empty. */
  readonly body: T;
}

class TimeoutError extends Error {
  override readonly name = 'TimeoutError';
}

/**
 * An HTTP client for one API server (one ClientConfig).
 *
 * Guarantees:
 * - One keep-alive agent per config (per client certificate, when an exec plugin rotates it) with
 *   the config's CA, client certificate, insecure-skip-tls-verify and tls-server-name.
 * - Every request (watches too) first takes a token from the rate limiter (`limiter`).
 * - Authorization: tokenFile (re-read when it changes), token, basic auth or the exec plugin's
 *   token; on a 401 with a refreshable credential (token file, exec plugin) the credential is
 *   fetched again and the request sent once more (this does not count as a retry).
 * - Retries follow retry.ts (429 and 5xx with Retry-After, 502/503/504 and connection failures
 *   only for idempotent methods, never POST), waiting Retry-After or a jittered exponential
 *   backoff, at most `maxRetries` times.
 *
 * Throws ApiError: fromStatus(body, code) for an error response (after retries); ServiceUnavailable
 * (code 503, the cause attached) for a transport failure; Timeout (504) when an attempt exceeds the
 * timeout; Unauthorized when no credential can be had. A request whose own signal aborts rejects
 * with the signal's reason instead.
 */
export class HttpClient {
  readonly config: ClientConfig;
  readonly limiter: TokenBucket;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #credentials: CredentialSource;
  readonly #agents = new Map<string, Agent>();
  readonly #maxRetries: number;
  readonly #timeoutMs: number;
  readonly #backoff: { initialMs: number; maxMs: number; jitter: number };
  readonly #random: () => number;
  readonly #base: URL;
  /** Aborted by close(): ends the waits between retries, so a closed client lets its process exit. */
  readonly #closed = new AbortController();
  #fence: WriteFence | undefined;

  constructor(config: ClientConfig, options: HttpClientOptions = {}) {
    this.config = config;
    this.#base = new URL(config.server);
    if (this.#base.protocol !== 'https:' && this.#base.protocol !== 'http:') throw new TypeError(`server must be an http(s) URL, got ${config.server}`);
    this.#clock = options.clock ?? realClock;
    this.#logger = options.logger ?? silentLogger;
    this.limiter = new TokenBucket({ ...(options.qps === undefined ? {} : { qps: options.qps }), ...(options.burst === undefined ? {} : { burst: options.burst }), clock: this.#clock });
    this.#credentials = new CredentialSource(config, { clock: this.#clock, logger: this.#logger });
    this.#maxRetries = Math.max(0, options.maxRetries ?? 10);
    this.#timeoutMs = options.timeoutMs ?? 60_000;
    this.#backoff = { initialMs: 250, maxMs: 8000, jitter: 0.5, ...options.retryBackoff };
    this.#random = options.random ?? Math.random;
  }

  /** Sends a request and reads the whole response; resolves for 2xx/3xx, throws ApiError otherwise. */
  async request<T = unknown>(req: HttpRequest): Promise<HttpResponse<T>> {
    const { res, body } = await this.#send(req, false);
    return { status: res.statusCode ?? 0, headers: res.headers, body: parseBody(res.headers['content-type'], body ?? Buffer.alloc(0)) as T };
  }

  /**
   * A watch: the events of a streaming GET (see WatchStream for its guarantees). The request is
   * sent on the first next(); failures to start it are thrown from there, as ApiError.
   */
  stream<T extends KubeObject = KubeObject>(req: Omit<HttpRequest, 'method' | 'body' | 'contentType'>): WatchStream<T> {
    return new WatchStream<T>(
      async (signal) => (await this.#send({ ...req, method: 'GET', signal }, true)).res,
      { ...(req.signal === undefined ? {} : { signal: req.signal }), logger: this.#logger },
    );
  }

  /**
   * Sends a request like request() but resolves as soon as a 2xx/3xx response's headers arrive,
   * for a body read as it comes (pod logs with follow=true). The timeout covers only the wait for
   * the headers. The caller must consume or destroy the response; aborting `req.signal` after it
   * resolved does not end it. Throws as request() does.
   */
  async open(req: HttpRequest): Promise<IncomingMessage> {
    return (await this.#send(req, true)).res;
  }

  /**
   * Installs the write fence (see WriteFence), or removes it with undefined. One at a time: throws
   * an Error when another one is installed.
   */
  setWriteFence(fence: WriteFence | undefined): void {
    if (fence !== undefined && this.#fence !== undefined) throw new Error('this client already has a write fence');
    this.#fence = fence;
  }

  /** Closes the agents' connections (open watches end). The client must not be used afterwards. */
  close(): void {
    this.#closed.abort(new ApiError('ServiceUnavailable', 'the client was closed'));
    for (const agent of this.#agents.values()) agent.destroy();
    this.#agents.clear();
  }

  [Symbol.dispose](): void {
    this.close();
  }

  #url(req: HttpRequest): URL {
    const url = new URL(this.#base.href);
    url.pathname = url.pathname.replace(/\/+$/, '') + req.path;
    for (const [k, v] of Object.entries(req.query ?? {})) if (v !== undefined && v !== '') url.searchParams.append(k, String(v));
    return url;
  }

  #agent(creds: RequestCredentials): Agent {
    const key = creds.cert === undefined ? '' : `${creds.cert}\0${creds.key ?? ''}`;
    let agent = this.#agents.get(key);
    if (agent === undefined) {
      agent = createAgent(this.config, creds.cert, creds.key);
      this.#agents.set(key, agent);
    }
    return agent;
  }

  #headers(req: HttpRequest, creds: RequestCredentials, body: Buffer | undefined): OutgoingHttpHeaders {
    const headers: OutgoingHttpHeaders = { accept: req.accept ?? 'application/json', 'user-agent': this.config.userAgent ?? DEFAULT_USER_AGENT };
    if (creds.authorization !== undefined) headers.authorization = creds.authorization;
    if (body !== undefined) {
      headers['content-type'] = req.contentType ?? 'application/json';
      headers['content-length'] = body.length;
    }
    return headers;
  }

  /** Sends with rate limit, credentials, retries and timeout; `stream`: resolve at the response headers. */
  async #send(req: HttpRequest, stream: boolean): Promise<{ res: IncomingMessage; body?: Buffer }> {
    const url = this.#url(req);
    const body = req.body === undefined ? undefined : Buffer.isBuffer(req.body) ? req.body : Buffer.from(typeof req.body === 'string' ? req.body : JSON.stringify(req.body), 'utf8');
    const backoff = new Backoff({ ...this.#backoff, factor: 2, random: this.#random, clock: this.#clock });
    const what = `${req.method} ${url.pathname}`;
    let retries = 0;
    let refreshed = false;
    for (;;) {
      await this.limiter.take(req.signal);
      const creds = await this.#credentials.current();
      // A fenced write is asked now, and again when its connection is ready to carry it.
      const fence = req.method !== 'GET' && req.method !== 'HEAD' ? this.#fence : undefined;
      const refused = fence?.(req.method, req.path);
      if (refused !== undefined) throw refused;
      let outcome: { res: IncomingMessage; body?: Buffer } | { error: unknown };
      const attempt = new AbortController();
      const onAbort = () => attempt.abort(req.signal?.reason);
      req.signal?.addEventListener('abort', onAbort, { once: true });
      if (req.signal?.aborted) attempt.abort(req.signal.reason);
      const timeoutMs = req.timeoutMs ?? this.#timeoutMs;
      const timer = timeoutMs > 0 ? this.#clock.setTimeout(() => attempt.abort(new TimeoutError(`${what} timed out after ${timeoutMs} ms`)), timeoutMs).unref() : undefined;
      try {
        const res = await dispatch(url, {
          method: req.method,
          headers: this.#headers(req, creds, body),
          agent: this.#agent(creds),
          body,
          signal: attempt.signal,
          ...(fence === undefined ? {} : { beforeSend: () => fence(req.method, req.path) }),
        });
        const status = res.statusCode ?? 0;
        if (status === 401 && !refreshed && this.#credentials.refreshable) {
          discard(res);
          this.#credentials.refresh(creds);
          refreshed = true;
          this.#logger.debug({ request: what }, 'unauthorized; refreshing credentials and trying again');
          continue;
        }
        outcome = status < 400 && stream ? { res } : { res, body: await readBody(res) };
      } catch (err) {
        outcome = { error: err };
      } finally {
        timer?.cancel();
        req.signal?.removeEventListener('abort', onAbort);
      }

      let waitMs: number | undefined;
      if ('error' in outcome) {
        const err = outcome.error;
        if (req.signal?.aborted) throw req.signal.reason;
        if (attempt.signal.reason instanceof TimeoutError) throw new ApiError('Timeout', attempt.signal.reason.message, { cause: err });
        if (err instanceof ApiError) throw err;
        if (!retryForTransportError(req.method, err) || retries >= this.#maxRetries) {
          throw new ApiError('ServiceUnavailable', `${what}: ${(err as Error).message ?? String(err)}`, { cause: err });
        }
        waitMs = backoff.next();
      } else {
        const status = outcome.res.statusCode ?? 0;
        if (status < 400) return outcome;
        const decision = retryForStatus(req.method, status, parseRetryAfter(outcome.res.headers['retry-after'], this.#clock.now()));
        if (decision === undefined || retries >= this.#maxRetries) throw errorFromResponse(status, outcome.body ?? Buffer.alloc(0));
        waitMs = decision === 'backoff' ? backoff.next() : decision.waitMs;
      }
      retries++;
      this.#logger.debug({ request: what, attempt: retries, waitMs, error: 'error' in outcome ? String(outcome.error) : outcome.res.statusCode }, 'retrying');
      if (this.#closed.signal.aborted) throw this.#closed.signal.reason;
      await this.#clock.sleep(waitMs, req.signal === undefined ? this.#closed.signal : AbortSignal.any([req.signal, this.#closed.signal]));
    }
  }
}
