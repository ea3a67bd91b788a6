/**
 * One line per failure, worded for the person at the terminal: what failed, on which file and
 * object, and why — the server's own message (which people and search engines recognise) with the
 * redundant parts taken off.
 */
import { isApiError } from '@setpoint/api';

/** Where a failure happened: the manifest (file and document) and the object, when known. */
export interface FailureContext {
  /** The file as the user named it, or "<stdin>". */
  readonly source?: string;
  /** The object's kind and name, e.g. Deployment and web. */
  readonly kind?: string;
  readonly name?: string;
  /** The API server's URL, for connection failures. */
  readonly server?: string;
}

const CONNECTION_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'ETIMEDOUT', 'EAI_AGAIN']);

function causeCode(err: unknown): string | undefined {
  for (let e: unknown = err, depth = 0; e !== undefined && e !== null && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return code;
  }
  return undefined;
}

/** The reason of a failure without the context prefix: an Invalid error's field errors, else the message. */
export function failureReason(err: unknown): string {
  if (isApiError(err)) {
    if (err.reason === 'Invalid') {
      const at = err.message.indexOf(' is invalid: ');
      if (at !== -1) return err.message.slice(at + ' is invalid: '.length);
    }
    if (err.reason === 'Conflict' && /^Apply failed with/.test(err.message)) {
      return `${err.message} (use --force-conflicts to take these fields over)`;
    }
    return err.message;
  }
  if (err instanceof Error) return err.message;
  return String(err);
}

/**
 * The one-line message for `err` (without the "error: " prefix): `FILE: Kind "name": reason`, each
 * prefix present when known; "cannot reach the API server at URL (...)" for a refused connection.
 */
export function failureLine(err: unknown, context: FailureContext = {}): string {
  const code = causeCode(err);
  if (isApiError(err) && err.reason === 'ServiceUnavailable' && code !== undefined && CONNECTION_CODES.has(code)) {
    const where = context.server === undefined ? 'the API server' : `the API server at ${context.server}`;
    return `cannot reach ${where} (${code}); is it running (setpoint up)?`;
  }
  const prefix: string[] = [];
  if (context.source !== undefined) prefix.push(context.source);
  if (context.kind !== undefined && context.name !== undefined) prefix.push(`${context.kind} "${context.name}"`);
  else if (context.kind !== undefined) prefix.push(context.kind);
  const reason = failureReason(err).replace(/\s*\n\s*/g, ' ');
  return [...prefix, reason].join(': ');
}
