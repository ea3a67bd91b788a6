/**
 * Scheduling many small periodic jobs cheaply. A Scheduler runs a callback after a delay; the
 * clock scheduler gives each job its own timer, a TimerWheel (a hashed timing wheel, as Netty's
 * HashedWheelTimer and the kernel's timer wheel) serves any number of jobs from one clock timer
 * that ticks every `tickMs`: scheduling and cancelling are O(1), and 1,000 simulated nodes cost one
 * wake-up per tick rather than one timer each.
 *
 * Guarantees of the wheel: a job runs on the first tick at or after its due time (so up to tickMs
 * late, never early); jobs due on the same tick run in the order they were scheduled; a job that
 * throws is logged and does not stop the others. The wheel ticks only while it has jobs.
 */
import { silentLogger, type Clock, type Logger, type Timer } from '@setpoint/api';

/** A handle on a scheduled job. */
export interface ScheduledJob {
  /** Stops the job from running; a no-op once it ran. */
  cancel(): void;
}

/** Runs callbacks after delays. */
export interface Scheduler {
  schedule(delayMs: number, fn: () => void): ScheduledJob;
}

/** A Scheduler with one clock timer per job. */
export function clockScheduler(clock: Clock): Scheduler {
  return { schedule: (delayMs, fn) => clock.setTimeout(fn, delayMs) };
}

interface Entry {
  rounds: number;
  readonly fn: () => void;
  cancelled: boolean;
}

/** Options of a TimerWheel. */
export interface TimerWheelOptions {
  readonly clock: Clock;
  /** The resolution. Default 100 ms. */
  readonly tickMs?: number;
  /** Slots on the wheel (one turn is slots × tickMs; longer delays wait whole turns). Default 512. */
  readonly slots?: number;
  readonly logger?: Logger;
}

/** One clock timer for many jobs (see the file comment). */
export class TimerWheel implements Scheduler {
  readonly tickMs: number;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #slots: Entry[][];
  #cursor = 0;
  #size = 0;
  #timer: Timer | undefined;
  /** The time the next tick stands for. */
  #nextTickAt = 0;
  #ticking = false;
  #closed = false;

  constructor(options: TimerWheelOptions) {
    this.#clock = options.clock;
    this.#logger = options.logger ?? silentLogger;
    this.tickMs = Math.max(1, options.tickMs ?? 100);
    this.#slots = Array.from({ length: Math.max(1, options.slots ?? 512) }, () => []);
  }

  /** Jobs waiting. */
  get size(): number {
    return this.#size;
  }

  schedule(delayMs: number, fn: () => void): ScheduledJob {
    if (this.#closed) return { cancel: () => {} };
    const idle = this.#timer === undefined && !this.#ticking;
    if (idle) {
      // The wheel starts again, its next tick one tickMs from now.
      this.#nextTickAt = this.#clock.now() + this.tickMs;
    }
    // Ticks from the next one (which is tick 0) until the job is due.
    const ticks = Math.max(0, Math.ceil((this.#clock.now() + Math.max(0, delayMs) - this.#nextTickAt) / this.tickMs));
    const n = this.#slots.length;
    const entry: Entry = { rounds: Math.floor(ticks / n), fn, cancelled: false };
    (this.#slots[(this.#cursor + ticks) % n] as Entry[]).push(entry);
    this.#size++;
    if (idle) this.#arm();
    return {
      cancel: () => {
        if (entry.cancelled) return;
        entry.cancelled = true;
        this.#size--;
      },
    };
  }

  #arm(): void {
    this.#timer = this.#clock.setTimeout(() => this.#tick(), Math.max(0, this.#nextTickAt - this.#clock.now()));
  }

  #tick(): void {
    this.#timer = undefined;
    const slot = this.#slots[this.#cursor] as Entry[];
    const due: Entry[] = [];
    const keep: Entry[] = [];
    for (const entry of slot) {
      if (entry.cancelled) continue;
      if (entry.rounds === 0) due.push(entry);
      else {
        entry.rounds--;
        keep.push(entry);
      }
    }
    this.#slots[this.#cursor] = keep;
    this.#cursor = (this.#cursor + 1) % this.#slots.length;
    this.#nextTickAt += this.tickMs;
    this.#size -= due.length;
    this.#ticking = true; // jobs that schedule jobs do not arm a second timer
    for (const entry of due) {
      entry.cancelled = true;
      try {
        entry.fn();
      } catch (err) {
        this.#logger.error({ err }, 'a timer wheel job failed');
      }
    }
    this.#ticking = false;
    if (this.#size > 0 && !this.#closed) this.#arm();
  }

  /** Drops every job and stops ticking. */
  close(): void {
    this.#closed = true;
    this.#timer?.cancel();
    this.#timer = undefined;
    for (let i = 0; i < this.#slots.length; i++) this.#slots[i] = [];
    this.#size = 0;
  }
}
