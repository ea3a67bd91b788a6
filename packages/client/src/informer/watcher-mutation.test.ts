/**
 * The watcher's contract at its edges (found by mutation testing, issue #28): quiet watches that
 * close, watch-list failures that are transient, paging after list errors, answers and events
 * without a resourceVersion, a watch() that throws, aborting mid-request, a step() that throws,
 * health reported once per change, cancelled streams. Time runs on the fake clock.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError, FakeClock, recordingLogger, type KubeList } from '@setpoint/api';
import type { ListOptions, WatchOptions } from '../types.js';
import { Watcher, isGone, type WatcherEvent, type WatcherMachineState, type WatcherOptions } from './watcher.js';
import { cm, FakeListWatch, until, type ConfigMap } from './fake-listwatch.test.js';

const KINDS = new Set(['init', 'initApply', 'initDone', 'apply', 'delete', 'health']);

function start(lw: FakeListWatch, options: WatcherOptions = {}, make = (o: WatcherOptions) => new Watcher<ConfigMap>(lw, o)) {
  const clock = new FakeClock();
  lw.now = () => clock.now();
  const watcher = make({ clock, random: () => 0, ...options });
  const events: WatcherEvent<ConfigMap>[] = [];
  const abort = new AbortController();
  let failure: unknown;
  const done = (async () => {
    for await (const e of watcher.events(abort.signal)) events.push(e);
  })().catch((err: unknown) => {
    failure = err;
  });
  const data = () => events.filter((e) => e.type !== 'health');
  const healthStates = () => events.flatMap((e) => (e.type === 'health' ? [e.health.state] : []));
  const stop = async () => {
    abort.abort();
    await done;
    for (const e of events) assert.ok(KINDS.has(e.type), `a watcher event: ${JSON.stringify(e)}`);
  };
  const fireNext = async () => {
    await until(() => clock.nextDue() !== undefined, 'a pending timer');
    await clock.set(clock.nextDue()!);
  };
  return { clock, watcher, events, data, healthStates, stop, fireNext, abort, done, failure: () => failure };
}

const types = (events: readonly WatcherEvent<ConfigMap>[]) => events.map((e) => e.type);

test('a quiet watch open for a second or more that closes resumes at once, without backoff', async () => {
  for (const openMs of [1000, 1500, 60_000]) {
    const lw = new FakeListWatch();
    lw.resourceVersion = '10';
    const w = start(lw);
    const first = await lw.watchNumber(0);
    await w.clock.advance(openMs);
    first.end();
    const second = await lw.watchNumber(1);
    assert.equal(second.options.resourceVersion, '10');
    assert.equal(w.watcher.health().restarts, 0, `open ${openMs} ms`);
    assert.equal(w.watcher.health().lastError, undefined);
    assert.deepEqual(w.healthStates(), ['listing', 'watching']);
    assert.equal(w.clock.pending(), 0);
    assert.equal(lw.lists.length, 1);
    await w.stop();
  }
});

test('a watch closing within a second after an event, or on a watch-list stream after initDone, resumes without backoff', async () => {
  const lw = new FakeListWatch();
  lw.resourceVersion = '10';
  const w = start(lw);
  (await lw.watchNumber(0)).bookmark(11).end();
  assert.equal((await lw.watchNumber(1)).options.resourceVersion, '11');
  assert.equal(w.watcher.health().restarts, 0);
  await w.stop();

  const lw2 = new FakeListWatch();
  const w2 = start(lw2, { watchList: true });
  const initial = await lw2.watchNumber(0);
  initial.bookmark(7, { 'k8s.io/initial-events-end': 'true' });
  initial.end();
  const next = await lw2.watchNumber(1);
  assert.equal(next.options.resourceVersion, '7');
  assert.equal(next.options.sendInitialEvents, undefined);
  assert.equal(w2.watcher.health().restarts, 0);
  await w2.stop();
});

test('a watch closed just under a second without events backs off', async () => {
  const lw = new FakeListWatch();
  const w = start(lw);
  const first = await lw.watchNumber(0);
  await w.clock.advance(999);
  first.end();
  await until(() => w.watcher.health().state === 'backoff', 'backoff');
  assert.equal(w.watcher.health().restarts, 1);
  assert.equal(lw.watches.length, 1);
  await w.stop();
});

test('a transient watch-list failure (5xx, 429, a stream ending before initial-events-end) lists at once and keeps watch-list on', async () => {
  const failures: Array<(watch: Awaited<ReturnType<FakeListWatch['watchNumber']>>) => void> = [
    (watch) => watch.fail(ApiError.serviceUnavailable('not now')),
    (watch) => watch.fail(ApiError.internal(new Error('boom'))),
    (watch) => watch.fail(ApiError.tooManyRequests('slow down', 1)),
    (watch) => watch.fail(new Error('socket hang up')),
    (watch) => watch.fail(Object.assign(new Error('not an API answer'), { code: 400 })),
    (watch) => {
      watch.send('ADDED', cm('a', 3));
      watch.end();
    },
  ];
  for (const [i, fail] of failures.entries()) {
    const lw = new FakeListWatch();
    lw.objects = [cm('a', 3)];
    lw.resourceVersion = '9';
    const logger = recordingLogger();
    const w = start(lw, { watchList: true, logger });
    const initial = await lw.watchNumber(0);
    fail(initial);
    const watch = await lw.watchNumber(1);
    assert.equal(lw.lists.length, 1, `failure #${i}: lists instead`);
    assert.equal(lw.lists[0]!.limit, 500);
    assert.equal(initial.options.signal!.aborted, true, 'the failed watch-list request is cancelled');
    assert.equal(watch.options.sendInitialEvents, undefined);
    assert.equal(watch.options.resourceVersion, '9');
    assert.equal(w.watcher.health().restarts, 0, 'no backoff');
    const line = logger.lines.find((l) => l.message === 'watch-list failed; listing instead');
    assert.ok(line !== undefined && (line.fields as { err?: unknown }).err instanceof Error, `failure #${i}: logged with its error`);
    if (i === failures.length - 1) {
      assert.equal(((line.fields as { err: Error }).err).message, 'watch-list ended before the k8s.io/initial-events-end bookmark');
    }
    // The next relist tries watch-list again: the failure was not a refusal.
    watch.fail(ApiError.expired('too old'));
    await w.fireNext();
    const again = await lw.watchNumber(2);
    assert.equal(again.options.sendInitialEvents, true, `failure #${i}: watch-list stays on`);
    assert.equal(lw.lists.length, 1);
    await w.stop();
  }
});

test('watch-list refusals (400, 403, 404, 405, 406, 415, 422) turn watch-list off for good', async () => {
  for (const code of [400, 403, 404, 405, 406, 415, 422]) {
    const lw = new FakeListWatch();
    const w = start(lw, { watchList: true });
    (await lw.watchNumber(0)).fail(new ApiError('BadRequest', 'no', { code }));
    const watch = await lw.watchNumber(1);
    watch.fail(ApiError.expired('too old'));
    await w.fireNext();
    await lw.watchNumber(2);
    assert.equal(lw.lists.length, 2, `code ${code}`);
    assert.equal(lw.watches[2]!.options.sendInitialEvents, undefined, `code ${code}`);
    await w.stop();
  }
});

test('watch-list: DELETED among the initial events is logged and ignored; other bookmarks and malformed events do not end the listing', async () => {
  const lw = new FakeListWatch();
  const logger = recordingLogger();
  const w = start(lw, { watchList: true, logger });
  const watch = await lw.watchNumber(0);
  const noMetadata = { apiVersion: 'v1', kind: 'ConfigMap', metadata: null } as unknown as ConfigMap;
  watch.send('ADDED', cm('a', 3)).send('MODIFIED', cm('m', 4)).send('DELETED', cm('gone', 4)).send('BOOKMARK', noMetadata).send('DELETED', noMetadata);
  watch.bookmark(5, { 'k8s.io/initial-events-end': 'false' }).bookmark(6, { other: 'true' });
  watch.bookmark(7, { 'k8s.io/initial-events-end': 'true' });
  await until(() => w.data().length === 4, 'init, initApply ×2, initDone');
  assert.deepEqual(w.data(), [
    { type: 'init' },
    { type: 'initApply', object: cm('a', 3) },
    { type: 'initApply', object: cm('m', 4) },
    { type: 'initDone', resourceVersion: '7' },
  ]);
  const line = logger.lines.find((l) => /DELETED event among the initial events/.test(l.message));
  assert.equal(line?.level, 'warn');
  assert.deepEqual(line?.fields, { name: 'gone' });
  assert.equal(lw.lists.length, 0);
  assert.equal(w.watcher.resourceVersion, '7');
  await w.stop();
});

test('watch-list: an initial-events-end bookmark without a resourceVersion falls back to a list at once', async () => {
  const lw = new FakeListWatch();
  lw.resourceVersion = '9';
  const logger = recordingLogger();
  const w = start(lw, { watchList: true, logger });
  const initial = await lw.watchNumber(0);
  initial.send('BOOKMARK', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { annotations: { 'k8s.io/initial-events-end': 'true' } } } as ConfigMap);
  const watch = await lw.watchNumber(1);
  assert.equal(lw.lists.length, 1);
  assert.equal(watch.options.resourceVersion, '9');
  assert.equal(initial.options.signal!.aborted, true);
  assert.equal(w.watcher.health().restarts, 0);
  const line = logger.lines.find((l) => l.message === 'watch-list failed; listing instead');
  assert.match(((line?.fields as { err?: Error }).err as Error).message, /initial-events-end bookmark without a resourceVersion/);
  await w.stop();
});

test('after a non-410 list error, or a 410 on the first page, the retried list stays paged', async () => {
  for (const error of [ApiError.serviceUnavailable('not now'), ApiError.expired('too old'), ApiError.gone('gone')]) {
    const lw = new FakeListWatch();
    lw.listErrors.push(error);
    const w = start(lw, { pageSize: 7 });
    await w.fireNext();
    await lw.watchNumber(0);
    assert.deepEqual(
      lw.lists.map((l) => l.limit),
      [7, 7],
      error.reason,
    );
    await w.stop();
  }
});

test('a non-410 error on a continued page relists paged from the start', async () => {
  const lw = new FakeListWatch();
  lw.objects = [cm('a', 1), cm('b', 2), cm('c', 3)];
  const real = lw.list.bind(lw);
  let calls = 0;
  lw.list = async (options) => {
    if (++calls === 2) {
      lw.lists.push(options);
      throw ApiError.serviceUnavailable('not now');
    }
    return real(options);
  };
  const w = start(lw, { pageSize: 2 });
  await w.fireNext();
  await lw.watchNumber(0);
  assert.deepEqual(
    lw.lists.map((l) => [l.limit, l.continue]),
    [
      [2, undefined],
      [2, '2'],
      [2, undefined],
      [2, '2'],
    ],
  );
  await w.stop();
});

test('isGone: a 410 code, or the reason Expired or Gone', () => {
  assert.equal(isGone(new ApiError('Whatever', 'x', { code: 410 })), true);
  assert.equal(isGone(new ApiError('Expired', 'x', { code: 500 })), true);
  assert.equal(isGone(new ApiError('Gone', 'x', { code: 500 })), true);
  assert.equal(isGone(ApiError.serviceUnavailable('x')), false);
  assert.equal(isGone(Object.assign(new Error('x'), { code: 410, reason: 'Gone' })), false);
});

test('a list answer without metadata.resourceVersion is an error: nothing is applied, the retry lists paged again', async () => {
  const lw = new FakeListWatch();
  lw.objects = [cm('a', 1)];
  const real = lw.list.bind(lw);
  let calls = 0;
  lw.list = async (options) => {
    const list = await real(options);
    return ++calls === 1 ? { ...list, metadata: {} } : list;
  };
  const w = start(lw);
  await until(() => w.watcher.health().state === 'backoff', 'backoff');
  assert.match((w.watcher.health().lastError as Error).message, /list answered without metadata.resourceVersion/);
  assert.equal(w.watcher.resourceVersion, '');
  await w.fireNext();
  await lw.watchNumber(0);
  assert.deepEqual(types(w.data()), ['init', 'init', 'initApply', 'initDone']);
  assert.deepEqual(
    lw.lists.map((l) => l.limit),
    [500, 500],
  );
  await w.stop();
});

test('an empty continue token ends the listing', async () => {
  const lw = new FakeListWatch();
  lw.objects = [cm('a', 1)];
  lw.resourceVersion = '4';
  const real = lw.list.bind(lw);
  lw.list = async (options): Promise<KubeList<ConfigMap>> => {
    const list = await real(options);
    return { ...list, metadata: { ...list.metadata, continue: '' } };
  };
  const w = start(lw);
  await lw.watchNumber(0);
  assert.equal(lw.lists.length, 1);
  assert.deepEqual(w.data().at(-1), { type: 'initDone', resourceVersion: '4' });
  await w.stop();
});

test('a watch event without a string metadata.resourceVersion cancels the watch and relists (paged) after a backoff', async () => {
  const cases: Array<['ADDED' | 'BOOKMARK', unknown]> = [];
  for (const metadata of [{ name: 'x' }, { name: 'x', resourceVersion: 12 }, { name: 'x', resourceVersion: '' }]) cases.push(['ADDED', metadata], ['BOOKMARK', metadata]);
  // A bookmark carries nothing but its resourceVersion: one with malformed metadata has none either.
  for (const metadata of [undefined, null, 'x', []]) cases.push(['BOOKMARK', metadata]);
  {
    for (const [type, metadata] of cases) {
      const lw = new FakeListWatch();
      lw.resourceVersion = '10';
      const logger = recordingLogger();
      const w = start(lw, { logger });
      const first = await lw.watchNumber(0);
      first.send(type, { apiVersion: 'v1', kind: 'ConfigMap', metadata } as unknown as ConfigMap);
      await until(() => w.watcher.health().state === 'backoff', 'backoff');
      assert.equal(first.options.signal!.aborted, true);
      assert.equal((w.watcher.health().lastError as Error).message, `watch ${type} event without metadata.resourceVersion`);
      const warn = logger.lines.find((l) => l.message === 'list/watch failed; retrying');
      assert.equal((warn?.fields as { relist?: boolean }).relist, true);
      assert.equal((warn?.fields as { retryInMs?: number }).retryInMs, 800);
      assert.equal(w.watcher.resourceVersion, '10');
      await w.fireNext();
      await lw.watchNumber(1);
      assert.equal(lw.lists.length, 2);
      assert.equal(lw.lists[1]!.limit, 500);
      assert.deepEqual(types(w.data()), ['init', 'initDone', 'init', 'initDone']);
      await w.stop();
    }
  }
});

test('a malformed watch event (metadata not an object) is handed on, or dropped for DELETED, and the watch goes on', async () => {
  const lw = new FakeListWatch();
  lw.resourceVersion = '10';
  const w = start(lw);
  const watch = await lw.watchNumber(0);
  const bad = { apiVersion: 'v1', kind: 'ConfigMap', metadata: 'x' } as unknown as ConfigMap;
  const noMeta = { apiVersion: 'v1', kind: 'ConfigMap' } as unknown as ConfigMap;
  const arrayMeta = { apiVersion: 'v1', kind: 'ConfigMap', metadata: [] } as unknown as ConfigMap;
  watch.send('ADDED', bad).send('MODIFIED', arrayMeta).send('DELETED', noMeta);
  watch.send('ADDED', null as unknown as ConfigMap).send('ADDED', cm('ok', 11));
  await until(() => w.data().some((e) => e.type === 'apply' && e.object?.metadata?.name === 'ok'), 'the good object');
  assert.deepEqual(w.data().slice(2), [
    { type: 'apply', object: bad },
    { type: 'apply', object: arrayMeta },
    { type: 'apply', object: null },
    { type: 'apply', object: cm('ok', 11) },
  ]);
  assert.equal(w.watcher.resourceVersion, '11');
  assert.equal(w.watcher.health().restarts, 0);
  assert.equal(w.failure(), undefined);
  await w.stop();
});

test('a watch() that throws synchronously is retried after a backoff (and falls back to listing for watch-list)', async () => {
  const lw = new FakeListWatch();
  const real = lw.watch.bind(lw);
  let calls = 0;
  lw.watch = (options: WatchOptions) => {
    if (++calls === 1) throw new Error('watch exploded');
    return real(options);
  };
  const w = start(lw);
  await until(() => w.watcher.health().state === 'backoff', 'backoff');
  assert.equal((w.watcher.health().lastError as Error).message, 'watch exploded');
  await w.fireNext();
  await lw.watchNumber(0);
  assert.equal(lw.lists.length, 1);
  await w.stop();

  const lw2 = new FakeListWatch();
  const real2 = lw2.watch.bind(lw2);
  let calls2 = 0;
  lw2.watch = (options: WatchOptions) => {
    if (++calls2 === 1) throw new Error('watch exploded');
    return real2(options);
  };
  const w2 = start(lw2, { watchList: true });
  await lw2.watchNumber(0);
  assert.equal(lw2.lists.length, 1);
  assert.equal(w2.watcher.health().restarts, 0);
  await w2.stop();
});

test('aborting while a list is in flight stops at once: no backoff, no events from a late answer', async () => {
  for (const settle of ['reject', 'resolve'] as const) {
    const lw = new FakeListWatch();
    lw.objects = [cm('a', 1)];
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const real = lw.list.bind(lw);
    lw.list = async (options: ListOptions) => {
      lw.lists.push(options);
      await gate;
      if (settle === 'reject') throw new DOMException('aborted', 'AbortError');
      return real(options);
    };
    const w = start(lw);
    await until(() => lw.lists.length === 1, 'the list call');
    w.abort.abort();
    release();
    await w.done;
    assert.deepEqual(types(w.data()), ['init'], settle);
    assert.deepEqual(w.healthStates(), ['listing']);
    assert.equal(w.watcher.health().restarts, 0);
    assert.equal(w.watcher.health().state, 'stopped');
    assert.equal(w.clock.pending(), 0);
  }
});

test('aborting while a watch is in flight stops without backoff or error', async () => {
  const lw = new FakeListWatch();
  const w = start(lw);
  const watch = await lw.watchNumber(0);
  watch.fail(new Error('connection reset')); // queued, but the abort comes first
  w.abort.abort();
  await w.done;
  assert.equal(w.watcher.health().restarts, 0);
  assert.equal(w.watcher.health().lastError, undefined);
  assert.deepEqual(w.healthStates(), ['listing', 'watching']);
});

test('aborting during the backoff ends the stream', async () => {
  const lw = new FakeListWatch();
  lw.listErrors.push(new Error('x'));
  const w = start(lw);
  await until(() => w.clock.pending() === 1, 'the backoff timer');
  await w.stop();
  assert.equal(lw.lists.length, 1);
  assert.equal(w.watcher.health().state, 'stopped');
  assert.equal(w.failure(), undefined);
});

class ThrowingWatcher extends Watcher<ConfigMap> {
  constructor(
    lw: FakeListWatch,
    options: WatcherOptions,
    readonly whenAborted: boolean,
  ) {
    super(lw, options);
  }
  override async step(state: WatcherMachineState<ConfigMap>, signal: AbortSignal): ReturnType<Watcher<ConfigMap>['step']> {
    if (state.phase !== 'initPage') return super.step(state, signal);
    if (this.whenAborted) await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
    throw new TypeError('a bug in step');
  }
}

test('a step() that throws ends events() with that error (never silently); after an abort it just ends', async () => {
  const lw = new FakeListWatch();
  const w = start(lw, {}, (o) => new ThrowingWatcher(lw, o, false));
  await w.done;
  assert.equal((w.failure() as Error).message, 'a bug in step');
  assert.equal(w.watcher.health().state, 'stopped');

  const lw2 = new FakeListWatch();
  const w2 = start(lw2, {}, (o) => new ThrowingWatcher(lw2, o, true));
  await until(() => w2.data().length === 1, 'init');
  await w2.stop();
  assert.equal(w2.failure(), undefined);
  assert.equal(w2.watcher.health().state, 'stopped');
});

test('health is reported once per change: listing, backoff, listing, watching; none for a resumed watch', async () => {
  const lw = new FakeListWatch();
  lw.listErrors.push(new Error('x'));
  const w = start(lw);
  await w.fireNext();
  const first = await lw.watchNumber(0);
  await w.clock.advance(5000);
  first.send('ADDED', cm('a', 11)).end();
  const second = await lw.watchNumber(1);
  second.send('ADDED', cm('b', 12));
  await until(() => w.data().length === 5, 'the events');
  assert.deepEqual(w.healthStates(), ['listing', 'backoff', 'listing', 'watching']);
  const health = w.events.filter((e) => e.type === 'health').at(-1);
  assert.deepEqual(health, { type: 'health', health: w.watcher.health() });
  await w.stop();
});

test('a consumer that stops reading cancels the open watch', async () => {
  for (const watchList of [false, true]) {
    const lw = new FakeListWatch();
    const watcher = new Watcher<ConfigMap>(lw, { clock: new FakeClock(), random: () => 0, watchList });
    const abort = new AbortController();
    const seen: string[] = [];
    const reading = (async () => {
      for await (const e of watcher.events(abort.signal)) {
        seen.push(e.type);
        if (e.type === 'apply' || e.type === 'initApply') break;
      }
    })();
    const watch = await lw.watchNumber(0);
    watch.send('ADDED', cm('a', 3));
    await reading;
    assert.equal(watch.options.signal!.aborted, true, `watchList ${watchList}`);
    assert.equal(abort.signal.aborted, false);
    assert.equal(watcher.health().state, 'stopped');
  }
});

test('a watch that fails cancels its request; a non-410 error resumes from the last resourceVersion, logged as no relist', async () => {
  const lw = new FakeListWatch();
  lw.resourceVersion = '10';
  const logger = recordingLogger();
  const w = start(lw, { logger });
  const first = await lw.watchNumber(0);
  first.fail(ApiError.serviceUnavailable('not now'));
  await until(() => w.watcher.health().state === 'backoff', 'backoff');
  assert.equal(first.options.signal!.aborted, true);
  const warn = logger.lines.find((l) => l.message === 'list/watch failed; retrying');
  assert.equal((warn?.fields as { relist?: boolean }).relist, false);
  await w.fireNext();
  assert.equal((await lw.watchNumber(1)).options.resourceVersion, '10');
  assert.equal(lw.lists.length, 1);
  await w.stop();
});

test('watch timeouts: random is clamped to [0, 0.999] and scales minWatchTimeoutSeconds, for watches and watch-lists', async () => {
  for (const [random, expected] of [
    [0, 60],
    [0.5, 90],
    [1, 119],
    [-3, 60],
    [7, 119],
  ] as const) {
    for (const watchList of [false, true]) {
      const lw = new FakeListWatch();
      const w = start(lw, { random: () => random, minWatchTimeoutSeconds: 60, watchList });
      const watch = await lw.watchNumber(0);
      assert.equal(watch.options.timeoutSeconds, expected, `random ${random}, watchList ${watchList}`);
      await w.stop();
    }
  }
});

test('empty or absent selectors and namespace are left out of lists and watches', async () => {
  for (const selectors of [{ namespace: '', labelSelector: '', fieldSelector: '' }, {}]) {
    const lw = new FakeListWatch();
    const w = start(lw, selectors);
    const watch = await lw.watchNumber(0);
    for (const options of [lw.lists[0]!, watch.options]) {
      assert.equal('namespace' in options, false);
      assert.equal('labelSelector' in options, false);
      assert.equal('fieldSelector' in options, false);
    }
    assert.equal('continue' in lw.lists[0]!, false);
    await w.stop();
  }
});

test('watch-list after a 410 on a continued page of its fallback list lists unpaged, not by watch-list', async () => {
  const lw = new FakeListWatch();
  lw.objects = [cm('a', 1), cm('b', 2), cm('c', 3)];
  const real = lw.list.bind(lw);
  let calls = 0;
  lw.list = async (options) => {
    if (++calls === 2) {
      lw.lists.push(options);
      throw ApiError.expired('continue too old');
    }
    return real(options);
  };
  const w = start(lw, { watchList: true, pageSize: 2 });
  (await lw.watchNumber(0)).fail(ApiError.serviceUnavailable('not now'));
  await w.fireNext();
  const watch = await lw.watchNumber(1);
  assert.deepEqual(
    lw.lists.map((l) => [l.limit, l.continue]),
    [
      [2, undefined],
      [2, '2'],
      [undefined, undefined],
    ],
  );
  assert.equal(watch.options.sendInitialEvents, undefined);
  await w.stop();
});

test('a 410 on a watch relists paged, with the configured page size', async () => {
  const lw = new FakeListWatch();
  const w = start(lw, { pageSize: 3 });
  (await lw.watchNumber(0)).fail(ApiError.expired('too old'));
  await w.fireNext();
  await lw.watchNumber(1);
  assert.deepEqual(
    lw.lists.map((l) => l.limit),
    [3, 3],
  );
  await w.stop();
});

test('a watcher not started is idle, with no error, no restarts and no resourceVersion', () => {
  const watcher = new Watcher<ConfigMap>(new FakeListWatch());
  assert.deepEqual(watcher.health(), { state: 'idle', lastError: undefined, lastErrorAt: undefined, restarts: 0 });
  assert.equal(watcher.resourceVersion, '');
});
