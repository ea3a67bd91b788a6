/**
 * The rate-limited NoExecute tainter in virtual time: how many nodes each zone taints per virtual
 * second in each zone state, master disruption, retries. The node monitor is a fake.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FakeClock, silentLogger } from '@setpoint/api';
import { NoExecuteTainter, TokenBucket, type NodeReport } from './tainter.js';
import { DEFAULT_EVICTION_RATES, type EvictionRates } from './zones.js';

interface Harness extends AsyncDisposable {
  readonly clock: FakeClock;
  readonly tainter: NoExecuteTainter;
  /** Virtual seconds (from the start) at which each node was tainted. */
  readonly tainted: Map<string, number>;
  readonly calls: { enter: number; exit: number };
  readonly failNext: Set<string>;
  readonly reports: Map<string, NodeReport>;
  /** Reports nodes `prefix-0..count-1` in `zone`, the first `unhealthy` of them unhealthy and queued. */
  zone(prefix: string, zone: string, count: number, unhealthy: number): void;
}

async function harness(rates: Partial<EvictionRates> = {}): Promise<Harness> {
  const clock = new FakeClock();
  const start = clock.now();
  const tainted = new Map<string, number>();
  const calls = { enter: 0, exit: 0 };
  const failNext = new Set<string>();
  const reports = new Map<string, NodeReport>();
  const tainter = new NoExecuteTainter({
    clock,
    logger: silentLogger,
    rates: { ...DEFAULT_EVICTION_RATES, ...rates },
    waitForSync: async () => true,
    nodeNames: () => [...reports.keys()],
    taint: async (name) => {
      if (failNext.delete(name)) return false;
      tainted.set(name, (clock.now() - start) / 1000);
      return true;
    },
    enterMasterDisruption: async () => {
      calls.enter++;
    },
    exitMasterDisruption: () => {
      calls.exit++;
    },
  });
  const stop = new AbortController();
  const running = tainter.start(stop.signal);
  return {
    clock,
    tainter,
    tainted,
    calls,
    failNext,
    reports,
    zone(prefix, zone, count, unhealthy) {
      for (let i = 0; i < count; i++) {
        const name = `${prefix}-${i}`;
        const report = { zone, healthy: i >= unhealthy, excluded: false };
        reports.set(name, report);
        tainter.report(name, report);
        if (!report.healthy) tainter.enqueue(name, zone);
      }
    },
    async [Symbol.asyncDispose]() {
      stop.abort();
      await running;
    },
  };
}

/** How many nodes were tainted in each whole virtual second. */
function perSecond(tainted: Map<string, number>): Map<number, number> {
  const counts = new Map<number, number>();
  for (const at of tainted.values()) counts.set(Math.floor(at), (counts.get(Math.floor(at)) ?? 0) + 1);
  return counts;
}

describe('TokenBucket', () => {
  it('burst 1, then one token per 1/rate seconds; rate 0 never; a new rate starts empty when the old one was', () => {
    const b = new TokenBucket(0.5, 0);
    assert.equal(b.tryAccept(0), true);
    assert.equal(b.tryAccept(1000), false);
    assert.equal(b.nextAt(1000), 2000);
    assert.equal(b.tryAccept(2000), true);
    b.setRate(10, 2000);
    assert.equal(b.tryAccept(2000), false, 'swapped while empty: the new bucket is empty too');
    assert.equal(b.nextAt(2000), 2100);
    b.setRate(0, 5000);
    assert.equal(b.tryAccept(1e9), false);
    assert.equal(b.nextAt(1e9), undefined);
  });
});

