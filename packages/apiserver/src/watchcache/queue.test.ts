import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EventQueue } from './queue.js';

/** A queue of strings sized by their length, ending reads with `overflow` when a push does not fit. */
function sized(limit: number, maxBytes?: number, overflow: () => Error | undefined = () => new Error('overflow')): EventQueue<string> {
  return new EventQueue<string>({ limit, ...(maxBytes === undefined ? {} : { maxBytes }), sizeOf: (s) => s.length }, overflow);
}

/** Reads everything the queue gives until it ends (it must end: the queue is ended first). */
async function drain<T>(queue: EventQueue<T>): Promise<T[]> {
  const out: T[] = [];
  for (;;) {
    const r = await queue.next();
    if (r.done === true) return out;
    out.push(r.value);
  }
}

/** Whether `p` has settled once pending callbacks have run. */
async function settled(p: Promise<unknown>): Promise<boolean> {
  let done = false;
  void p.then(
    () => (done = true),
    () => (done = true),
  );
  await new Promise((resolve) => setImmediate(resolve));
  return done;
}

describe('EventQueue', () => {
  it('yields the startWith source first, pulled one item per read, then the pushed items in order', async () => {
    const q = sized(10);
    const pulled: number[] = [];
    q.startWith(
      (function* () {
        for (let i = 0; i < 3; i++) {
          pulled.push(i);
          yield `s${i}`;
        }
      })(),
    );
    q.push('p0');
    q.push('p1');
    assert.equal(q.size, 2, 'the source is not counted as queued');
    assert.deepEqual(pulled, [], 'nothing is pulled before a read');
    assert.deepEqual(await q.next(), { value: 's0', done: false });
    assert.deepEqual(pulled, [0]);
    q.end();
    assert.deepEqual(await drain(q), ['s1', 's2', 'p0', 'p1']);
  });

  it('hands a push straight to a waiting reader', async () => {
    const q = sized(1);
    const read = q.next();
    assert.equal(await settled(read), false, 'an empty queue makes the reader wait');
    assert.equal(q.push('a'), true);
    assert.deepEqual(await read, { value: 'a', done: false });
    assert.equal(q.size, 0);
    // The handed-over item took no room: the bound still admits a full queue's worth.
    assert.equal(q.push('b'), true);
    assert.equal(q.closed, false);
  });

  it('ends at once, dropping what it holds, when a push goes past `limit` items', async () => {
    let ended = 0;
    const q = sized(3);
    q.whenEnded(() => ended++);
    for (const s of ['a', 'b', 'c']) assert.equal(q.push(s), true);
    assert.equal(q.closed, false, 'exactly `limit` items fit');
    assert.equal(q.push('d'), false);
    assert.equal(q.closed, true);
    assert.equal(q.overflowedBounds, true);
    assert.equal(q.size, 0, 'the buffered items were dropped');
    assert.equal(q.bytes, 0);
    assert.equal(ended, 1);
    await assert.rejects(q.next(), /overflow/);
    assert.deepEqual(await q.next(), { value: undefined, done: true }, 'the error is thrown once, then reads end');
    assert.equal(q.push('e'), false, 'an ended queue takes nothing');
    assert.equal(ended, 1, 'whenEnded callbacks run once');
  });

  it('an overflow without an error just ends the reads', async () => {
    const q = sized(1, undefined, () => undefined);
    q.push('a');
    q.push('b');
    assert.equal(q.overflowedBounds, true);
    assert.deepEqual(await q.next(), { value: undefined, done: true });
  });

  it('bounds the bytes of unread items, admitting a push that exactly fills maxBytes', () => {
    const q = sized(100, 10);
    assert.equal(q.push('aaaa'), true);
    assert.equal(q.push('bbbbbb'), true, '4 + 6 = maxBytes fits');
    assert.equal(q.bytes, 10);
    assert.equal(q.push('c'), false, 'one byte more does not');
    assert.equal(q.overflowedBounds, true);
  });

  it('always accepts one item into an empty queue, however large', async () => {
    const q = sized(100, 4);
    assert.equal(q.push('x'.repeat(50)), true);
    assert.equal(q.closed, false);
    assert.equal(q.bytes, 50);
    assert.equal(q.push('y'), false, 'but nothing after it');
    const empty = sized(100, 4);
    assert.equal(empty.push('x'.repeat(50)), true);
    assert.deepEqual(await empty.next(), { value: 'x'.repeat(50), done: false });
    assert.equal(empty.bytes, 0, 'reading an item gives its bytes back');
    assert.equal(empty.push('z'.repeat(4)), true);
  });

  it("counts the consumer's unflushed bytes against maxBytes", () => {
    let unflushed = 8;
    const q = sized(100, 10);
    q.countUnflushed(() => unflushed);
    assert.equal(q.bytes, 8);
    assert.equal(q.push('aa'), true, '8 unflushed + 2 = maxBytes');
    assert.equal(q.bytes, 10);
    unflushed = 9;
    assert.equal(q.push('b'), false);
    assert.equal(q.closed, true);
    assert.equal(q.bytes, 0, 'an overflowed queue holds nothing, and forgets the unflushed count');
  });

  it('with unflushed bytes alone, a queue with no items is not empty: a large first push overflows', () => {
    const q = sized(100, 10);
    q.countUnflushed(() => 5);
    assert.equal(q.push('x'.repeat(6)), false);
    assert.equal(q.overflowedBounds, true);
  });

  it('without maxBytes, only the item limit applies', () => {
    const q = sized(2);
    assert.equal(q.push('x'.repeat(1_000_000)), true);
    assert.equal(q.push('y'.repeat(1_000_000)), true);
    assert.equal(q.bytes, 2_000_000);
    assert.equal(q.closed, false);
  });

  it('a queue without sizeOf counts items only', () => {
    const q = new EventQueue<string>({ limit: 2, maxBytes: 1 }, () => undefined);
    assert.equal(q.push('long item'), true);
    assert.equal(q.push('another long item'), true);
    assert.equal(q.bytes, 0);
    assert.equal(q.push('c'), false);
  });

  it('offer drops an item that does not fit and keeps the queue open', async () => {
    const q = sized(2, 10);
    assert.equal(q.offer('aaaaaaaa'), true);
    assert.equal(q.offer('bbbbb'), false, '8 + 5 bytes do not fit');
    assert.equal(q.closed, false);
    assert.equal(q.offer('cc'), true);
    assert.equal(q.offer('d'), false, 'nor a third item past the limit');
    assert.equal(q.closed, false);
    assert.equal(q.overflowedBounds, false);
    q.end();
    assert.deepEqual(await drain(q), ['aaaaaaaa', 'cc']);
    assert.equal(q.offer('e'), false, 'an ended queue takes nothing');
  });

  it('offer hands an item of any size to a waiting reader', async () => {
    const q = sized(1, 4);
    const read = q.next();
    assert.equal(q.offer('x'.repeat(100)), true);
    assert.deepEqual(await read, { value: 'x'.repeat(100), done: false });
  });

  it('end lets the reader finish what was buffered; end(error) then throws it', async () => {
    const q = sized(5);
    q.push('a');
    q.push('b');
    q.end();
    assert.equal(q.closed, true);
    assert.deepEqual(await drain(q), ['a', 'b']);

    const failing = sized(5);
    failing.push('a');
    const boom = new Error('boom');
    failing.end(boom);
    failing.end(new Error('later'));
    assert.deepEqual(await failing.next(), { value: 'a', done: false });
    await assert.rejects(failing.next(), (err) => err === boom);
  });

  it('end settles a waiting reader: done, or rejected with the error', async () => {
    const q = sized(5);
    const read = q.next();
    q.end();
    assert.deepEqual(await read, { value: undefined, done: true });

    const failing = sized(5);
    const waiting = failing.next();
    const boom = new Error('boom');
    failing.end(boom);
    await assert.rejects(waiting, (err) => err === boom);
  });

  it('fail and close drop the buffered items and the source', async () => {
    const q = sized(5);
    q.startWith(['s'][Symbol.iterator]());
    q.push('a');
    const boom = new Error('boom');
    q.fail(boom);
    assert.equal(q.size, 0);
    assert.equal(q.overflowedBounds, false);
    await assert.rejects(q.next(), (err) => err === boom);

    const closed = sized(5);
    closed.startWith(['s'][Symbol.iterator]());
    closed.push('a');
    closed.close();
    assert.equal(closed.closed, true);
    assert.deepEqual(await closed.next(), { value: undefined, done: true });
    closed.startWith(['late'][Symbol.iterator]());
    assert.deepEqual(await closed.next(), { value: undefined, done: true }, 'startWith on an ended queue does nothing');
  });

  it('return() closes the queue, as a for-await loop that stops early does', async () => {
    const q = sized(5);
    for (const s of ['a', 'b', 'c']) q.push(s);
    let ended = false;
    q.whenEnded(() => (ended = true));
    for await (const s of q) {
      assert.equal(s, 'a');
      break;
    }
    assert.equal(ended, true);
    assert.equal(q.size, 0, 'the unread items were dropped');
    assert.equal(q.push('d'), false);
  });

  it('whenEnded runs at once on an ended queue, and exactly once otherwise', () => {
    const q = sized(5);
    const calls: string[] = [];
    q.whenEnded(() => calls.push('before'));
    q.end();
    q.close();
    q.whenEnded(() => calls.push('after'));
    assert.deepEqual(calls, ['before', 'after']);
  });

  it('whenBelow resolves once reads bring the backlog under both marks, or the queue ends', async () => {
    const q = sized(100);
    assert.equal(await settled(q.whenBelow(1)), true, 'an empty queue is below any mark');
    for (let i = 0; i < 4; i++) q.push(`i${i}`);
    const below = q.whenBelow(3);
    assert.equal(await settled(below), false, '4 items are not below 3');
    await q.next();
    assert.equal(await settled(below), false, 'nor are 3');
    await q.next();
    assert.equal(await settled(below), true, '2 are');

    const bytes = sized(100);
    bytes.push('aaaa');
    bytes.push('bbbb');
    const fewBytes = bytes.whenBelow(100, 5);
    assert.equal(await settled(fewBytes), false, '8 bytes are not below 5');
    await bytes.next();
    assert.equal(await settled(fewBytes), true, '4 bytes are');
  });

  it('whenBelow counts bytes strictly: exactly the mark is not below it', async () => {
    const q = sized(100);
    q.push('aaaa');
    q.push('bbbbb');
    const w = q.whenBelow(100, 5);
    await q.next(); // 5 bytes left: not below 5
    assert.equal(await settled(w), false);
    await q.next(); // 0 bytes left
    assert.equal(await settled(w), true);
    const ended = sized(100);
    ended.push('a');
    const onEnd = ended.whenBelow(1);
    assert.equal(await settled(onEnd), false);
    ended.end();
    assert.equal(await settled(onEnd), true, 'ending releases the waiter');
    assert.equal(await settled(ended.whenBelow(1)), true, 'and an ended queue never makes one wait');
  });

  it('keeps order and byte counts right across thousands of reads (its storage is compacted as it goes)', async () => {
    const q = sized(10_000, 1_000_000);
    const n = 5_000;
    for (let i = 0; i < n; i++) q.push(`item-${i}`);
    let expectedBytes = 0;
    for (let i = 0; i < n; i++) expectedBytes += `item-${i}`.length;
    assert.equal(q.bytes, expectedBytes);
    for (let i = 0; i < n; i++) {
      const r = await q.next();
      assert.equal(r.value, `item-${i}`);
      expectedBytes -= `item-${i}`.length;
      if (i % 997 === 0) assert.equal(q.bytes, expectedBytes);
      if (i === 3000) {
        // Pushed after a compaction: still after everything pushed before.
        q.push('late');
        expectedBytes += 4;
      }
    }
    assert.equal(q.size, 1);
    assert.deepEqual(await q.next(), { value: 'late', done: false });
    assert.equal(q.bytes, 0);
    assert.equal(q.size, 0);
  });

  it('bounds given as a number are the item limit', async () => {
    const q = new EventQueue<string>(2, () => new Error('over'));
    assert.equal(q.push('a'), true);
    assert.equal(q.push('b'), true);
    assert.equal(q.closed, false);
    assert.equal(q.push('c'), false);
    assert.equal(q.overflowedBounds, true);
    await assert.rejects(q.next(), /over/);
  });

  it('offer to a waiting reader ignores the unflushed bytes, as push does', async () => {
    const q = sized(10, 4);
    q.countUnflushed(() => 100);
    const read = q.next();
    assert.equal(q.offer('x'), true);
    assert.deepEqual(await read, { value: 'x', done: false });
    assert.equal(q.offer('y'), false, 'with no reader waiting, 100 unflushed bytes leave no room');
    assert.equal(q.closed, false);
  });

  it('offer on a queue that does not size its items drops only past the item limit', () => {
    const q = new EventQueue<string>({ limit: 1, maxBytes: 1 }, () => undefined);
    assert.equal(q.offer('long item'), true);
    assert.equal(q.offer('another'), false);
    assert.equal(q.closed, false);
  });

  it('whenBelow with exactly the byte mark already queued waits', async () => {
    const q = sized(100);
    q.push('aaaaa');
    const w = q.whenBelow(100, 5);
    assert.equal(await settled(w), false, '5 bytes are not below 5');
    await q.next();
    assert.equal(await settled(w), true);
  });

  it('return() answers done, as an iterator that finished', async () => {
    const q = sized(5);
    q.push('a');
    assert.deepEqual(await q.return(), { value: undefined, done: true });
    assert.deepEqual(await q.next(), { value: undefined, done: true });
  });
});
