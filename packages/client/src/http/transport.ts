/**
 * One HTTP exchange with the API server, below retries and rate limits: keep-alive agents built
 * from a ClientConfig's TLS settings, sending one request, reading a body, and turning an error
 * response into the ApiError its Status body describes.
 */
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage, type OutgoingHttpHeaders } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { TLSSocket } from 'node:tls';
import { ApiError, type Status } from '@setpoint/api';
import type { ClientConfig } from '../types.js';
import { connectionFailureCode } from './retry.js';

/** A keep-alive agent for `config`'s server, with its trust settings and the given client certificate. */
export function createAgent(config: ClientConfig, cert: string | undefined, key: string | undefined): HttpAgent {
  if (new URL(config.server).protocol === 'http:') return new HttpAgent({ keepAlive: true });
  return new HttpsAgent({
    keepAlive: true,
    ...(config.ca === undefined ? {} : { ca: config.ca }),
    ...(cert === undefined || key === undefined ? {} : { cert, key }),
    rejectUnauthorized: config.insecureSkipTLSVerify !== true,
    ...(config.tlsServerName === undefined ? {} : { servername: config.tlsServerName }),
  });
}

/**
 * Sends one request and resolves with the response once its headers arrive. Aborting `signal`
 * destroys the request (and the response, once there is one) with the signal's reason. Rejects
 * with the transport's error (ECONNREFUSED, ECONNRESET, TLS errors, ...). With `beforeSend`,
 * nothing is written until the connection is ready to carry the request (a new one connected and,
 * for TLS, its handshake done); then `beforeSend` is asked, and an error it returns rejects
 * instead — so a decision to write is taken when the write happens, not before a connection
 * that may take long.
 */
export function dispatch(
  url: URL,
  options: { method: string; headers: OutgoingHttpHeaders; agent: HttpAgent; body: Buffer | undefined; signal: AbortSignal; beforeSend?: () => Error | undefined },
): Promise<IncomingMessage> {
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise<IncomingMessage>((resolve, reject) => {
    if (options.signal.aborted) {
      reject(options.signal.reason);
      return;
    }
    const req = send(url, { method: options.method, headers: options.headers, agent: options.agent });
    const onAbort = () => req.destroy(options.signal.reason instanceof Error ? options.signal.reason : new Error('aborted'));
    options.signal.addEventListener('abort', onAbort, { once: true });
    let responded = false;
    req.on('response', (res) => {
      responded = true;
      resolve(res);
    });
    req.on('error', (err) => {
      // A keep-alive socket the server had already closed: the request never reached it, so it is
      // safe to send again whatever its method (the retry Node's documentation recommends).
      if (!responded && req.reusedSocket && connectionFailureCode(err) !== undefined) (err as { staleConnection?: boolean }).staleConnection = true;
      reject(err);
    });
    req.on('close', () => options.signal.removeEventListener('abort', onAbort));
    const beforeSend = options.beforeSend;
    if (beforeSend === undefined) {
      req.end(options.body);
      return;
    }
    const go = () => {
      const refused = beforeSend();
      if (refused === undefined) req.end(options.body);
      else req.destroy(refused);
    };
    req.once('socket', (socket) => {
      if (socket instanceof TLSSocket) {
        // getProtocol(): null before the TCP connection, 'unknown' during the handshake.
        const protocol = socket.getProtocol();
        if (protocol === null || protocol === 'unknown') socket.once('secureConnect', go);
        else go();
      } else if (socket.connecting) {
        socket.once('connect', go);
      } else {
        go();
      }
    });
  });
}

/** The whole body of a response. Rejects when the connection breaks before the end. */
export async function readBody(res: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of res) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Drains and discards a response body (to return the socket to the agent); errors are irrelevant. */
export function discard(res: IncomingMessage): void {
  res.on('error', () => undefined);
  res.resume();
}

function isStatus(doc: unknown): doc is Partial<Status> {
  return typeof doc === 'object' && doc !== null && (doc as { kind?: unknown }).kind === 'Status';
}

/**
 * The ApiError of an error response: ApiError.fromStatus(body, status) for a Status body; else the
 * reason the HTTP status implies, with the start of the body as the message when there is one.
 */
export function errorFromResponse(status: number, body: Buffer): ApiError {
  const text = body.toString('utf8');
  try {
    const doc: unknown = JSON.parse(text);
    if (isStatus(doc)) return ApiError.fromStatus(doc, status);
  } catch {
    // Not JSON: a proxy or a non-Kubernetes server answered; described from the HTTP status below.
  }
  const snippet = text.trim().split('\n')[0]?.slice(0, 200);
  const message =
    snippet === undefined || snippet === ''
      ? `the server responded with the status code ${status} but did not return more information`
      : `the server responded with the status code ${status}: ${snippet}`;
  return ApiError.fromStatus({ message, code: status }, status);
}

/** A success body: parsed JSON when the response says JSON (or looks like it), else the text; undefined when empty. */
export function parseBody(contentType: string | undefined, body: Buffer): unknown {
  if (body.length === 0) return undefined;
  const text = body.toString('utf8');
  const looksJson = (contentType ?? '').includes('json') || /^\s*[[{]/.test(text);
  if (!looksJson) return text;
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new ApiError('InternalError', `the server sent a body that is not valid JSON: ${text.slice(0, 120)}`, { cause: err });
  }
}
