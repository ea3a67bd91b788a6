/** watch: history then live events, prefixes, restarts, abort, overflow and progress events. */
import assert from 'node:assert/strict';
import { FakeClock } from '@setpoint/api';
import { isStoreError, type WatchEvent } from '../store.js';
import { assertEvents, describeError, item, pad, plainEvent, type Register, runWriters, within, writeMixedHistory } from './fixture.js';

export function watchTests(test: Register): void {
  test('a watch from every revision of a history yields exactly the events after it: types, keys, values, revisions, prev', async (fx) => {
    const h = await fx.history();
    await writeMixedHistory(h, '/h/');
    await h.create('/h/zz-last', 'end');
    for (let from = h.baseRevision; from < h.lastRevision; from++) {
      const reader = fx.watch('/h/', from);
      assertEvents(await reader.until(h.lastRevision, `the events after ${from}`), h.eventsAfter(from), `watch from ${from}`);
      reader.abort();
    }
    const fromNow = fx.watch('/h/', h.lastRevision);
    const next = await h.create('/h/after', 'x');
    assertEvents([await fromNow.next('the first event after the current revision')], [{ type: 'create', revision: next.modRevision, kv: next }], 'watch from the current revision');
  });

  test('a watch yields only the keys under its prefix', async (fx) => {
    const h = await fx.history();
    const live = fx.watch('/a/', h.baseRevision);
    await h.create('/a/1', '1');
    await h.create('/ab/1', '1');
    await h.create('/b/1', '1');
    await h.create('/a', '1');
    await h.create('/a/2', '1');
    await h.update('/ab/1', '2');
    await h.update('/a/1', '2');
    await h.delete('/a/2');
    await h.delete('/b/1');
    await h.create('/a/3', 'last');
    for (const prefix of ['/a/', '/a', '/ab/']) {
      const reader = fx.watch(prefix, h.baseRevision);
      const expected = h.eventsAfter(h.baseRevision, prefix);
      assertEvents(await reader.until(item(expected, expected.length - 1).revision, `the events under ${prefix}`), expected, `watch(${JSON.stringify(prefix)})`);
    }
    assertEvents(await live.until(h.lastRevision, 'the live events under /a/'), h.eventsAfter(h.baseRevision, '/a/'), 'live watch of /a/');
    await h.create('/b/2', 'outside');
    const inside = await h.create('/a/4', 'inside');
    assertEvents([await live.next('the next event under /a/')], [{ type: 'create', revision: inside.modRevision, kv: inside }], 'a write outside the prefix is skipped');
  });

  test('live events arrive in revision order, without gaps or duplicates, while writers run concurrently', async (fx) => {
    const h = await fx.history();
    const all = fx.watch('/', h.baseRevision);
    const some = fx.watch('/w/', h.baseRevision);
    const total = 8 * 25;
    const [, allEvents, someEvents] = await Promise.all([runWriters(h, 8, 25), all.take(total, 'the events of /'), some.take(total, 'the events of /w/')]);
    assertEvents(allEvents, h.eventsAfter(h.baseRevision), 'watch of /');
    assertEvents(someEvents, h.eventsAfter(h.baseRevision), 'watch of /w/');
    const last = await h.create('/w/last', 'x');
    const expected: WatchEvent = { type: 'create', revision: last.modRevision, kv: last };
    assertEvents([await all.next('the event after the writers')], [expected], 'nothing else came after the writers (/)');
    assertEvents([await some.next('the event after the writers')], [expected], 'nothing else came after the writers (/w/)');
  });

  test('a watch from a past revision catches up with live writes without gaps or duplicates', async (fx) => {
    const h = await fx.history();
    for (let i = 0; i < 20; i++) await h.create(`/old/${pad(i)}`, '0');
    for (let i = 0; i < 20; i++) await h.update(`/old/${pad(i)}`, '1');
    for (let i = 0; i < 20; i += 2) await h.delete(`/old/${pad(i)}`);
    const reader = fx.watch('/', h.baseRevision);
    const total = 50 + 4 * 25;
    const [, events] = await Promise.all([runWriters(h, 4, 25), reader.take(total, 'history then live events')]);
    assertEvents(events, h.eventsAfter(h.baseRevision), 'history then live');
    const last = await h.create('/w/last', 'x');
    assertEvents([await reader.next('the event after the writers')], [{ type: 'create', revision: last.modRevision, kv: last }], 'nothing else came');
  });

  test('a watch from further back than one page of history (600 changes) yields all of them in order, then live events', async (fx) => {
    const h = await fx.history();
    for (let i = 0; i < 200; i++) await h.create(`/long/${String(i).padStart(3, '0')}`, '0');
    for (let i = 0; i < 200; i++) await h.update(`/long/${String(i).padStart(3, '0')}`, '1');
    for (let i = 0; i < 200; i++) await h.delete(`/long/${String(i).padStart(3, '0')}`);
    const reader = fx.watch('/', h.baseRevision);
    assertEvents(await reader.take(600, 'the history'), h.eventsAfter(h.baseRevision), 'the history of 600 changes');
    const last = await h.create('/long/last', 'x');
    assertEvents([await reader.next('the live event after the history')], [{ type: 'create', revision: last.modRevision, kv: last }], 'live after the history');
  });

  test('a watch ended by abort and restarted from the last revision seen misses and repeats nothing', async (fx) => {
    const h = await fx.history();
    const first = fx.watch('/', h.baseRevision);
    for (let i = 0; i < 5; i++) await h.create(`/r/${i}`, 'a');
    for (let i = 0; i < 5; i++) await h.update(`/r/${i}`, 'b');
    const seen = await first.take(4, 'the first four events');
    first.abort();
    seen.push(...(await first.end('the aborted watch to end')));
    for (let i = 0; i < 5; i++) await h.delete(`/r/${i}`);
    await h.create('/r/0', 'again');
    const lastSeen = item(seen, seen.length - 1).revision;
    const second = fx.watch('/', lastSeen);
    seen.push(...(await second.until(h.lastRevision, 'the restarted watch')));
    assertEvents(seen, h.eventsAfter(h.baseRevision), 'the first watch, then the restarted one');
  });

  test('abort via the signal ends the iterator without error: while next() waits, before the first read, and after events', async (fx) => {
    const { store } = fx;
    await store.create('/a', '1');
    const waiting = fx.watch('/', await store.currentRevision());
    const ended = waiting.end('a waiting watch to end on abort');
    waiting.abort();
    assert.deepEqual(await ended, [], 'a waiting watch ends without events');

    const aborted = store.watch('/', 0, { signal: AbortSignal.abort() });
    for (let i = 0; ; i++) {
      assert.ok(i < 10, 'a watch with an aborted signal ends');
      if ((await within(aborted.next(), 'a watch with an already aborted signal to end')).done === true) break;
    }

    const reading = fx.watch('/', 0);
    assert.equal((await reading.next('the create')).type, 'create');
    reading.abort();
    assert.deepEqual(await reading.end('a reading watch to end on abort'), []);
    await store.create('/b', '1');
    assert.deepEqual(await reading.end('an ended watch to stay ended'), [], 'writes after the abort are not delivered');
  });

  test('leaving a for-await loop (return()) ends the watch', async ({ store }) => {
    await store.create('/a', '1');
    const iterator = store.watch('/', 0);
    const first = await within(
      (async () => {
        for await (const event of iterator) return event;
        return undefined;
      })(),
      'the first event',
    );
    assert.equal(first?.type, 'create');
    await store.create('/b', '1');
    assert.equal((await within(iterator.next(), 'next() after return()')).done, true, 'next() after return() reports done');
  });

  test('a consumer more than maxBuffered events behind gets WatchOverflow with lastRevision; writers and other watchers are not held up', async (fx) => {
    const h = await fx.history();
    const slow = fx.watch('/', h.baseRevision, { maxBuffered: 10 });
    const fast = fx.watch('/', h.baseRevision);
    await h.create('/s/start', 'x');
    const started = await slow.next('the slow watch\'s first event'); // it is now watching live
    const fastEvents = fast.take(101, 'every event, for the watcher that reads');
    await within(
      (async () => {
        for (let i = 0; i < 100; i++) await h.create(`/s/${pad(i)}`, 'x');
      })(),
      '100 writes while a watcher does not read (writers must not wait for it)',
    );
    assertEvents(await fastEvents, h.eventsAfter(h.baseRevision), 'the watcher that reads');
    const { events, error } = await slow.failure('WatchOverflow from the watcher that did not read');
    assert.ok(isStoreError(error, 'WatchOverflow'), `expected StoreError WatchOverflow, got ${describeError(error)}`);
    const delivered = [started, ...events];
    const expected = h.eventsAfter(h.baseRevision);
    assert.ok(delivered.length < expected.length, 'the slow watch overflowed before delivering everything');
    assertEvents(delivered, expected.slice(0, delivered.length), 'what the slow watch delivered before overflowing');
    const lastRevision = error.lastRevision;
    assert.equal(lastRevision, item(delivered, delivered.length - 1).revision, 'WatchOverflow.lastRevision is the last revision delivered');
    assert.ok(lastRevision !== undefined);
    const resumed = fx.watch('/', lastRevision);
    assertEvents(await resumed.until(h.lastRevision, 'the resumed watch'), h.eventsAfter(lastRevision), 'resuming from lastRevision');
  });

  test('with progressIntervalMs, an idle watch receives progress events carrying the current revision', async (fx) => {
    const { store } = fx;
    await store.create('/a', '1');
    const current = await store.currentRevision();
    const reader = fx.watch('/', current, { progressIntervalMs: 20 });
    const first = await reader.step('a progress event on an idle watch');
    assert.deepEqual(first.done === true ? 'the watch ended' : plainEvent(first.value), { type: 'progress', revision: current });
    const kv = await store.create('/b', '1');
    let event: WatchEvent;
    do event = await reader.stepValue('the create after progress'); while (event.type === 'progress');
    assertEvents([event], [{ type: 'create', revision: kv.modRevision, kv }], 'the change between progress events');
    do event = await reader.stepValue('a progress event after the create'); while (event.type !== 'progress');
    assert.equal(event.revision, kv.modRevision, 'progress carries the current revision');
  });

  test("progressIntervalMs is measured on the watch's clock: no progress before an idle interval of it, one after", async (fx) => {
    const { store } = fx;
    const clock = new FakeClock();
    const reader = fx.watch('/', await store.currentRevision(), { progressIntervalMs: 60_000, clock });
    await clock.advance(59_999);
    const kv = await store.create('/b', '1');
    assertEvents([await reader.stepValue('the create')], [{ type: 'create', revision: kv.modRevision, kv }], 'no progress before the interval');
    await clock.advance(1); // the interval the create fell in was not idle
    await clock.advance(60_000);
    const progress = await reader.stepValue('progress after an idle interval');
    assert.deepEqual(plainEvent(progress), { type: 'progress', revision: kv.modRevision });
  });

  test('requestProgress sends a caught-up watch a progress event with the current revision, after the changes it was already sent', async (fx) => {
    const { store } = fx;
    const from = await store.currentRevision();
    const reader = fx.watch('/watched/', from);
    const kv = await store.create('/watched/a', '1');
    await store.create('/other/b', '1'); // a change outside the prefix moves the revision too
    const current = await store.currentRevision();
    // The watch pulls its (empty) history when first read, then goes live; a progress request
    // before that may find it not yet live, so ask until one arrives.
    const first = await reader.stepValue('the create under the prefix');
    assertEvents([first], [{ type: 'create', revision: kv.modRevision, kv }], 'the change before the progress request');
    store.requestProgress();
    const progress = await reader.stepValue('the requested progress event');
    assert.deepEqual(plainEvent(progress), { type: 'progress', revision: current });
  });
}
