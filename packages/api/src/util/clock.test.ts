import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { every, FakeClock, realClock } from './clock.js';

const START = Date.UTC(2026, 0, 1);

describe('FakeClock', () => {
  it('starts at 2026-01-01 by default, or at the given time', () => {
    assert.equal(new FakeClock().now(), START);
    assert.equal(new FakeClock(42).now(), 42);
    assert.throws(() => new FakeClock(Number.NaN), RangeError);
  });

  // [timers as (delay, name)], advance by, names fired in order, time after.
  const firing: Array<{ name: string; timers: Array<[number, string]>; by: number; fired: string[] }> = [
    { name: 'nothing is due', timers: [[10, 'a']], by: 9, fired: [] },
    { name: 'exactly due', timers: [[10, 'a']], by: 10, fired: ['a'] },
    { name: 'by due time', timers: [[30, 'c'], [10, 'a'], [20, 'b']], by: 100, fired: ['a', 'b', 'c'] },
    { name: 'ties in creation order', timers: [[5, 'x'], [5, 'y'], [1, 'w'], [5, 'z']], by: 5, fired: ['w', 'x', 'y', 'z'] },
    { name: 'zero delay on advance(0)', timers: [[0, 'now'], [1, 'later']], by: 0, fired: ['now'] },
    { name: 'negative and NaN delays count as 0', timers: [[-5, 'neg'], [Number.NaN, 'nan']], by: 0, fired: ['neg', 'nan'] },
  ];
  for (const c of firing) {
    it(`advance fires timers: ${c.name}`, async () => {
      const clock = new FakeClock();
      const fired: string[] = [];
      const seen: number[] = [];
      for (const [ms, name] of c.timers) {
        clock.setTimeout(() => {
          fired.push(name);
          seen.push(clock.now());
        }, ms);
      }
      await clock.advance(c.by);
      assert.deepEqual(fired, c.fired);
      assert.equal(clock.now(), START + c.by);
      // now() inside a callback is the timer's due time
      const dues = c.timers
        .filter(([, name]) => c.fired.includes(name))
        .map(([ms]) => START + (Number.isNaN(ms) ? 0 : Math.max(ms, 0)))
        .sort((a, b) => a - b);
      assert.deepEqual(seen, dues);
      assert.equal(clock.pending(), c.timers.length - c.fired.length);
    });
  }

  it('cancel stops a timer; cancelling twice or after firing is harmless', async () => {
    const clock = new FakeClock();
    const fired: string[] = [];
    const a = clock.setTimeout(() => fired.push('a'), 10);
    const b = clock.setTimeout(() => fired.push('b'), 20);
    assert.equal(clock.pending(), 2);
    a.cancel();
    a.cancel();
    assert.equal(clock.pending(), 1);
    assert.equal(clock.nextDue(), START + 20);
    assert.equal(a.unref(), a);
    await clock.advance(20);
    b.cancel();
    assert.deepEqual(fired, ['b']);
    assert.equal(clock.pending(), 0);
    assert.equal(clock.nextDue(), undefined);
  });

  it('a chain of sleeps completes within one advance', async () => {
    const clock = new FakeClock();
    const steps: number[] = [];
    const chain = (async () => {
      await clock.sleep(10);
      steps.push(clock.now() - START);
      await clock.sleep(10);
      steps.push(clock.now() - START);
      await clock.sleep(10);
      steps.push(clock.now() - START);
    })();
    await clock.advance(20);
    assert.deepEqual(steps, [10, 20]);
    await clock.advance(10);
    await chain;
    assert.deepEqual(steps, [10, 20, 30]);
  });

  it('fires timers scheduled by callbacks when they fall due within the window', async () => {
    const clock = new FakeClock();
    const fired: number[] = [];
    const tick = (): void => {
      fired.push(clock.now() - START);
      clock.setTimeout(tick, 7);
    };
    clock.setTimeout(tick, 7);
    await clock.advance(30);
    assert.deepEqual(fired, [7, 14, 21, 28]);
    assert.equal(clock.nextDue(), START + 35);
  });

  it('runs promise callbacks between timers, so later timers see their effects', async () => {
    const clock = new FakeClock();
    const log: string[] = [];
    void clock.sleep(5).then(() => log.push('after sleep'));
    clock.setTimeout(() => log.push('timer at 6'), 6);
    await clock.advance(10);
    assert.deepEqual(log, ['after sleep', 'timer at 6']);
  });

  it('set moves to an absolute time and refuses to go back', async () => {
    const clock = new FakeClock(1000);
    let fired = 0;
    clock.setTimeout(() => fired++, 500);
    await clock.set(1500);
    assert.equal(fired, 1);
    assert.equal(clock.now(), 1500);
    await assert.rejects(clock.set(1499), RangeError);
    await assert.rejects(clock.advance(-1), RangeError);
    await assert.rejects(clock.advance(Number.POSITIVE_INFINITY), RangeError);
  });

  it('sleep rejects with the abort reason and leaves no timer behind', async () => {
    const clock = new FakeClock();
    const controller = new AbortController();
    const sleeping = clock.sleep(100, controller.signal);
    assert.equal(clock.pending(), 1);
    const reason = new Error('stopped');
    controller.abort(reason);
    await assert.rejects(sleeping, (err) => err === reason);
    assert.equal(clock.pending(), 0);
  });

  it('sleep with an already aborted signal rejects at once', async () => {
    const clock = new FakeClock();
    await assert.rejects(clock.sleep(100, AbortSignal.abort('gone')), (err) => err === 'gone');
    assert.equal(clock.pending(), 0);
  });

  it('sleep that completes removes its abort listener', async () => {
    const clock = new FakeClock();
    const controller = new AbortController();
    let done = false;
    const sleeping = clock.sleep(10, controller.signal).then(() => {
      done = true;
    });
    await clock.advance(10);
    await sleeping;
    assert.equal(done, true);
    controller.abort(); // must not throw or reject anything
  });

  it('runAll fires everything, including timers scheduled on the way, moving time to each', async () => {
    const clock = new FakeClock();
    const fired: number[] = [];
    clock.setTimeout(() => {
      fired.push(clock.now() - START);
      clock.setTimeout(() => fired.push(clock.now() - START), 1000);
    }, 50);
    clock.setTimeout(() => fired.push(clock.now() - START), 10);
    await clock.runAll();
    assert.deepEqual(fired, [10, 50, 1050]);
    assert.equal(clock.now(), START + 1050);
    assert.equal(clock.pending(), 0);
  });

  it('runAll follows sleep chains', async () => {
    const clock = new FakeClock();
    let finished = false;
    const chain = (async () => {
      for (let i = 0; i < 5; i++) await clock.sleep(100);
      finished = true;
    })();
    await clock.runAll();
    await chain;
    assert.equal(finished, true);
    assert.equal(clock.now(), START + 500);
  });

  it('runAll throws when a timer reschedules itself past the limit', async () => {
    const clock = new FakeClock();
    let count = 0;
    const forever = (): void => {
      count++;
      clock.setTimeout(forever, 1);
    };
    clock.setTimeout(forever, 1);
    await assert.rejects(clock.runAll(25), /fired 25 timers and 1 are still pending/);
    assert.equal(count, 25);
    // the clock is usable again afterwards
    await clock.advance(1);
    assert.equal(count, 26);
  });

  it('runAll with exactly `limit` timers succeeds', async () => {
    const clock = new FakeClock();
    for (let i = 0; i < 3; i++) clock.setTimeout(() => undefined, i);
    await clock.runAll(3);
    assert.equal(clock.pending(), 0);
  });

  it('an error thrown by a timer rejects the advance, at that timer`s time', async () => {
    const clock = new FakeClock();
    clock.setTimeout(() => {
      throw new Error('boom');
    }, 5);
    clock.setTimeout(() => undefined, 8);
    await assert.rejects(clock.advance(10), /boom/);
    assert.equal(clock.now(), START + 5);
    assert.equal(clock.pending(), 1);
    await clock.advance(5);
    assert.equal(clock.pending(), 0);
  });

  it('refuses overlapping drivers', async () => {
    const clock = new FakeClock();
    const first = clock.advance(10);
    await assert.rejects(clock.advance(10), /already running/);
    await first;
    assert.equal(clock.now(), START + 10);
  });

  it('keeps order over many timers (heap order)', async () => {
    const clock = new FakeClock();
    const fired: Array<[number, number]> = [];
    // deterministic pseudo-random delays with many ties
    let seed = 7;
    const delays: number[] = [];
    for (let i = 0; i < 500; i++) {
      seed = (seed * 48271) % 2147483647;
      delays.push(seed % 50);
    }
    const handles = delays.map((ms, i) => clock.setTimeout(() => fired.push([ms, i]), ms));
    for (let i = 0; i < handles.length; i += 3) handles[i]?.cancel();
    await clock.advance(50);
    const expected = delays
      .map((ms, i): [number, number] => [ms, i])
      .filter(([, i]) => i % 3 !== 0)
      .sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    assert.deepEqual(fired, expected);
  });

  it('clamps delays to Node`s timer range', async () => {
    const clock = new FakeClock();
    clock.setTimeout(() => undefined, Number.POSITIVE_INFINITY);
    assert.equal(clock.nextDue(), START + 2 ** 31 - 1);
  });
});

