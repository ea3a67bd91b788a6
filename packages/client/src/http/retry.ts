/**
 * When a request is tried again, and after how long — client-go's rules (rest.Request with
 * checkWait and IsRetryableConnectionError), made explicit:
 *
 * - 429 Too Many Requests: always retried (the server did not process the request), after
 *   Retry-After when sent, else after the backoff.
 * - 5xx with Retry-After: retried whatever the method (the server asks for it; a request it
 *   answers so was not processed).
 * - 502, 503, 504 without Retry-After: retried only for idempotent methods, after the backoff.
 *   500 without Retry-After is a server error a retry will not fix: not retried.
 * - Connection failures (ECONNREFUSED, ECONNRESET/"socket hang up", EPIPE, ETIMEDOUT,
 *   EHOSTUNREACH, ENETUNREACH, EAI_AGAIN): retried only for idempotent methods — never for POST,
 *   which may have created something before the connection broke.
 */

/** Methods that may be sent twice with the effect of once. PATCH is not among them (a JSON patch may add twice). */
export const IDEMPOTENT_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);

const RETRYABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);

export function isIdempotent(method: string): boolean {
  return IDEMPOTENT_METHODS.has(method.toUpperCase());
}

/**
 * The wait a Retry-After header asks for, in ms: delay-seconds (a non-negative integer) or an
 * HTTP-date (relative to `nowMs`, at least 0). Undefined when absent or malformed.
 */
export function parseRetryAfter(header: string | string[] | undefined, nowMs: number): number | undefined {
  const value = (Array.isArray(header) ? header[0] : header)?.trim();
  if (value === undefined || value === '') return undefined;
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - nowMs);
}

/**
 * Whether a response with `status` is retried: 'after' with the Retry-After wait, 'backoff' for
 * the client's backoff, or undefined for no retry.
 */
export function retryForStatus(method: string, status: number, retryAfterMs: number | undefined): { readonly waitMs: number } | 'backoff' | undefined {
  if (status === 429) return retryAfterMs === undefined ? 'backoff' : { waitMs: retryAfterMs };
  if (status < 500) return undefined;
  if (retryAfterMs !== undefined) return { waitMs: retryAfterMs };
  if ((status === 502 || status === 503 || status === 504) && isIdempotent(method)) return 'backoff';
  return undefined;
}

/** The Node error code of a connection failure worth retrying, or undefined. */
export function connectionFailureCode(err: unknown): string | undefined {
  const e = err as { code?: unknown; message?: unknown } | null;
  if (e === null || typeof e !== 'object') return undefined;
  if (typeof e.code === 'string' && RETRYABLE_CODES.has(e.code)) return e.code;
  if (typeof e.message === 'string' && e.message.includes('socket hang up')) return 'ECONNRESET';
  return undefined;
}

/**
 * Whether a transport failure of a request with `method` is retried: idempotent requests on any
 * connection failure, and every request that failed on a stale keep-alive socket (never sent).
 */
export function retryForTransportError(method: string, err: unknown): boolean {
  if ((err as { staleConnection?: boolean } | null)?.staleConnection === true) return true;
  return isIdempotent(method) && connectionFailureCode(err) !== undefined;
}
