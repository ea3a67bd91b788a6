import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock } from '@setpoint/api';
import { ItemExponentialFailureRateLimiter } from './limiters.js';
import { RateLimitingQueue } from './ratelimiting.js';
import { newRateLimitingQueue } from './index.js';

// A deadline per suite: a retry timer that re-arms forever fails the test instead of hanging it.
describe('RateLimitingQueue', { timeout: 15_000 }, () => {
  it('addRateLimited waits what the limiter says; forget resets it', async () => {
    const clock = new FakeClock();
    const q = new RateLimitingQueue({ clock, rateLimiter: new ItemExponentialFailureRateLimiter({ baseMs: 10 }) });
    q.addRateLimited('k');
    assert.equal(q.numRequeues('k'), 1);
    await clock.advance(9);
    assert.equal(q.len(), 0);
    await clock.advance(1);
    assert.equal(q.len(), 1);
    const got = await q.get();
    assert.deepEqual(got, { item: 'k', shutdown: false });
    q.addRateLimited('k');
    q.done('k');
    assert.equal(clock.nextDue(), clock.now() + 20);
    q.forget('k');
    assert.equal(q.numRequeues('k'), 0);
  });

  it('uses the default controller limiter on the queue`s clock', async () => {
    const clock = new FakeClock();
    const q = newRateLimitingQueue({ clock });
    const start = clock.now();
    q.addRateLimited('k');
    assert.equal(clock.nextDue(), start + 5);
    await clock.advance(5);
    assert.equal(q.len(), 1);
    // Its bucket runs on the queue's clock: spend it, then let a minute pass on that clock only.
    for (let i = 0; i < 99; i++) q.addRateLimited(`spend-${i}`);
    q.addRateLimited('spent');
    assert.equal(q.waitingLen(), 100);
    await clock.advance(60_000);
    q.addRateLimited('after-a-minute');
    assert.equal(clock.nextDue(), clock.now() + 5, 'the bucket refilled in the fake minute');
    q.shutDown();
  });

  it('checks a rate-limited wait through addAfter: a retry already waiting keeps its earlier due time', async () => {
    const clock = new FakeClock();
    const q = new RateLimitingQueue({ clock, rateLimiter: new ItemExponentialFailureRateLimiter({ baseMs: 10 }) });
    const start = clock.now();
    q.addRateLimited('k'); // due +10
    q.addRateLimited('k'); // wants +20: keeps +10
    assert.equal(q.numRequeues('k'), 2);
    assert.equal(q.waitingLen(), 1);
    assert.equal(clock.nextDue(), start + 10);
    q.forget('k');
    assert.equal(q.numRequeues('k'), 0);
    assert.equal(q.waitingLen(), 1, 'forget does not remove the waiting item');
    await clock.advance(10);
    assert.equal(q.len(), 1);
  });

  it('does nothing once shut down, without consulting the limiter', () => {
    const clock = new FakeClock();
    const q = new RateLimitingQueue({ clock });
    q.shutDown();
    q.addRateLimited('k');
    assert.equal(q.numRequeues('k'), 0);
    assert.equal(clock.pending(), 0);
  });

  // One key fails 10 times in a row while 100 other keys arrive every 10 ms; one worker, each
  // reconcile taking 1 ms of virtual time. The failing key backs off 5, 10, 20 … 2560 ms and the
  // others are each reconciled within 1 ms of being added; after a success the backoff resets.
  it('backs a failing key off while other keys keep flowing', async () => {
    const clock = new FakeClock();
    const q = newRateLimitingQueue({ clock });
    const start = clock.now();
    const addedAt = new Map<string, number>();
    const latency = new Map<string, number>();
    const badAttempts: number[] = [];
    let failuresLeft = 10;

    for (let i = 0; i < 100; i++) {
      clock.setTimeout(() => {
        addedAt.set(`ns/ok-${i}`, clock.now());
        q.add(`ns/ok-${i}`);
      }, i * 10);
    }
    q.add('ns/bad');

    const worker = (async () => {
      for (;;) {
        const next = await q.get();
        if (next.shutdown) return;
        const key = next.item;
        if (key === 'ns/bad') badAttempts.push(clock.now() - start);
        else latency.set(key, clock.now() - (addedAt.get(key) ?? Number.NaN));
        await clock.sleep(1); // the reconcile
        if (key === 'ns/bad' && failuresLeft-- > 0) q.addRateLimited(key);
        else q.forget(key);
        q.done(key);
      }
    })();

    await clock.runAll();
    assert.equal(latency.size, 100, 'every other key was reconciled');
    assert.ok(Math.max(...latency.values()) <= 1, `other keys waited up to ${Math.max(...latency.values())} ms`);
    const gaps = badAttempts.slice(1).map((t, i) => t - (badAttempts[i] ?? 0));
    // each gap: 1 ms of reconcile, then the backoff; a gap may grow by ≤ 1 ms when the retry falls
    // due while an other key is being reconciled
    const backoffs = [5, 10, 20, 40, 80, 160, 320, 640, 1280, 2560];
    assert.equal(gaps.length, 10);
    gaps.forEach((gap, i) => {
      const want = 1 + (backoffs[i] ?? 0);
      assert.ok(gap >= want && gap <= want + 1, `retry ${i + 1}: gap ${gap} ms, want ${want}`);
    });
    assert.equal(q.numRequeues('ns/bad'), 0, 'the success reset the backoff');

    const before = badAttempts.length;
    const restart = clock.now() - start;
    failuresLeft = 1;
    q.add('ns/bad');
    await clock.advance(10);
    assert.deepEqual(badAttempts.slice(before), [restart, restart + 6], 'after the reset the first retry waits 5 ms again');

    q.shutDown();
    await clock.runAll();
    await worker;
  });
});
