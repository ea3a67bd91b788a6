import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock } from '@setpoint/api';
import {
  BucketRateLimiter,
  ItemExponentialFailureRateLimiter,
  ItemFastSlowRateLimiter,
  MaxOfRateLimiter,
  defaultControllerRateLimiter,
  type RateLimiter,
} from './limiters.js';

function whens<T>(limiter: RateLimiter<T>, item: T, n: number): number[] {
  return Array.from({ length: n }, () => limiter.when(item));
}

describe('ItemExponentialFailureRateLimiter', () => {
  it('doubles from 5 ms per item, capped at 1000 s, and forget resets it', () => {
    const limiter = new ItemExponentialFailureRateLimiter();
    assert.deepEqual(whens(limiter, 'a', 5), [5, 10, 20, 40, 80]);
    assert.equal(limiter.numRequeues('a'), 5);
    assert.deepEqual(whens(limiter, 'b', 2), [5, 10], 'items back off independently');
    limiter.forget('a');
    assert.equal(limiter.numRequeues('a'), 0);
    assert.equal(limiter.when('a'), 5);
  });

  it('reaches the cap at the 19th retry and stays there, even after 2,000 retries', () => {
    const limiter = new ItemExponentialFailureRateLimiter();
    const waits = whens(limiter, 'k', 2000);
    assert.equal(waits[17], 5 * 2 ** 17); // 655.36 s
    assert.equal(waits[18], 1_000_000);
    assert.ok(waits.slice(18).every((w) => w === 1_000_000));
  });

  it('takes its base and cap from the options, and checks them', () => {
    const limiter = new ItemExponentialFailureRateLimiter({ baseMs: 1, maxMs: 6 });
    assert.deepEqual(whens(limiter, 'k', 5), [1, 2, 4, 6, 6]);
    const zero = new ItemExponentialFailureRateLimiter({ baseMs: 0 });
    assert.ok(whens(zero, 'k', 1100).every((w) => w === 0));
    assert.throws(() => new ItemExponentialFailureRateLimiter({ baseMs: -1 }), RangeError);
    assert.throws(() => new ItemExponentialFailureRateLimiter({ maxMs: Number.NaN }), RangeError);
  });
});

describe('ItemFastSlowRateLimiter', () => {
  it('waits fast for the first attempts, then slow, until forgotten', () => {
    const limiter = new ItemFastSlowRateLimiter({ fastDelayMs: 5, slowDelayMs: 10_000, maxFastAttempts: 3 });
    assert.deepEqual(whens(limiter, 'a', 5), [5, 5, 5, 10_000, 10_000]);
    assert.equal(limiter.numRequeues('a'), 5);
    assert.equal(limiter.when('b'), 5);
    limiter.forget('a');
    assert.equal(limiter.numRequeues('a'), 0);
    assert.equal(limiter.when('a'), 5);
    assert.throws(() => new ItemFastSlowRateLimiter({ fastDelayMs: 1, slowDelayMs: -1, maxFastAttempts: 1 }), RangeError);
  });
});

describe('BucketRateLimiter', () => {
  it('lets a burst of 100 through, then paces at 10 qps (the 101st waits 100 ms)', () => {
    const clock = new FakeClock();
    const limiter = new BucketRateLimiter({ clock });
    const waits = Array.from({ length: 103 }, (_, i) => limiter.when(`k${i}`));
    assert.ok(waits.slice(0, 100).every((w) => w === 0));
    assert.deepEqual(waits.slice(100), [100, 200, 300]);
    assert.equal(limiter.numRequeues('k0'), 0);
    limiter.forget('k0'); // no effect: the bucket is shared
  });

  it('refills with time, up to the burst', async () => {
    const clock = new FakeClock();
    const limiter = new BucketRateLimiter({ qps: 10, burst: 2, clock });
    assert.deepEqual(whens(limiter, 'k', 3), [0, 0, 100]);
    await clock.advance(100); // the reserved token arrived; the bucket is empty
    assert.equal(limiter.when('k'), 100);
    await clock.advance(10_000); // refills to the burst, not beyond
    assert.deepEqual(whens(limiter, 'k', 3), [0, 0, 100]);
    await clock.advance(50);
    assert.equal(limiter.when('k'), 150, 'half a token came in 50 ms; the next reservation queues behind');
  });

  it('checks its options; infinite qps never waits', () => {
    assert.throws(() => new BucketRateLimiter({ qps: 0 }), RangeError);
    assert.throws(() => new BucketRateLimiter({ burst: 0.5 }), RangeError);
    const free = new BucketRateLimiter({ qps: Number.POSITIVE_INFINITY, burst: 1, clock: new FakeClock() });
    assert.ok(whens(free, 'k', 1000).every((w) => w === 0));
  });
});

describe('MaxOfRateLimiter', () => {
  it('waits the longest, counts the most, forgets in all', () => {
    const fastSlow = new ItemFastSlowRateLimiter({ fastDelayMs: 7, slowDelayMs: 1000, maxFastAttempts: 2 });
    const exponential = new ItemExponentialFailureRateLimiter({ baseMs: 1 });
    const limiter = new MaxOfRateLimiter(fastSlow, exponential);
    assert.deepEqual(whens(limiter, 'k', 5), [7, 7, 1000, 1000, 1000]);
    assert.equal(limiter.numRequeues('k'), 5);
    limiter.forget('k');
    assert.equal(fastSlow.numRequeues('k'), 0);
    assert.equal(exponential.numRequeues('k'), 0);
    assert.equal(new MaxOfRateLimiter().when('k'), 0);
  });
});

describe('defaultControllerRateLimiter', () => {
  it('is exponential 5 ms → 1000 s per item, max’d with a 10 qps / burst 100 bucket', () => {
    const clock = new FakeClock();
    const limiter = defaultControllerRateLimiter({ clock });
    assert.deepEqual(whens(limiter, 'a', 4), [5, 10, 20, 40]);
    for (let i = 0; i < 96; i++) assert.equal(limiter.when(`other${i}`), 5);
    // the bucket is spent: the next first failure waits for a token, not 5 ms
    assert.equal(limiter.when('late'), 100);
    limiter.forget('a');
    assert.equal(limiter.numRequeues('a'), 0);
  });
});
