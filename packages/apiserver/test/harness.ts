/**
 * Test harness: an API server on a free port, on a fresh store, with a small HTTP client.
 * `await using srv = await startTestServer()` stops the server and closes the store at the end.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemoryStore, SqliteStore, type Store } from '@setpoint/store';
import { ApiServer, type ApiServerOptions } from '../src/server.js';
import { TokenAuthenticator, ensureAdminToken, ensureServingCertificates, renderKubeconfig, type UserInfo } from '../src/auth/index.js';

export interface TestResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  /** The body parsed as JSON (undefined when it is not JSON). */
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

export interface TestServer extends AsyncDisposable {
  readonly server: ApiServer;
  readonly store: Store;
  readonly url: string;
  readonly dir: string;
  readonly token: string | undefined;
  /** Path of a kubeconfig for kubectl (TLS servers only). */
  readonly kubeconfig: string | undefined;
  readonly caCert: string | undefined;
  request(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<TestResponse>;
  /** Stops the server (and closes the store unless keepStore). */
  stop(keepStore?: boolean): Promise<void>;
}

export interface TestServerOptions extends Partial<Omit<ApiServerOptions, 'store'>> {
  /** Serve HTTPS with generated certificates and require the admin token. Default false. */
  readonly secure?: boolean;
  readonly backend?: 'memory' | 'sqlite';
  /** Reuse this directory (for restarts); default a new temporary one. */
  readonly dir?: string;
  /** With `secure`: further bearer tokens the server accepts besides the admin token, and their users. */
  readonly tokens?: Iterable<readonly [token: string, user: UserInfo]>;
}

export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const dir = options.dir ?? (await mkdtemp(join(tmpdir(), 'setpoint-apiserver-test-')));
  const store: Store = options.backend === 'sqlite' ? await SqliteStore.open({ path: join(dir, 'state.db') }) : new MemoryStore();
  let token: string | undefined;
  let tls: { cert: string; key: string } | undefined;
  let caCert: string | undefined;
  if (options.secure) {
    token = await ensureAdminToken(dir);
    const certs = await ensureServingCertificates({ dataDir: dir });
    tls = { cert: certs.cert, key: certs.key };
    caCert = certs.caCert;
  }
  const { secure: _s, backend: _b, dir: _d, tokens, ...rest } = options;
  const server = await ApiServer.start({
    port: 0,
    compaction: false,
    ...rest,
    store,
    ...(tls ? { tls, authenticator: new TokenAuthenticator({ adminToken: token!, ...(tokens ? { tokens } : {}) }) } : {}),
  });
  let kubeconfig: string | undefined;
  if (options.secure) {
    kubeconfig = join(dir, 'kubeconfig.yaml');
    await writeFile(kubeconfig, renderKubeconfig({ server: server.url, caCert: caCert!, token: token! }), { mode: 0o600 });
  }
  let stopped = false;
  const stop = async (keepStore = false) => {
    if (stopped) return;
    stopped = true;
    await server.stop();
    if (!keepStore) await store.close();
  };
  return {
    server,
    store,
    url: server.url,
    dir,
    token,
    kubeconfig,
    caCert,
    stop,
    request: (method, path, body, headers) => request(server.url, method, path, body, { ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers }, caCert),
    async [Symbol.asyncDispose]() {
      await stop();
      if (options.dir === undefined) await rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * One HTTP request; a body that is not a string or Buffer is sent as JSON. A header given as a
 * list is sent as one line per value.
 */
export function request(base: string, method: string, path: string, body?: unknown, headers: Record<string, string | string[]> = {}, ca?: string): Promise<TestResponse> {
  const url = new URL(path, base);
  const payload = body === undefined ? undefined : typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body);
  const hdrs: Record<string, string | string[]> = { ...headers };
  if (payload !== undefined && hdrs['content-type'] === undefined) hdrs['content-type'] = 'application/json';
  // Node frames a body of DELETE (and GET) requests only when told its length.
  if (payload !== undefined && hdrs['content-length'] === undefined) hdrs['content-length'] = String(Buffer.byteLength(payload));
  const mod = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const req = mod.request(url, { method, headers: hdrs, ...(ca ? { ca } : {}) }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let parsed: unknown;
        try {
          parsed = JSON.parse(text);
        } catch {
          parsed = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, body: parsed });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    if (payload !== undefined) req.write(payload);
    req.end();
  });
}

/**
 * Opens a watch and collects its lines. `next()` waits (with a deadline) for the next event.
 */
export function openWatch(base: string, path: string, headers: Record<string, string> = {}, ca?: string) {
  const url = new URL(path, base);
  const mod = url.protocol === 'https:' ? https : http;
  const events: Array<{ type: string; object: any }> = []; // eslint-disable-line @typescript-eslint/no-explicit-any
  const waiters: Array<() => void> = [];
  let closed = false;
  let status = 0;
  let contentType = '';
  const req = mod.request(url, { method: 'GET', headers, ...(ca ? { ca } : {}) }, (res) => {
    status = res.statusCode ?? 0;
    contentType = String(res.headers['content-type'] ?? '');
    let buf = '';
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      buf += chunk;
      let i: number;
      while ((i = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, i).trim();
        buf = buf.slice(i + 1);
        if (line !== '') events.push(JSON.parse(line));
      }
      for (const w of waiters.splice(0)) w();
    });
    res.on('end', () => {
      closed = true;
      for (const w of waiters.splice(0)) w();
    });
  });
  req.on('error', () => {
    closed = true;
    for (const w of waiters.splice(0)) w();
  });
  req.end();
  let read = 0;
  return {
    get status() {
      return status;
    },
    get contentType() {
      return contentType;
    },
    get closed() {
      return closed;
    },
    events,
    /** The next event, waiting up to `ms`; throws on timeout or when the stream closed first. */
    async next(ms = 5000) {
      const deadline = Date.now() + ms;
      while (read >= events.length) {
        if (closed) throw new Error('the watch closed');
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`no watch event within ${ms} ms`);
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, left);
          waiters.push(() => {
            clearTimeout(t);
            resolve();
          });
        });
      }
      return events[read++]!;
    },
    /** Resolves when the server closes the stream (or rejects after `ms`). */
    async waitClosed(ms = 5000) {
      const deadline = Date.now() + ms;
      while (!closed) {
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`the watch did not close within ${ms} ms`);
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, left);
          waiters.push(() => {
            clearTimeout(t);
            resolve();
          });
        });
      }
    },
    close() {
      req.destroy();
    },
  };
}
