/**
 * The client-side request rate limit: a token bucket as client-go's flowcontrol.NewTokenBucketRateLimiter
 * (golang.org/x/time/rate underneath). Every request — a watch included — takes one token; tokens
 * come back at `qps` per second up to `burst`.
 */
import { type Clock, realClock } from '@setpoint/api';

/** client-go's defaults for a rest.Config that sets none (QPS 5, burst 10). */
export const DEFAULT_QPS = 5;
export const DEFAULT_BURST = 10;

export interface TokenBucketOptions {
  /** Tokens added per second. Infinity (or a value <= 0) disables the limit. Default DEFAULT_QPS. */
  readonly qps?: number;
  /** The most tokens held, and so the most requests sent at once after a quiet period. Default DEFAULT_BURST (at least 1). */
  readonly burst?: number;
  /** Where time is read and waits are scheduled. Default realClock. */
  readonly clock?: Clock;
}

/**
 * A token bucket, full at start.
 *
 * Guarantees: after a quiet period `burst` takes go through at once; then each take waits
 * 1000/qps ms more than the one before, so at most qps × t + burst takes complete in any t
 * seconds. Takes are served in call order (each reserves its token when called). A take whose
 * signal aborts while waiting gives its reservation back and rejects with the signal's reason.
 */
export class TokenBucket {
  readonly qps: number;
  readonly burst: number;
  readonly #clock: Clock;
  #tokens: number;
  #last: number;

  constructor(options: TokenBucketOptions = {}) {
    const qps = options.qps ?? DEFAULT_QPS;
    this.qps = Number.isFinite(qps) && qps > 0 ? qps : Infinity;
    this.burst = Math.max(1, Math.floor(options.burst ?? DEFAULT_BURST));
    this.#clock = options.clock ?? realClock;
    this.#tokens = this.burst;
    this.#last = this.#clock.now();
  }

  /** Whether a take would wait now (no token is available). */
  get limited(): boolean {
    this.#refill();
    return this.qps !== Infinity && this.#tokens < 1;
  }

  /** Takes one token, waiting until one is available. Rejects only when `signal` aborts. */
  async take(signal?: AbortSignal): Promise<void> {
    if (this.qps === Infinity) return;
    signal?.throwIfAborted();
    this.#refill();
    this.#tokens -= 1;
    if (this.#tokens >= 0) return;
    const waitMs = (-this.#tokens / this.qps) * 1000;
    try {
      await this.#clock.sleep(waitMs, signal);
    } catch (err) {
      this.#tokens += 1;
      throw err;
    }
  }

  /** Takes a token when one is available now; never waits. */
  tryTake(): boolean {
    if (this.qps === Infinity) return true;
    this.#refill();
    if (this.#tokens < 1) return false;
    this.#tokens -= 1;
    return true;
  }

  #refill(): void {
    const now = this.#clock.now();
    const elapsed = Math.max(0, now - this.#last);
    this.#last = now;
    this.#tokens = Math.min(this.burst, this.#tokens + (elapsed / 1000) * this.qps);
  }
}
