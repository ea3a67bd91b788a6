import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FakeClock } from '@setpoint/api';
import { TimerWheel } from './wheel.js';

describe('TimerWheel', () => {
  it('runs each job on the first tick at or after its due time, in scheduling order, from one clock timer', async () => {
    const clock = new FakeClock(0);
    const wheel = new TimerWheel({ clock, tickMs: 100, slots: 8 });
    const ran: Array<[string, number]> = [];
    wheel.schedule(250, () => ran.push(['a', clock.now()]));
    wheel.schedule(100, () => ran.push(['b', clock.now()]));
    wheel.schedule(250, () => ran.push(['c', clock.now()]));
    wheel.schedule(2_000, () => ran.push(['far', clock.now()])); // more than one turn of the wheel (800 ms)
    assert.equal(clock.pending(), 1);
    await clock.advance(300);
    assert.deepEqual(ran, [
      ['b', 100],
      ['a', 300],
      ['c', 300],
    ]);
    await clock.advance(2_000);
    assert.deepEqual(ran.at(-1), ['far', 2_000]);
    assert.equal(wheel.size, 0);
    assert.equal(clock.pending(), 0, 'an empty wheel stops ticking');
  });

  it('cancels jobs, keeps going when a job throws, and starts again after idling', async () => {
    const clock = new FakeClock(0);
    const wheel = new TimerWheel({ clock, tickMs: 10 });
    const ran: number[] = [];
    const job = wheel.schedule(50, () => ran.push(1));
    wheel.schedule(50, () => {
      throw new Error('boom');
    });
    wheel.schedule(60, () => ran.push(2));
    job.cancel();
    await clock.advance(100);
    assert.deepEqual(ran, [2]);
    await clock.advance(1_000);
    wheel.schedule(0, () => ran.push(3)); // the next tick
    await clock.advance(10);
    assert.deepEqual(ran, [2, 3]);
    wheel.close();
    wheel.schedule(0, () => ran.push(4));
    await clock.advance(100);
    assert.deepEqual(ran, [2, 3]);
  });

  it('spreads a thousand periodic jobs over their interval with one timer', async () => {
    const clock = new FakeClock(0);
    const wheel = new TimerWheel({ clock, tickMs: 100 });
    const perTick = new Map<number, number>();
    const every = (offset: number) => {
      const run = () => {
        perTick.set(clock.now(), (perTick.get(clock.now()) ?? 0) + 1);
        wheel.schedule(10_000, run);
      };
      wheel.schedule(offset, run);
    };
    for (let i = 0; i < 1000; i++) every(Math.floor((i * 10_000) / 1000));
    await clock.advance(30_000);
    assert.equal(clock.pending(), 1);
    const counts = [...perTick.values()];
    // Ten jobs per 100 ms tick (eleven on the first, which also takes the jobs due at once).
    assert.ok(Math.max(...counts) <= 11, `at most 11 jobs on one tick, got ${Math.max(...counts)}`);
    assert.equal(perTick.size, 300, 'every tick of the 30 s did some of the work');
    assert.equal(counts.reduce((a, b) => a + b, 0), 3000);
  });
});
