import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { ApiError, FakeClock, isApiError, recordingLogger, type Lease } from '@setpoint/api';
import { JITTER_FACTOR, LeaderElector, type LeaderElectorOptions } from './leaderelector.js';
import { formatMicroTime, LeaseLock, recordFromLease, type LeaderElectionRecord, type LeaseClient, type ResourceLock } from './leaselock.js';

const LEASES = { group: 'coordination.k8s.io', resource: 'leases' };
const NS = 'kube-system';
const NAME = 'controller-manager';
const MICRO_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/;
const LEASE_MS = 15_000;
const RENEW_MS = 10_000;
const RETRY_MS = 2_000;

/** Leases in memory, with the API server's resourceVersion preconditions. */
class LeaseStore {
  readonly #leases = new Map<string, Lease>();
  #rv = 0;
  /** Every successful write, in order. */
  readonly writes: Lease[] = [];

  peek(name = NAME): Lease | undefined {
    return this.#leases.get(`${NS}/${name}`);
  }

  get(namespace: string, name: string): Lease {
    const lease = this.#leases.get(`${namespace}/${name}`);
    if (lease === undefined) throw ApiError.notFound(LEASES, name);
    return structuredClone(lease);
  }

  create(obj: Lease): Lease {
    const key = `${obj.metadata.namespace}/${obj.metadata.name}`;
    if (this.#leases.has(key)) throw ApiError.alreadyExists(LEASES, obj.metadata.name ?? '');
    return this.#put(key, obj);
  }

  update(obj: Lease): Lease {
    const key = `${obj.metadata.namespace}/${obj.metadata.name}`;
    const current = this.#leases.get(key);
    if (current === undefined) throw ApiError.notFound(LEASES, obj.metadata.name ?? '');
    if (obj.metadata.resourceVersion !== current.metadata.resourceVersion) throw ApiError.conflict(LEASES, obj.metadata.name ?? '');
    return this.#put(key, obj);
  }

  #put(key: string, obj: Lease): Lease {
    const stored = structuredClone(obj);
    stored.metadata.resourceVersion = String(++this.#rv);
    this.#leases.set(key, stored);
    this.writes.push(structuredClone(stored));
    return structuredClone(stored);
  }
}

/** One candidate's connection to the store: it can fail, and it can be slow (each way). */
class FakeLeaseClient implements LeaseClient {
  failing = false;
  latencyMs = 0;
  constructor(
    readonly store: LeaseStore,
    readonly clock: FakeClock,
  ) {}

  get(name: string, options: { namespace: string }): Promise<Lease> {
    return this.#call(() => this.store.get(options.namespace, name));
  }
  create(obj: Lease): Promise<Lease> {
    return this.#call(() => this.store.create(obj));
  }
  update(obj: Lease): Promise<Lease> {
    return this.#call(() => this.store.update(obj));
  }

  async #call<T>(op: () => T): Promise<T> {
    const latency = this.latencyMs;
    if (latency > 0) await this.clock.sleep(latency);
    if (this.failing) throw new Error('connect ECONNREFUSED 10.0.0.1:6443');
    const result = op();
    if (latency > 0) await this.clock.sleep(latency);
    return result;
  }
}

/** A candidate: its elector, its client, and when it started and stopped leading. */
interface Candidate {
  readonly id: string;
  readonly client: FakeLeaseClient;
  elector: LeaderElector;
  controller: AbortController;
  readonly started: number[];
  readonly stopped: number[];
  readonly runs: Array<Promise<void>>;
}

/** An election among candidates in virtual time; `violations` lists every moment two led. */
class Election {
  readonly clock = new FakeClock();
  readonly store = new LeaseStore();
  readonly candidates: Candidate[] = [];
  readonly violations: string[] = [];
  readonly newLeaders: string[] = [];
  #seed = 1;

  constructor(readonly options: Partial<LeaderElectorOptions> = {}) {}

  add(id: string): Candidate {
    const client = new FakeLeaseClient(this.store, this.clock);
    const c: Candidate = { id, client, elector: undefined as unknown as LeaderElector, controller: new AbortController(), started: [], stopped: [], runs: [] };
    this.candidates.push(c);
    this.start(c);
    return c;
  }

