/**
 * The agent's own endpoint, the part of the kubelet's port 10250 the API server uses:
 *
 *   GET /containerLogs/{namespace}/{pod}/{container}?follow&previous&tailLines&sinceSeconds&sinceTime&limitBytes&timestamps
 *
 * answered 200 text/plain, chunked, streamed (runtime/logreader.ts), or with the kubelet's status
 * codes and plain-text messages (404 unknown pod or container, 400 no run to read, 400 a query that
 * does not parse, 422 one that does not validate).
 *
 * Authentication, as the kubelet with client-certificate authentication: over HTTPS, a client
 * certificate that verifies against `clientCA` (the cluster CA) and whose subject CN is one of
 * `allowedCommonNames` (the API server's kubelet-client identity); or, where no CA is at hand
 * (plain-HTTP test setups), `Authorization: Bearer <token>` with the shared token. No credentials,
 * or wrong ones: 401. A verified certificate of another identity: 403. There is no anonymous
 * access: starting without a way to authenticate throws.
 */
import { timingSafeEqual } from 'node:crypto';
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { TLSSocket } from 'node:tls';
import { isApiError, parsePodLogOptions, realClock, silentLogger, validatePodLogOptions, type Clock, type Logger } from '@setpoint/api';
import { readContainerLog } from './runtime/logreader.js';
import { ContainerLogError, type ContainerLogSource } from './runtime/logsource.js';

/** The subject CN of the API server's client certificate for node agents (kubeadm's name for it). */
export const KUBELET_CLIENT_COMMON_NAME = 'kube-apiserver-kubelet-client';

/** Options of the agent's endpoint; defaults are stated on each field. */
export interface KubeletServerOptions {
  /** Port to listen on; 0 picks a free one. Reported as the Node's daemonEndpoints.kubeletEndpoint.Port. */
  readonly port: number;
  /**
   * Address to listen on. Default 0.0.0.0 (every interface, as the kubelet). A specific address is
   * also reported as the Node's InternalIP, so the API server connects there.
   */
  readonly host?: string;
  /** Serve HTTPS with this certificate (self-signed is fine: the API server does not verify it by default). Without it, plain HTTP. */
  readonly tls?: { readonly cert: string; readonly key: string };
  /** Accept client certificates signed by this CA (PEM): the cluster CA from the agent's kubeconfig. Needs `tls`. */
  readonly clientCA?: string;
  /** The client certificate CNs accepted. Default [KUBELET_CLIENT_COMMON_NAME]. */
  readonly allowedCommonNames?: readonly string[];
  /** Accept `Authorization: Bearer <token>` with this token (for setups without a CA). */
  readonly token?: string;
  /** Where "now" is read (`sinceSeconds`, lines not yet recorded). Default the real clock. */
  readonly clock?: Clock;
}

/** A running endpoint. */
export interface KubeletServer extends AsyncDisposable {
  /** The port it listens on. */
  readonly port: number;
  /** "https://host:port" or "http://host:port". */
  readonly url: string;
  /** Stops listening, ends open log streams, and resolves once the server is closed. */
  close(): Promise<void>;
}

function text(res: ServerResponse, status: number, message: string): void {
  if (res.headersSent) return;
  res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8' });
  res.end(message.endsWith('\n') ? message : `${message}\n`);
}

function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

type Decision = { readonly ok: true } | { readonly ok: false; readonly status: 401 | 403; readonly message: string };

/** Who may call: a verified client certificate of an allowed CN, or the token (see the file comment). */
function authenticate(req: IncomingMessage, options: KubeletServerOptions): Decision {
  const header = req.headers.authorization;
  if (options.token !== undefined && header !== undefined) {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (m !== null && sameSecret(m[1]!, options.token)) return { ok: true };
  }
  const socket = req.socket;
  if (options.clientCA !== undefined && socket instanceof TLSSocket && socket.authorized) {
    const subject = socket.getPeerCertificate().subject as Record<string, string | string[]> | undefined;
    const cn = subject?.CN;
    const name = Array.isArray(cn) ? cn[0] : cn;
    if (name !== undefined && (options.allowedCommonNames ?? [KUBELET_CLIENT_COMMON_NAME]).includes(name)) return { ok: true };
    return { ok: false, status: 403, message: `Forbidden (user=${name ?? ''}, verb=get, resource=nodes, subresource=log)` };
  }
  return { ok: false, status: 401, message: 'Unauthorized' };
}

/** The query as a record of every value per name. */
function queryOf(url: URL): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [key, value] of url.searchParams) (out[key] ??= []).push(value);
  return out;
}

/**
 * Starts the endpoint over `source` (the process runtime). Resolves once it listens. Throws a
 * TypeError for options that would leave it unauthenticated (no client CA and no token) or
 * inconsistent (a client CA without TLS); throws what listen throws (a port in use).
 */
