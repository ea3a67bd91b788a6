/**
 * Responses: content negotiation (JSON whenever the client accepts it; YAML on request; Kubernetes'
 * protobuf for built-in kinds when the client lists it first; a meta.k8s.io Table when asked with
 * `;as=Table`; 406 for clients that accept none) and errors as Status bodies, always with
 * Content-Type application/json. Nothing else in the server turns an error into HTTP.
 */
import { ApiError } from '@setpoint/api';
import { isStoreError } from '@setpoint/store';
import type { FastifyReply } from 'fastify';
import { stringify as toYaml } from 'yaml';
import { fromStoreError } from '../storage/errors.js';
import { PROTOBUF_MEDIA_TYPE, encodeProtobuf } from './protobuf/index.js';
import { warningHeaderValues } from './warnings.js';

export type Encoding = 'json' | 'yaml' | 'protobuf';

/** What a response is: its encoding and, when the client asked for one, a meta.k8s.io Table. */
export interface OutputMedia {
  readonly encoding: Encoding;
  /** The meta.k8s.io version of the Table asked for (`;as=Table;g=meta.k8s.io;v=v1`), if any. */
  readonly table?: 'v1' | 'v1beta1';
}

/**
 * The first media type in the Accept header this server can produce (JSON wins over YAML wherever
 * it appears), or undefined when none. `as=Table;g=meta.k8s.io;v=v1|v1beta1` asks for a Table; a
 * Table of another group or version is skipped, as kube-apiserver skips what it cannot serve.
 * Other `as=` transforms are not served and read as the plain object. Protobuf is chosen only with
 * `protobuf` (the kind has a protobuf message) and never for a Table.
 */
export function negotiateOutput(accept: string | undefined, options: { readonly protobuf?: boolean } = {}): OutputMedia | undefined {
  if (accept === undefined || accept.trim() === '') return { encoding: 'json' };
  let yaml: OutputMedia | undefined;
  for (const part of accept.split(',')) {
    const [rawMedia, ...rawParams] = part.split(';');
    const media = rawMedia!.trim().toLowerCase();
    const params = new Map<string, string>();
    for (const p of rawParams) {
      const eq = p.indexOf('=');
      if (eq > 0) params.set(p.slice(0, eq).trim().toLowerCase(), p.slice(eq + 1).trim().replace(/^"(.*)"$/, '$1'));
    }
    let table: OutputMedia['table'];
    if (params.get('as') === 'Table') {
      const version = params.get('v');
      if (params.get('g') !== 'meta.k8s.io' || (version !== 'v1' && version !== 'v1beta1')) continue;
      table = version;
    }
    const chosen = (encoding: Encoding): OutputMedia => (table === undefined ? { encoding } : { encoding, table });
    if (media === 'application/json' || media === '*/*' || media === 'application/*' || media === 'application/json-seq') return chosen('json');
    if (media === PROTOBUF_MEDIA_TYPE && options.protobuf === true && table === undefined) return chosen('protobuf');
    if (media === 'application/yaml' || media === 'application/x-yaml' || media === 'text/yaml') yaml ??= chosen('yaml');
  }
  return yaml;
}

/** The encoding a response should use for this Accept header; throws NotAcceptable. */
export function negotiate(accept: string | undefined): Encoding {
  return negotiateMedia(accept).encoding;
}

/** {@link negotiateOutput}, throwing ApiError NotAcceptable when nothing in Accept can be served. */
export function negotiateMedia(accept: string | undefined, options: { readonly protobuf?: boolean } = {}): OutputMedia {
  const media = negotiateOutput(accept, options);
  if (media === undefined) throw ApiError.notAcceptable(['application/json', 'application/yaml']);
  return media;
}

/**
 * Sends `body` with `code` in the negotiated encoding (JSON for a body protobuf cannot encode),
 * with `warnings` as Warning headers (http/warnings.ts). Never throws once called: a body YAML or
 * protobuf cannot encode goes out as JSON, and a body even JSON cannot encode (a bug) as a Status
 * saying so with the same code — this runs after the store's commit, where a failure would tell the
 * client a write failed that did not.
 */
