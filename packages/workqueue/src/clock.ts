/**
 * The time a queue reads: the part of @setpoint/api's `Clock` the queues and limiters use (now and
 * one-shot timers), declared here so that this package imports nothing of ours. Every `Clock` of
 * @setpoint/api (realClock, FakeClock) is one of these, so callers pass theirs as they are.
 */

/** A scheduled callback. */
export interface Timer {
  /** Stops the callback from running; a no-op once it has run or was cancelled. */
  cancel(): void;
  /** Lets the process exit while this timer is pending; returns the timer, for chaining. */
  unref(): Timer;
}

/** A source of time and timers. */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
  /** Runs `fn` once, `ms` milliseconds from now; the delay is clamped to [0, 2^31-1] (NaN is 0). */
  setTimeout(fn: () => void, ms: number): Timer;
}

/** Node's timers have a 32-bit signed delay; longer ones fire at once, so clamp instead. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** The default clock: Date.now() and the platform's timers, delays clamped as Clock promises. */
export const systemClock: Clock = Object.freeze({
  now: (): number => Date.now(),
  setTimeout(fn: () => void, ms: number): Timer {
    const handle = globalThis.setTimeout(fn, Number.isNaN(ms) ? 0 : Math.min(Math.max(ms, 0), MAX_TIMER_MS));
    const timer: Timer = {
      cancel: () => globalThis.clearTimeout(handle),
      unref: () => {
        // Node's handle has unref(); a browser's timer id is a number and has none.
        (handle as { unref?: () => void }).unref?.();
        return timer;
      },
    };
    return timer;
  },
});
