import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock, type Event } from '@setpoint/api';
import { COMBINED_PREFIX, EventCorrelator, formatTime, type CorrelateResult } from './correlator.js';
import { LruCache } from './lru.js';
import { makeEvent } from './recorder.js';
import { TokenBucket } from './spamfilter.js';

const pod = { kind: 'Pod', apiVersion: 'v1', namespace: 'prod', name: 'web-1', uid: 'u-1' };

function written(r: CorrelateResult): Event & { patched: boolean } {
  assert.equal(r.skip, false, 'not filtered');
  if (r.skip) throw new Error('unreachable');
  return { ...r.event, patched: r.patch !== undefined };
}

describe('EventCorrelator', () => {
  it('counts identical events under the first one’s name, keeping its firstTimestamp', async () => {
    const clock = new FakeClock();
    const c = new EventCorrelator({ clock });
    const make = () => makeEvent(pod, { component: 'c' }, 'Normal', 'Pulled', 'pulled image', clock.now());
    const first = c.correlate(make());
    await clock.advance(3_000);
    const second = c.correlate(make());
    assert.ok(!first.skip && !second.skip);
    assert.equal(first.patch, undefined);
    assert.equal(second.event.metadata.name, first.event.metadata.name);
    assert.equal(second.event.count, 2);
    assert.equal(second.event.firstTimestamp, formatTime(Date.UTC(2026, 0, 1)));
    assert.deepEqual(second.patch, { count: 2, lastTimestamp: '2026-01-01T00:00:03Z', message: 'pulled image' });
    assert.equal(second.key, first.key);
  });

  it('keeps events that differ in type, reason, message or object apart', () => {
    const clock = new FakeClock();
    const c = new EventCorrelator({ clock });
    const keys = new Set<string>();
    for (const [ref, type, reason, message] of [
      [pod, 'Normal', 'Pulled', 'a'],
      [pod, 'Warning', 'Pulled', 'a'],
      [pod, 'Normal', 'Created', 'a'],
      [pod, 'Normal', 'Pulled', 'b'],
      [{ ...pod, name: 'web-2', uid: 'u-2' }, 'Normal', 'Pulled', 'a'],
    ] as const) {
      const r = written(c.correlate(makeEvent(ref, { component: 'c' }, type, reason, message, clock.now())));
      assert.equal(r.patched, false);
      assert.equal(r.count, 1);
      keys.add(r.metadata.name ?? '');
    }
    assert.equal(keys.size, 5);
  });

  it('combines similar events (same reason, 10 different messages within 10 minutes) into one', async () => {
    const clock = new FakeClock();
    const c = new EventCorrelator({ clock });
    const results = [];
    for (let i = 1; i <= 12; i++) {
      results.push(written(c.correlate(makeEvent(pod, { component: 'c' }, 'Warning', 'BackOff', `attempt ${i}`, clock.now()))));
    }
    assert.ok(results.slice(0, 9).every((r) => !r.message?.startsWith(COMBINED_PREFIX) && r.count === 1 && !r.patched));
    const combined = results.slice(9);
    assert.deepEqual(combined.map((r) => r.message), [10, 11, 12].map((i) => `${COMBINED_PREFIX}attempt ${i}`));
    assert.deepEqual(combined.map((r) => [r.count, r.patched]), [[1, false], [2, true], [3, true]]);
    assert.equal(new Set(combined.map((r) => r.metadata.name)).size, 1);

    // Ten minutes of quiet: similar events start over.
    await clock.advance(600_001);
    const fresh = written(c.correlate(makeEvent(pod, { component: 'c' }, 'Warning', 'BackOff', 'attempt 13', clock.now())));
    assert.equal(fresh.message, 'attempt 13');
  });

  it('drops events about an object beyond its budget, but still counts them', async () => {
    const clock = new FakeClock();
    const c = new EventCorrelator({ clock, spamBurst: 3, spamRefillIntervalMs: 60_000 });
    const make = () => makeEvent(pod, { component: 'c' }, 'Normal', 'Synced', 'ok', clock.now());
    const skips = Array.from({ length: 6 }, () => c.correlate(make()).skip);
    assert.deepEqual(skips, [false, false, false, true, true, true]);
    // Another object has its own budget.
    assert.equal(c.correlate(makeEvent({ ...pod, name: 'web-2' }, { component: 'c' }, 'Normal', 'Synced', 'ok', clock.now())).skip, false);
    await clock.advance(60_000);
    const next = written(c.correlate(make()));
    assert.equal(next.count, 7);
    assert.equal(c.correlate(make()).skip, true);
  });
});

describe('TokenBucket', () => {
  it('starts full, then refills one token per interval, up to the burst', () => {
    const b = new TokenBucket(2, 1_000, 0);
    assert.deepEqual([b.take(0), b.take(0), b.take(0)], [true, true, false]);
    assert.equal(b.take(999), false);
    assert.equal(b.take(1_000), true);
    assert.deepEqual([b.take(100_000), b.take(100_000), b.take(100_000)], [true, true, false]);
  });
});

describe('LruCache', () => {
  it('forgets the least recently used entry', () => {
    const lru = new LruCache<string, number>(2);
    lru.set('a', 1);
    lru.set('b', 2);
    assert.equal(lru.get('a'), 1); // a is now the most recent
    lru.set('c', 3);
    assert.equal(lru.get('b'), undefined);
    assert.equal(lru.get('a'), 1);
    assert.equal(lru.get('c'), 3);
    assert.equal(lru.size, 2);
    assert.throws(() => new LruCache(0), RangeError);
  });
});
