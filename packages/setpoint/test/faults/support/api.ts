/**
 * The fault tests' own HTTP client of the API server: deliberately thin (no retries, no rate limit,
 * no caching), so that each request's fate is known exactly — answered (with its status), refused
 * (never reached the server), or lost in between (its effect unknown).
 */
import http from 'node:http';
import https from 'node:https';

/** How a request that got no answer failed. */
export class TransportError extends Error {
  /** false when the request certainly did not reach the server (connection refused). */
  readonly mayHaveReached: boolean;
  readonly code: string | undefined;
  constructor(message: string, code: string | undefined, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'TransportError';
    this.code = code;
    this.mayHaveReached = code !== 'ECONNREFUSED' && code !== 'EHOSTUNREACH' && code !== 'ENETUNREACH';
  }
}

export interface Answer {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON of any Kubernetes kind
  readonly body: any;
}

export interface ApiOptions {
  readonly ca?: string;
  readonly token?: string;
  /** Per request, until the whole answer is read. Default 10,000 ms. */
  readonly timeoutMs?: number;
  /** Connections kept open. Default 1 (one client issues one request at a time). */
  readonly maxSockets?: number;
}

/** One client: its own keep-alive connections to one API server. */
export class Api {
  readonly url: URL;
  readonly #options: ApiOptions;
  readonly #agent: http.Agent;

  constructor(url: string, options: ApiOptions = {}) {
    this.url = new URL(url);
    this.#options = options;
    const agentOptions = { keepAlive: true, maxSockets: options.maxSockets ?? 1 };
    this.#agent = this.url.protocol === 'https:' ? new https.Agent({ ...agentOptions, ...(options.ca === undefined ? {} : { ca: options.ca }) }) : new http.Agent(agentOptions);
  }

  /** Sends a request and reads the whole answer; throws TransportError when none came. */
  request(method: string, path: string, body?: unknown, options: { contentType?: string; timeoutMs?: number } = {}): Promise<Answer> {
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const headers: Record<string, string> = { accept: 'application/json' };
    if (payload !== undefined) headers['content-type'] = options.contentType ?? 'application/json';
    return this.send(method, path, { ...(payload === undefined ? {} : { body: payload }), headers, ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }) });
  }

  /**
   * Sends `body` as it is, with `headers` (the token's Authorization and the Content-Length are
   * added), and reads the whole answer; the body is parsed as JSON where it is JSON. Throws
   * TransportError when no answer came.
   */
  send(method: string, path: string, options: { body?: Buffer; headers?: Readonly<Record<string, string>>; timeoutMs?: number } = {}): Promise<Answer> {
    return new Promise((resolve, reject) => {
      const payload = options.body;
      const headers: http.OutgoingHttpHeaders = { ...options.headers };
      if (this.#options.token !== undefined) headers.authorization = `Bearer ${this.#options.token}`;
      if (payload !== undefined) headers['content-length'] = payload.length;
      const send = this.url.protocol === 'https:' ? https.request : http.request;
      const req = send(new URL(path, this.url), { method, headers, agent: this.#agent }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          clearTimeout(timer);
          const text = Buffer.concat(chunks).toString('utf8');
          let json: unknown = text;
          try {
            json = text === '' ? undefined : JSON.parse(text);
          } catch {
            // not JSON: keep the text
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: json });
        });
        res.on('error', (err) => fail(err));
      });
      const fail = (err: Error) => {
        clearTimeout(timer);
        req.destroy();
        reject(err instanceof TransportError ? err : new TransportError(`${method} ${path}: ${err.message}`, (err as NodeJS.ErrnoException).code, { cause: err }));
      };
      const timeoutMs = options.timeoutMs ?? this.#options.timeoutMs ?? 10_000;
      const timer = setTimeout(() => fail(new TransportError(`${method} ${path}: no answer within ${timeoutMs} ms`, 'ETIMEDOUT')), timeoutMs);
      req.on('error', fail);
      req.end(payload);
    });
  }

  /** request(), throwing unless the status is 2xx. */
  async ok(method: string, path: string, body?: unknown, options: { contentType?: string; timeoutMs?: number } = {}): Promise<Answer['body']> {
    const answer = await this.request(method, path, body, options);
    if (answer.status < 200 || answer.status > 299) throw new Error(`${method} ${path}: ${answer.status} ${JSON.stringify(answer.body)}`);
    return answer.body;
  }

  /**
   * A watch: GET `path` (with watch=true in its query) calling `onLine` for each event line, until
   * the stream ends (resolves), fails (rejects with a TransportError), or `signal` aborts (resolves).
   * A non-200 answer rejects with a WatchRefused carrying the status and body; `onOpen` is called
   * when a 200 arrives.
   */
  watch(path: string, onLine: (event: { type: string; object: Answer['body'] }) => void, signal: AbortSignal, onOpen?: () => void): Promise<void> {
    const settled = new Promise<void>((resolve, reject) => {
      if (signal.aborted) return resolve();
      const headers: http.OutgoingHttpHeaders = { accept: 'application/json' };
      if (this.#options.token !== undefined) headers.authorization = `Bearer ${this.#options.token}`;
      const send = this.url.protocol === 'https:' ? https.request : http.request;
      // Watches get their own connection: the client's keep-alive socket stays free for requests.
      const req = send(new URL(path, this.url), { method: 'GET', headers, ...(this.url.protocol === 'https:' && this.#options.ca !== undefined ? { ca: this.#options.ca } : {}) }, (res) => {
        if (res.statusCode !== 200) {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            let body: unknown = text;
            try {
              body = JSON.parse(text);
            } catch {
              // keep the text
            }
            reject(new WatchRefused(res.statusCode ?? 0, body));
          });
          res.on('error', (err) => reject(new TransportError(`watch ${path}: ${err.message}`, (err as NodeJS.ErrnoException).code, { cause: err })));
          return;
        }
        onOpen?.();
        let buffer = '';
        res.on('data', (c: Buffer) => {
          buffer += c.toString('utf8');
          for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
            const line = buffer.slice(0, nl).trim();
            buffer = buffer.slice(nl + 1);
            if (line !== '') onLine(JSON.parse(line) as { type: string; object: Answer['body'] });
          }
        });
        res.on('end', () => resolve());
        res.on('error', (err) => (signal.aborted ? resolve() : reject(new TransportError(`watch ${path}: ${err.message}`, (err as NodeJS.ErrnoException).code, { cause: err }))));
        res.on('close', () => resolve());
      });
      req.on('error', (err) => (signal.aborted ? resolve() : reject(new TransportError(`watch ${path}: ${err.message}`, (err as NodeJS.ErrnoException).code, { cause: err }))));
      const onAbort = () => req.destroy();
      signal.addEventListener('abort', onAbort, { once: true });
      req.on('close', () => signal.removeEventListener('abort', onAbort));
      req.end();
    });
    return settled;
  }

  /** Closes its connections. */
  close(): void {
    this.#agent.destroy();
  }
}

/** A watch the server answered with something other than 200 (e.g. 410 Gone). */
export class WatchRefused extends Error {
  constructor(
    readonly status: number,
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    readonly body: any,
  ) {
    super(`watch refused: ${status} ${JSON.stringify(body)}`);
    this.name = 'WatchRefused';
  }
}