  /**
   * Starts (or restarts, after an abort) a candidate with a fresh elector and lock, as `identity`
   * (default its id: a restart with a stable identity, which is safe only once the old run is gone).
   */
  start(c: Candidate, identity = c.id): void {
    c.controller = new AbortController();
    const elector: LeaderElector = new LeaderElector({
      lock: new LeaseLock({ client: c.client, namespace: NS, name: NAME }),
      identity,
      clock: this.clock,
      // Deterministic jitter, different for each call.
      random: () => ((this.#seed = (this.#seed * 48271) % 2147483647) / 2147483647),
      callbacks: {
        onStartedLeading: (signal) => {
          const others = this.candidates.filter((o) => o.elector !== elector && o.elector.isLeader()).map((o) => o.id);
          if (others.length > 0) this.violations.push(`${c.id} started leading at ${this.clock.now()} while ${others.join()} led`);
          c.started.push(this.clock.now());
          return new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
        },
        onStoppedLeading: () => void c.stopped.push(this.clock.now()),
        onNewLeader: (identity) => void this.newLeaders.push(`${c.id}:${identity}`),
      },
      ...this.options,
    });
    c.elector = elector;
    c.runs.push(elector.run(c.controller.signal));
  }

  leaders(): string[] {
    return this.candidates.filter((c) => c.elector.isLeader()).map((c) => c.id);
  }

  async stopAll(): Promise<void> {
    for (const c of this.candidates) {
      c.client.failing = false;
      c.client.latencyMs = 0;
      c.controller.abort();
    }
    let done = false;
    const all = Promise.all(this.candidates.flatMap((c) => c.runs)).then(() => void (done = true));
    for (let i = 0; i < 120 && !done; i++) await this.clock.advance(1_000);
    assert.ok(done, 'every run() resolves after its signal aborts');
    await all;
  }
}

function spec(store: LeaseStore): NonNullable<Lease['spec']> {
  const lease = store.peek();
  assert.ok(lease?.spec, 'the lease exists');
  return lease.spec;
}

describe('LeaderElector', () => {
  it('validates leaseDuration > renewDeadline > retryPeriod × 1.2 and the identity', () => {
    const lock = new LeaseLock({ client: new FakeLeaseClient(new LeaseStore(), new FakeClock()), namespace: NS, name: NAME });
    const callbacks = { onStartedLeading: () => {}, onStoppedLeading: () => {} };
    const make = (o: Partial<LeaderElectorOptions>) => () => new LeaderElector({ lock, identity: 'a', callbacks, ...o });
    assert.throws(make({ leaseDurationMs: 10_000, renewDeadlineMs: 10_000 }), RangeError);
    assert.throws(make({ renewDeadlineMs: 2_400, retryPeriodMs: 2_000 }), RangeError);
    assert.throws(make({ retryPeriodMs: 0 }), RangeError);
    assert.throws(make({ leaseDurationMs: Number.NaN }), RangeError);
    assert.throws(make({ identity: '' }), RangeError);
    assert.doesNotThrow(make({ renewDeadlineMs: 2_401, retryPeriodMs: 2_000 }));
  });

  it('creates the lease with the fields Kubernetes writes, and renews it', async () => {
    const e = new Election();
    const a = e.add('a');
    await e.clock.advance(0);
    assert.deepEqual(e.leaders(), ['a']);
    assert.equal(a.elector.getLeader(), 'a');
    const first = spec(e.store);
    assert.equal(first.holderIdentity, 'a');
    assert.equal(first.leaseDurationSeconds, 15);
    assert.equal(first.leaseTransitions, 0);
    assert.match(first.acquireTime ?? '', MICRO_TIME);
    assert.equal(first.acquireTime, '2026-01-01T00:00:00.000000Z');
    assert.equal(first.renewTime, first.acquireTime);

    await e.clock.advance(RETRY_MS);
    const renewed = spec(e.store);
    assert.equal(renewed.renewTime, '2026-01-01T00:00:02.000000Z');
    assert.equal(renewed.acquireTime, first.acquireTime);
    assert.equal(renewed.leaseTransitions, 0);
    assert.deepEqual(e.newLeaders, ['a:a']);
    await e.stopAll();
  });

  it('a leader that cannot renew stops before the lease expires; a follower takes over only after it has', async () => {
    const e = new Election();
    const [a, b, c] = [e.add('a'), e.add('b'), e.add('c')];
    await e.clock.advance(10_000);
    assert.deepEqual(e.leaders(), ['a']);
    assert.deepEqual(e.newLeaders.sort(), ['a:a', 'b:a', 'c:a']);

    a.client.failing = true;
    const lastRenew = Date.parse(spec(e.store).renewTime ?? '');
    await e.clock.advance(40_000);
    assert.equal(a.stopped.length, 1);
    const stoppedAt = a.stopped[0] ?? Infinity;
    assert.ok(stoppedAt <= lastRenew + RENEW_MS, `a stopped at +${stoppedAt - lastRenew} ms`);
    const successor = [b, c].find((x) => x.started.length > 0);
    assert.ok(successor, 'someone took over');
    const startedAt = successor.started[0] ?? -Infinity;
    assert.ok(startedAt >= lastRenew + LEASE_MS, `${successor.id} started at +${startedAt - lastRenew} ms`);
    assert.ok(startedAt <= lastRenew + LEASE_MS + 2 * 2.2 * RETRY_MS, `${successor.id} started at +${startedAt - lastRenew} ms`);
    assert.deepEqual(e.leaders(), [successor.id]);
    assert.equal(spec(e.store).leaseTransitions, 1);

    // a recovers, campaigns again, and follows.
    a.client.failing = false;
    await e.clock.advance(30_000);
    assert.deepEqual(e.leaders(), [successor.id]);
    assert.equal(a.elector.getLeader(), successor.id);
    assert.deepEqual(e.violations, []);
    await e.stopAll();
  });

  it('a slow leader counts its renew deadline from the start of its last renewal, not its answer', async () => {
    // The thinnest margin: others may take the lease a second after the renew deadline.
    const e = new Election({ leaseDurationMs: 11_000 });
    const [a, b] = [e.add('a'), e.add('b')];
    await e.clock.advance(5_000);
    a.client.latencyMs = 1_500; // each way: a renewal takes 3 s, and lands 1.5 s after it started
    await e.clock.advance(20_000);
    assert.deepEqual(e.leaders(), ['a']);
    a.client.failing = true;
    const lastRenew = Date.parse(spec(e.store).renewTime ?? '');
    await e.clock.advance(30_000);
    assert.ok((a.stopped[0] ?? Infinity) <= lastRenew + RENEW_MS, `a stopped at +${(a.stopped[0] ?? Infinity) - lastRenew} ms`);
    assert.equal((b.started[0] ?? -Infinity) >= lastRenew + 11_000, true);
    assert.deepEqual(e.violations, []);
    await e.stopAll();
  });

  it('leadingNow() is false once the renew deadline has passed by the clock, before the deadline timer runs', async () => {
    // A process paused past its lease (SIGSTOP, a long GC) resumes with its clock ahead of its timers.
    let paused = 0;
    const e: Election = new Election({
      clock: { now: () => e.clock.now() + paused, setTimeout: (fn, ms) => e.clock.setTimeout(fn, ms), sleep: (ms, signal) => e.clock.sleep(ms, signal) },
    });
    const a = e.add('a');
    await e.clock.advance(RETRY_MS + 1);
    assert.equal(a.elector.leadingNow(), true);
    const renewedAt = Date.parse(spec(e.store).renewTime ?? '');
    paused = renewedAt + RENEW_MS - e.clock.now();
    assert.equal(a.elector.isLeader(), true, 'the deadline timer has not run');
    assert.equal(a.elector.leadingNow(), false, 'but the renew deadline has passed');
    paused = 0;
    await e.stopAll();
    assert.equal(a.elector.leadingNow(), false, 'not after it stopped');
  });

  it('a leader that sees another holder stops at once', async () => {
    const e = new Election();
    const a = e.add('a');
    await e.clock.advance(1_000);
    const lease = e.store.peek();
    assert.ok(lease?.spec, 'the lease has a spec');
    e.store.update({ ...lease, spec: { ...lease.spec, holderIdentity: 'intruder' } });
    const changedAt = e.clock.now();
    await e.clock.advance(3 * RETRY_MS);
    assert.equal(a.stopped.length, 1);
    assert.equal((a.stopped[0] ?? Infinity) <= changedAt + 2 * RETRY_MS, true);
    assert.equal(a.elector.getLeader(), 'intruder');
    await e.stopAll();
  });

  it('releases the lease on cancel, so another takes over at once', async () => {
    const e = new Election();
    const [a, b] = [e.add('a'), e.add('b')];
    await e.clock.advance(5_000);
    assert.deepEqual(e.leaders(), ['a']);
    const cancelledAt = e.clock.now();
    a.controller.abort();
    assert.equal(a.stopped[0], cancelledAt, 'onStoppedLeading runs on abort');
    await e.clock.advance(0);
    await a.runs[0];
    assert.equal(spec(e.store).holderIdentity, '');
    assert.equal(spec(e.store).leaseDurationSeconds, 1);
    await e.clock.advance(2.2 * RETRY_MS);
    assert.deepEqual(e.leaders(), ['b']);
    assert.equal((b.started[0] ?? Infinity) - cancelledAt <= 2.2 * RETRY_MS, true);
    assert.equal(spec(e.store).leaseTransitions, 1);
    await e.stopAll();
  });

  it('releases the lease only after the work it guards has stopped', async () => {
    const clock = new FakeClock();
    const store = new LeaseStore();
    const controller = new AbortController();
    let workEnded = -1;
    const elector = new LeaderElector({
      lock: new LeaseLock({ client: new FakeLeaseClient(store, clock), namespace: NS, name: NAME }),
      identity: 'a',
      clock,
      callbacks: {
        onStartedLeading: async (signal) => {
          await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
          await clock.sleep(3_000); // winding down
          workEnded = clock.now();
        },
        onStoppedLeading: () => {},
      },
    });
    const run = elector.run(controller.signal);
    await clock.advance(1_000);
    controller.abort();
    const cancelledAt = clock.now();
    await clock.advance(2_999);
    assert.equal(spec(store).holderIdentity, 'a');
    await clock.advance(1);
    await run;
    assert.equal(workEnded, cancelledAt + 3_000);
    assert.equal(spec(store).holderIdentity, '');
  });

  it('cancelled while an attempt is in flight, gives up the lease that attempt took', async () => {
    const e = new Election();
    const a = e.add('a');
    a.client.latencyMs = 1_000;
    await e.clock.advance(500);
    a.controller.abort();
    await e.clock.advance(5_000);
    await a.runs[0];
    assert.deepEqual(a.started, []);
    assert.equal(spec(e.store).holderIdentity, '');
    assert.deepEqual(e.store.writes.map((w) => w.spec?.holderIdentity), ['a', '']);
  });

  it('without releaseOnCancel, a successor waits for the lease to expire', async () => {
    const e = new Election({ releaseOnCancel: false });
    const [a, b] = [e.add('a'), e.add('b')];
    await e.clock.advance(5_000);
    const lastRenew = Date.parse(spec(e.store).renewTime ?? '');
    a.controller.abort();
    await e.clock.advance(30_000);
    assert.equal(spec(e.store).holderIdentity, 'b');
    assert.equal((b.started[0] ?? -Infinity) >= lastRenew + LEASE_MS, true);
    await e.stopAll();
  });

  it('counts leaseTransitions when the holder changes, never on renewals', async () => {
    const e = new Election();
    const a = e.add('a');
    await e.clock.advance(10_000);
    const b = e.add('b');
    await e.clock.advance(10_000);
    a.controller.abort(); // released: b takes over
    await e.clock.advance(10_000);
    b.client.failing = true; // expired: a (restarted) takes over
    e.start(a);
    await e.clock.advance(40_000);
    const history: string[] = [];
    for (const w of e.store.writes) {
      const entry = `${w.spec?.holderIdentity ?? ''}@${w.spec?.leaseTransitions ?? 0}`;
      if (history.at(-1) !== entry) history.push(entry);
    }
    assert.deepEqual(history, ['a@0', '@0', 'b@1', 'a@2']);
    assert.deepEqual(e.violations, []);
    await e.stopAll();
  });

  it('keeps at most one leader among 3 candidates through failures, slowness and restarts', async () => {
    const who = fc.integer({ min: 0, max: 2 });
    const action = fc.oneof(
      { arbitrary: fc.constant({ kind: 'wait' as const }), weight: 4 },
      { arbitrary: fc.record({ kind: fc.constant('fail' as const), who }), weight: 2 },
      { arbitrary: fc.record({ kind: fc.constant('heal' as const), who }), weight: 2 },
      { arbitrary: fc.record({ kind: fc.constant('slow' as const), who, ms: fc.integer({ min: 0, max: 6_000 }) }), weight: 2 },
      { arbitrary: fc.record({ kind: fc.constant('restart' as const), who }), weight: 1 },
    );
    const step = fc.record({ action, advanceMs: fc.integer({ min: 0, max: 8_000 }) });
    // The defaults, and a lease only a second longer than the renew deadline (the thinnest margin).
    const timing = fc.constantFrom<Partial<LeaderElectorOptions>>({}, { leaseDurationMs: 11_000 }, { leaseDurationMs: 3_000, renewDeadlineMs: 2_500 });
    await fc.assert(
      fc.asyncProperty(timing, fc.array(step, { minLength: 20, maxLength: 80 }), async (options, steps) => {
        const e = new Election(options);
        const cs = ['a', 'b', 'c'].map((id) => e.add(id));
        let restarts = 0;
        for (const { action, advanceMs } of steps) {
          const c = action.kind === 'wait' ? undefined : cs[action.who];
          if (c !== undefined) {
            if (action.kind === 'fail') c.client.failing = true;
            if (action.kind === 'heal') c.client.failing = false;
            if (action.kind === 'slow') c.client.latencyMs = action.ms;
            if (action.kind === 'restart') {
              // A new process while the old one may still be winding down: a new identity, as the
              // manager's default (hostname_random) gives each process. Two live electors sharing an
              // identity each take the other's lease for their own, as in client-go.
              c.controller.abort();
              e.start(c, `${c.id}-${++restarts}`);
            }
          }
          await e.clock.advance(advanceMs);
          assert.ok(e.leaders().length <= 1, `leaders ${e.leaders().join()} at ${e.clock.now()}`);
          assert.deepEqual(e.violations, []);
        }
        // Once everything is healthy again, exactly one leads.
        for (const c of cs) {
          c.client.failing = false;
          c.client.latencyMs = 0;
        }
        await e.clock.advance(2 * LEASE_MS);
        assert.equal(e.leaders().length, 1, `leaders: ${e.leaders().join()}`);
        await e.stopAll();
        assert.deepEqual(e.violations, []);
      }),
      { numRuns: 200 },
    );
  });
});

/** A lock in memory with optimistic versions (as the API server's resourceVersion), counting its calls. */
class MemoryLock implements ResourceLock {
  record: LeaderElectionRecord | undefined;
  #version = 0;
  #seen = -1;
  /** `op@time` of every call, when it was made. */
  readonly calls: string[] = [];
  inflight = 0;
  maxInflight = 0;
  /** How long a call takes before it is applied. */
  latencyMs = 0;
  failing = false;
  /** While set, calls wait for it before they are applied (an answer the test lets through). */
  gate: Promise<void> | undefined;
  constructor(readonly clock: FakeClock) {}

  /** Another writer changes the record. */
  set(r: LeaderElectionRecord): void {
    this.record = r;
    this.#version++;
  }

  get(): Promise<LeaderElectionRecord> {
    return this.#call('get', () => {
      if (this.record === undefined) throw ApiError.notFound(LEASES, NAME);
      this.#seen = this.#version;
      return { ...this.record };
    });
  }
  create(r: LeaderElectionRecord): Promise<void> {
    return this.#call('create', () => {
      if (this.record !== undefined) throw ApiError.alreadyExists(LEASES, NAME);
      this.record = r;
      this.#seen = ++this.#version;
    });
  }
  update(r: LeaderElectionRecord): Promise<void> {
    return this.#call('update', () => {
      if (this.#seen !== this.#version) throw ApiError.conflict(LEASES, NAME);
      this.record = r;
      this.#seen = ++this.#version;
    });
  }
  describe(): string {
    return `${NS}/${NAME}`;
  }

  /** Times of the calls of `op`, relative to `t0`. */
  times(op: string, t0: number): number[] {
    return this.calls.filter((c) => c.startsWith(`${op}@`)).map((c) => Number(c.slice(op.length + 1)) - t0);
  }

  async #call<T>(op: string, fn: () => T): Promise<T> {
    this.calls.push(`${op}@${this.clock.now()}`);
    this.inflight++;
    this.maxInflight = Math.max(this.maxInflight, this.inflight);
    try {
      if (this.latencyMs > 0) await this.clock.sleep(this.latencyMs);
      if (this.gate !== undefined) await this.gate;
      if (this.failing) throw new Error('connect ECONNREFUSED 10.0.0.1:6443');
      return fn();
    } finally {
      this.inflight--;
    }
  }
}

