/**
 * Answers requests the HTTP parser refuses (a malformed request line or header, headers too large,
 * a client too slow to send its request) with a Kubernetes Status, as every other error is
 * answered, then closes the connection. Used as fastify's clientErrorHandler; also the URLs its
 * router refuses (frameworkErrors), and requests with an `Expect` header other than 100-continue,
 * which Node (as Go's server) refuses with 417.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { ApiError } from '@setpoint/api';
import type { FastifyError, FastifyReply } from 'fastify';
import { sendError } from './respond.js';

/** The Status for a parser error (never the request's bytes, which may hold anything). */
export function clientErrorStatus(err: Error & { code?: string }): ApiError {
  switch (err.code) {
    case 'HPE_HEADER_OVERFLOW':
      return new ApiError('BadRequest', 'the request headers are too large', { code: 431 });
    case 'ERR_HTTP_REQUEST_TIMEOUT':
    case 'ERR_HTTP_HEADERS_TIMEOUT':
      return new ApiError('Timeout', 'the client did not send a complete request in time', { code: 408 });
    default:
      return ApiError.badRequest(`malformed HTTP request${err.code === undefined ? '' : ` (${err.code})`}`);
  }
}

const REASON_PHRASES: Record<number, string> = { 400: 'Bad Request', 408: 'Request Timeout', 431: 'Request Header Fields Too Large' };

/** fastify's clientErrorHandler: writes the Status (when the socket still takes it) and closes. */
export function answerClientError(err: Error & { code?: string }, socket: Duplex): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const status = clientErrorStatus(err);
  const body = JSON.stringify(status.toStatus());
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status.code} ${REASON_PHRASES[status.code] ?? 'Bad Request'}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}

/**
 * The Node server's 'checkExpectation' listener: an `Expect` other than 100-continue gets 417
 * Expectation Failed (as Node and Go answer it), as a Status.
 */
export function answerExpectationFailed(_req: IncomingMessage, res: ServerResponse): void {
  const status = new ApiError('ExpectationFailed', 'the server does not meet the expectation in the Expect header (only 100-continue is supported)', { code: 417 });
  const body = JSON.stringify(status.toStatus());
  res.writeHead(417, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body), Connection: 'close' });
  res.end(body);
}

/** fastify's frameworkErrors: a URL its router cannot decode (400) or with a segment too long (414). */
export function answerFrameworkError(err: FastifyError, _req: unknown, reply: FastifyReply): void {
  if (err.code === 'FST_ERR_MAX_PARAM_LENGTH') sendError(reply, new ApiError('RequestURITooLong', 'the request URI is too long', { code: 414 }));
  else sendError(reply, ApiError.badRequest(err.code === 'FST_ERR_BAD_URL' ? 'the request URL is not valid: it holds a malformed percent-encoding' : err.message));
}
