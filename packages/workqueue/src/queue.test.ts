import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { FakeClock } from '@setpoint/api';
import { WorkQueue, type GetResult } from './queue.js';
import type { QueueMetricsProvider } from './metrics.js';

/** Lets every pending promise callback run (no time passes). */
const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** The item of a get that must not be a shutdown. */
function itemOf<T>(result: GetResult<T>): T {
  assert.equal(result.shutdown, false);
  return (result as { item: T }).item;
}

/** Watches a promise without awaiting it: `state()` says whether it has settled yet. */
function track<T>(promise: Promise<T>): { state(): 'pending' | 'settled'; value(): T | undefined } {
  let settled = false;
  let value: T | undefined;
  void promise.then((v) => {
    settled = true;
    value = v;
  });
  return { state: () => (settled ? 'settled' : 'pending'), value: () => value };
}

// A deadline per suite: a queue that stops handing items out fails the test instead of hanging it.
describe('WorkQueue', { timeout: 15_000 }, () => {
  it('hands items out in the order they were added', async () => {
    const q = new WorkQueue();
    for (const key of ['a', 'b', 'c']) q.add(key);
    assert.equal(q.len(), 3);
    assert.deepEqual([itemOf(await q.get()), itemOf(await q.get()), itemOf(await q.get())], ['a', 'b', 'c']);
    assert.equal(q.len(), 0);
  });

  it('coalesces 1,000 adds of one pending key into one get', async () => {
    const q = new WorkQueue();
    for (let i = 0; i < 1000; i++) q.add('ns/web');
    q.add('ns/db');
    assert.equal(q.len(), 2);
    assert.equal(itemOf(await q.get()), 'ns/web');
    assert.equal(itemOf(await q.get()), 'ns/db');
    assert.equal(q.len(), 0);
    const next = track(q.get());
    await settle();
    assert.equal(next.state(), 'pending');
    q.shutDown();
  });

  it('keeps a coalesced item at its first position', async () => {
    const q = new WorkQueue();
    q.add('a');
    q.add('b');
    q.add('a');
    assert.deepEqual([itemOf(await q.get()), itemOf(await q.get())], ['a', 'b']);
  });

  it('delivers an item re-added during processing only after done, once', async () => {
    const q = new WorkQueue();
    q.add('x');
    assert.equal(itemOf(await q.get()), 'x');
    q.add('x');
    q.add('x');
    assert.equal(q.len(), 0, 'an item being processed is not queued again');
    const second = track(q.get());
    await settle();
    assert.equal(second.state(), 'pending', 'a second getter does not get the item in flight');
    q.done('x');
    await settle();
    assert.equal(second.state(), 'settled');
    assert.deepEqual(second.value(), { item: 'x', shutdown: false });
    q.done('x');
    assert.equal(q.len(), 0);
  });

  it('queues a re-added item behind the items added before its done', async () => {
    const q = new WorkQueue();
    q.add('x');
    itemOf(await q.get());
    q.add('x');
    q.add('y');
    q.done('x');
    assert.deepEqual([itemOf(await q.get()), itemOf(await q.get())], ['y', 'x']);
  });

  it('serves concurrent getters in the order they asked', async () => {
    const q = new WorkQueue<number>();
    const getters = [q.get(), q.get(), q.get()];
    q.add(1);
    q.add(2);
    q.add(3);
    assert.deepEqual((await Promise.all(getters)).map(itemOf), [1, 2, 3]);
  });

  it('compares items with ===, so objects are items by identity', async () => {
    const q = new WorkQueue<object>();
    const a = { key: 'a' };
    q.add(a);
    q.add({ key: 'a' });
    q.add(a);
    assert.equal(q.len(), 2);
    assert.equal(itemOf(await q.get()), a);
  });

  it('ignores done for an item that is not being processed', () => {
    const q = new WorkQueue();
    q.add('a');
    q.done('a');
    q.done('never-added');
    assert.equal(q.len(), 1);
  });

  it('shutDown releases every waiting getter and ignores later adds', async () => {
    const q = new WorkQueue();
    const waiting = [q.get(), q.get(), q.get()];
    q.shutDown();
    assert.deepEqual(await Promise.all(waiting), [{ shutdown: true }, { shutdown: true }, { shutdown: true }]);
    assert.equal(q.shuttingDown(), true);
    q.add('late');
    assert.equal(q.len(), 0);
    assert.deepEqual(await q.get(), { shutdown: true });
    q.shutDown(); // idempotent
  });

  it('after shutDown, items already queued are still handed out, then shutdown', async () => {
    const q = new WorkQueue();
    q.add('a');
    q.add('b');
    q.shutDown();
    assert.equal(itemOf(await q.get()), 'a');
    assert.equal(itemOf(await q.get()), 'b');
    assert.deepEqual(await q.get(), { shutdown: true });
  });

  it('shutDownWithDrain waits for the items in flight to be done', async () => {
    const q = new WorkQueue();
    q.add('a');
    q.add('b');
    itemOf(await q.get());
    itemOf(await q.get());
    const idle = track(q.get());
    const drained = track(q.shutDownWithDrain());
    await settle();
    assert.deepEqual(idle.value(), { shutdown: true }, 'waiting getters are released at once');
    assert.equal(drained.state(), 'pending');
    q.add('c');
    assert.equal(q.len(), 0, 'no adds once draining');
    q.done('a');
    await settle();
    assert.equal(drained.state(), 'pending', 'b is still in flight');
    q.done('b');
    await settle();
    assert.equal(drained.state(), 'settled');
  });

  it('shutDownWithDrain resolves at once when nothing is in flight', async () => {
    const q = new WorkQueue();
    await q.shutDownWithDrain();
    assert.equal(q.shuttingDown(), true);
  });

  it('shutDown after shutDownWithDrain ends the drain at once', async () => {
    const q = new WorkQueue();
    q.add('stuck');
    itemOf(await q.get());
    const drained = track(q.shutDownWithDrain());
    await settle();
    assert.equal(drained.state(), 'pending');
    q.shutDown();
    await settle();
    assert.equal(drained.state(), 'settled');
  });

  it('refuses a metrics provider without a name', () => {
    assert.throws(
      () => new WorkQueue({ metrics: { ...noopProviderShape() } }),
      (err) => err instanceof TypeError && /needs a name/.test(err.message),
    );
  });

  it('len counts what is left after a get', async () => {
    const q = new WorkQueue();
    for (const key of ['a', 'b', 'c']) q.add(key);
    itemOf(await q.get());
    assert.equal(q.len(), 2);
    itemOf(await q.get());
    assert.equal(q.len(), 1);
    q.add('d');
    assert.equal(q.len(), 2);
  });

  it('keeps FIFO order and len across thousands of items that never drain the queue', async () => {
    const q = new WorkQueue<number>();
    let nextAdd = 0;
    let nextGet = 0;
    // Adds run ahead of gets by a varying margin, so the queue never empties while its head moves
    // through many thousands of positions.
    for (let round = 0; round < 40; round++) {
      const adds = 100 + ((round * 37) % 150);
      for (let i = 0; i < adds; i++) q.add(nextAdd++);
      const gets = Math.min(nextAdd - nextGet - 1, 80 + ((round * 53) % 160));
      for (let i = 0; i < gets; i++) {
        const item = itemOf(await q.get());
        assert.equal(item, nextGet, `round ${round}: got ${item}, want ${nextGet}`);
        nextGet++;
        q.done(item);
      }
      assert.equal(q.len(), nextAdd - nextGet);
    }
    assert.ok(nextGet > 3000, `the head moved through ${nextGet} items`);
    while (q.len() > 0) {
      assert.equal(itemOf(await q.get()), nextGet++);
      q.done(nextGet - 1);
    }
    assert.equal(nextGet, nextAdd);
    // Emptied, it starts over in order.
    q.add(-1);
    q.add(-2);
    assert.deepEqual([itemOf(await q.get()), itemOf(await q.get())], [-1, -2]);
    assert.equal(q.len(), 0);
  });

  it('takes its name from the options (default none)', () => {
    assert.equal(new WorkQueue().name, '');
    assert.equal(new WorkQueue({ name: 'pods', metrics: noopProviderShape() }).name, 'pods');
  });

  it('shutDown twice (or after shutDownWithDrain) closes the metrics and runs the hook once', async () => {
    let untracked = 0;
    const metrics: QueueMetricsProvider = { ...noopProviderShape(), trackUnfinishedWork: () => () => void untracked++ };
    let hooks = 0;
    class Hooked extends WorkQueue {
      protected override onShutDown(): void {
        hooks++;
      }
    }
    const q = new Hooked({ name: 'q', metrics });
    assert.equal(hooks, 0);
    q.shutDown();
    q.shutDown();
    await q.shutDownWithDrain();
    assert.deepEqual({ untracked, hooks }, { untracked: 1, hooks: 1 });

    const drained = new Hooked({ name: 'd', metrics });
    await drained.shutDownWithDrain();
    drained.shutDown();
    assert.deepEqual({ untracked, hooks }, { untracked: 2, hooks: 2 });
  });

  it('after a drain, done and add change nothing, and a second drain resolves at once', async () => {
    const q = new WorkQueue();
    q.add('a');
    itemOf(await q.get());
    q.add('a'); // dirty while in flight
    const drained = q.shutDownWithDrain();
    q.add('b');
    q.done('a');
    await drained;
    assert.equal(q.len(), 1, 'a was added before the shutdown: it is queued once more');
    assert.equal(itemOf(await q.get()), 'a');
    q.done('a');
    q.done('a');
    q.done('never-added');
    assert.equal(q.len(), 0);
    assert.deepEqual(await q.get(), { shutdown: true });
    const again = track(q.shutDownWithDrain());
    await settle();
    assert.equal(again.state(), 'settled');
  });

  it('an item added during processing after shutdown is not queued again by done', async () => {
    const q = new WorkQueue();
    q.add('x');
    itemOf(await q.get());
    q.shutDown();
    q.add('x');
    q.done('x');
    assert.equal(q.len(), 0);
    assert.deepEqual(await q.get(), { shutdown: true });
  });

  it('a drain waits for every item in flight, whichever is done first', async () => {
    const q = new WorkQueue();
    for (const key of ['a', 'b', 'c']) q.add(key);
    for (let i = 0; i < 3; i++) itemOf(await q.get());
    const drained = track(q.shutDownWithDrain());
    for (const key of ['c', 'a']) {
      q.done(key);
      await settle();
      assert.equal(drained.state(), 'pending', `after done(${key})`);
    }
    q.done('b');
    await settle();
    assert.equal(drained.state(), 'settled');
  });

  // Property: 4 workers over random adds (in virtual time, processing taking random time): no
  // key is ever held by two workers at once, every add is followed by a get of its key, a key is
  // never got more often than it was added, and the queue ends empty.
  it('never hands a key to two workers, and loses no add (4 workers, random adds)', async () => {
    const keys = ['a', 'b', 'c', 'd', 'e', 'f'];
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ at: fc.nat(40), key: fc.constantFrom(...keys) }), { minLength: 1, maxLength: 80 }),
        fc.array(fc.nat(6), { minLength: 1, maxLength: 16 }),
        async (adds, durations) => {
          const clock = new FakeClock();
          const q = new WorkQueue<string>({ clock });
          const held = new Set<string>();
          const log: Array<{ event: 'add' | 'get'; key: string }> = [];
          let doubleHeld = 0;
          let step = 0;
          for (const { at, key } of adds) {
            clock.setTimeout(() => {
              log.push({ event: 'add', key });
              q.add(key);
            }, at);
          }
          const worker = async (): Promise<void> => {
            for (;;) {
              const next = await q.get();
              if (next.shutdown) return;
              if (held.has(next.item)) doubleHeld++;
              held.add(next.item);
              log.push({ event: 'get', key: next.item });
              await clock.sleep(durations[step++ % durations.length] ?? 0);
              held.delete(next.item);
              q.done(next.item);
            }
          };
          const workers = [worker(), worker(), worker(), worker()];
          await clock.runAll();
          assert.equal(doubleHeld, 0, 'a key was held by two workers at once');
          assert.equal(q.len(), 0);
          assert.equal(held.size, 0);
          for (const key of keys) {
            const events = log.filter((e) => e.key === key).map((e) => e.event);
            const lastAdd = events.lastIndexOf('add');
            if (lastAdd >= 0) assert.ok(events.indexOf('get', lastAdd) > lastAdd, `the last add of ${key} was lost`);
            const gets = events.filter((e) => e === 'get').length;
            assert.ok(gets <= events.length - gets, `${key} was got more often than added`);
          }
          q.shutDown();
          await Promise.all(workers);
        },
      ),
      { numRuns: 200 },
    );
  });
});

function noopProviderShape() {
  return {
    newDepthMetric: () => ({ inc() {}, dec() {} }),
    newAddsMetric: () => ({ inc() {} }),
    newLatencyMetric: () => ({ observe() {} }),
    newWorkDurationMetric: () => ({ observe() {} }),
    newRetriesMetric: () => ({ inc() {} }),
    trackUnfinishedWork: () => () => {},
  };
}
