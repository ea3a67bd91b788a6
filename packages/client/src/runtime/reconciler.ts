/**
 * What a controller asks of its author: a reconcile function of one key. It is given the key,
 * never the event that caused it (the reason is deliberately hidden, which forces idempotence: the
 * function must read the present and make it right, whatever happened before).
 */
import type { Logger } from '@setpoint/api';

/** The key of the object to reconcile. `namespace` is '' for cluster-scoped kinds. */
export interface Request {
  readonly namespace: string;
  readonly name: string;
}

/**
 * What a reconcile asks for next:
 * - nothing (undefined): done; the key's backoff is reset;
 * - `{ requeueAfterMs }`: reconcile again after that long (backoff reset), e.g. to check a deadline;
 * - `{ requeue: true }`: reconcile again soon, with the key's rate-limited backoff.
 * Throwing is a failure: the key is retried with exponential backoff, unless the error is a
 * TerminalError (logged and not retried until the object changes again).
 */
export type ReconcileResult = void | undefined | { readonly requeueAfterMs: number } | { readonly requeue: true };

export interface ReconcileContext {
  /** Aborted when the controller stops; long operations should give up. */
  readonly signal: AbortSignal;
  readonly logger: Logger;
}

export type ReconcileFn = (request: Request, context: ReconcileContext) => Promise<ReconcileResult>;

/** An error that retrying will not fix (a bad spec): logged, not retried. */
export class TerminalError extends Error {
  override readonly name = 'TerminalError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** "namespace/name", or "name" for cluster-scoped objects: the queue's key. */
export function requestKey(request: Request): string {
  return request.namespace === '' ? request.name : `${request.namespace}/${request.name}`;
}

/** The inverse of requestKey. */
export function requestFromKey(key: string): Request {
  const slash = key.indexOf('/');
  return slash < 0 ? { namespace: '', name: key } : { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}
