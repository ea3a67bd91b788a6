/**
 * RecordingProxy: a test-only HTTP proxy on loopback in front of the API server, one per client
 * process, that records every request it passes on (arrival time, method, path, status) — so a
 * test can tell which process wrote what, and when, without trusting the process's own account.
 * Requests and responses are streamed both ways (watches included).
 */
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  /** Date.now() when the request's headers arrived. */
  readonly at: number;
  readonly method: string;
  readonly path: string;
  status?: number;
}

export class RecordingProxy {
  readonly requests: RecordedRequest[] = [];
  readonly #server: http.Server;
  readonly #agent: https.Agent;

  private constructor(
    private readonly target: URL,
    ca: string,
  ) {
    this.#agent = new https.Agent({ keepAlive: true, ca });
    this.#server = http.createServer((req, res) => this.#forward(req, res));
  }

  /** Starts a proxy to `target` (an https URL whose certificate `ca` signed) on 127.0.0.1, a free port. */
  static async start(target: string, ca: string): Promise<RecordingProxy> {
    const proxy = new RecordingProxy(new URL(target), ca);
    await new Promise<void>((resolve) => proxy.#server.listen(0, '127.0.0.1', resolve));
    return proxy;
  }

  /** Its URL, for a kubeconfig. */
  get url(): string {
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  /** Requests that change something (POST, PUT, PATCH, DELETE). */
  writes(): RecordedRequest[] {
    return this.requests.filter((r) => r.method !== 'GET' && r.method !== 'HEAD');
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
    this.#agent.destroy();
  }

  #forward(req: http.IncomingMessage, res: http.ServerResponse): void {
    const record: RecordedRequest = { at: Date.now(), method: req.method ?? 'GET', path: req.url ?? '/' };
    this.requests.push(record);
    const headers = { ...req.headers, host: this.target.host };
    const upstream = https.request(new URL(req.url ?? '/', this.target), { method: req.method, headers, agent: this.#agent }, (up) => {
      record.status = up.statusCode;
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
      up.on('error', () => res.destroy());
    });
    upstream.on('error', () => {
      if (!res.headersSent) res.writeHead(502).end();
      else res.destroy();
    });
    res.on('close', () => {
      if (!res.writableFinished) upstream.destroy(); // the client went away (a watch ended)
    });
    req.pipe(upstream);
  }
}

/** A kubeconfig for `server` (http) with a bearer token. */
export function tokenKubeconfig(server: string, token: string): string {
  return [
    'apiVersion: v1',
    'kind: Config',
    `clusters: [{name: c, cluster: {server: "${server}"}}]`,
    `users: [{name: u, user: {token: "${token}"}}]`,
    'contexts: [{name: x, context: {cluster: c, user: u}}]',
    'current-context: x',
    '',
  ].join('\n');
}