/** One elector on a MemoryLock, recording what it tells its user. */
function single(lock: MemoryLock, options: Partial<LeaderElectorOptions> = {}) {
  const started: number[] = [];
  const stopped: number[] = [];
  const reasons: string[] = [];
  const newLeaders: string[] = [];
  const logger = recordingLogger();
  const elector = new LeaderElector({
    lock,
    identity: 'me',
    clock: lock.clock,
    logger,
    random: () => 0,
    callbacks: {
      onStartedLeading: (signal) => {
        started.push(lock.clock.now());
        return new Promise<void>((resolve) =>
          signal.addEventListener(
            'abort',
            () => {
              reasons.push(String((signal.reason as Error).message));
              resolve();
            },
            { once: true },
          ),
        );
      },
      onStoppedLeading: () => void stopped.push(lock.clock.now()),
      onNewLeader: (id) => void newLeaders.push(id),
    },
    ...options,
  });
  return { elector, started, stopped, reasons, newLeaders, logger };
}

/** A record as another candidate writes it. */
function heldBy(holderIdentity: string, leaseDurationSeconds: number, at: number, leaseTransitions = 3): LeaderElectionRecord {
  return { holderIdentity, leaseDurationSeconds, acquireTime: formatMicroTime(at), renewTime: formatMicroTime(at), leaseTransitions };
}

