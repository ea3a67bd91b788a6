/**
 * The injectable clock: every time-dependent component (work queue delays and backoff, informer
 * resync, leases, the store compactor) reads time and waits through a Clock, so tests run in
 * virtual time with FakeClock instead of sleeping.
 */

/** A scheduled callback. */
export interface Timer {
  /** Stops the callback from running; a no-op once it has run or was cancelled. */
  cancel(): void;
  /**
   * Lets the process exit while this timer is pending (Node's timeout.unref()); a no-op for a
   * fake clock. Returns the timer, for chaining.
   */
  unref(): Timer;
}

/** A source of time and timers. */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
  /**
   * Runs `fn` once, `ms` milliseconds from now. The delay is clamped to [0, 2^31-1] ms (NaN
   * counts as 0), the range Node's timers honour. An error thrown by `fn` is not caught: with
   * the real clock it is an uncaught exception.
   */
  setTimeout(fn: () => void, ms: number): Timer;
  /**
   * Resolves after `ms` milliseconds. Rejects with `signal.reason` when the signal aborts first
   * (or is already aborted), and then leaves no timer behind.
   */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

function sleepWith(clock: Pick<Clock, 'setTimeout'>, ms: number, signal: AbortSignal | undefined): Promise<void> {
  if (signal?.aborted) return Promise.reject(signal.reason);
  return new Promise<void>((resolve, reject) => {
    const onAbort = (): void => {
      timer.cancel();
      reject(signal?.reason);
    };
    const timer = clock.setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Node's timers have a 32-bit signed delay; longer ones fire at once, so clamp instead. */
const MAX_TIMER_MS = 2 ** 31 - 1;

function clampDelay(ms: number): number {
  return Number.isNaN(ms) ? 0 : Math.min(Math.max(ms, 0), MAX_TIMER_MS);
}

/** The real clock: Date.now() and Node's timers. Its timers keep the process alive unless unref'd. */
export const realClock: Clock = Object.freeze({
  now: (): number => Date.now(),
  setTimeout(fn: () => void, ms: number): Timer {
    const handle = globalThis.setTimeout(fn, clampDelay(ms));
    const timer: Timer = {
      cancel: () => globalThis.clearTimeout(handle),
      unref: () => {
        handle.unref();
        return timer;
      },
    };
    return timer;
  },
  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return sleepWith(realClock, ms, signal);
  },
});

/**
 * Runs `fn` every `ms` milliseconds on `clock` (Node's setInterval on a Clock), until the returned
 * timer is cancelled. The interval is at least 1 ms, as Node's. Each run is scheduled before `fn`
 * runs, so a run that throws does not stop the next (with the real clock the error is uncaught,
 * as from setInterval). `unref()` lets the process exit while the repetition is pending.
 */
export function every(clock: Clock, ms: number, fn: () => void): Timer {
  const interval = Math.max(1, clampDelay(ms));
  let current: Timer | undefined;
  let unrefd = false;
  const schedule = (): void => {
    current = clock.setTimeout(() => {
      schedule();
      fn();
    }, interval);
    if (unrefd) current.unref();
  };
  schedule();
  const timer: Timer = {
    // Schedule runs before fn, so a cancel from inside fn cancels the run it just scheduled.
    cancel: () => current?.cancel(),
    unref: () => {
      unrefd = true;
      current?.unref();
      return timer;
    },
  };
  return timer;
}

interface FakeTimer {
  readonly due: number;
  readonly seq: number;
  readonly fn: () => void;
  state: 'pending' | 'fired' | 'cancelled';
}

function before(a: FakeTimer, b: FakeTimer): boolean {
  return a.due < b.due || (a.due === b.due && a.seq < b.seq);
}

/** Lets pending promise callbacks run: all queued microtasks, then one macrotask turn. */
function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * A clock that moves only when told to, for tests.
 *
 * Guarantees: timers fire in order of due time, ties in order of creation; `now()` during a
 * callback is the timer's due time; between two timers (and before the first and after the
 * last) pending promise callbacks get to run (microtasks and one setImmediate turn), so code
 * that awaits a sleep and then schedules the next timer is seen within the same advance; timers
 * scheduled during an advance that fall due within it also fire. A timer, even one of 0 ms, fires
 * only in advance/set/runAll, never by itself.
 *
 * Assumes one driver: advance, set and runAll must not overlap (they throw if they do). An error
 * thrown by a timer callback rejects the advance/set/runAll that fired it, leaving the clock at
 * that timer's due time.
 */
export class FakeClock implements Clock {
  #now: number;
  #seq = 0;
  #pending = 0;
  #driving = false;
  /** Binary min-heap on (due, seq); cancelled timers are dropped lazily when they reach the top. */
  readonly #heap: FakeTimer[] = [];

  /** A clock reading `startMs` (default 2026-01-01T00:00:00Z). */
  constructor(startMs: number = Date.UTC(2026, 0, 1)) {
    if (!Number.isFinite(startMs)) throw new RangeError(`FakeClock start must be a finite number, got ${startMs}`);
    this.#now = startMs;
  }

  now(): number {
    return this.#now;
  }

  setTimeout(fn: () => void, ms: number): Timer {
    const entry: FakeTimer = { due: this.#now + clampDelay(ms), seq: this.#seq++, fn, state: 'pending' };
    this.#push(entry);
    this.#pending++;
    const timer: Timer = {
      cancel: () => {
        if (entry.state !== 'pending') return;
        entry.state = 'cancelled';
        this.#pending--;
      },
      unref: () => timer,
    };
    return timer;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return sleepWith(this, ms, signal);
  }

  /**
   * Moves time forward by `ms`, firing every timer that falls due on the way (see the class
   * comment). Throws a RangeError for a negative or non-finite `ms`.
   */
  async advance(ms: number): Promise<void> {
    if (!Number.isFinite(ms) || ms < 0) throw new RangeError(`FakeClock.advance needs a finite ms >= 0, got ${ms}`);
    await this.set(this.#now + ms);
  }

  /**
   * Moves time forward to `ms` (epoch milliseconds), like advance. Throws a RangeError when `ms`
   * is before now() (time never goes back) or not finite.
   */
  async set(ms: number): Promise<void> {
    if (!Number.isFinite(ms)) throw new RangeError(`FakeClock.set needs a finite time, got ${ms}`);
    if (ms < this.#now) throw new RangeError(`FakeClock cannot go back from ${this.#now} to ${ms}`);
    await this.#drive(async () => {
      for (;;) {
        await settle();
        const next = this.#peek();
        if (next === undefined || next.due > ms) break;
        this.#fire(next);
      }
      this.#now = ms;
      await settle();
    });
  }

  /**
   * Fires every pending timer, and the timers they schedule, in order, moving time to each one's
   * due time; resolves when none is left. Throws an Error when `limit` timers (default 10,000)
   * have fired and more are pending, which usually means a timer that reschedules itself forever.
   */
  async runAll(limit = 10_000): Promise<void> {
    await this.#drive(async () => {
      let fired = 0;
      for (;;) {
        await settle();
        const next = this.#peek();
        if (next === undefined) return;
        if (fired >= limit) {
          throw new Error(`FakeClock.runAll: fired ${limit} timers and ${this.#pending} are still pending`);
        }
        this.#fire(next);
        fired++;
      }
    });
  }

  /** How many timers are waiting (scheduled, neither fired nor cancelled). */
  pending(): number {
    return this.#pending;
  }

  /** When the next waiting timer falls due, or undefined when none is waiting. */
  nextDue(): number | undefined {
    return this.#peek()?.due;
  }

  async #drive(body: () => Promise<void>): Promise<void> {
    if (this.#driving) throw new Error('FakeClock: advance, set or runAll is already running');
    this.#driving = true;
    try {
      await body();
    } finally {
      this.#driving = false;
    }
  }

  #fire(entry: FakeTimer): void {
    this.#pop();
    entry.state = 'fired';
    this.#pending--;
    if (entry.due > this.#now) this.#now = entry.due;
    entry.fn();
  }

  /** The earliest pending timer, after dropping cancelled ones from the top. */
  #peek(): FakeTimer | undefined {
    for (;;) {
      const top = this.#heap[0];
      if (top === undefined || top.state === 'pending') return top;
      this.#pop();
    }
  }

  #push(entry: FakeTimer): void {
    const heap = this.#heap;
    heap.push(entry);
    let i = heap.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const p = heap[parent] as FakeTimer;
      if (!before(entry, p)) break;
      heap[i] = p;
      i = parent;
    }
    heap[i] = entry;
  }

  #pop(): void {
    const heap = this.#heap;
    const last = heap.pop();
    if (last === undefined || heap.length === 0) return;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= heap.length) break;
      const right = left + 1;
      let child = left;
      if (right < heap.length && before(heap[right] as FakeTimer, heap[left] as FakeTimer)) child = right;
      const c = heap[child] as FakeTimer;
      if (!before(c, last)) break;
      heap[i] = c;
      i = child;
    }
    heap[i] = last;
  }
}
