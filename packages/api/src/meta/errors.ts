/**
 * ApiError: the one error class of the API, carrying a Kubernetes Status reason and HTTP code.
 * Messages are worded as kube-apiserver words them (apimachinery api/errors), because people and
 * clients recognise them. Converts to and from a Status body.
 */
import type { CauseType, Status, StatusCause, StatusDetails } from './types.js';

/** Status.reason values and the HTTP code each maps to. */
export const reasonCodes = {
  BadRequest: 400,
  Unauthorized: 401,
  Forbidden: 403,
  NotFound: 404,
  MethodNotAllowed: 405,
  NotAcceptable: 406,
  AlreadyExists: 409,
  Conflict: 409,
  Gone: 410,
  Expired: 410,
  RequestEntityTooLarge: 413,
  UnsupportedMediaType: 415,
  Invalid: 422,
  TooManyRequests: 429,
  InternalError: 500,
  ServerTimeout: 500,
  ServiceUnavailable: 503,
  Timeout: 504,
} as const;

export type StatusReason = keyof typeof reasonCodes;

/**
 * The group-qualified resource an error is about: `{ group: 'apps', resource: 'deployments' }`
 * prints as "deployments.apps"; core resources print bare ("configmaps").
 */
export interface GroupResource {
  readonly group: string;
  readonly resource: string;
}

/** The group-qualified kind (for Invalid): "Deployment.apps", "ConfigMap". */
export interface GroupKind {
  readonly group: string;
  readonly kind: string;
}

function qualified(group: string, name: string): string {
  return group === '' ? name : `${name}.${group}`;
}

export interface ApiErrorOptions {
  readonly details?: StatusDetails;
  readonly cause?: unknown;
  /** Overrides the HTTP code the reason implies (rarely needed). */
  readonly code?: number;
}

