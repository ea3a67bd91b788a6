import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock } from '@setpoint/api';
import { DelayingQueue } from './delaying.js';
import type { GetResult } from './queue.js';
import type { QueueMetricsProvider } from './metrics.js';

/** Takes every item ready now, in order (each is marked done). */
async function drain(q: DelayingQueue): Promise<string[]> {
  const items: string[] = [];
  while (q.len() > 0) {
    const next: GetResult<string> = await q.get();
    assert.equal(next.shutdown, false);
    if (next.shutdown) break;
    items.push(next.item);
    q.done(next.item);
  }
  return items;
}

// A deadline per suite: a timer that re-arms forever fails the test instead of hanging it.
describe('DelayingQueue', { timeout: 15_000 }, () => {
  it('adds at once for a delay of 0 or less (and NaN)', () => {
    const clock = new FakeClock();
    const q = new DelayingQueue({ clock });
    q.addAfter('zero', 0);
    q.addAfter('negative', -5);
    q.addAfter('nan', Number.NaN);
    assert.equal(q.len(), 3);
    assert.equal(clock.pending(), 0);
  });

  it('adds each item when its delay has passed, in due-time order', async () => {
    const clock = new FakeClock();
    const q = new DelayingQueue({ clock });
    q.addAfter('c', 30);
    q.addAfter('a', 10);
    q.addAfter('b', 20);
    assert.equal(q.len(), 0);
    assert.equal(q.waitingLen(), 3);
    await clock.advance(9);
    assert.equal(q.len(), 0);
    await clock.advance(1);
    assert.deepEqual(await drain(q), ['a']);
    await clock.advance(100);
    assert.deepEqual(await drain(q), ['b', 'c']);
    assert.equal(q.waitingLen(), 0);
    assert.equal(clock.pending(), 0);
  });

  it('orders equal due times by call order', async () => {
    const clock = new FakeClock();
    const q = new DelayingQueue({ clock });
    for (const key of ['x', 'y', 'z']) q.addAfter(key, 5);
    await clock.advance(5);
    assert.deepEqual(await drain(q), ['x', 'y', 'z']);
  });

  it('keeps the earliest of several pending delays for one item', async () => {
    const clock = new FakeClock();
    const q = new DelayingQueue({ clock });
    q.addAfter('k', 100);
    q.addAfter('k', 10); // earlier: wins
    q.addAfter('k', 50); // later: ignored
    assert.equal(q.waitingLen(), 1);
    await clock.advance(10);
    assert.deepEqual(await drain(q), ['k']);
    await clock.advance(1000);
    assert.equal(q.len(), 0, 'the later delays did not add it again');
  });

  it('an earlier delay moves an item ahead of others', async () => {
    const clock = new FakeClock();
    const q = new DelayingQueue({ clock });
    q.addAfter('a', 20);
    q.addAfter('b', 30);
    q.addAfter('b', 10);
    await clock.advance(30);
    assert.deepEqual(await drain(q), ['b', 'a']);
  });

  it('keeps a single timer, for the head of the heap', async () => {
    const clock = new FakeClock();
    const q = new DelayingQueue({ clock });
    const start = clock.now();
    for (let i = 0; i < 100; i++) q.addAfter(`k${i}`, 1000 - i);
    assert.equal(clock.pending(), 1);
    assert.equal(clock.nextDue(), start + 901);
    await clock.advance(901);
    assert.equal(q.len(), 1);
    assert.equal(clock.pending(), 1);
    assert.equal(clock.nextDue(), start + 902);
  });

  it('a delayed item that is already queued coalesces with it', async () => {
    const clock = new FakeClock();
    const q = new DelayingQueue({ clock });
    q.add('k');
    q.addAfter('k', 10);
    await clock.advance(10);
    assert.deepEqual(await drain(q), ['k']);
  });

  it('a delayed add of an item in flight is delivered after its done', async () => {
    const clock = new FakeClock();
    const q = new DelayingQueue({ clock });
    q.add('k');
    const first = await q.get();
    assert.equal(first.shutdown, false);
    q.addAfter('k', 10);
    await clock.advance(10);
    assert.equal(q.len(), 0, 'not handed out while in flight');
    q.done('k');
    assert.deepEqual(await drain(q), ['k']);
  });

  it('handles many items in random order', async () => {
    const clock = new FakeClock();
    const q = new DelayingQueue({ clock });
    let seed = 11;
    const delays = new Map<string, number>();
    for (let i = 0; i < 500; i++) {
      seed = (seed * 48271) % 2147483647;
      const ms = 1 + (seed % 200);
      const key = `k${seed % 300}`;
      delays.set(key, Math.min(delays.get(key) ?? Infinity, ms));
      q.addAfter(key, ms);
    }
    const got: Array<[string, number]> = [];
    for (let t = 1; t <= 200; t++) {
      await clock.advance(1);
      for (const key of await drain(q)) got.push([key, t]);
    }
    assert.equal(got.length, delays.size);
    for (const [key, t] of got) assert.equal(t, delays.get(key), `${key} came at ${t}`);
  });

  it('shutting down drops waiting items and cancels the timer', async () => {
    const clock = new FakeClock();
    const q = new DelayingQueue({ clock });
    q.addAfter('a', 10);
    q.shutDown();
    assert.equal(clock.pending(), 0);
    assert.equal(q.waitingLen(), 0);
    q.addAfter('b', 10);
    q.addAfter('c', 0);
    await clock.runAll();
    assert.equal(q.len(), 0);
    assert.deepEqual(await q.get(), { shutdown: true });
  });

  it('keeps at most one timer pending, always for the earliest due time', async () => {
    const clock = new FakeClock();
    const q = new DelayingQueue({ clock });
    const start = clock.now();
    const check = (due: number, what: string): void => {
      assert.equal(clock.pending(), 1, what);
      assert.equal(clock.nextDue(), start + due, what);
    };
    q.addAfter('a', 50);
    check(50, 'first item');
    q.addAfter('b', 80);
    check(50, 'a later item leaves the timer alone');
    q.addAfter('c', 20);
    check(20, 'an earlier item moves the timer');
    q.addAfter('b', 10);
    check(10, 'an earlier due time for a waiting item moves the timer');
    await clock.advance(10);
    assert.deepEqual(await drain(q), ['b']);
    check(20, 're-armed for the next item');
    await clock.advance(10);
    assert.deepEqual(await drain(q), ['c']);
    check(50, 're-armed again');
    await clock.advance(40);
    assert.deepEqual(await drain(q), ['a']);
    assert.equal(clock.pending(), 0, 'no timer once nothing waits');
    q.addAfter('d', 5);
    check(65, 'armed again for a new item');
  });

  it('re-adding an item with the same due time keeps it waiting once', async () => {
    const clock = new FakeClock();
    const q = new DelayingQueue({ clock });
    q.addAfter('k', 10);
    q.addAfter('j', 10);
    q.addAfter('k', 10);
    assert.equal(q.waitingLen(), 2);
    assert.equal(clock.pending(), 1);
    await clock.advance(10);
    assert.deepEqual(await drain(q), ['k', 'j'], 'k keeps its place ahead of j');
    await clock.advance(100);
    assert.equal(q.len(), 0);
    assert.equal(q.waitingLen(), 0);
  });

  it('adds an item due exactly now when its timer fires (runAll ends)', async () => {
    const clock = new FakeClock();
    const q = new DelayingQueue({ clock });
    q.addAfter('a', 10);
    q.addAfter('b', 10);
    q.addAfter('c', 11);
    await clock.runAll(100);
    assert.deepEqual(await drain(q), ['a', 'b', 'c']);
    assert.equal(clock.pending(), 0);
  });

  it('addAfter after shutdown arms no timer, keeps nothing and counts no retry', async () => {
    let retries = 0;
    const metrics: QueueMetricsProvider = {
      newDepthMetric: () => ({ inc() {}, dec() {} }),
      newAddsMetric: () => ({ inc() {} }),
      newLatencyMetric: () => ({ observe() {} }),
      newWorkDurationMetric: () => ({ observe() {} }),
      newRetriesMetric: () => ({ inc: () => void retries++ }),
      trackUnfinishedWork: () => () => {},
    };
    const clock = new FakeClock();
    const q = new DelayingQueue({ clock, name: 'q', metrics });
    q.addAfter('before', 0);
    q.addAfter('before-later', 10);
    assert.equal(retries, 2, 'every addAfter while accepting adds is a retry');
    q.shutDown();
    q.addAfter('late', 10);
    q.addAfter('later', 0);
    assert.equal(retries, 2);
    assert.equal(clock.pending(), 0);
    assert.equal(q.waitingLen(), 0);
    await clock.runAll();
    assert.equal(q.len(), 1, 'only the item added before the shutdown');
  });

  it('keeps due-time order through many removals from the heap (min-heap of 64 items)', async () => {
    const clock = new FakeClock();
    const q = new DelayingQueue({ clock });
    // A fixed shuffle of 1..64, plus a second addAfter that moves some items earlier.
    const delays = Array.from({ length: 64 }, (_, i) => ((i * 37) % 64) + 1);
    delays.forEach((ms, i) => q.addAfter(`k${i}`, ms * 10));
    for (let i = 0; i < 64; i += 5) q.addAfter(`k${i}`, (delays[i] ?? 0) * 10 - 5);
    const got: string[] = [];
    for (let t = 0; t < 700; t += 5) {
      await clock.advance(5);
      got.push(...(await drain(q)));
    }
    const want = delays
      .map((ms, i) => ({ key: `k${i}`, due: ms * 10 - (i % 5 === 0 ? 5 : 0) }))
      .sort((a, b) => a.due - b.due)
      .map((e) => e.key);
    assert.deepEqual(got, want);
  });

  it('re-arms when a clamped timer fires before the item is due', async () => {
    const clock = new FakeClock();
    const q = new DelayingQueue({ clock });
    const month = 31 * 24 * 3600 * 1000; // longer than a timer can wait (2^31-1 ms)
    q.addAfter('far', month);
    await clock.advance(2 ** 31 - 1);
    assert.equal(q.len(), 0);
    assert.equal(clock.pending(), 1);
    await clock.advance(month - (2 ** 31 - 1));
    assert.deepEqual(await drain(q), ['far']);
  });
});
