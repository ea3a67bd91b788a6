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
import type { Clock } from '@setpoint/api';

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
    assert.deepEqual(waits.slice(18), waits.slice(18).map(() => 1_000_000));
  });

  it('takes its base and cap from the options, and checks them', () => {
    const limiter = new ItemExponentialFailureRateLimiter({ baseMs: 1, maxMs: 6 });
    assert.deepEqual(whens(limiter, 'k', 5), [1, 2, 4, 6, 6]);
    const zero = new ItemExponentialFailureRateLimiter({ baseMs: 0 });
    assert.deepEqual(whens(zero, 'k', 1100), Array(1100).fill(0));
    assert.throws(() => new ItemExponentialFailureRateLimiter({ baseMs: -1 }), RangeError);
    assert.throws(() => new ItemExponentialFailureRateLimiter({ maxMs: Number.NaN }), RangeError);
  });

  it('refuses a non-finite or negative base or cap, naming it', () => {
    for (const [options, name] of [
      [{ baseMs: Number.POSITIVE_INFINITY }, 'baseMs'],
      [{ baseMs: Number.NaN }, 'baseMs'],
      [{ maxMs: -1 }, 'maxMs'],
      [{ maxMs: Number.POSITIVE_INFINITY }, 'maxMs'],
    ] as const) {
      assert.throws(
        () => new ItemExponentialFailureRateLimiter(options),
        (err) => err instanceof RangeError && err.message.startsWith(`${name} must be a finite number of ms ≥ 0`),
        JSON.stringify(options),
      );
    }
    assert.equal(new ItemExponentialFailureRateLimiter({ baseMs: 0, maxMs: 0 }).when('k'), 0, '0 is allowed');
  });

  it('defaults the cap to 1000 s when only the base is given', () => {
    const limiter = new ItemExponentialFailureRateLimiter({ baseMs: 1000 });
    assert.deepEqual(whens(limiter, 'k', 12).slice(9), [512_000, 1_000_000, 1_000_000]);
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

  it('checks its options: delays ≥ 0 and finite, maxFastAttempts ≥ 0', () => {
    const ok = { fastDelayMs: 1, slowDelayMs: 2, maxFastAttempts: 1 };
    for (const [bad, message] of [
      [{ fastDelayMs: -1 }, /^fastDelayMs must be/],
      [{ fastDelayMs: Number.POSITIVE_INFINITY }, /^fastDelayMs must be/],
      [{ slowDelayMs: Number.NaN }, /^slowDelayMs must be/],
      [{ maxFastAttempts: -1 }, /^maxFastAttempts must be ≥ 0, got -1$/],
      [{ maxFastAttempts: Number.NaN }, /^maxFastAttempts must be ≥ 0/],
    ] as const) {
      assert.throws(
        () => new ItemFastSlowRateLimiter({ ...ok, ...bad }),
        (err) => err instanceof RangeError && message.test(err.message),
        JSON.stringify(bad),
      );
    }
  });

  it('with maxFastAttempts 0 every retry is slow; with 1 only the first is fast', () => {
    const none = new ItemFastSlowRateLimiter({ fastDelayMs: 1, slowDelayMs: 9, maxFastAttempts: 0 });
    assert.deepEqual(whens(none, 'k', 3), [9, 9, 9]);
    const one = new ItemFastSlowRateLimiter({ fastDelayMs: 1, slowDelayMs: 9, maxFastAttempts: 1 });
    assert.deepEqual(whens(one, 'k', 3), [1, 9, 9]);
  });

  it('does not change when the options object it was given changes', () => {
    const options = { fastDelayMs: 1, slowDelayMs: 9, maxFastAttempts: 1 };
    const limiter = new ItemFastSlowRateLimiter(options);
    options.fastDelayMs = 100;
    assert.equal(limiter.when('k'), 1);
  });
});

