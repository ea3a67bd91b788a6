/** Waiting on conditions with deadlines, and the randomness of the fault schedules. */
import { setTimeout as delay } from 'node:timers/promises';

/**
 * Resolves with check()'s first value that is neither undefined nor false; rejects after `ms`
 * with "timed out after … waiting for `what`" (and the last error check threw, if any).
 */
export async function waitFor<T>(what: string, check: () => Promise<T | undefined | false> | T | undefined | false, ms = 30_000, intervalMs = 50): Promise<T> {
  const deadline = Date.now() + ms;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined && value !== false) return value;
      lastError = undefined;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() > deadline) {
      const why = lastError === undefined ? '' : ` (last error: ${lastError instanceof Error ? lastError.message : String(lastError)})`;
      throw new Error(`timed out after ${ms} ms waiting for ${what}${why}`);
    }
    await delay(intervalMs);
  }
}

export const sleep = (ms: number): Promise<void> => delay(ms);

/** A uniformly random number in [min, max). */
export function between(min: number, max: number): number {
  return min + Math.random() * (max - min);
}

/** A random element of a non-empty list. */
export function pick<T>(list: readonly T[]): T {
  return list[Math.floor(Math.random() * list.length)]!;
}

/** `promise`, or a rejection naming `what` after `ms` (the timer is cleared either way). */
export async function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([promise, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}
