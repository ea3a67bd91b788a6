/**
 * Exponential backoff as a pure function of the attempt: the delay of the n-th retry is
 * base · 2ⁿ capped at max (client-go's ItemExponentialFailureRateLimiter, the kubelet's crash-loop
 * and token-refresh backoff). Stateful backoff with jitter and reset-after-quiet is @setpoint/api's
 * `Backoff`; per-key backoff in a queue is `ItemExponentialFailureRateLimiter`, built on this.
 */

/**
 * The wait before retry number `attempt` (from 0): `baseMs · 2^attempt`, at most `maxMs`, so
 * 0 → baseMs, 1 → 2·baseMs, … No jitter (none of its callers wants one; @setpoint/api's
 * `Backoff` has it). A negative attempt is treated as 0; 2^attempt overflowing to Infinity (past
 * 1023) is absorbed by the cap, and baseMs 0 (0 · ∞ = NaN) waits 0.
 */
export function exponentialBackoff(attempt: number, baseMs: number, maxMs: number): number {
  const backoff = baseMs * 2 ** Math.max(0, attempt);
  if (Number.isNaN(backoff)) return 0;
  return Math.min(backoff, maxMs);
}