export function send(reply: FastifyReply, code: number, body: unknown, encoding: Encoding = 'json', warnings: readonly string[] = []): FastifyReply {
  const warningValues = warnings.length > 0 ? warningHeaderValues(warnings) : [];
  if (warningValues.length > 0) reply.header('Warning', warningValues);
  let payload: string | Buffer;
  let type = 'application/json';
  try {
    if (encoding === 'yaml') {
      payload = toYaml(body);
      type = 'application/yaml';
    } else {
      const protobuf = encoding === 'protobuf' ? protobufOrUndefined(body) : undefined;
      if (protobuf !== undefined) type = PROTOBUF_MEDIA_TYPE;
      payload = protobuf ?? JSON.stringify(body);
      if (typeof payload !== 'string' && !Buffer.isBuffer(payload)) payload = jsonOrStatus(code, body); // undefined
    }
  } catch {
    type = 'application/json';
    payload = jsonOrStatus(code, body);
  }
  // A Buffer, so Node writes the head apart in latin1, each char one byte: the Warning values' UTF-8
  // bytes go out as they are (with a string body Node would encode the head as UTF-8 a second time).
  return reply.code(code).type(type).send(typeof payload === 'string' ? Buffer.from(payload, 'utf8') : payload);
}

/** `body` as JSON or, when JSON cannot carry it, a Status with `code` saying the answer could not be encoded. */
function jsonOrStatus(code: number, body: unknown): string {
  try {
    const json = JSON.stringify(body);
    if (typeof json === 'string') return json;
  } catch {
    // fall through
  }
  const success = code < 400;
  return JSON.stringify({
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: success ? 'Success' : 'Failure',
    message: success ? 'the request succeeded; its answer could not be encoded' : 'the answer could not be encoded',
    code,
  });
}

/**
 * The protobuf encoding of `body`, or undefined (answer JSON) when it has none — or when a field of
 * a stored object has a JSON type its message cannot carry (an object written before validation
 * checked that field, or any other failure of the encoder): JSON carries it as stored, where
 * protobuf would fail the whole answer.
 */
function protobufOrUndefined(body: unknown): Buffer | undefined {
  try {
    return encodeProtobuf(body);
  } catch {
    return undefined;
  }
}

/** The ApiError an arbitrary error means on the wire (never a stack trace). */
export function toApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  // A store error no route mapped (one that read the store directly): what it means for any
  // resource — above all Unavailable, a 503 with Retry-After rather than a 500.
  if (isStoreError(err)) {
    const mapped = fromStoreError(err, { group: '', resource: '' }, '');
    if (mapped instanceof ApiError) return mapped;
  }
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

/**
 * Sends an error as a Status (JSON, whatever the Accept header said). Never throws: should building
 * the Status fail, a plain InternalError Status goes out.
 */
export function sendError(reply: FastifyReply, err: unknown): FastifyReply {
  let apiError: ApiError;
  let body: string;
  try {
    apiError = toApiError(err);
    body = JSON.stringify(apiError.toStatus());
  } catch {
    apiError = ApiError.internal(undefined);
    body = INTERNAL_ERROR_STATUS;
  }
  const retryAfter = apiError.details?.retryAfterSeconds;
  if (retryAfter !== undefined) reply.header('Retry-After', String(retryAfter));
  return reply.code(apiError.code).type('application/json').send(Buffer.from(body, 'utf8'));
}

/** The Status of a 500 whose cause cannot be told (a last resort; no detail can fail to encode). */
export const INTERNAL_ERROR_STATUS = JSON.stringify({
  kind: 'Status',
  apiVersion: 'v1',
  metadata: {},
  status: 'Failure',
  message: 'Internal error occurred: the server could not answer the request',
  reason: 'InternalError',
  details: {},
  code: 500,
});
