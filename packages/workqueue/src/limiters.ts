/**
 * Rate limiters for the rate-limiting queue (client-go's default_rate_limiters.go): each decides
 * how long an item waits before it is retried. Per-item limiters back off one failing key without
 * slowing the others; the bucket limits the overall retry rate.
 */
import { exponentialBackoff } from './backoff.js';
import { systemClock, type Clock } from './clock.js';

/**
 * Decides how long an item waits before its next retry (client-go's `RateLimiter`).
 * `when` is called once per retry and may record it; `forget` ends the tracking of an item (after
 * a success, or when giving up); `numRequeues` says how many retries are recorded for it.
 */
export interface RateLimiter<T> {
  /** The wait, in ms (≥ 0), before `item` is retried; records the retry. */
  when(item: T): number;
  /** Stops tracking `item`: its next `when` starts from scratch. */
  forget(item: T): void;
  /** How many retries of `item` are recorded (since the last forget). */
  numRequeues(item: T): number;
}

function checkDelay(what: string, ms: number): void {
  if (!(ms >= 0) || !Number.isFinite(ms)) throw new RangeError(`${what} must be a finite number of ms ≥ 0, got ${ms}`);
}

/** Options of ItemExponentialFailureRateLimiter. */
export interface ExponentialFailureOptions {
  /** The first wait, ms. Default 5. */
  readonly baseMs?: number;
  /** The longest wait, ms. Default 1,000,000 (1000 s). */
  readonly maxMs?: number;
}

/**
 * Per-item exponential backoff: the n-th `when` for an item (n from 0) waits baseMs · 2ⁿ, capped
 * at maxMs — 5, 10, 20, 40 ms … 1000 s with the defaults. `forget` resets the item to baseMs.
 * Keeps one counter per item until it is forgotten. Throws a RangeError for a negative or
 * non-finite baseMs or maxMs.
 */
export class ItemExponentialFailureRateLimiter<T = string> implements RateLimiter<T> {
  readonly #failures = new Map<T, number>();
  readonly #baseMs: number;
  readonly #maxMs: number;