/** An error the API answers with; `toStatus()` is its body, `code` its HTTP status. */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  readonly reason: StatusReason | string;
  readonly code: number;
  readonly details: StatusDetails | undefined;

  constructor(reason: StatusReason | string, message: string, options: ApiErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.reason = reason;
    this.code = options.code ?? (reasonCodes as Record<string, number>)[reason] ?? 500;
    this.details = options.details;
  }

  /** The Status body for this error. */
  toStatus(): Status {
    const status: Status = {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: this.message,
      reason: this.reason,
      code: this.code,
    };
    if (this.details !== undefined) status.details = this.details;
    return status;
  }

  /** An ApiError from a Status body (as a client receives it). Unknown shapes become InternalError. */
  static fromStatus(status: Partial<Status> | undefined, httpCode?: number): ApiError {
    const code = status?.code ?? httpCode ?? 500;
    const reason = status?.reason ?? reasonForCode(code);
    const message = status?.message ?? `the server responded with the status code ${code}`;
    const options: ApiErrorOptions = status?.details ? { code, details: status.details } : { code };
    return new ApiError(reason, message, options);
  }

  static notFound(gr: GroupResource, name: string): ApiError {
    const message = name === '' ? `${qualified(gr.group, gr.resource)} not found` : `${qualified(gr.group, gr.resource)} "${name}" not found`;
    return new ApiError('NotFound', message, { details: { name, group: gr.group, kind: gr.resource } });
  }

  static alreadyExists(gr: GroupResource, name: string): ApiError {
    return new ApiError('AlreadyExists', `${qualified(gr.group, gr.resource)} "${name}" already exists`, {
      details: { name, group: gr.group, kind: gr.resource },
    });
  }

  /** A write conflict; the default reason is the stale-resourceVersion one clients retry on. */
  static conflict(gr: GroupResource, name: string, why = OBJECT_MODIFIED): ApiError {
    return new ApiError('Conflict', `Operation cannot be fulfilled on ${qualified(gr.group, gr.resource)} "${name}": ${why}`, {
      details: { name, group: gr.group, kind: gr.resource },
    });
  }

  /** A validation failure: `Kind "name" is invalid: <field errors>`, each a cause. */
  static invalid(gk: GroupKind, name: string, errors: readonly FieldError[]): ApiError {
    const causes: StatusCause[] = errors.map((e) => ({ reason: e.type, message: e.body(), field: e.field }));
    const aggregate = errors.length === 1 ? errors[0]!.toString() : `[${errors.map((e) => e.toString()).join(', ')}]`;
    return new ApiError('Invalid', `${qualified(gk.group, gk.kind)} "${name}" is invalid: ${aggregate}`, {
      details: { name, group: gk.group, kind: gk.kind, causes },
    });
  }

  static badRequest(message: string, causes?: StatusCause[]): ApiError {
    return new ApiError('BadRequest', message, causes ? { details: { causes } } : {});
  }

  static unauthorized(message = 'Unauthorized'): ApiError {
    return new ApiError('Unauthorized', message);
  }

  static forbidden(gr: GroupResource, name: string, why: string): ApiError {
    const what = name === '' ? qualified(gr.group, gr.resource) : `${qualified(gr.group, gr.resource)} "${name}"`;
    return new ApiError('Forbidden', `${what} is forbidden: ${why}`, { details: { name, group: gr.group, kind: gr.resource } });
  }

  static methodNotAllowed(action: string, gr: GroupResource): ApiError {
    return new ApiError('MethodNotAllowed', `${action} is not supported on resources of kind "${qualified(gr.group, gr.resource)}"`, {
      details: { group: gr.group, kind: gr.resource },
    });
  }

  static notAcceptable(accepted: readonly string[]): ApiError {
    return new ApiError('NotAcceptable', `only the following media types are accepted: ${accepted.join(', ')}`);
  }

  static unsupportedMediaType(accepted: readonly string[]): ApiError {
    return new ApiError(
      'UnsupportedMediaType',
      `the body of the request was in an unknown format - accepted media types include: ${accepted.join(', ')}`,
    );
  }

  static tooLarge(message = 'limit is 3145728'): ApiError {
    return new ApiError('RequestEntityTooLarge', `Request entity too large: ${message}`);
  }

  /** 410 Gone (a resource version or continue token older than the retained history). */
  static gone(message: string): ApiError {
    return new ApiError('Gone', message);
  }

  /** 410 Expired: what watches and continued lists answer when their revision was compacted. */
  static expired(message: string): ApiError {
    return new ApiError('Expired', message);
  }

  static tooManyRequests(message: string, retryAfterSeconds: number): ApiError {
    return new ApiError('TooManyRequests', message, { details: { retryAfterSeconds } });
  }

  static internal(err: unknown): ApiError {
    const text = err instanceof Error ? err.message : String(err);
    return new ApiError('InternalError', `Internal error occurred: ${text}`, { details: { causes: [{ message: text }] }, cause: err });
  }

  static serviceUnavailable(message: string, retryAfterSeconds?: number): ApiError {
    return new ApiError('ServiceUnavailable', message, retryAfterSeconds === undefined ? {} : { details: { retryAfterSeconds } });
  }

  /**
   * 504 Timeout for a resourceVersion the server has not reached (Kubernetes'
   * NewTooLargeResourceVersionError): clients retry after a second.
   */
  static tooLargeResourceVersion(requested: string | number, current: string | number): ApiError {
    return new ApiError('Timeout', `Timeout: Too large resource version: ${requested}, current: ${current}`, {
      details: { causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }], retryAfterSeconds: 1 },
    });
  }

  static timeout(message: string, retryAfterSeconds: number): ApiError {
    return new ApiError('Timeout', `Timeout: ${message}`, { details: { retryAfterSeconds } });
  }
}

/** The conflict reason for a stale resourceVersion, which clients answer with a re-read and retry. */
export const OBJECT_MODIFIED = 'the object has been modified; please apply your changes to the latest version and try again';

