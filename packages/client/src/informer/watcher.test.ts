import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError, FakeClock } from '@setpoint/api';
import { Watcher, type WatcherEvent, type WatcherOptions } from './watcher.js';
import { cm, FakeListWatch, until, type ConfigMap } from './fake-listwatch.test.js';

function start(lw: FakeListWatch, options: WatcherOptions = {}) {
  const clock = new FakeClock();
  lw.now = () => clock.now();
  const watcher = new Watcher<ConfigMap>(lw, { clock, random: () => 0, ...options });
  const events: WatcherEvent<ConfigMap>[] = [];
  const abort = new AbortController();
  const done = (async () => {
    for await (const e of watcher.events(abort.signal)) events.push(e);
  })();
  const data = () => events.filter((e) => e.type !== 'health');
  const stop = async () => {
    abort.abort();
    await done;
  };
  /** Fires the next timer (the backoff sleep). */
  const fireNext = async () => {
    await until(() => clock.nextDue() !== undefined, 'a pending timer');
    await clock.set(clock.nextDue()!);
  };
  return { clock, watcher, events, data, stop, fireNext };
}

test('lists in pages of 500 at one snapshot, then watches from the listing with bookmarks and a 5–10 minute timeout', async () => {
  const lw = new FakeListWatch();
  lw.objects = Array.from({ length: 1200 }, (_, i) => cm(`c${i}`, i + 1));
  lw.resourceVersion = '1200';
  const w = start(lw, { random: Math.random });
  const watch = await lw.watchNumber(0);
  assert.deepEqual(
    lw.lists.map((l) => [l.limit, l.continue, l.resourceVersion]),
    [
      [500, undefined, undefined],
      [500, '500', undefined],
      [500, '1000', undefined],
    ],
  );
  const data = w.data();
  assert.deepEqual(data[0], { type: 'init' });
  assert.equal(data.filter((e) => e.type === 'initApply').length, 1200);
  assert.deepEqual(data.at(-1), { type: 'initDone', resourceVersion: '1200' });
  assert.equal(watch.options.resourceVersion, '1200');
  assert.equal(watch.options.allowWatchBookmarks, true);
  assert.ok(watch.options.timeoutSeconds! >= 300 && watch.options.timeoutSeconds! < 600, `timeout ${watch.options.timeoutSeconds}`);
  assert.equal(w.watcher.health().state, 'watching');
  await w.stop();
  assert.equal(watch.closed, true);
  assert.equal(w.watcher.health().state, 'stopped');
});

test('a watch that ends resumes from the last resourceVersion seen, bookmarks included, without backoff or duplicates', async () => {
  const lw = new FakeListWatch();
  lw.objects = [cm('a', 5)];
  lw.resourceVersion = '10';
  const w = start(lw);
  const first = await lw.watchNumber(0);
  first.send('ADDED', cm('b', 11)).send('MODIFIED', cm('a', 12)).bookmark(20);
  first.end();
  const second = await lw.watchNumber(1);
  assert.equal(second.options.resourceVersion, '20');
  second.send('DELETED', cm('b', 21));
  await until(() => w.data().length === 6, 'six events');
  assert.deepEqual(
    w.data().map((e) => (e.type === 'apply' || e.type === 'delete' ? `${e.type} ${e.object.metadata.name}@${e.object.metadata.resourceVersion}` : e.type)),
    ['init', 'initApply', 'initDone', 'apply b@11', 'apply a@12', 'delete b@21'],
  );
  assert.equal(w.watcher.resourceVersion, '21');
  assert.equal(lw.lists.length, 1);
  assert.equal(w.watcher.health().restarts, 0);
  await w.stop();
});

test('a transport error resumes the watch from the last resourceVersion after a backoff', async () => {
  const lw = new FakeListWatch();
  lw.resourceVersion = '10';
  const w = start(lw);
  const first = await lw.watchNumber(0);
  first.send('ADDED', cm('a', 11));
  first.fail(new Error('socket hang up'));
  await until(() => w.watcher.health().state === 'backoff', 'backoff');
  assert.equal(lw.watches.length, 1);
  assert.equal(w.clock.nextDue()! - w.clock.now(), 800);
  await w.fireNext();
  const second = await lw.watchNumber(1);
  assert.equal(second.options.resourceVersion, '11');
  const health = w.watcher.health();
  assert.equal(health.restarts, 1);
  assert.equal((health.lastError as Error).message, 'socket hang up');
  assert.equal(health.lastErrorAt, w.clock.now() - 800);
  assert.equal(lw.lists.length, 1);
  await w.stop();
});

test('410 Expired or Gone relists: init, the new listing, initDone, then a watch from it', async () => {
  for (const error of [ApiError.expired('too old resource version: 10 (15)'), ApiError.gone('gone')]) {
    const lw = new FakeListWatch();
    lw.objects = [cm('a', 5), cm('b', 6)];
    lw.resourceVersion = '10';
    const w = start(lw);
    (await lw.watchNumber(0)).fail(error);
    lw.objects = [cm('a', 16)];
    lw.resourceVersion = '20';
    await w.fireNext();
    const second = await lw.watchNumber(1);
    assert.equal(second.options.resourceVersion, '20');
    assert.equal(lw.lists.length, 2);
    const kinds = w.data().map((e) => e.type);
    assert.deepEqual(kinds, ['init', 'initApply', 'initApply', 'initDone', 'init', 'initApply', 'initDone']);
    await w.stop();
  }
});