// realClock is exercised under node:test's mock timers, so these tests do not sleep either.
describe('realClock', () => {
  it('reads Date.now()', (t) => {
    t.mock.timers.enable({ apis: ['Date'], now: 123_456 });
    assert.equal(realClock.now(), 123_456);
  });

  it('fires a timer after its delay, and cancel stops one', (t) => {
    t.mock.timers.enable({ apis: ['setTimeout'] });
    const fired: string[] = [];
    const cancelled = realClock.setTimeout(() => fired.push('cancelled'), 5);
    realClock.setTimeout(() => fired.push('kept'), 10);
    cancelled.cancel();
    t.mock.timers.tick(9);
    assert.deepEqual(fired, []);
    t.mock.timers.tick(1);
    assert.deepEqual(fired, ['kept']);
  });

  it('clamps negative delays to 0', (t) => {
    t.mock.timers.enable({ apis: ['setTimeout'] });
    let fired = false;
    realClock.setTimeout(() => {
      fired = true;
    }, -100);
    t.mock.timers.tick(0);
    assert.equal(fired, true);
  });

  it('unref returns the timer', (t) => {
    t.mock.timers.enable({ apis: ['setTimeout'] });
    const timer = realClock.setTimeout(() => undefined, 10);
    assert.equal(timer.unref(), timer);
    timer.cancel();
  });

  it('sleep resolves after its delay', async (t) => {
    t.mock.timers.enable({ apis: ['setTimeout'] });
    let done = false;
    const sleeping = realClock.sleep(1000).then(() => {
      done = true;
    });
    t.mock.timers.tick(999);
    await Promise.resolve();
    assert.equal(done, false);
    t.mock.timers.tick(1);
    await sleeping;
    assert.equal(done, true);
  });

  it('sleep rejects with the abort reason', async (t) => {
    t.mock.timers.enable({ apis: ['setTimeout'] });
    const controller = new AbortController();
    const sleeping = realClock.sleep(60_000, controller.signal);
    controller.abort(new Error('stop'));
    await assert.rejects(sleeping, /stop/);
    await assert.rejects(realClock.sleep(60_000, AbortSignal.abort('already')), (err) => err === 'already');
  });
});

