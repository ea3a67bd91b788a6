/**
 * LeaderElector: leader election on a lock (a Lease), as client-go's tools/leaderelection does it.
 *
 * Expected flow: run() campaigns, trying to take the lease every retryPeriod (with client-go's
 * 1.2 jitter); the lease is free when nobody holds it, or when its holder has not changed it for
 * leaseDuration as measured by this process's clock since it last saw the record change (the
 * timestamps in the lease are never compared with the local clock, so clock skew between machines
 * does not matter, only their rates). Once it holds the lease it calls onStartedLeading and renews
 * every retryPeriod; when it cannot renew for renewDeadline it stops leading and campaigns again.
 */
import { isApiError, realClock, silentLogger, type Clock, type Logger, type Timer } from '@setpoint/api';
import { formatMicroTime, type LeaderElectionRecord, type ResourceLock } from './leaselock.js';

/** How much the campaign's retry period is jittered: a wait lies in [retryPeriod, retryPeriod × 2.2]. */
export const JITTER_FACTOR = 1.2;

/** What the elector tells its user. Callbacks that throw are logged and otherwise ignored. */
export interface LeaderCallbacks {
  /**
   * This process now leads. `signal` aborts when it stops leading; the work guarded by the lease
   * must stop then. A returned promise is awaited before a new campaign and before a release.
   */
  onStartedLeading(signal: AbortSignal): void | Promise<void>;
  /** This process stopped leading (called once per term, right after the term's signal aborted). */
  onStoppedLeading(): void;
  /** The observed holder changed to `identity` (never called with '' for a released lease). */
  onNewLeader?(identity: string): void;
}

/** Options of a LeaderElector; each default is stated on its field. */
export interface LeaderElectorOptions {
  readonly lock: ResourceLock;
  /** This candidate's identity, unique among the candidates (usually hostname + a random suffix). */
  readonly identity: string;
  /**
   * How long others wait, after they last saw the lease change, before taking it. Written to the
   * lease in whole seconds, rounded up. Default 15,000 ms; must exceed renewDeadlineMs.
   */
  readonly leaseDurationMs?: number;
  /** How long the leader keeps trying to renew before it stops leading. Default 10,000 ms; must exceed retryPeriodMs × 1.2. */
  readonly renewDeadlineMs?: number;
  /** How long to wait between attempts to acquire or renew. Default 2,000 ms. */
  readonly retryPeriodMs?: number;
  /** Give the lease up when run()'s signal aborts, so a successor takes over at once. Default true. */
  readonly releaseOnCancel?: boolean;
  readonly callbacks: LeaderCallbacks;
  /** Default realClock. */
  readonly clock?: Clock;
  /** Default silentLogger. */
  readonly logger?: Logger;
  /** The random source of the jitter, returning [0, 1). Default Math.random. */
  readonly random?: () => number;
}

/** The outcome of one tryAcquireOrRenew: `at` is when it started (the renewTime it wrote). */
type Attempt =
  | { readonly ok: true; readonly at: number }
  | {
      readonly ok: false;
      readonly at: number;
      /** Another candidate holds an unexpired lease. */
      readonly heldByOther: boolean;
    };

type TermEnd = 'deadline' | 'lost' | 'cancel';

/** Resolves with p's value, or with undefined as soon as `signal` aborts. `p` must not reject. */
function raceSignal<T>(p: Promise<T>, signal: AbortSignal): Promise<T | undefined> {
  if (signal.aborted) return Promise.resolve(undefined);
  return new Promise((resolve) => {
    const onAbort = (): void => resolve(undefined);
    // Stryker disable next-line ObjectLiteral,BooleanLiteral: `once` only frees the listener sooner; resolving a settled promise again does nothing
    signal.addEventListener('abort', onAbort, { once: true });
    void p.then((value) => {
      // Stryker disable next-line StringLiteral: removing the listener only frees memory; resolving a settled promise again does nothing
      signal.removeEventListener('abort', onAbort);
      resolve(value);
    });
  });
}