/** The usual reason for a status code, for errors that arrive without a Status body. */
export function reasonForCode(code: number): string {
  switch (code) {
    case 400: return 'BadRequest';
    case 401: return 'Unauthorized';
    case 403: return 'Forbidden';
    case 404: return 'NotFound';
    case 405: return 'MethodNotAllowed';
    case 406: return 'NotAcceptable';
    case 409: return 'Conflict';
    case 410: return 'Gone';
    case 413: return 'RequestEntityTooLarge';
    case 415: return 'UnsupportedMediaType';
    case 422: return 'Invalid';
    case 429: return 'TooManyRequests';
    case 503: return 'ServiceUnavailable';
    case 504: return 'Timeout';
    default: return code >= 500 ? 'InternalError' : 'Unknown';
  }
}

/** True when `err` is an ApiError with the given reason. */
export function isApiError(err: unknown, reason?: StatusReason | string): err is ApiError {
  return err instanceof ApiError && (reason === undefined || err.reason === reason);
}

/**
 * True for a 410 answer (Expired, Gone): the resourceVersion or continue token is older than the
 * server keeps; a client lists again (informers relist, pagers start over).
 */
export function isGone(err: unknown): err is ApiError {
  return err instanceof ApiError && (err.code === 410 || err.reason === 'Expired' || err.reason === 'Gone');
}

const causeText: Record<string, string> = {
  FieldValueNotFound: 'Not found',
  FieldValueRequired: 'Required value',
  FieldValueDuplicate: 'Duplicate value',
  FieldValueInvalid: 'Invalid value',
  FieldValueNotSupported: 'Unsupported value',
  FieldValueForbidden: 'Forbidden',
  FieldValueTooLong: 'Too long',
  FieldValueTooMany: 'Too many',
  FieldValueTypeInvalid: 'Invalid value',
  InternalError: 'Internal error',
};

const valueless = new Set<string>(['FieldValueRequired', 'FieldValueForbidden', 'FieldValueTooLong', 'FieldValueTooMany', 'InternalError']);

/**
 * One invalid field (apimachinery's field.Error): prints as `metadata.name: Invalid value: "Foo": detail`.
 */
export class FieldError {
  constructor(
    readonly type: CauseType,
    /** The field path, e.g. "spec.template.spec.containers[0].name". */
    readonly field: string,
    readonly value: unknown,
    readonly detail: string = '',
  ) {}

  /** The message without the field: `Invalid value: "Foo": detail`. */
  body(): string {
    let s = causeText[this.type] ?? this.type;
    if (!valueless.has(this.type) && this.value !== OMIT_VALUE) s += `: ${printValue(this.value)}`;
    if (this.detail !== '') s += `: ${this.detail}`;
    return s;
  }

  toString(): string {
    return `${this.field}: ${this.body()}`;
  }

  static required(field: string, detail = ''): FieldError {
    return new FieldError('FieldValueRequired', field, OMIT_VALUE, detail);
  }
  static invalid(field: string, value: unknown, detail: string): FieldError {
    return new FieldError('FieldValueInvalid', field, value, detail);
  }
  static notSupported(field: string, value: unknown, supported: readonly string[]): FieldError {
    const detail = supported.length > 0 ? `supported values: ${supported.map((s) => `"${s}"`).join(', ')}` : '';
    return new FieldError('FieldValueNotSupported', field, value, detail);
  }
  static duplicate(field: string, value: unknown): FieldError {
    return new FieldError('FieldValueDuplicate', field, value);
  }
  static forbidden(field: string, detail: string): FieldError {
    return new FieldError('FieldValueForbidden', field, OMIT_VALUE, detail);
  }
  static tooLong(field: string, max: number): FieldError {
    return new FieldError('FieldValueTooLong', field, OMIT_VALUE, `may not be more than ${max} bytes`);
  }
  static typeInvalid(field: string, value: unknown, detail: string): FieldError {
    return new FieldError('FieldValueTypeInvalid', field, value, detail);
  }
  static notFound(field: string, value: unknown): FieldError {
    return new FieldError('FieldValueNotFound', field, value);
  }
}

/** Marker for a FieldError that prints no value. */
export const OMIT_VALUE: unique symbol = Symbol('omit value');

/** Go's %#v-like rendering used in field errors: strings quoted, numbers bare, objects as JSON. */
function printValue(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v);
  if (v === null || v === undefined) return 'null';
  try {
    return JSON.stringify(v);
  } catch {
    return String(v);
  }
}
