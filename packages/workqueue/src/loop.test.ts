import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock } from '@setpoint/api';
import { KeyedLoop } from './loop.js';
import { WorkQueue } from './queue.js';

describe('KeyedLoop', { timeout: 15_000 }, () => {
  it('reconciles queued keys one at a time, coalescing a key queued while it runs into one more pass', async () => {
    const clock = new FakeClock();
    const seen: string[] = [];
    let running = 0;
    let release: (() => void) | undefined;
    const loop = new KeyedLoop<string>({
      clock,
      reconcile: async (key) => {
        assert.equal(running++, 0, 'never two passes at once');
        seen.push(key);
        if (key === 'a' && seen.length === 1) await new Promise<void>((resolve) => (release = resolve));
        running--;
        return undefined;
      },
      onError: () => assert.fail('no pass fails'),
    });
    loop.enqueue('a');
    loop.enqueue('b');
    await new Promise<void>((resolve) => setImmediate(resolve));
    loop.enqueue('a');
    loop.enqueue('a');
    release!();
    await loop.idle();
    assert.deepEqual(seen, ['a', 'b', 'a']);
    loop.stop();
  });

  it('retries a failing key after 100, 200, 400 ms, resets on success, and looks again after a returned delay', async () => {
    const clock = new FakeClock();
    const passes: number[] = [];
    const retries: number[] = [];
    let failures = 3;
    const loop = new KeyedLoop<string>({
      clock,
      reconcile: async () => {
        passes.push(clock.now());
        if (failures-- > 0) throw new Error('not yet');
        return passes.length === 4 ? 1000 : undefined;
      },
      onError: (_key, _err, retryInMs) => retries.push(retryInMs),
    });
    const start = clock.now();
    loop.enqueue('k');
    await loop.idle();
    await clock.advance(100);
    await loop.idle();
    await clock.advance(200);
    await loop.idle();
    await clock.advance(400);
    await loop.idle();
    await clock.advance(1000);
    await loop.idle();
    assert.deepEqual(retries, [100, 200, 400]);
    assert.deepEqual(passes.map((t) => t - start), [0, 100, 300, 700, 1700]);
    loop.stop();
  });

  it('resyncs every period until stop, and after stop drops waiting retries and ignores new keys', async () => {
    const clock = new FakeClock();
    const seen: string[] = [];
    const loop = new KeyedLoop<string>({
      clock,
      reconcile: async (key) => {
        seen.push(key);
        if (key === 'bad') throw new Error('fails');
        return undefined;
      },
      onError: () => {},
    });
    loop.resyncEvery(1000, () => loop.enqueue('r'));
    loop.enqueue('bad');
    await loop.idle();
    await clock.advance(1000);
    await loop.idle();
    assert.deepEqual(seen, ['bad', 'bad', 'bad', 'bad', 'r'], 'retries at 100, 300 and 700 ms, the resync at 1 s');
    loop.stop();
    loop.enqueue('late');
    await loop.idle();
    assert.equal(clock.pending(), 0, 'no timer is left');
    await clock.advance(10_000);
    assert.deepEqual(seen, ['bad', 'bad', 'bad', 'bad', 'r']);
  });
});

describe('KeyedLoop: stop and idle', { timeout: 15_000 }, () => {
  it('idle() waits for the pass in progress; a stop during it lets it finish and drops the keys queued behind it', async () => {
    const clock = new FakeClock();
    const seen: string[] = [];
    let release: (() => void) | undefined;
    const loop = new KeyedLoop<string>({
      clock,
      reconcile: async (key) => {
        seen.push(key);
        if (key === 'slow') await new Promise<void>((resolve) => (release = resolve));
        seen.push(`${key} done`);
        return undefined;
      },
      onError: () => assert.fail('no pass fails'),
    });
    loop.enqueue('slow');
    await new Promise<void>((resolve) => setImmediate(resolve));
    assert.deepEqual(seen, ['slow']);
    let idle = false;
    const idling = loop.idle().then(() => (idle = true));
    await new Promise<void>((resolve) => setImmediate(resolve));
    assert.equal(idle, false, 'a pass is in progress, nothing else queued');
    loop.enqueue('next');
    loop.stop();
    await new Promise<void>((resolve) => setImmediate(resolve));
    assert.equal(idle, false, 'stopped, but the pass in progress is not done');
    release!();
    await idling;
    await new Promise<void>((resolve) => setImmediate(resolve));
    assert.deepEqual(seen, ['slow', 'slow done'], 'the key queued behind it is dropped');
    loop.resyncEvery(1000, () => loop.enqueue('r'));
    assert.equal(clock.pending(), 0, 'a resync asked for after stop sets no timer');
  });
});

describe('WorkQueue.processingLen', () => {
  it('counts an item from the get that takes it until its done', async () => {
    const queue = new WorkQueue<string>();
    const got = queue.get();
    queue.add('x');
    assert.equal(queue.len(), 0);
    assert.equal(queue.processingLen(), 1, 'handed to the waiting getter at once');
    const r = await got;
    assert.equal(r.shutdown, false);
    queue.done('x');
    assert.equal(queue.processingLen(), 0);
  });
});