describe('every', () => {
  it('runs its function once per interval until cancelled, also from inside a run', async () => {
    const clock = new FakeClock();
    const at: number[] = [];
    const timer = every(clock, 100, () => {
      at.push(clock.now() - START);
      if (at.length === 3) timer.cancel();
    });
    await clock.advance(99);
    assert.deepEqual(at, []);
    await clock.advance(1);
    assert.deepEqual(at, [100]);
    await clock.advance(1000);
    assert.deepEqual(at, [100, 200, 300], 'a cancel from inside the third run stops the fourth');
    assert.equal(clock.pending(), 0);
  });

  it('a cancel before the first run leaves no timer; an interval under 1 ms is 1 ms', async () => {
    const clock = new FakeClock();
    let runs = 0;
    every(clock, 50, () => runs++).cancel();
    assert.equal(clock.pending(), 0);
    const fast = every(clock, 0, () => runs++);
    await clock.advance(5);
    assert.equal(runs, 5);
    fast.cancel();
    await clock.advance(5);
    assert.equal(runs, 5);
  });

  it('a run that throws does not stop the next one', async () => {
    const clock = new FakeClock();
    let runs = 0;
    const timer = every(clock, 10, () => {
      runs++;
      throw new Error('run failed');
    });
    await assert.rejects(clock.advance(10), /run failed/);
    await assert.rejects(clock.advance(10), /run failed/);
    assert.equal(runs, 2);
    timer.cancel();
  });

  it('repeats on the real clock; unref returns the timer', (t) => {
    t.mock.timers.enable({ apis: ['setTimeout'] });
    let runs = 0;
    const timer = every(realClock, 20, () => runs++);
    assert.equal(timer.unref(), timer);
    for (let i = 0; i < 3; i++) t.mock.timers.tick(20);
    assert.equal(runs, 3);
    timer.cancel();
    for (let i = 0; i < 3; i++) t.mock.timers.tick(20);
    assert.equal(runs, 3);
  });
});
