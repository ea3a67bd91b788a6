/**
 * A deadline on a promise in real time: `within(promise, what, ms)` settles as `promise` does, or
 * rejects with a DeadlineExceeded naming `what` once `ms` have passed (its timer is cleared either
 * way). For waits that must end — tests waiting on a condition, a call that must not hang — not
 * for logic that runs on an injected clock.
 */

/** The error `within` rejects with when the deadline passes first. */
export class DeadlineExceeded extends Error {
  override readonly name = 'DeadlineExceeded';
}

/** `promise`, or a DeadlineExceeded ("nothing within MS ms: WHAT") after `ms` (default 10 s). */
export async function within<T>(promise: Promise<T>, what: string, ms = 10_000): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new DeadlineExceeded(`nothing within ${ms} ms: ${what}`)), ms);
  });
  try {
    return await Promise.race([promise, deadline]);
  } finally {
    clearTimeout(timer);
  }
}