test('backoff doubles from 800 ms to a 30 s cap and resets after two minutes without errors', async () => {
  const lw = new FakeListWatch();
  const failures = 9;
  for (let i = 0; i < failures; i++) lw.listErrors.push(new ApiError('ServiceUnavailable', 'not now'));
  const w = start(lw);
  for (let i = 1; i <= failures; i++) {
    await until(() => lw.lists.length === i, `list #${i}`);
    await w.fireNext();
  }
  const watch = await lw.watchNumber(0);
  const delays = lw.listTimes.slice(1).map((t, i) => t - lw.listTimes[i]!);
  assert.deepEqual(delays, [800, 1600, 3200, 6400, 12800, 25600, 30000, 30000, 30000]);
  assert.equal(w.watcher.health().restarts, failures);
  // Healthy for three minutes, then a failure: the backoff starts again at 800 ms.
  await w.clock.advance(180_000);
  watch.fail(new Error('connection reset'));
  await until(() => w.watcher.health().state === 'backoff', 'backoff');
  assert.equal(w.clock.nextDue()! - w.clock.now(), 800);
  await w.stop();
});

test('jitter stretches each delay by up to 100%', async () => {
  const lw = new FakeListWatch();
  lw.listErrors.push(new Error('x'), new Error('y'));
  const w = start(lw, { random: () => 0.5 });
  await until(() => w.clock.nextDue() !== undefined, 'first backoff');
  assert.equal(w.clock.nextDue()! - w.clock.now(), 1200);
  await w.fireNext();
  await until(() => lw.lists.length === 2 && w.clock.nextDue() !== undefined, 'second backoff');
  assert.equal(w.clock.nextDue()! - w.clock.now(), 2400);
  await w.stop();
});

test('a watch closed at once without events counts as an error and backs off', async () => {
  const lw = new FakeListWatch();
  const w = start(lw);
  (await lw.watchNumber(0)).end();
  await until(() => w.watcher.health().state === 'backoff', 'backoff');
  assert.match((w.watcher.health().lastError as Error).message, /very short watch/);
  await w.fireNext();
  await lw.watchNumber(1);
  await w.stop();
});

test('a 410 on a continued page makes the next listing unpaged', async () => {
  const lw = new FakeListWatch();
  lw.objects = Array.from({ length: 700 }, (_, i) => cm(`c${i}`, i + 1));
  const real = lw.list.bind(lw);
  let calls = 0;
  lw.list = async (options) => {
    calls++;
    if (calls === 2) {
      lw.lists.push(options);
      throw ApiError.expired('The provided continue parameter is too old to display a consistent list result.');
    }
    return real(options);
  };
  const w = start(lw);
  await w.fireNext();
  await lw.watchNumber(0);
  assert.deepEqual(
    lw.lists.map((l) => [l.limit, l.continue]),
    [
      [500, undefined],
      [500, '500'],
      [undefined, undefined],
    ],
  );
  const kinds = w.data().map((e) => e.type);
  assert.equal(kinds.filter((k) => k === 'init').length, 2);
  assert.equal(kinds.filter((k) => k === 'initApply').length, 500 + 700);
  await w.stop();
});

test('watch-list: initial events up to the initial-events-end bookmark, then changes on the same stream', async () => {
  const lw = new FakeListWatch();
  const w = start(lw, { watchList: true });
  const watch = await lw.watchNumber(0);
  assert.equal(watch.options.sendInitialEvents, true);
  assert.equal(watch.options.resourceVersionMatch, 'NotOlderThan');
  assert.equal(watch.options.allowWatchBookmarks, true);
  assert.equal(watch.options.resourceVersion, undefined);
  watch.send('ADDED', cm('a', 3)).send('ADDED', cm('b', 4)).bookmark(5).bookmark(7, { 'k8s.io/initial-events-end': 'true' });
  watch.send('MODIFIED', cm('a', 8));
  await until(() => w.data().length === 5, 'five events');
  assert.deepEqual(
    w.data().map((e) => e.type),
    ['init', 'initApply', 'initApply', 'initDone', 'apply'],
  );
  assert.deepEqual(w.data()[3], { type: 'initDone', resourceVersion: '7' });
  assert.equal(lw.lists.length, 0);
  assert.equal(lw.watches.length, 1);
  await w.stop();
});

test('watch-list answered with an error falls back to a paged list at once, and stops asking once refused', async () => {
  const lw = new FakeListWatch();
  lw.objects = [cm('a', 3)];
  lw.resourceVersion = '9';
  const w = start(lw, { watchList: true });
  (await lw.watchNumber(0)).fail(ApiError.badRequest('sendInitialEvents is not supported'));
  const watch = await lw.watchNumber(1);
  assert.equal(lw.lists.length, 1);
  assert.equal(lw.lists[0]!.limit, 500);
  assert.equal(watch.options.sendInitialEvents, undefined);
  assert.equal(watch.options.resourceVersion, '9');
  // A later relist lists directly: the server refused watch-list.
  watch.fail(ApiError.expired('too old'));
  await w.fireNext();
  await lw.watchNumber(2);
  assert.equal(lw.lists.length, 2);
  assert.equal(lw.watches[2]!.options.sendInitialEvents, undefined);
  await w.stop();
});

test('selectors and namespace reach every list and watch', async () => {
  const lw = new FakeListWatch();
  const w = start(lw, { namespace: 'ns1', labelSelector: 'app=web', fieldSelector: 'metadata.name!=x' });
  const watch = await lw.watchNumber(0);
  for (const options of [lw.lists[0]!, watch.options]) {
    assert.equal(options.namespace, 'ns1');
    assert.equal(options.labelSelector, 'app=web');
    assert.equal(options.fieldSelector, 'metadata.name!=x');
  }
  await w.stop();
});