describe('NoExecuteTainter', () => {
  it('Normal zone: one node per 10 virtual seconds (0.1/s), in the order queued', async () => {
    await using h = await harness();
    h.zone('a', 'z1', 10, 4); // 40% unhealthy: Normal
    await h.clock.advance(0);
    await h.clock.advance(35_000);
    assert.deepEqual([...h.tainted.entries()], [['a-0', 0], ['a-1', 10], ['a-2', 20], ['a-3', 30]]);
    assert.ok([...perSecond(h.tainted).values()].every((n) => n === 1), 'never more than one node in a virtual second');
    assert.deepEqual(Object.fromEntries(h.tainter.zoneStates()), { z1: 'Normal' });
  });

  it('PartialDisruption in a small zone (≤ 50 nodes): nothing is tainted', async () => {
    await using h = await harness();
    h.zone('a', 'z1', 10, 6); // 60% unhealthy
    await h.clock.advance(0);
    await h.clock.advance(1_000_000);
    assert.equal(h.tainted.size, 0);
    assert.deepEqual(Object.fromEntries(h.tainter.zoneStates()), { z1: 'PartialDisruption' });
    assert.equal(h.tainter.zoneRate('z1'), 0);
  });

  it('PartialDisruption in a large zone: the secondary rate, one node per 100 virtual seconds', async () => {
    await using h = await harness();
    h.zone('a', 'z1', 60, 40);
    await h.clock.advance(0);
    await h.clock.advance(250_000);
    assert.deepEqual([...h.tainted.values()], [0, 100, 200]);
  });

  it('zones are limited apart: a fully down zone next to a healthy one taints at the normal rate', async () => {
    await using h = await harness({ evictionRate: 1 });
    h.zone('a', 'z1', 3, 3);
    h.zone('b', 'z2', 3, 0);
    h.zone('c', 'z3', 20, 5);
    await h.clock.advance(0);
    await h.clock.advance(10_000);
    assert.deepEqual(Object.fromEntries(h.tainter.zoneStates()), { z1: 'FullDisruption', z2: 'Normal', z3: 'Normal' });
    assert.equal(h.tainted.size, 8);
    for (const [second, count] of perSecond(h.tainted)) assert.ok(count <= 2, `second ${second}: ${count} nodes (at most one per zone)`);
  });

  it('every zone fully down: master disruption, nothing tainted; a node back: rates return', async () => {
    await using h = await harness();
    h.zone('a', 'z1', 3, 3);
    h.zone('b', 'z2', 2, 2);
    await h.clock.advance(0);
    await h.clock.advance(100_000);
    assert.equal(h.tainted.size, 0);
    assert.deepEqual(h.calls, { enter: 1, exit: 0 });
    assert.equal(h.tainter.isQueued('a-0'), false, 'the queues are emptied');
    // The node monitor queues the unhealthy nodes again; they wait at rate 0.
    for (const name of ['a-0', 'a-1', 'b-0']) h.tainter.enqueue(name, name.startsWith('a') ? 'z1' : 'z2');
    await h.clock.advance(100_000);
    assert.equal(h.tainted.size, 0);
    // One node of z2 heartbeats again.
    h.reports.set('b-1', { zone: 'z2', healthy: true, excluded: false });
    h.tainter.report('b-1', { zone: 'z2', healthy: true, excluded: false });
    await h.clock.advance(0);
    assert.deepEqual(h.calls, { enter: 1, exit: 1 });
    assert.deepEqual(Object.fromEntries(h.tainter.zoneStates()), { z1: 'FullDisruption', z2: 'Normal' });
    // Both zones at the normal rate again, their buckets starting empty (they were at rate 0).
    await h.clock.advance(25_000);
    assert.deepEqual(Object.fromEntries(h.tainted), { 'a-0': 210, 'b-0': 210, 'a-1': 220 });
  });

  it('zone states wait until every cached node has been reported', async () => {
    await using h = await harness();
    h.reports.set('unseen', { zone: 'z1', healthy: true, excluded: false }); // in the cache, not reported yet
    h.tainter.report('a-0', { zone: 'z1', healthy: false, excluded: false });
    h.reports.set('a-0', { zone: 'z1', healthy: false, excluded: false });
    await h.clock.advance(0);
    assert.deepEqual(h.calls, { enter: 0, exit: 0 }, 'one unhealthy node out of one reported is not a disruption');
    assert.equal(h.tainter.zoneStates().size, 0);
  });

  it('a failed taint is tried again, after the retry delay and the next token', async () => {
    await using h = await harness({ evictionRate: 1 });
    h.zone('a', 'z1', 5, 1);
    h.failNext.add('a-0');
    await h.clock.advance(0);
    assert.equal(h.tainted.size, 0);
    await h.clock.advance(1_000);
    assert.deepEqual([...h.tainted.entries()], [['a-0', 1]]);
  });

  it('a node taken back before its turn is not tainted', async () => {
    await using h = await harness();
    h.zone('a', 'z1', 10, 2);
    await h.clock.advance(0);
    h.tainter.dequeue('a-1');
    await h.clock.advance(30_000);
    assert.deepEqual([...h.tainted.keys()], ['a-0']);
  });
});