describe('BucketRateLimiter', () => {
  it('lets a burst of 100 through, then paces at 10 qps (the 101st waits 100 ms)', () => {
    const clock = new FakeClock();
    const limiter = new BucketRateLimiter({ clock });
    const waits = Array.from({ length: 103 }, (_, i) => limiter.when(`k${i}`));
    assert.deepEqual(waits.slice(0, 100), Array(100).fill(0));
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
    assert.deepEqual(whens(free, 'k', 1000), Array(1000).fill(0));
  });

  it('refuses qps ≤ 0 or NaN, and a burst of 0, negative or fractional, naming the option', () => {
    for (const [options, message] of [
      [{ qps: 0 }, /^qps must be > 0, got 0$/],
      [{ qps: -1 }, /^qps must be > 0/],
      [{ qps: Number.NaN }, /^qps must be > 0/],
      [{ burst: 0 }, /^burst must be a whole number ≥ 1, got 0$/],
      [{ burst: -3 }, /^burst must be a whole number ≥ 1/],
      [{ burst: 1.5 }, /^burst must be a whole number ≥ 1/],
    ] as const) {
      assert.throws(
        () => new BucketRateLimiter({ ...options, clock: new FakeClock() }),
        (err) => err instanceof RangeError && message.test(err.message),
        JSON.stringify(options),
      );
    }
    const one = new BucketRateLimiter({ qps: 1, burst: 1, clock: new FakeClock() });
    assert.deepEqual(whens(one, 'k', 3), [0, 1000, 2000], 'a burst of 1 is allowed');
  });

  it('treats a clock that goes back as standing still', () => {
    let now = 1_000_000;
    const clock: Clock = {
      now: () => now,
      setTimeout: () => {
        throw new Error('the bucket sets no timers');
      },
      sleep: () => Promise.reject(new Error('the bucket does not sleep')),
    };
    const limiter = new BucketRateLimiter({ qps: 10, burst: 1, clock });
    assert.equal(limiter.when('k'), 0);
    now -= 60_000; // back a minute: no token comes in, and nothing is owed either
    assert.equal(limiter.when('k'), 100);
    now += 60_000; // back where it was: still no time has passed since the last reservation
    assert.equal(limiter.when('k'), 200);
    now += 300; // 300 ms past the last reading: 3 tokens, of which 2 were reserved ahead
    assert.equal(limiter.when('k'), 0);
  });

  it('defaults to 10 qps and a burst of 100 on the real clock', () => {
    const limiter = new BucketRateLimiter();
    const waits = whens(limiter, 'k', 101);
    assert.deepEqual(waits.slice(0, 100), Array(100).fill(0));
    // the 101st reservation waits up to 100 ms (less the real time spent meanwhile)
    const last = waits[100] ?? 0;
    assert.ok(last > 0 && last <= 100, `waited ${last} ms`);
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

  it('counts the most retries among its limiters, not the fewest', () => {
    const bucket = new BucketRateLimiter({ clock: new FakeClock() }); // counts none
    const exponential = new ItemExponentialFailureRateLimiter();
    const limiter = new MaxOfRateLimiter(bucket, exponential);
    whens(limiter, 'k', 3);
    assert.equal(limiter.numRequeues('k'), 3);
    assert.equal(new MaxOfRateLimiter(exponential, bucket).numRequeues('k'), 3);
    assert.equal(new MaxOfRateLimiter().numRequeues('k'), 0);
  });

  it('asks every limiter on each retry, whichever waits longest', () => {
    const a = new ItemExponentialFailureRateLimiter({ baseMs: 100 });
    const b = new ItemExponentialFailureRateLimiter({ baseMs: 1 });
    const limiter = new MaxOfRateLimiter(a, b);
    assert.deepEqual(whens(limiter, 'k', 2), [100, 200]);
    assert.deepEqual([a.numRequeues('k'), b.numRequeues('k')], [2, 2]);
  });
});

describe('defaultControllerRateLimiter', { timeout: 15_000 }, () => {
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

  it('refills its bucket on the clock it is given', async () => {
    const clock = new FakeClock();
    const limiter = defaultControllerRateLimiter({ clock });
    for (let i = 0; i < 100; i++) limiter.when(`k${i}`);
    assert.equal(limiter.when('spent'), 100);
    await clock.advance(60_000);
    assert.equal(limiter.when('refilled'), 5, 'a minute on the given clock refilled the bucket');
  });

  it('defaults to the real clock', () => {
    const limiter = defaultControllerRateLimiter();
    for (let i = 0; i < 100; i++) assert.equal(limiter.when(`k${i}`), 5);
    const wait = limiter.when('spent');
    assert.ok(wait > 0 && wait <= 100, `waited ${wait} ms`);
  });
});