/** A record's content, to tell whether it changed since it was last seen (client-go compares its JSON). */
function rawRecord(r: LeaderElectionRecord): string {
  return JSON.stringify([r.holderIdentity, r.leaseDurationSeconds, r.acquireTime ?? null, r.renewTime ?? null, r.leaseTransitions]);
}

/**
 * A candidate in a leader election.
 *
 * Guarantees: at most one candidate of an election is between onStartedLeading and
 * onStoppedLeading at any instant, given unique identities and clocks that run at the same rate
 * (they need not agree). The leader stops leading at the latest renewDeadline after the start of
 * its last successful renewal: before any other candidate may take the lease, which it may only
 * leaseDuration after it saw that renewal written. (client-go counts the deadline from the start
 * of the failing renewal round, up to a retryPeriod later.) A leader that sees another holder
 * with an unexpired lease stops at once. At most one request to the lock is in flight at a time,
 * apart from the release.
 *
 * Unlike client-go, whose Run returns (and whose users exit) when leadership is lost, run()
 * campaigns again after a term ends, once that term's onStartedLeading promise has settled; it
 * returns only when its signal aborts.
 *
 * Caveats: leadership is not fenced at the server: a leader whose process is paused for longer
 * than the lease may act after a successor started, unless its work checks leadingNow() before
 * each write (the Manager fences its client so) — and even then a write delayed in the network
 * for longer than leaseDuration - renewDeadline may arrive after the successor's first. As the
 * deadline counts from a renewal's start, a leader whose round trips to the API take longer than
 * (renewDeadline - retryPeriod) / 2 cannot keep the lease (client-go tolerates up to
 * renewDeadline, at the cost of its safety margin).
 * releaseOnCancel waits for the term's work (at most until the lease would expire) before it
 * gives the lease up.
 * Throws: the constructor throws a RangeError for durations out of order (leaseDuration >
 * renewDeadline > retryPeriod × 1.2 > 0) or an empty identity; run() throws an Error when it is
 * already running. Lock errors are logged and retried, never thrown.
 */
export class LeaderElector {
  readonly #lock: ResourceLock;
  readonly #identity: string;
  readonly #leaseMs: number;
  readonly #renewMs: number;
  readonly #retryMs: number;
  readonly #releaseOnCancel: boolean;
  readonly #callbacks: LeaderCallbacks;
  readonly #clock: Clock;
  readonly #log: Logger;
  readonly #random: () => number;
  /** The record last seen or written, when (#observedAt, local clock) and its form as read. */
  #observed: LeaderElectionRecord | undefined;
  #observedRaw: string | undefined;
  #observedAt = 0;
  // Stryker disable next-line StringLiteral: any initial value other than a real holder reports the first holder the same way ('' is never reported)
  #reportedLeader = '';
  #leading = false;
  /** While leading: the renew deadline of the current term, by the clock (0 otherwise). */
  #leadingUntil = 0;
  #running = false;
  #inflight: Promise<Attempt> | undefined;

  constructor(options: LeaderElectorOptions) {
    const { leaseDurationMs = 15_000, renewDeadlineMs = 10_000, retryPeriodMs = 2_000 } = options;
    for (const [name, v] of [['leaseDurationMs', leaseDurationMs], ['renewDeadlineMs', renewDeadlineMs], ['retryPeriodMs', retryPeriodMs]] as const) {
      if (!Number.isFinite(v) || v <= 0) throw new RangeError(`LeaderElector: ${name} must be a finite number > 0, got ${v}`);
    }
    if (leaseDurationMs <= renewDeadlineMs) throw new RangeError('LeaderElector: leaseDurationMs must be greater than renewDeadlineMs');
    if (renewDeadlineMs <= JITTER_FACTOR * retryPeriodMs) {
      throw new RangeError('LeaderElector: renewDeadlineMs must be greater than retryPeriodMs * 1.2');
    }
    if (options.identity === '') throw new RangeError('LeaderElector: identity must not be empty');
    this.#lock = options.lock;
    this.#identity = options.identity;
    this.#leaseMs = leaseDurationMs;
    this.#renewMs = renewDeadlineMs;
    this.#retryMs = retryPeriodMs;
    this.#releaseOnCancel = options.releaseOnCancel ?? true;
    this.#callbacks = options.callbacks;
    this.#clock = options.clock ?? realClock;
    this.#log = (options.logger ?? silentLogger).child({ lease: options.lock.describe(), identity: options.identity });
    this.#random = options.random ?? Math.random;
  }

