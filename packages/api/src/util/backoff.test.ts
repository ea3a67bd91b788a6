import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Backoff, type BackoffOptions } from './backoff.js';
import { FakeClock } from './clock.js';

function delays(backoff: Backoff, n: number): number[] {
  return Array.from({ length: n }, () => backoff.next());
}

describe('Backoff', () => {
  const sequences: Array<{ name: string; options: BackoffOptions; want: number[] }> = [
    {
      name: 'work queue per item: 5 ms doubling to 1000 s',
      options: { initialMs: 5, maxMs: 1_000_000 },
      want: [5, 10, 20, 40, 80, 160, 320, 640, 1280, 2560, 5120, 10240, 20480, 40960, 81920, 163840, 327680, 655360, 1_000_000, 1_000_000],
    },
    {
      name: 'agent: 200 ms to 7 s',
      options: { initialMs: 200, maxMs: 7000 },
      want: [200, 400, 800, 1600, 3200, 6400, 7000, 7000],
    },
    {
      name: 'informer without jitter: 800 ms to 30 s',
      options: { initialMs: 800, maxMs: 30_000 },
      want: [800, 1600, 3200, 6400, 12800, 25600, 30000, 30000],
    },
    { name: 'factor 3', options: { initialMs: 1, maxMs: 100, factor: 3 }, want: [1, 3, 9, 27, 81, 100, 100] },
    { name: 'factor 1 is constant', options: { initialMs: 50, maxMs: 100, factor: 1 }, want: [50, 50, 50] },
    { name: 'initial equal to max', options: { initialMs: 10, maxMs: 10 }, want: [10, 10, 10] },
    { name: 'zero initial stays zero', options: { initialMs: 0, maxMs: 10 }, want: [0, 0] },
  ];
  for (const c of sequences) {
    it(`delays: ${c.name}`, () => {
      const backoff = new Backoff(c.options);
      assert.deepEqual(delays(backoff, c.want.length), c.want);
      assert.equal(backoff.attempts, c.want.length);
    });
  }

  // jitter j, random r: each delay d becomes d + r·j·d (client-go's wait.Jitter).
  const jittered: Array<{ name: string; jitter: number; random: number[]; want: number[] }> = [
    { name: 'random 0 adds nothing', jitter: 1, random: [0, 0, 0], want: [800, 1600, 3200] },
    { name: 'full jitter doubles at most', jitter: 1, random: [0.5, 0.25, 0.999], want: [1200, 2000, 3200 * 1.999] },
    { name: 'fractional jitter', jitter: 0.1, random: [0.5, 1, 0], want: [840, 1760, 3200] },
    { name: 'applied after the cap (may exceed maxMs by j·maxMs)', jitter: 0.5, random: [0, 0, 0, 0, 0, 0, 1], want: [800, 1600, 3200, 6400, 12800, 25600, 45000] },
    { name: 'random outside [0, 1] is clamped', jitter: 1, random: [-3, 7], want: [800, 3200] },
  ];
  for (const c of jittered) {
    it(`jitter: ${c.name}`, () => {
      const values = [...c.random];
      const backoff = new Backoff({ initialMs: 800, maxMs: 30_000, jitter: c.jitter, random: () => values.shift() ?? 0 });
      assert.deepEqual(delays(backoff, c.want.length), c.want);
    });
  }

  it('jittered delays stay within [d, d·(1+j)] with Math.random', () => {
    const backoff = new Backoff({ initialMs: 100, maxMs: 1000, jitter: 0.5 });
    let base = 100;
    for (let i = 0; i < 50; i++) {
      const d = backoff.next();
      assert.ok(d >= base && d <= base * 1.5, `${d} outside [${base}, ${base * 1.5}]`);
      base = Math.min(base * 2, 1000);
    }
  });

  it('reset starts again from initialMs', () => {
    const backoff = new Backoff({ initialMs: 5, maxMs: 1000 });
    delays(backoff, 4);
    assert.equal(backoff.attempts, 4);
    backoff.reset();
    assert.equal(backoff.attempts, 0);
    assert.deepEqual(delays(backoff, 3), [5, 10, 20]);
  });

  // resetAfterMs: a next() more than resetAfterMs after the previous one starts over.
  const quiet: Array<{ name: string; gaps: number[]; want: number[] }> = [
    { name: 'calls close together keep growing', gaps: [0, 100, 100, 100], want: [800, 1600, 3200, 6400] },
    { name: 'a gap longer than resetAfterMs starts over', gaps: [0, 100, 120_001, 100], want: [800, 1600, 800, 1600] },
    { name: 'a gap of exactly resetAfterMs does not', gaps: [0, 100, 120_000], want: [800, 1600, 3200] },
    { name: 'the first call never resets', gaps: [500_000, 0], want: [800, 1600] },
  ];
  for (const c of quiet) {
    it(`resetAfterMs: ${c.name}`, async () => {
      const clock = new FakeClock();
      const backoff = new Backoff({ initialMs: 800, maxMs: 30_000, resetAfterMs: 120_000, clock });
      const got: number[] = [];
      for (const gap of c.gaps) {
        await clock.advance(gap);
        got.push(backoff.next());
      }
      assert.deepEqual(got, c.want);
    });
  }

  it('resetAfterMs also resets attempts', async () => {
    const clock = new FakeClock();
    const backoff = new Backoff({ initialMs: 1, maxMs: 10, resetAfterMs: 10, clock });
    delays(backoff, 3);
    await clock.advance(11);
    backoff.next();
    assert.equal(backoff.attempts, 1);
  });

  const invalid: Array<[string, BackoffOptions]> = [
    ['negative initialMs', { initialMs: -1, maxMs: 10 }],
    ['NaN initialMs', { initialMs: Number.NaN, maxMs: 10 }],
    ['maxMs below initialMs', { initialMs: 10, maxMs: 5 }],
    ['infinite maxMs', { initialMs: 10, maxMs: Number.POSITIVE_INFINITY }],
    ['factor below 1', { initialMs: 1, maxMs: 10, factor: 0.5 }],
    ['jitter above 1', { initialMs: 1, maxMs: 10, jitter: 1.5 }],
    ['negative jitter', { initialMs: 1, maxMs: 10, jitter: -0.1 }],
    ['NaN jitter', { initialMs: 1, maxMs: 10, jitter: Number.NaN }],
    ['negative resetAfterMs', { initialMs: 1, maxMs: 10, resetAfterMs: -1 }],
  ];
  for (const [name, options] of invalid) {
    it(`refuses ${name}`, () => {
      assert.throws(() => new Backoff(options), RangeError);
    });
  }
});
