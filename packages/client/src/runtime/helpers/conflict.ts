/**
 * retryOnConflict: the answer to a 409 Conflict is to read again and retry, not to fail. The
 * function passed in must re-read what it writes (from the API or a fresh cache entry) on every
 * call, so each attempt carries the resourceVersion it read as its precondition.
 */
import { Backoff, isApiError, realClock, type Clock } from '@setpoint/api';

export interface RetryOptions {
  /** Attempts in all. Default 5 (client-go's DefaultRetry). */
  readonly steps?: number;
  /** First wait. Default 10 ms; it grows by `factor` (default 1) with 10% jitter. */
  readonly initialMs?: number;
  readonly factor?: number;
  readonly clock?: Clock;
}

/** Runs `fn`; while it throws a Conflict, waits a little and runs it again. Other errors pass through. */
export async function retryOnConflict<T>(fn: () => Promise<T>, options: RetryOptions = {}): Promise<T> {
  const steps = Math.max(1, options.steps ?? 5);
  const clock = options.clock ?? realClock;
  const initialMs = options.initialMs ?? 10;
  const backoff = new Backoff({ initialMs, maxMs: initialMs * Math.pow(options.factor ?? 1, steps), factor: options.factor ?? 1, jitter: 0.1, clock });
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      if (!isApiError(err, 'Conflict') || attempt >= steps) throw err;
      await clock.sleep(backoff.next());
    }
  }
}