  /** True between onStartedLeading and onStoppedLeading. */
  isLeader(): boolean {
    return this.#leading;
  }

  /**
   * True while this candidate leads and, by the clock, its renew deadline (counted from the start
   * of its last successful renewal) has not passed — even when the deadline's timer has not run
   * yet, as after a pause of the process: a resumed process runs the callbacks of I/O that arrived
   * meanwhile before its timers. Work guarded by the lease checks it before each write (the
   * Manager's write fence does); a write it lets through is sent before any other candidate may
   * take the lease, at least leaseDuration - renewDeadline earlier.
   */
  leadingNow(): boolean {
    return this.#leading && this.#clock.now() < this.#leadingUntil;
  }

  /** The holder last observed (possibly this candidate), or undefined when none is known. */
  getLeader(): string | undefined {
    const holder = this.#observed?.holderIdentity;
    return holder === '' ? undefined : holder;
  }

  /**
   * Campaigns, leads, and campaigns again, until `signal` aborts; then, with releaseOnCancel,
   * gives the lease up if it holds it, and resolves.
   */
  async run(signal: AbortSignal): Promise<void> {
    if (this.#running) throw new Error('LeaderElector: run() is already running');
    this.#running = true;
    try {
      while (!signal.aborted) {
        const acquiredAt = await this.#acquire(signal);
        if (acquiredAt === undefined) break;
        await this.#lead(signal, acquiredAt);
      }
      // Also when cancelled while campaigning: an attempt in flight may have taken the lease.
      if (this.#releaseOnCancel) await this.#release();
    } finally {
      this.#running = false;
    }
  }

  /** Tries until it holds the lease (resolving with the attempt's start) or `signal` aborts. */
  async #acquire(signal: AbortSignal): Promise<number | undefined> {
    this.#log.info({}, 'attempting to acquire leader lease');
    for (;;) {
      const attempt = await this.#nextAttempt(signal);
      if (attempt === undefined) return undefined;
      if (attempt.ok) {
        if (this.#clock.now() < attempt.at + this.#renewMs) {
          this.#log.info({}, 'successfully acquired lease');
          return attempt.at;
        }
        this.#log.warn({}, 'acquired the lease too late to lead safely; trying again');
      }
      const wait = this.#retryMs + Math.min(Math.max(this.#random(), 0), 1) * JITTER_FACTOR * this.#retryMs;
      try {
        await this.#clock.sleep(wait, signal);
        // Stryker disable next-line BlockStatement: the sleep rejects only when `signal` aborted, and then the next attempt returns undefined at once
      } catch {
        return undefined;
      }
    }
  }

  /** One term: leads until the renew deadline passes, another holder shows up, or `signal` aborts. */
  async #lead(signal: AbortSignal, acquiredAt: number): Promise<void> {
    if (signal.aborted) return;
    const term = new AbortController();
    let lastRenewAt = acquiredAt;
    let ended: TermEnd | undefined;
    let deadline: Timer | undefined;
    const end = (why: TermEnd): void => {
      // Stryker disable next-line ConditionalExpression: nothing calls end() again: it cancels the deadline and removes the abort listener before any callback runs, and the loop checks `ended` first
      if (ended !== undefined) return;
      ended = why;
      this.#leadingUntil = 0;
      // Stryker disable next-line OptionalChaining: the deadline is armed before end() can run
      deadline?.cancel();
      // Stryker disable next-line StringLiteral: a listener left behind calls end('cancel'), which does nothing once the term has ended
      signal.removeEventListener('abort', onAbort);
      this.#leading = false;
      this.#log.info({ reason: why }, 'stopped leading');
      term.abort(new Error(`leadership of ${this.#lock.describe()} ended (${why})`));
      try {
        this.#callbacks.onStoppedLeading();
      } catch (err) {
        this.#log.error({ err }, 'onStoppedLeading threw');
      }
    };
    const onAbort = (): void => end('cancel');
    const armDeadline = (renewedAt: number): void => {
      this.#leadingUntil = renewedAt + this.#renewMs;
      deadline?.cancel();
      deadline = this.#clock.setTimeout(() => end('deadline'), renewedAt + this.#renewMs - this.#clock.now());
    };
    armDeadline(acquiredAt);
    // Stryker disable next-line ObjectLiteral,BooleanLiteral: end() removes the listener itself; a second call of end() does nothing
    signal.addEventListener('abort', onAbort, { once: true });
    this.#leading = true;
    const work = (async () => {
      await this.#callbacks.onStartedLeading(term.signal);
    })().catch((err: unknown) => this.#log.error({ err }, 'the leader callback failed'));

    while (ended === undefined) {
      try {
        await this.#clock.sleep(this.#retryMs, term.signal);
        // Stryker disable next-line BlockStatement: the sleep rejects only when the term's signal aborted, and then the next attempt returns undefined at once
      } catch {
        break;
      }
      const attempt = await this.#nextAttempt(term.signal);
      // Stryker disable next-line LogicalOperator,ConditionalExpression: an attempt is undefined only when the term's signal aborted, i.e. once the term has ended; and the term ends only in a timer or an abort listener, which cannot run between the attempt's answer and here (microtasks only)
      if (attempt === undefined || ended !== undefined) break;
      if (attempt.ok) {
        lastRenewAt = attempt.at;
        if (this.#clock.now() >= attempt.at + this.#renewMs) end('deadline');
        else armDeadline(attempt.at);
      } else if (attempt.heldByOther) {
        end('lost');
      } else {
        this.#log.debug({}, 'failed to renew lease; retrying until the renew deadline');
      }
    }

    // Never two terms' work at once in this process: campaign again once this term's work ended.
    await raceSignal(work, signal);
    // Cancelled (during the term, from onStoppedLeading, or while the work wound down): the lease
    // is ours until others see it expire, and run() releases it once the work has stopped. (Not
    // cancelled, the work has settled and this returns at once.)
    await this.#within(work, lastRenewAt + this.#leaseMs - this.#clock.now());
  }

  /** The next attempt, once the previous one has settled; undefined when `signal` aborts first. */
  async #nextAttempt(signal: AbortSignal): Promise<Attempt | undefined> {
    const previous = this.#inflight;
    if (previous !== undefined && (await raceSignal(previous, signal)) === undefined) return undefined;
    // Stryker disable next-line ConditionalExpression: unreachable: the callers check the signal just before, and raceSignal returns undefined for an aborted one
    if (signal.aborted) return undefined;
    const attempt = this.#tryAcquireOrRenew();
    this.#inflight = attempt;
    const result = await raceSignal(attempt, signal);
    // Stryker disable next-line ConditionalExpression: an attempt cut short by the signal has not changed the record seen, so there is nothing to report
    if (result !== undefined) this.#reportTransition();
    return result;
  }

  /** client-go's tryAcquireOrRenew. Never rejects: failures are logged and reported as !ok. */
  async #tryAcquireOrRenew(): Promise<Attempt> {
    const at = this.#clock.now();
    const now = formatMicroTime(at);
    // Stryker disable next-line ObjectLiteral: an empty attempt reads as ok: false, heldByOther: false too (its `at` is read only when ok)
    const fail = { ok: false, at, heldByOther: false } as const;
    const desired = {
      holderIdentity: this.#identity,
      leaseDurationSeconds: Math.ceil(this.#leaseMs / 1000),
      acquireTime: now,
      renewTime: now,
      leaseTransitions: 0,
    };

    // 1. The leader's fast path: update over the version it wrote last.
    const observed = this.#observed;
    if (observed?.holderIdentity === this.#identity && this.#leaseValid(at)) {
      const next = { ...desired, acquireTime: observed.acquireTime, leaseTransitions: observed.leaseTransitions };
      try {
        await this.#lock.update(next);
        this.#setObserved(next);
        return { ok: true, at };
      } catch (err) {
        this.#log.debug({ err }, 'failed to update the lease optimistically; falling back to get');
      }
    }

    // 2. Read the record, or create it.
    let current: LeaderElectionRecord;
    try {
      current = await this.#lock.get();
    } catch (err) {
      if (!isApiError(err, 'NotFound')) {
        this.#log.error({ err }, 'error retrieving the lease');
        return fail;
      }
      try {
        await this.#lock.create(desired);
      } catch (createErr) {
        this.#log.error({ err: createErr }, 'error creating the lease');
        return fail;
      }
      this.#setObserved(desired);
      return { ok: true, at };
    }

    // 3. Expiry counts from when this process saw the record change, not from its timestamps.
    const raw = rawRecord(current);
    if (raw !== this.#observedRaw) {
      this.#setObserved(current);
      this.#observedRaw = raw;
    }
    const mine = this.#holdsLease();
    if (current.holderIdentity !== '' && this.#leaseValid(at) && !mine) {
      this.#log.debug({ holder: current.holderIdentity }, 'the lease is held by another candidate and has not expired');
      return { ok: false, at, heldByOther: true };
    }

    // 4. Take or renew it.
    const next = mine
      ? { ...desired, acquireTime: current.acquireTime, leaseTransitions: current.leaseTransitions }
      : { ...desired, leaseTransitions: current.leaseTransitions + 1 };
    try {
      await this.#lock.update(next);
    } catch (err) {
      this.#log.info({ err }, 'failed to update the lease');
      return fail;
    }
    this.#setObserved(next);
    return { ok: true, at };
  }

  /** Gives the lease up: no holder, a one-second lease, so a successor takes it at its next try. */
  async #release(): Promise<void> {
    // Stryker disable next-line ConditionalExpression: racing undefined resolves at once
    if (this.#inflight !== undefined) await this.#within(this.#inflight, this.#renewMs);
    const observed = this.#observed;
    if (observed?.holderIdentity !== this.#identity) return;
    const now = formatMicroTime(this.#clock.now());
    const released = { holderIdentity: '', leaseDurationSeconds: 1, acquireTime: now, renewTime: now, leaseTransitions: observed.leaseTransitions };
    const update = this.#lock.update(released).then(
      () => true,
      (err: unknown) => {
        if (isApiError(err, 'Conflict')) this.#log.info({}, 'the lease changed since this candidate held it; nothing to release');
        else this.#log.error({ err }, 'failed to release the lease');
        return false;
      },
    );
    const done = await this.#within(update, this.#renewMs);
    if (done === true) {
      this.#setObserved(released);
      this.#reportTransition();
      this.#log.info({}, 'released the lease');
    } else if (done === undefined) {
      this.#log.error({}, 'releasing the lease timed out');
    }
  }

  #holdsLease(): boolean {
    // Stryker disable next-line OptionalChaining: every caller checks or sets #observed first
    return this.#observed?.holderIdentity === this.#identity;
  }

  #leaseValid(now: number): boolean {
    // Stryker disable next-line OptionalChaining: every caller checks or sets #observed first
    return this.#observedAt + (this.#observed?.leaseDurationSeconds ?? 0) * 1000 > now;
  }

  #setObserved(r: LeaderElectionRecord): void {
    this.#observed = r;
    this.#observedAt = this.#clock.now();
  }

  #reportTransition(): void {
    const holder = this.#observed?.holderIdentity ?? '';
    if (holder === this.#reportedLeader) return;
    this.#reportedLeader = holder;
    if (holder === '' || this.#callbacks.onNewLeader === undefined) return;
    this.#log.info({ leader: holder }, 'new leader observed');
    try {
      this.#callbacks.onNewLeader(holder);
    } catch (err) {
      this.#log.error({ err }, 'onNewLeader threw');
    }
  }

  /** p's value, or undefined when `ms` pass first (no timer is left behind). `p` must not reject. */
  async #within<T>(p: Promise<T>, ms: number): Promise<T | undefined> {
    if (ms <= 0) return undefined;
    const stop = new AbortController();
    const timeout = this.#clock.sleep(ms, stop.signal).then(
      () => undefined,
      () => undefined,
    );
    try {
      return await Promise.race([p, timeout]);
    } finally {
      stop.abort();
    }
  }
}
