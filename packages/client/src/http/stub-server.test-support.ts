/**
 * Test support (not exported from the package): a node:http stub server whose handler the test
 * writes, recording each request, and waiting for a condition with a deadline instead of sleeping.
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface RecordedRequest {
  readonly method: string;
  /** Path and query as sent. */
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

export type StubHandler = (req: IncomingMessage, res: ServerResponse, recorded: RecordedRequest) => void | Promise<void>;

export interface StubServer extends AsyncDisposable {
  readonly url: string;
  readonly port: number;
  readonly requests: RecordedRequest[];
  close(): Promise<void>;
}

/** Starts a stub on 127.0.0.1 (`port` 0: a free one). Closing destroys open connections. */
export async function startStub(handler: StubHandler, port = 0): Promise<StubServer> {
  const requests: RecordedRequest[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const recorded = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      requests.push(recorded);
      void Promise.resolve(handler(req, res, recorded)).catch((err: unknown) => {
        res.destroy(err as Error);
      });
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const actual = (server.address() as AddressInfo).port;
  const close = async () => {
    for (const s of sockets) s.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return { url: `http://127.0.0.1:${actual}`, port: actual, requests, close, [Symbol.asyncDispose]: close };
}

/** Sends a JSON response. */
export function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

/** A Kubernetes Status body. */
export function status(code: number, reason: string, message: string): object {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code };
}

/** A port nothing listens on (just freed). */
export async function closedPort(): Promise<number> {
  const stub = await startStub(() => undefined);
  await stub.close();
  return stub.port;
}

/** Resolves once `condition()` is true, polling each event-loop turn; rejects after `timeoutMs` (default 5000). */
export async function waitFor(condition: () => boolean, what = 'condition', timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}