export async function startKubeletServer(source: ContainerLogSource, options: KubeletServerOptions, logger: Logger = silentLogger): Promise<KubeletServer> {
  if (options.clientCA !== undefined && options.tls === undefined) throw new TypeError('the agent endpoint: a client CA needs TLS (a serving certificate)');
  if (options.clientCA === undefined && (options.token === undefined || options.token === '')) {
    throw new TypeError('the agent endpoint needs a way to authenticate the API server: a client CA (with TLS) or a token');
  }
  const streams = new Set<AbortController>();
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    void serve(req, res).catch((err: unknown) => {
      logger.warn({ err, url: req.url }, 'log request failed');
      if (!res.headersSent) text(res, 500, 'internal error');
      else res.destroy();
    });
  };
  const serve = async (req: IncomingMessage, res: ServerResponse) => {
    const decision = authenticate(req, options);
    if (!decision.ok) return text(res, decision.status, decision.message);
    const url = new URL(req.url ?? '/', 'http://agent');
    const parts = url.pathname.split('/');
    if (parts.length !== 5 || parts[1] !== 'containerLogs' || parts.slice(2).some((p) => p === '')) return text(res, 404, '404 page not found');
    if (req.method !== 'GET') return text(res, 405, 'Method Not Allowed');
    let namespace: string, pod: string, container: string;
    try {
      [namespace, pod, container] = parts.slice(2).map((p) => decodeURIComponent(p)) as [string, string, string];
    } catch {
      return text(res, 400, 'malformed path');
    }
    let logOptions;
    try {
      logOptions = parsePodLogOptions(queryOf(url));
    } catch (err) {
      if (isApiError(err)) return text(res, 400, err.message);
      throw err;
    }
    const invalid = validatePodLogOptions(logOptions);
    if (invalid.length > 0) return text(res, 422, invalid.map((e) => e.toString()).join(', '));
    let instance;
    try {
      instance = source.containerLog(namespace, pod, container, logOptions.previous === true);
    } catch (err) {
      if (err instanceof ContainerLogError) return text(res, err.status, err.message);
      throw err;
    }
    const abort = new AbortController();
    streams.add(abort);
    // The response closes when the client goes away (or once it ended).
    const stop = () => abort.abort();
    res.on('close', stop);
    try {
      res.writeHead(200, { 'Content-Type': 'text/plain', 'Cache-Control': 'no-cache, private' });
      res.flushHeaders();
      const clock = options.clock ?? realClock;
      const sinceMs = logOptions.sinceSeconds !== undefined ? clock.now() - logOptions.sinceSeconds * 1000 : logOptions.sinceTime;
      await readContainerLog(
        instance,
        {
          ...(logOptions.follow === undefined ? {} : { follow: logOptions.follow }),
          ...(logOptions.tailLines === undefined ? {} : { tailLines: logOptions.tailLines }),
          ...(sinceMs === undefined ? {} : { sinceMs }),
          ...(logOptions.limitBytes === undefined ? {} : { limitBytes: logOptions.limitBytes }),
          ...(logOptions.timestamps === undefined ? {} : { timestamps: logOptions.timestamps }),
          clock,
        },
        (chunk) => {
          if (res.destroyed || res.write(chunk)) return;
          return new Promise<void>((resolve) => {
            const done = () => {
              res.off('drain', done);
              res.off('close', done);
              resolve();
            };
            res.on('drain', done);
            res.on('close', done);
          });
        },
        abort.signal,
      );
      if (!res.destroyed) res.end();
    } finally {
      streams.delete(abort);
      res.off('close', stop);
    }
  };

  const server: Server = options.tls
    ? createHttpsServer(
        {
          cert: options.tls.cert,
          key: options.tls.key,
          ...(options.clientCA === undefined ? {} : { ca: options.clientCA, requestCert: true, rejectUnauthorized: false }),
          minVersion: 'TLSv1.2',
        },
        handle,
      )
    : createHttpServer(handle);
  const host = options.host ?? '0.0.0.0';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  server.on('error', (err) => logger.warn({ err }, 'agent endpoint error'));
  const port = (server.address() as AddressInfo).port;
  const shown = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  const url = `${options.tls ? 'https' : 'http'}://${shown}:${port}`;
  logger.info({ url, clientCertificates: options.clientCA !== undefined, token: options.token !== undefined }, 'agent endpoint listening (container logs)');
  let closed: Promise<void> | undefined;
  const close = () =>
    (closed ??= new Promise<void>((resolve) => {
      for (const stream of streams) stream.abort();
      server.close(() => resolve());
      server.closeAllConnections();
    }));
  return { port, url, close, [Symbol.asyncDispose]: close };
}
