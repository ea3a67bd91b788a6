/**
 * Exponential backoff with optional jitter and reset-after-quiet, as client-go's wait.Backoff and
 * jitteredBackoffManager do it. Used by informers (800 ms → 30 s, jittered, reset after a healthy
 * period), agents (200 ms → 7 s) and the work queue (5 ms → 1000 s per item, no jitter).
 */
import { type Clock, realClock } from './clock.js';

/** Options of a Backoff; each default is stated on its field. */
export interface BackoffOptions {
  /** The first delay, in ms (finite, >= 0). */
  readonly initialMs: number;
  /** The largest un-jittered delay, in ms (finite, >= initialMs). */
  readonly maxMs: number;
  /** How much each delay grows over the previous one (finite, >= 1). Default 2. */
  readonly factor?: number;
  /**
   * The largest extra fraction jitter adds, 0..1: a delay d becomes d + random() × jitter × d
   * (client-go's wait.Jitter). Default 0 (no jitter).
   */
  readonly jitter?: number;
  /** The random source for jitter, returning [0, 1); values outside are clamped. Default Math.random. */
  readonly random?: () => number;
  /**
   * When set, a next() called more than this many ms after the previous next() starts again
   * from initialMs, as if reset() had been called (the previous run of failures is over).
   * Default: never.
   */
  readonly resetAfterMs?: number;
  /** Where resetAfterMs reads the time. Default realClock. */
  readonly clock?: Clock;
}

function check(ok: boolean, message: string): void {
  if (!ok) throw new RangeError(`Backoff: ${message}`);
}

/**
 * An exponential backoff: next() returns the delay to wait now and grows the next one by
 * `factor`, up to `maxMs`; reset() starts again from `initialMs`.
 *
 * Guarantees: without jitter, delays are initialMs, initialMs×factor, … capped at maxMs. With
 * jitter j, each delay d (already capped) is returned as d + random()×j×d, so it lies in
 * [d, d×(1+j)] and never exceeds maxMs×(1+j). Like client-go, the cap applies before the jitter,
 * so that clients stuck at the cap still spread out instead of retrying in lockstep.
 *
 * Assumes a single caller (not shared between independent retry loops).
 * Throws a RangeError from the constructor for options outside the ranges documented on
 * BackoffOptions.
 */
export class Backoff {
  readonly #initialMs: number;
  readonly #maxMs: number;
  readonly #factor: number;
  readonly #jitter: number;
  readonly #random: () => number;
  readonly #resetAfterMs: number | undefined;
  readonly #clock: Clock;
  #currentMs: number;
  #attempts = 0;
  #lastAt: number | undefined;

  constructor(options: BackoffOptions) {
    const { initialMs, maxMs, factor = 2, jitter = 0, random = Math.random, resetAfterMs, clock = realClock } = options;
    check(Number.isFinite(initialMs) && initialMs >= 0, `initialMs must be a finite number >= 0, got ${initialMs}`);
    check(Number.isFinite(maxMs) && maxMs >= initialMs, `maxMs must be finite and >= initialMs, got ${maxMs}`);
    check(Number.isFinite(factor) && factor >= 1, `factor must be a finite number >= 1, got ${factor}`);
    check(jitter >= 0 && jitter <= 1, `jitter must be between 0 and 1, got ${jitter}`);
    check(
      resetAfterMs === undefined || (Number.isFinite(resetAfterMs) && resetAfterMs >= 0),
      `resetAfterMs must be a finite number >= 0, got ${resetAfterMs}`,
    );
    this.#initialMs = initialMs;
    this.#maxMs = maxMs;
    this.#factor = factor;
    this.#jitter = jitter;
    this.#random = random;
    this.#resetAfterMs = resetAfterMs;
    this.#clock = clock;
    this.#currentMs = initialMs;
  }

  /** How many delays next() has handed out since construction or the last reset. */
  get attempts(): number {
    return this.#attempts;
  }

  /**
   * The delay to wait now, in ms (jittered when configured); the following call returns a longer
   * one, up to the cap. With resetAfterMs, a call after a long enough quiet period starts over.
   */
  next(): number {
    if (this.#resetAfterMs !== undefined) {
      const now = this.#clock.now();
      if (this.#lastAt !== undefined && now - this.#lastAt > this.#resetAfterMs) this.reset();
      this.#lastAt = now;
    }
    const base = this.#currentMs;
    this.#currentMs = Math.min(base * this.#factor, this.#maxMs);
    this.#attempts++;
    if (this.#jitter === 0) return base;
    const r = Math.min(Math.max(this.#random(), 0), 1);
    return base + r * this.#jitter * base;
  }

  /** Starts again: the next delay is initialMs and attempts is 0. */
  reset(): void {
    this.#currentMs = this.#initialMs;
    this.#attempts = 0;
    this.#lastAt = undefined;
  }
}
