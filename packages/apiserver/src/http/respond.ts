/**
 * Responses: content negotiation (JSON whenever the client accepts it; YAML on request; 406 for
 * clients that accept neither) and errors as Status bodies, always with Content-Type
 * application/json. Nothing else in the server turns an error into HTTP.
 */
import { ApiError } from '@setpoint/api';
import type { FastifyReply } from 'fastify';
import { stringify as toYaml } from 'yaml';

export type Encoding = 'json' | 'yaml';

/** The encoding a response should use for this Accept header; throws NotAcceptable. */
export function negotiate(accept: string | undefined): Encoding {
  if (accept === undefined || accept.trim() === '') return 'json';
  let yaml = false;
  for (const part of accept.split(',')) {
    const media = part.split(';')[0]!.trim().toLowerCase();
    if (media === 'application/json' || media === '*/*' || media === 'application/*' || media === 'application/json-seq') return 'json';
    if (media === 'application/yaml' || media === 'application/x-yaml' || media === 'text/yaml') yaml = true;
  }
  if (yaml) return 'yaml';
  throw ApiError.notAcceptable(['application/json', 'application/yaml']);
}

/** Sends `body` with `code` in the negotiated encoding. */
export function send(reply: FastifyReply, code: number, body: unknown, encoding: Encoding = 'json'): FastifyReply {
  if (encoding === 'yaml') return reply.code(code).type('application/yaml').send(toYaml(body));
  return reply.code(code).type('application/json').send(JSON.stringify(body));
}

/** The ApiError an arbitrary error means on the wire (never a stack trace). */
export function toApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  const code = (err as { code?: unknown; statusCode?: unknown }).code;
  const statusCode = (err as { statusCode?: unknown }).statusCode;
  switch (code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return ApiError.tooLarge('limit is 3145728');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return ApiError.unsupportedMediaType(['application/json', 'application/yaml']);
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return ApiError.badRequest((err as Error).message);
  }
  if (typeof statusCode === 'number' && statusCode >= 400 && statusCode < 500) return ApiError.badRequest((err as Error).message);
  return ApiError.internal(err);
}

/** Sends an error as a Status (JSON, whatever the Accept header said). */
export function sendError(reply: FastifyReply, err: unknown): FastifyReply {
  const apiError = toApiError(err);
  const retryAfter = apiError.details?.retryAfterSeconds;
  if (retryAfter !== undefined) reply.header('Retry-After', String(retryAfter));
  return reply.code(apiError.code).type('application/json').send(JSON.stringify(apiError.toStatus()));
}

/** The Warning header value for a list of warning texts (RFC 7234 warn-code 299). */
export function warningHeader(warnings: readonly string[]): string[] {
  return warnings.map((w) => `299 - ${JSON.stringify(w)}`);
}