// Short timings for the MemoryLock tests: lease 3 s > renew 2.5 s > retry 1 s × 1.2.
const SHORT = { leaseDurationMs: 3_000, renewDeadlineMs: 2_500, retryPeriodMs: 1_000 };

describe('LeaderElector timing', () => {
  it('rejects durations out of order, non-finite or not positive, naming the option', () => {
    const lock = new MemoryLock(new FakeClock());
    const callbacks = { onStartedLeading: () => {}, onStoppedLeading: () => {} };
    const make = (o: Partial<LeaderElectorOptions>) => () => new LeaderElector({ lock, identity: 'a', callbacks, ...o });
    assert.throws(make({ leaseDurationMs: Infinity }), /leaseDurationMs must be a finite number > 0, got Infinity/);
    assert.throws(make({ renewDeadlineMs: -1 }), /renewDeadlineMs must be a finite number > 0, got -1/);
    assert.throws(make({ retryPeriodMs: 0 }), /retryPeriodMs must be a finite number > 0, got 0/);
    assert.throws(make({ leaseDurationMs: 9_000 }), /leaseDurationMs must be greater than renewDeadlineMs/);
    assert.throws(make({ retryPeriodMs: 9_000 }), /renewDeadlineMs must be greater than retryPeriodMs \* 1\.2/);
    assert.throws(make({ identity: '' }), /identity must not be empty/);
  });

  it('takes an unexpired lease only leaseDuration after it last saw the record change, by its own clock', async () => {
    const clock = new FakeClock();
    const lock = new MemoryLock(clock);
    // Another candidate's lease of 4 s, stamped an hour ago by its clock: the timestamps do not count.
    lock.set(heldBy('other', 4, clock.now() - 3_600_000));
    const t0 = clock.now();
    const me = single(lock, SHORT);
    const controller = new AbortController();
    const run = me.elector.run(controller.signal);
    await clock.advance(2_500);
    lock.set(heldBy('other', 4, clock.now() - 3_600_000, 3)); // a renewal, seen at the attempt at 3 s
    await clock.advance(10_000);
    assert.deepEqual(me.started.map((t) => t - t0), [7_000], 'free 4 s after the renewal was first seen, at 3 s');
    assert.deepEqual(lock.times('get', t0).slice(0, 8), [0, 1_000, 2_000, 3_000, 4_000, 5_000, 6_000, 7_000], 'one attempt per retryPeriod (no jitter)');
    assert.equal(me.elector.getLeader(), 'me');
    assert.equal(lock.record?.holderIdentity, 'me');
    assert.equal(lock.record?.leaseTransitions, 4, 'taking it over counts a transition');
    assert.equal(lock.record?.acquireTime, formatMicroTime(t0 + 7_000));
    assert.equal(lock.record?.leaseDurationSeconds, 3);
    assert.deepEqual(me.newLeaders, ['other', 'me']);
    controller.abort();
    await clock.advance(0);
    await run;
  });

  it('takes a lease exactly when it expires, not a retry later', async () => {
    const clock = new FakeClock();
    const lock = new MemoryLock(clock);
    lock.set(heldBy('other', 4, clock.now()));
    const t0 = clock.now();
    const me = single(lock, SHORT);
    const controller = new AbortController();
    const run = me.elector.run(controller.signal);
    await clock.advance(6_000);
    assert.deepEqual(me.started.map((t) => t - t0), [4_000]);
    controller.abort();
    await clock.advance(0);
    await run;
  });

  it('takes a released lease at the attempt that sees it released', async () => {
    const clock = new FakeClock();
    const lock = new MemoryLock(clock);
    lock.set(heldBy('other', 60, clock.now()));
    const t0 = clock.now();
    const me = single(lock, SHORT);
    const controller = new AbortController();
    const run = me.elector.run(controller.signal);
    await clock.advance(1_500);
    lock.set({ ...heldBy('', 1, clock.now()), leaseTransitions: 3 }); // released, with a one-second lease
    await clock.advance(3_000);
    assert.deepEqual(me.started.map((t) => t - t0), [2_000]);
    assert.deepEqual(me.newLeaders, ['other', 'me'], 'no new leader is reported for a released lease');
    controller.abort();
    await clock.advance(0);
    await run;
  });

  it('jitters its campaign within [retryPeriod, retryPeriod × 2.2], clamping the random source', async () => {
    for (const [r, spacing] of [
      [0.5, 1_000 + 0.5 * JITTER_FACTOR * 1_000],
      [7, 1_000 + JITTER_FACTOR * 1_000],
      [-3, 1_000],
    ] as const) {
      const clock = new FakeClock();
      const lock = new MemoryLock(clock);
      lock.set(heldBy('other', 600, clock.now()));
      const t0 = clock.now();
      const me = single(lock, { ...SHORT, random: () => r });
      const controller = new AbortController();
      const run = me.elector.run(controller.signal);
      await clock.advance(3 * spacing);
      assert.deepEqual(lock.times('get', t0), [0, spacing, 2 * spacing, 3 * spacing], `random ${r}`);
      controller.abort();
      await clock.advance(0);
      await run;
    }
  });

  it('a restarted candidate takes its own unexpired lease back at once, keeping acquireTime and transitions', async () => {
    const clock = new FakeClock();
    const lock = new MemoryLock(clock);
    const acquired = clock.now() - 60_000;
    lock.set({ ...heldBy('me', 15, acquired, 2), renewTime: formatMicroTime(clock.now() - 1_000) });
    const t0 = clock.now();
    const me = single(lock);
    const controller = new AbortController();
    const run = me.elector.run(controller.signal);
    await clock.advance(0);
    assert.deepEqual(me.started.map((t) => t - t0), [0]);
    assert.equal(lock.record?.acquireTime, formatMicroTime(acquired));
    assert.equal(lock.record?.renewTime, formatMicroTime(t0));
    assert.equal(lock.record?.leaseTransitions, 2);
    controller.abort();
    await clock.advance(0);
    await run;
    assert.equal(lock.record?.holderIdentity, '');
    assert.equal(me.elector.getLeader(), undefined, 'no leader once released');
  });

  it('the leader renews with an update over its own last write, without reading the lease first', async () => {
    const clock = new FakeClock();
    const lock = new MemoryLock(clock);
    const t0 = clock.now();
    const me = single(lock, SHORT);
    const controller = new AbortController();
    const run = me.elector.run(controller.signal);
    await clock.advance(3_000);
    assert.deepEqual(lock.times('get', t0), [0], 'one get, which found nothing');
    assert.deepEqual(lock.times('create', t0), [0]);
    assert.deepEqual(lock.times('update', t0), [1_000, 2_000, 3_000]);
    assert.equal(lock.record?.renewTime, formatMicroTime(t0 + 3_000));
    // Someone else writes: the optimistic update conflicts, the get that follows shows the new holder.
    lock.set(heldBy('intruder', 60, clock.now()));
    await clock.advance(1_000);
    assert.deepEqual(me.stopped.map((t) => t - t0), [4_000]);
    assert.deepEqual(me.reasons, [`leadership of ${NS}/${NAME} ended (lost)`]);
    assert.deepEqual(lock.times('get', t0).filter((t) => t < 4_000), [0], 'no read while it renewed');
    assert.equal(lock.times('get', t0)[1], 4_000, 'the read after the conflict');
    controller.abort();
    await clock.advance(0);
    await run;
    assert.equal(lock.record?.holderIdentity, 'intruder', 'a follower does not release a lease it does not hold');
  });

  it('does not lead on an acquisition that answered after the renew deadline had passed', async () => {
    const clock = new FakeClock();
    const lock = new MemoryLock(clock);
    lock.latencyMs = 1_250; // a get and a create: 2.5 s, answering at the renew deadline
    const me = single(lock, SHORT);
    const controller = new AbortController();
    const run = me.elector.run(controller.signal);
    await clock.advance(3_000);
    assert.equal(lock.record?.holderIdentity, 'me', 'the lease was written');
    assert.deepEqual(me.started, [], 'but too late to lead safely');
    assert.equal(me.logger.lines.some((l) => l.level === 'warn' && /too late/.test(l.message)), true);
    lock.latencyMs = 0;
    await clock.advance(2_000);
    assert.equal(me.started.length, 1, 'a fast renewal of its own lease then leads');
    assert.equal(lock.maxInflight, 1);
    controller.abort();
    await clock.advance(0);
    await run;
  });

  it('never has two requests to the lock in flight, even when a term ends during a renewal', async () => {
    const clock = new FakeClock();
    const lock = new MemoryLock(clock);
    const t0 = clock.now();
    const me = single(lock, SHORT);
    const controller = new AbortController();
    const run = me.elector.run(controller.signal);
    await clock.advance(0);
    assert.equal(me.started.length, 1);
    lock.latencyMs = 4_000; // the renewal at 1 s answers at 5 s, after the deadline at 2.5 s
    await clock.advance(3_000);
    assert.deepEqual(me.stopped.map((t) => t - t0), [2_500]);
    assert.deepEqual(me.reasons, [`leadership of ${NS}/${NAME} ended (deadline)`]);
    await clock.advance(10_000);
    assert.equal(lock.maxInflight, 1, `calls: ${lock.calls.map((c) => c.replace(String(t0), '')).join()}`);
    assert.ok(lock.times('update', t0)[1]! >= 5_000, 'the next attempt waited for the renewal in flight');
    controller.abort();
    lock.latencyMs = 0;
    await clock.advance(20_000);
    await run;
  });

  it('counts the renew deadline from the start of the renewal: one that answers at the deadline ends the term', async () => {
    let paused = 0;
    const fake = new FakeClock();
    const clock = { now: () => fake.now() + paused, setTimeout: fake.setTimeout.bind(fake), sleep: fake.sleep.bind(fake) };
    const lock = new MemoryLock(fake);
    const me = single(lock, { ...SHORT, clock });
    const controller = new AbortController();
    const run = me.elector.run(controller.signal);
    await fake.advance(0);
    assert.equal(me.started.length, 1);
    lock.latencyMs = 500;
    await fake.advance(1_250); // the renewal started at 1 s and is in flight
    paused = 2_000; // the process stalls: it answers at 1 s + 0.5 s + 2 s = the renew deadline
    await fake.advance(250);
    assert.equal(me.elector.isLeader(), false, 'it stopped as the renewal answered');
    assert.equal(me.stopped.length, 1);
    assert.deepEqual(me.reasons, [`leadership of ${NS}/${NAME} ended (deadline)`]);
    controller.abort();
    lock.latencyMs = 0;
    await fake.advance(10_000);
    await run;
  });

  it('a renewal that answers at or after its renew deadline ends the term as it answers, before any timer runs', async () => {
    for (const late of [0, 1]) {
      let paused = 0;
      const fake = new FakeClock();
      const clock = { now: () => fake.now() + paused, setTimeout: fake.setTimeout.bind(fake), sleep: fake.sleep.bind(fake) };
      const lock = new MemoryLock(fake);
      const me = single(lock, { ...SHORT, clock });
      const controller = new AbortController();
      const run = me.elector.run(controller.signal);
      await fake.advance(0);
      let open = (): void => {};
      lock.gate = new Promise((resolve) => (open = resolve));
      await fake.advance(1_000); // the renewal started at 1 s and waits for its answer
      paused = 2_500 + late; // the process stalled: by the clock, the answer comes at the deadline (+ late)
      lock.gate = undefined;
      open();
      for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve)); // I/O callbacks run, no timer
      // (It then campaigns again at once and, the lease being its own, leads again.)
      assert.deepEqual(me.stopped, [fake.now()], `answered ${late} ms after the deadline: stopped as it answered`);
      assert.deepEqual(me.reasons, [`leadership of ${NS}/${NAME} ended (deadline)`]);
      controller.abort();
      await fake.advance(10_000);
      await run;
    }
  });

  it('waits for the work of a term that ended before it campaigns again', async () => {
    const clock = new FakeClock();
    const lock = new MemoryLock(clock);
    const t0 = clock.now();
    let workEnded = -1;
    const me = single(lock, {
      ...SHORT,
      callbacks: {
        onStartedLeading: async (signal) => {
          await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
          await clock.sleep(5_000); // winding down
          workEnded = clock.now();
        },
        onStoppedLeading: () => {},
      },
    });
    const controller = new AbortController();
    const run = me.elector.run(controller.signal);
    await clock.advance(0);
    lock.failing = true;
    await clock.advance(2_500); // the renew deadline passes
    const before = lock.calls.length;
    await clock.advance(5_000 - 1);
    assert.equal(lock.calls.length, before, 'no attempt while the old term winds down');
    assert.equal(workEnded, -1);
    await clock.advance(1);
    assert.equal(workEnded - t0, 7_500);
    await clock.advance(1_000);
    assert.ok(lock.calls.length > before, 'then it campaigns again');
    controller.abort();
    await clock.advance(0);
    await run;
  });

  it('on cancel, waits at most until the lease would expire for work that does not stop, then releases', async () => {
    const clock = new FakeClock();
    const lock = new MemoryLock(clock);
    const me = single(lock, {
      callbacks: { onStartedLeading: () => new Promise<void>(() => {}), onStoppedLeading: () => {} },
    });
    const controller = new AbortController();
    let done = false;
    const run = me.elector.run(controller.signal).then(() => void (done = true));
    await clock.advance(RETRY_MS); // the renewal at 2 s
    const lastRenew = clock.now();
    await clock.advance(1_000);
    controller.abort();
    await clock.advance(lastRenew + LEASE_MS - clock.now() - 1);
    assert.equal(done, false, 'the lease is still its own');
    assert.equal(lock.record?.holderIdentity, 'me');
    await clock.advance(1);
    await run;
    assert.equal(lock.record?.holderIdentity, '');
  });

  it('a release that does not answer gives up after the renew deadline', async () => {
    const clock = new FakeClock();
    const lock = new MemoryLock(clock);
    const me = single(lock);
    const controller = new AbortController();
    let done = false;
    const run = me.elector.run(controller.signal).then(() => void (done = true));
    await clock.advance(1_000);
    lock.latencyMs = 3_600_000;
    const cancelled = clock.now();
    controller.abort();
    await clock.advance(RENEW_MS - 1);
    assert.equal(done, false);
    await clock.advance(1);
    await run;
    assert.equal(clock.now() - cancelled, RENEW_MS);
    assert.equal(me.logger.lines.some((l) => l.level === 'error' && /releasing the lease timed out/.test(l.message)), true);
    assert.equal(me.elector.getLeader(), 'me', 'not released');
  });

  it('a release that conflicts leaves the new holder alone', async () => {
    const clock = new FakeClock();
    const lock = new MemoryLock(clock);
    const me = single(lock);
    const controller = new AbortController();
    const run = me.elector.run(controller.signal);
    await clock.advance(1_000);
    lock.set(heldBy('next', 15, clock.now()));
    controller.abort();
    await clock.advance(0);
    await run;
    assert.equal(lock.record?.holderIdentity, 'next');
    assert.equal(me.logger.lines.some((l) => l.level === 'info' && /nothing to release/.test(l.message)), true);
    assert.deepEqual(
      me.logger.lines.filter((l) => /released the lease|timed out|failed to release/.test(l.message)),
      [],
      'neither released nor timed out',
    );
  });

  it('run() refuses to run twice at once, and runs again once it has returned', async () => {
    const clock = new FakeClock();
    const lock = new MemoryLock(clock);
    const me = single(lock, SHORT);
    const first = new AbortController();
    const run = me.elector.run(first.signal);
    await assert.rejects(me.elector.run(new AbortController().signal), /run\(\) is already running/);
    await clock.advance(0);
    first.abort();
    await clock.advance(0);
    await run;
    const second = new AbortController();
    const again = me.elector.run(second.signal);
    await clock.advance(0);
    assert.equal(me.started.length, 2, 'it led again');
    second.abort();
    await clock.advance(0);
    await again;
  });

  it('run() with an aborted signal neither campaigns nor writes', async () => {
    const clock = new FakeClock();
    const lock = new MemoryLock(clock);
    const me = single(lock);
    await me.elector.run(AbortSignal.abort());
    assert.deepEqual(lock.calls, []);
    assert.equal(me.elector.getLeader(), undefined);
  });

  it('callbacks that throw are logged and change nothing', async () => {
    const clock = new FakeClock();
    const lock = new MemoryLock(clock);
    const boom = new Error('callback failed');
    const me = single(lock, {
      ...SHORT,
      callbacks: {
        onStartedLeading: () => {
          throw boom;
        },
        onStoppedLeading: () => {
          throw boom;
        },
        onNewLeader: () => {
          throw boom;
        },
      },
    });
    const controller = new AbortController();
    const run = me.elector.run(controller.signal);
    await clock.advance(2_000);
    assert.equal(me.elector.isLeader(), true, 'a leader whose work failed still leads (the user decides)');
    assert.equal(lock.record?.renewTime, formatMicroTime(clock.now()), 'and renews');
    controller.abort();
    await clock.advance(0);
    await run;
    const errors = me.logger.lines.filter((l) => l.level === 'error').map((l) => [l.message, l.fields['err']]);
    assert.deepEqual(errors, [
      ['onNewLeader threw', boom],
      ['the leader callback failed', boom],
      ['onStoppedLeading threw', boom],
    ]);
    assert.equal(lock.record?.holderIdentity, '', 'released all the same');
  });

  it('loses a race to create the lease without leading, and follows the winner', async () => {
    const clock = new FakeClock();
    const lock = new MemoryLock(clock);
    lock.latencyMs = 100;
    const me = single(lock, SHORT);
    const controller = new AbortController();
    const run = me.elector.run(controller.signal);
    await clock.advance(150); // its get found nothing at 100 ms; its create is in flight
    lock.set(heldBy('winner', 60, clock.now()));
    await clock.advance(2_000);
    assert.deepEqual(me.started, []);
    assert.equal(me.elector.getLeader(), 'winner');
    assert.equal(me.logger.lines.some((l) => l.level === 'error' && l.message === 'error creating the lease' && isApiError(l.fields['err'], 'AlreadyExists')), true);
    controller.abort();
    await clock.advance(200);
    await run;
    assert.equal(lock.record?.holderIdentity, 'winner');
  });

  it('logs its term: campaign, acquisition, the new leader, why it stopped, the release; each line names the lease and the candidate', async () => {
    const clock = new FakeClock();
    const lock = new MemoryLock(clock);
    const me = single(lock, SHORT);
    const controller = new AbortController();
    const run = me.elector.run(controller.signal);
    await clock.advance(0);
    lock.failing = true;
    await clock.advance(1_000);
    lock.failing = false;
    controller.abort();
    await clock.advance(0);
    await run;
    assert.deepEqual(
      me.logger.lines.map((l) => `${l.level} ${l.message}`),
      [
        'info attempting to acquire leader lease',
        'info new leader observed',
        'info successfully acquired lease',
        'debug failed to update the lease optimistically; falling back to get',
        'error error retrieving the lease',
        'debug failed to renew lease; retrying until the renew deadline',
        'info stopped leading',
        'info released the lease',
      ],
    );
    const lines = me.logger.lines.filter((l) => l.level !== 'debug');
    assert.equal(me.logger.lines[3]?.fields['err'] instanceof Error, true);
    for (const l of me.logger.lines) assert.deepEqual([l.bindings['lease'], l.bindings['identity']], [`${NS}/${NAME}`, 'me']);
    assert.equal(lines[1]?.fields['leader'], 'me');
    assert.equal(lines[4]?.fields['reason'], 'cancel');
    assert.equal(lines[3]?.fields['err'] instanceof Error, true);
  });

  it('leaves no timer behind once run() has returned, however it was stopped', async () => {
    const scenarios: Array<[string, (lock: MemoryLock) => void, number]> = [
      ['cancelled while leading', () => {}, 1_500],
      ['cancelled while campaigning', (lock) => lock.set(heldBy('other', 600, lock.clock.now())), 1_500],
      ['cancelled after losing the lease', (lock) => void lock.clock.setTimeout(() => lock.set(heldBy('other', 600, lock.clock.now())), 500), 1_500],
      ['cancelled while a renewal is in flight', (lock) => void lock.clock.setTimeout(() => (lock.latencyMs = 800), 100), 1_500],
    ];
    for (const [what, setup, cancelAt] of scenarios) {
      const clock = new FakeClock();
      const lock = new MemoryLock(clock);
      setup(lock);
      const me = single(lock, SHORT);
      const controller = new AbortController();
      let done = false;
      const run = me.elector.run(controller.signal).then(() => void (done = true));
      await clock.advance(cancelAt);
      controller.abort();
      for (let i = 0; i < 20 && !done; i++) await clock.advance(500);
      await run;
      assert.equal(clock.pending(), 0, `${what}: ${clock.pending()} timers left`);
    }
  });

  it('a release that fails otherwise is logged as an error, and the lease is not taken for released', async () => {
    const clock = new FakeClock();
    const lock = new MemoryLock(clock);
    const me = single(lock);
    const controller = new AbortController();
    const run = me.elector.run(controller.signal);
    await clock.advance(1_000);
    lock.failing = true;
    controller.abort();
    await clock.advance(0);
    await run;
    const failed = me.logger.lines.filter((l) => l.message === 'failed to release the lease');
    assert.equal(failed.length, 1);
    assert.equal(failed[0]?.level, 'error');
    assert.match(String((failed[0]?.fields['err'] as Error).message), /ECONNREFUSED/);
    assert.equal(me.logger.lines.some((l) => /released the lease|nothing to release|timed out/.test(l.message)), false);
    assert.equal(lock.record?.holderIdentity, 'me');
  });

  it('cancelled while an attempt never answers, run() still returns once the release gave up waiting', async () => {
    const clock = new FakeClock();
    const lock = new MemoryLock(clock);
    lock.latencyMs = 3_600_000;
    const me = single(lock);
    const controller = new AbortController();
    let done = false;
    const run = me.elector.run(controller.signal).then(() => void (done = true));
    await clock.advance(1_000);
    controller.abort();
    await clock.advance(RENEW_MS);
    assert.equal(done, true, 'run() waited at most renewDeadline for the attempt in flight');
    await run;
    assert.deepEqual(me.started, []);
  });

  it('sees a change of acquireTime alone as a change of the record', async () => {
    const clock = new FakeClock();
    const lock = new MemoryLock(clock);
    const record = heldBy('other', 4, clock.now() - 3_600_000);
    lock.set(record);
    const t0 = clock.now();
    const me = single(lock, SHORT);
    const controller = new AbortController();
    const run = me.elector.run(controller.signal);
    await clock.advance(2_500);
    lock.set({ ...record, acquireTime: formatMicroTime(clock.now()) }); // re-acquired, same renewTime
    await clock.advance(10_000);
    assert.deepEqual(me.started.map((t) => t - t0), [7_000]);
    assert.equal(me.logger.lines.some((l) => l.level === 'debug' && l.message === 'the lease is held by another candidate and has not expired' && l.fields['holder'] === 'other'), true);
    controller.abort();
    await clock.advance(0);
    await run;
  });

  it('does not start leading when its run is cancelled from onNewLeader', async () => {
    const clock = new FakeClock();
    const lock = new MemoryLock(clock);
    const controller = new AbortController();
    const started: number[] = [];
    const elector = new LeaderElector({
      lock,
      identity: 'me',
      clock,
      callbacks: { onStartedLeading: () => void started.push(clock.now()), onStoppedLeading: () => {}, onNewLeader: () => controller.abort() },
    });
    const run = elector.run(controller.signal);
    await clock.advance(1_000);
    await run;
    assert.deepEqual(started, []);
    assert.equal(lock.record?.holderIdentity, '', 'the lease it took was released');
  });

  it('loses a race to take over an expired lease, logging the failed update', async () => {
    const clock = new FakeClock();
    const lock = new MemoryLock(clock);
    lock.set(heldBy('old', 2, clock.now()));
    const me = single(lock, SHORT);
    const controller = new AbortController();
    const run = me.elector.run(controller.signal);
    await clock.advance(1_500);
    lock.latencyMs = 100;
    await clock.advance(650); // expired at the attempt at 2 s: its get answered, its update is in flight
    lock.set(heldBy('quicker', 60, clock.now()));
    await clock.advance(2_000);
    assert.deepEqual(me.started, []);
    const failed = me.logger.lines.filter((l) => l.message === 'failed to update the lease');
    assert.equal(failed.length, 1);
    assert.equal(failed[0]?.level, 'info');
    assert.equal(isApiError(failed[0]?.fields['err'], 'Conflict'), true);
    controller.abort();
    await clock.advance(200);
    await run;
  });

  it('without an onNewLeader callback, a new leader changes nothing', async () => {
    const clock = new FakeClock();
    const lock = new MemoryLock(clock);
    const logger = recordingLogger();
    const controller = new AbortController();
    const elector = new LeaderElector({ lock, identity: 'me', clock, logger, callbacks: { onStartedLeading: () => {}, onStoppedLeading: () => {} } });
    const run = elector.run(controller.signal);
    await clock.advance(0);
    controller.abort();
    await clock.advance(0);
    await run;
    assert.equal(elector.getLeader(), undefined, 'it led, and released');
    assert.deepEqual(logger.lines.filter((l) => l.level === 'error'), []);
  });

  it('writes the lease duration in whole seconds, rounded up', async () => {
    const clock = new FakeClock();
    const lock = new MemoryLock(clock);
    const me = single(lock, { leaseDurationMs: 10_200 });
    const controller = new AbortController();
    const run = me.elector.run(controller.signal);
    await clock.advance(0);
    assert.equal(lock.record?.leaseDurationSeconds, 11);
    controller.abort();
    await clock.advance(0);
    await run;
  });

  it('cancelled from onStoppedLeading after the renew deadline, releases only once the work has stopped', async () => {
    const clock = new FakeClock();
    const lock = new MemoryLock(clock);
    const t0 = clock.now();
    const controller = new AbortController();
    let workEnded = -1;
    const me = single(lock, {
      ...SHORT,
      callbacks: {
        onStartedLeading: async (signal) => {
          await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
          await clock.sleep(300); // winding down
          workEnded = clock.now();
        },
        onStoppedLeading: () => {
          lock.failing = false;
          controller.abort(); // the user shuts down when it loses the lease, as client-go's users do
        },
      },
    });
    let done = false;
    const run = me.elector.run(controller.signal).then(() => void (done = true));
    await clock.advance(0);
    lock.failing = true;
    await clock.advance(2_500); // the renew deadline passes
    assert.equal(me.elector.isLeader(), false);
    await clock.advance(299);
    assert.equal(workEnded, -1);
    assert.equal(lock.record?.holderIdentity, 'me', 'not released while the work still runs');
    assert.equal(done, false);
    await clock.advance(1);
    await run;
    assert.equal(workEnded - t0, 2_800);
    assert.equal(lock.record?.holderIdentity, '', 'released once the work stopped');
    assert.equal(lock.record?.renewTime, formatMicroTime(t0 + 2_800));
  });

  it('cancelled once the lease has expired, while an ended term winds down, releases at once', async () => {
    const clock = new FakeClock();
    const lock = new MemoryLock(clock);
    const controller = new AbortController();
    const me = single(lock, {
      ...SHORT,
      callbacks: { onStartedLeading: () => new Promise<void>(() => {}), onStoppedLeading: () => {} },
    });
    let done = false;
    const run = me.elector.run(controller.signal).then(() => void (done = true));
    await clock.advance(0);
    lock.failing = true;
    await clock.advance(2_500); // the renew deadline passes; the work never stops
    await clock.advance(500); // the lease, last renewed at 0 s, expires now by this clock
    lock.failing = false;
    controller.abort();
    for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve)); // no timer runs
    assert.equal(done, true, 'no wait for the work once others may take the lease anyway');
    assert.equal(lock.record?.holderIdentity, '');
    await run;
  });

  it('cancelled while the work of an ended term winds down, releases only once that work has stopped', async () => {
    const clock = new FakeClock();
    const lock = new MemoryLock(clock);
    const t0 = clock.now();
    const controller = new AbortController();
    let workEnded = -1;
    const me = single(lock, {
      ...SHORT,
      callbacks: {
        onStartedLeading: async (signal) => {
          await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
          await clock.sleep(400); // winding down
          workEnded = clock.now();
        },
        onStoppedLeading: () => {},
      },
    });
    const run = me.elector.run(controller.signal);
    await clock.advance(0);
    lock.failing = true;
    await clock.advance(2_500); // the renew deadline passes; the work winds down until 2.9 s
    lock.failing = false;
    await clock.advance(100);
    controller.abort();
    await clock.advance(299);
    assert.equal(lock.record?.holderIdentity, 'me', 'not released while the work still runs');
    await clock.advance(1);
    await run;
    assert.equal(workEnded - t0, 2_900);
    assert.equal(lock.record?.holderIdentity, '');
    assert.equal(lock.record?.renewTime, formatMicroTime(t0 + 2_900));
  });
});

