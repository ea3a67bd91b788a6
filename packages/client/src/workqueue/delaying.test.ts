import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock } from '@setpoint/api';
import { DelayingQueue } from './delaying.js';
import type { GetResult } from './queue.js';

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

describe('DelayingQueue', () => {
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
