/**
 * Connection timeouts: how long a client may take to send a request. kube-apiserver's HTTP server
 * closes a connection whose request headers have not all arrived within 32 s (Go's
 * ReadHeaderTimeout); Setpoint does the same, and also closes one whose body has not all arrived
 * within the request timeout (60 s, kube-apiserver's --request-timeout), answering 408 as Node's
 * HTTP server does. Both clocks run only while the request is being received: a watch, a log
 * follow or any other long answer has finished sending its request and is never cut by them.
 * Connections that sit idle before their first request are closed after the header timeout too.
 *
 * These are Node's own server timers (headersTimeout, requestTimeout, checked every
 * connectionsCheckingInterval), so they take real time, not the server's injected clock.
 */

/** How long the headers of a request may take to arrive: kube-apiserver's ReadHeaderTimeout, 32 s. */
export const DEFAULT_HEADERS_TIMEOUT_MS = 32_000;
/** How long a whole request (headers and body) may take to arrive: 60 s, the request timeout. */
export const DEFAULT_REQUEST_RECEIVE_TIMEOUT_MS = 60_000;

export interface ConnectionTimeoutOptions {
  /** Most time for a request's headers to arrive; 0 disables. Default DEFAULT_HEADERS_TIMEOUT_MS. */
  readonly headersTimeoutMs?: number;
  /**
   * Most time for a whole request, body included, to arrive; 0 disables. Default
   * DEFAULT_REQUEST_RECEIVE_TIMEOUT_MS. Must not be below headersTimeoutMs (when both are set).
   */
  readonly requestReceiveTimeoutMs?: number;
}

/** The options of Node's HTTP(S) server that enforce them. */
export interface ConnectionServerOptions {
  readonly headersTimeout: number;
  readonly requestTimeout: number;
  readonly connectionsCheckingInterval: number;
}

/**
 * Node's server options for `options`: the two timeouts and how often they are checked (an eighth
 * of the shorter one, between 50 ms and 1 s, so a connection goes at most 1 s late). Throws a
 * RangeError for a negative or non-integer value, or a request timeout shorter than the header one.
 */
export function connectionServerOptions(options: ConnectionTimeoutOptions = {}): ConnectionServerOptions {
  const headersTimeout = checked(options.headersTimeoutMs ?? DEFAULT_HEADERS_TIMEOUT_MS, 'headersTimeoutMs');
  const requestTimeout = checked(options.requestReceiveTimeoutMs ?? DEFAULT_REQUEST_RECEIVE_TIMEOUT_MS, 'requestReceiveTimeoutMs');
  if (headersTimeout > 0 && requestTimeout > 0 && requestTimeout < headersTimeout) {
    throw new RangeError(`requestReceiveTimeoutMs (${requestTimeout}) must not be below headersTimeoutMs (${headersTimeout})`);
  }
  const shortest = Math.min(...[headersTimeout, requestTimeout].filter((t) => t > 0), 8_000);
  return { headersTimeout, requestTimeout, connectionsCheckingInterval: Math.min(1_000, Math.max(50, Math.floor(shortest / 8))) };
}

function checked(value: number, name: string): number {
  if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`${name} must be a whole number of milliseconds >= 0, got ${value}`);
  return value;
}