  constructor(options: ExponentialFailureOptions = {}) {
    this.#baseMs = options.baseMs ?? 5;
    this.#maxMs = options.maxMs ?? 1_000_000;
    checkDelay('baseMs', this.#baseMs);
    checkDelay('maxMs', this.#maxMs);
  }

  when(item: T): number {
    const exp = this.#failures.get(item) ?? 0;
    this.#failures.set(item, exp + 1);
    return exponentialBackoff(exp, this.#baseMs, this.#maxMs);
  }

  forget(item: T): void {
    this.#failures.delete(item);
  }

  numRequeues(item: T): number {
    return this.#failures.get(item) ?? 0;
  }
}

/** Options of ItemFastSlowRateLimiter; all required. */
export interface FastSlowOptions {
  /** The wait for the first `maxFastAttempts` retries, ms. */
  readonly fastDelayMs: number;
  /** The wait for every retry after those, ms. */
  readonly slowDelayMs: number;
  /** How many retries wait fastDelayMs. */
  readonly maxFastAttempts: number;
}

/**
 * Per-item two-speed retries: the first maxFastAttempts retries of an item wait fastDelayMs, the
 * rest slowDelayMs, until `forget`. Throws a RangeError for a negative or non-finite delay or a
 * negative maxFastAttempts.
 */
export class ItemFastSlowRateLimiter<T = string> implements RateLimiter<T> {
  readonly #attempts = new Map<T, number>();
  readonly #options: FastSlowOptions;

  constructor(options: FastSlowOptions) {
    checkDelay('fastDelayMs', options.fastDelayMs);
    checkDelay('slowDelayMs', options.slowDelayMs);
    if (!(options.maxFastAttempts >= 0)) throw new RangeError(`maxFastAttempts must be ≥ 0, got ${options.maxFastAttempts}`);
    this.#options = { ...options };
  }

  when(item: T): number {
    const attempts = (this.#attempts.get(item) ?? 0) + 1;
    this.#attempts.set(item, attempts);
    return attempts <= this.#options.maxFastAttempts ? this.#options.fastDelayMs : this.#options.slowDelayMs;
  }

  forget(item: T): void {
    this.#attempts.delete(item);
  }

  numRequeues(item: T): number {
    return this.#attempts.get(item) ?? 0;
  }
}

/** Options of BucketRateLimiter. */
export interface BucketOptions {
  /** Tokens added per second. Default 10. Infinity: never waits. */
  readonly qps?: number;
  /** The bucket's size: how many retries may go at once after a quiet spell. Default 100. */
  readonly burst?: number;
  /** Where time comes from. Default `systemClock`. */
  readonly clock?: Clock;
}

/**
 * An overall token bucket shared by all items (client-go's BucketRateLimiter over
 * golang.org/x/time/rate): it starts full with `burst` tokens and refills at `qps` per second.
 * Each `when` reserves the next token, even one not yet refilled, and returns how long until it
 * is there — so with the defaults the first 100 calls wait 0, the 101st waits 100 ms, the 102nd
 * 200 ms. It tracks no item: `forget` does nothing and `numRequeues` is always 0.
 * Assumes the clock never goes back (a clock that does is treated as standing still).
 * Throws a RangeError when qps is not > 0 or burst is not a whole number ≥ 1.
 */
export class BucketRateLimiter<T = string> implements RateLimiter<T> {
  readonly #qps: number;
  readonly #burst: number;
  readonly #clock: Clock;
  /** Tokens at time #last; negative when reservations run ahead of the refill. */
  #tokens: number;
  #last: number;

  constructor(options: BucketOptions = {}) {
    this.#qps = options.qps ?? 10;
    this.#burst = options.burst ?? 100;
    this.#clock = options.clock ?? systemClock;
    if (!(this.#qps > 0)) throw new RangeError(`qps must be > 0, got ${this.#qps}`);
    if (!Number.isInteger(this.#burst) || this.#burst < 1) throw new RangeError(`burst must be a whole number ≥ 1, got ${this.#burst}`);
    this.#tokens = this.#burst;
    this.#last = this.#clock.now();
  }

  when(_item: T): number {
    if (this.#qps === Number.POSITIVE_INFINITY) return 0;
    const now = this.#clock.now();
    const elapsed = Math.max(0, now - this.#last);
    this.#tokens = Math.min(this.#burst, this.#tokens + (elapsed * this.#qps) / 1000);
    this.#last = Math.max(now, this.#last);
    this.#tokens -= 1;
    return this.#tokens >= 0 ? 0 : (-this.#tokens * 1000) / this.#qps;
  }

  forget(_item: T): void {}

  numRequeues(_item: T): number {
    return 0;
  }
}

/**
 * The strictest of several limiters: `when` asks every one (so each records the retry) and
 * returns the longest wait; `numRequeues` is the largest count; `forget` forgets in all.
 * With no limiters, never waits.
 */
export class MaxOfRateLimiter<T = string> implements RateLimiter<T> {
  readonly #limiters: ReadonlyArray<RateLimiter<T>>;

  constructor(...limiters: Array<RateLimiter<T>>) {
    this.#limiters = [...limiters];
  }

  when(item: T): number {
    let wait = 0;
    for (const limiter of this.#limiters) wait = Math.max(wait, limiter.when(item));
    return wait;
  }

  forget(item: T): void {
    for (const limiter of this.#limiters) limiter.forget(item);
  }

  numRequeues(item: T): number {
    let count = 0;
    for (const limiter of this.#limiters) count = Math.max(count, limiter.numRequeues(item));
    return count;
  }
}

/**
 * client-go's DefaultControllerRateLimiter: per-item exponential backoff from 5 ms to 1000 s,
 * max'd with an overall bucket of 10 qps and burst 100 (which only slows retries, since only
 * retries go through the limiter). `clock` (default `systemClock`) drives the bucket.
 */
export function defaultControllerRateLimiter<T = string>(options: { readonly clock?: Clock } = {}): RateLimiter<T> {
  return new MaxOfRateLimiter<T>(
    // Stryker disable next-line ObjectLiteral: equivalent — these are the limiter's own defaults, stated for the reader
    new ItemExponentialFailureRateLimiter<T>({ baseMs: 5, maxMs: 1_000_000 }),
    new BucketRateLimiter<T>({ qps: 10, burst: 100, clock: options.clock ?? systemClock }),
  );
}
