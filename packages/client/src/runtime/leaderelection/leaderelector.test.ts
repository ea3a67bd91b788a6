import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { ApiError, FakeClock, type Lease } from '@setpoint/api';
import { LeaderElector, type LeaderElectorOptions } from './leaderelector.js';
import { LeaseLock, type LeaseClient } from './leaselock.js';

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

  /** Starts (or restarts, after an abort) a candidate with a fresh elector and lock. */
  start(c: Candidate): void {
    c.controller = new AbortController();
    const elector: LeaderElector = new LeaderElector({
      lock: new LeaseLock({ client: c.client, namespace: NS, name: NAME }),
      identity: c.id,
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
    assert.ok((b.started[0] ?? -Infinity) >= lastRenew + 11_000);
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
    assert.ok(lease?.spec);
    e.store.update({ ...lease, spec: { ...lease.spec, holderIdentity: 'intruder' } });
    const changedAt = e.clock.now();
    await e.clock.advance(3 * RETRY_MS);
    assert.equal(a.stopped.length, 1);
    assert.ok((a.stopped[0] ?? Infinity) <= changedAt + 2 * RETRY_MS);
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
    assert.ok((b.started[0] ?? Infinity) - cancelledAt <= 2.2 * RETRY_MS);
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
    assert.ok((b.started[0] ?? -Infinity) >= lastRenew + LEASE_MS);
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
        for (const { action, advanceMs } of steps) {
          const c = action.kind === 'wait' ? undefined : cs[action.who];
          if (c !== undefined) {
            if (action.kind === 'fail') c.client.failing = true;
            if (action.kind === 'heal') c.client.failing = false;
            if (action.kind === 'slow') c.client.latencyMs = action.ms;
            if (action.kind === 'restart') {
              c.controller.abort();
              e.start(c);
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