describe('LeaseLock', () => {
  const clientOf = (store: LeaseStore): LeaseClient => new FakeLeaseClient(store, new FakeClock());

  it('creates the lease with its labels and the record as its spec', async () => {
    const store = new LeaseStore();
    const labels = { app: 'manager' };
    const lock = new LeaseLock({ client: clientOf(store), namespace: NS, name: NAME, labels });
    await lock.create({ holderIdentity: 'a', leaseDurationSeconds: 15, acquireTime: undefined, renewTime: undefined, leaseTransitions: 0 });
    labels.app = 'changed';
    const lease = store.peek();
    assert.equal(lease?.apiVersion, 'coordination.k8s.io/v1');
    assert.equal(lease?.kind, 'Lease');
    assert.deepEqual(lease?.metadata.labels, { app: 'manager' });
    assert.deepEqual(lease?.spec, { holderIdentity: 'a', leaseDurationSeconds: 15, leaseTransitions: 0 });
    const plain = new LeaseLock({ client: clientOf(store), namespace: NS, name: 'other' });
    await plain.create({ holderIdentity: 'b', leaseDurationSeconds: 5, acquireTime: undefined, renewTime: undefined, leaseTransitions: 0 });
    assert.equal(store.peek('other')?.metadata.labels, undefined);
    assert.equal(plain.describe(), `${NS}/other`);
  });

  it('updates only the fields of the record, keeping the rest of the lease, removing the times it leaves unset', async () => {
    const store = new LeaseStore();
    store.create({
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: NAME, namespace: NS, annotations: { keep: 'me' } },
      spec: { holderIdentity: 'x', leaseDurationSeconds: 9, acquireTime: '2026-01-01T00:00:00.000000Z', renewTime: '2026-01-01T00:00:00.000000Z', leaseTransitions: 4, strategy: 'OldestEmulationVersion', preferredHolder: 'p' },
    });
    const lock = new LeaseLock({ client: clientOf(store), namespace: NS, name: NAME });
    const record = await lock.get();
    assert.deepEqual(record, { holderIdentity: 'x', leaseDurationSeconds: 9, acquireTime: '2026-01-01T00:00:00.000000Z', renewTime: '2026-01-01T00:00:00.000000Z', leaseTransitions: 4 });
    await lock.update({ holderIdentity: 'y', leaseDurationSeconds: 3, acquireTime: undefined, renewTime: '2026-01-01T00:00:05.000000Z', leaseTransitions: 5 });
    const lease = store.peek();
    assert.deepEqual(lease?.metadata.annotations, { keep: 'me' });
    assert.deepEqual(lease?.spec, { holderIdentity: 'y', leaseDurationSeconds: 3, renewTime: '2026-01-01T00:00:05.000000Z', leaseTransitions: 5, strategy: 'OldestEmulationVersion', preferredHolder: 'p' });
    // The next update goes over the version this one wrote.
    await lock.update({ ...record, holderIdentity: 'z' });
    assert.equal(store.peek()?.spec?.holderIdentity, 'z');
  });

  it('reads a lease without a spec as an empty record, refuses an update before any read, and needs a name', async () => {
    const store = new LeaseStore();
    store.create({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: NAME, namespace: NS } });
    const lock = new LeaseLock({ client: clientOf(store), namespace: NS, name: NAME });
    await assert.rejects(lock.update({ holderIdentity: 'a', leaseDurationSeconds: 1, acquireTime: undefined, renewTime: undefined, leaseTransitions: 0 }), /update before get or create/);
    assert.deepEqual(await lock.get(), { holderIdentity: '', leaseDurationSeconds: 0, acquireTime: undefined, renewTime: undefined, leaseTransitions: 0 });
    await lock.update({ holderIdentity: 'a', leaseDurationSeconds: 1, acquireTime: undefined, renewTime: undefined, leaseTransitions: 0 });
    assert.deepEqual(store.peek()?.spec, { holderIdentity: 'a', leaseDurationSeconds: 1, leaseTransitions: 0 });
    assert.deepEqual(recordFromLease(undefined), { holderIdentity: '', leaseDurationSeconds: 0, acquireTime: undefined, renewTime: undefined, leaseTransitions: 0 });
    assert.throws(() => new LeaseLock({ client: clientOf(store), namespace: NS, name: '' }), RangeError);
    assert.throws(() => new LeaseLock({ client: clientOf(store), namespace: '', name: NAME }), /name and namespace must not be empty/);
  });
});
