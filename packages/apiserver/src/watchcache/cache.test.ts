import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { describe, it } from 'node:test';
import { ApiError, FakeClock, recordingLogger, type KubeObject } from '@setpoint/api';
import { MemoryStore, StoreError, type Store, type WatchEvent } from '@setpoint/store';
import { configMapResource as configmaps } from '../registry/kinds/configmap/configmap.js';
import { deployments } from '../registry/kinds/apps/deployment.js';
import { namespaceResource as namespaces } from '../registry/kinds/namespace/namespace.js';
import type { ResourceDef } from '../registry/types.js';
import { encode, objectKey, StoredObjectDecoder } from '../storage/codec.js';
import { DEFAULT_MAX_QUEUED_BYTES, expiredError, WatchCache, WatchLine, type WatchCacheOptions } from './cache.js';
import { namespaceFilter, parseFilter } from './filter.js';
import type { EventQueue } from './queue.js';

function cm(name: string, labels: Record<string, string> = {}, data: Record<string, string> = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'ns', labels }, data };
}

async function put(store: MemoryStore, obj: KubeObject): Promise<number> {
  const key = objectKey(configmaps, 'ns', obj.metadata.name!);
  const current = await store.get(key);
  const kv = current === undefined ? await store.create(key, encode(obj)) : await store.update(key, encode(obj), current.modRevision);
  return kv.modRevision;
}

/** Reads the next line from a queue, failing the test after `ms`. */
async function next(queue: EventQueue<WatchLine>, ms = 2000): Promise<WatchLine> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no watch line within ${ms} ms`)), ms);
  });
  try {
    const result = await Promise.race([queue.next(), timeout]);
    assert.equal(result.done, false, 'the watch ended');
    return result.value as WatchLine;
  } finally {
    clearTimeout(timer);
  }
}

function rvOf(line: WatchLine): number {
  return Number((line.object as KubeObject).metadata.resourceVersion);
}

/** Reads the next line, which must be of `type` at resourceVersion `rv`. */
async function nextIs(queue: EventQueue<WatchLine>, type: string, rv: number, message?: string): Promise<WatchLine> {
  const line = await next(queue);
  assert.deepEqual([line.type, rvOf(line)], [type, rv], message);
  return line;
}

describe('WatchCache', () => {
  it('serves a watch from any resourceVersion inside the window without replaying what came before', async () => {
    await withCache({}, async (cache, store) => {
      const revs: number[] = [];
      for (let i = 0; i < 5; i++) revs.push(await put(store, cm(`c${i}`)));
      const queue = await cache.watch({ resourceVersion: revs[1], filter: namespaceFilter('') });
      for (const expected of revs.slice(2)) assert.equal(rvOf(await next(queue)), expected);
      queue.end();
    });
  });

  it('resumes a watch older than its window from the store history, and answers 410 below the compact revision', async () => {
    await withCache({ windowSize: 2 }, async (cache, store) => {
      const revs: number[] = [];
      for (let i = 0; i < 6; i++) revs.push(await put(store, cm('same', {}, { v: String(i) })));
      const queue = await cache.watch({ resourceVersion: revs[0], filter: namespaceFilter('') });
      for (const expected of revs.slice(1)) {
        const line = await next(queue);
        assert.equal(line.type, 'MODIFIED');
        assert.equal(rvOf(line), expected);
      }
      queue.end();
      await store.compact(revs[3]!);
      const stale = await cache.watch({ resourceVersion: revs[1], filter: namespaceFilter('') });
      await assert.rejects(stale.next(), (err: unknown) => err instanceof ApiError && err.code === 410 && err.reason === 'Expired');
    });
  });

  it('shows a selector watcher an object that stops matching as DELETED and one that starts matching as ADDED', async () => {
    await withCache({}, async (cache, store) => {
      const start = await put(store, cm('x', { app: 'a' }));
      const queue = await cache.watch({ resourceVersion: start, filter: parseFilter(configmaps, 'ns', 'app=a') });
      await put(store, cm('x', { app: 'b' }));
      assert.equal((await next(queue)).type, 'DELETED');
      await put(store, cm('x', { app: 'a' }));
      assert.equal((await next(queue)).type, 'ADDED');
      queue.end();
    });
  });

  it('closes a watcher that stops reading once maxQueued events wait, without holding up the writers or other watchers', async () => {
    await withCache({ maxQueued: 10 }, async (cache, store) => {
      const from = await store.currentRevision();
      const stuck = await cache.watch({ resourceVersion: from, filter: namespaceFilter('') });
      const reader = await cache.watch({ resourceVersion: from, filter: namespaceFilter('') });
      const seen: number[] = [];
      const reading = (async () => {
        for await (const line of reader) {
          seen.push(rvOf(line));
          if (seen.length === 50) return;
        }
      })();
      for (let i = 0; i < 50; i++) await put(store, cm(`c${i}`));
      await within(reading, 10_000, 'the reading watcher did not get 50 events');
      assert.equal(seen.length, 50, 'the reading watcher got every event');
      assert.equal(stuck.closed, true, 'the stuck watcher was cut off');
      assert.equal(cache.watcherCount, 0);
      // It can resume from the last resourceVersion it received (none here: from `from`).
      const resumed = await cache.watch({ resourceVersion: from, filter: namespaceFilter('') });
      assert.equal(rvOf(await next(resumed)), from + 1);
      resumed.end();
    });
  });

  it('closes a watcher whose backlog passes maxQueuedBytes and drops it from the watcher set, while a reader under the same load gets every event', async () => {
    // Events of ~1 KiB; 8 KiB of backlog at most; the item bound far away.
    await withCache({ maxQueuedBytes: 8 * 1024, maxQueued: 10_000 }, async (cache, store) => {
      const from = await store.currentRevision();
      const stuck = await cache.watch({ resourceVersion: from, filter: namespaceFilter('') });
      const reader = await cache.watch({ resourceVersion: from, filter: namespaceFilter('') });
      const seen: number[] = [];
      const reading = (async () => {
        for await (const line of reader) {
          seen.push(rvOf(line));
          if (seen.length === 50) return;
        }
      })();
      const revs: number[] = [];
      for (let i = 0; i < 50; i++) {
        revs.push(await put(store, cm(`c${i}`, {}, { blob: 'x'.repeat(1000) })));
        await new Promise((resolve) => setImmediate(resolve)); // the reader keeps up
      }
      await within(reading, 10_000, 'the reading watcher did not get 50 events');
      assert.deepEqual(seen, revs, 'the reading watcher got every event, in order');
      assert.equal(stuck.closed, true, 'the watcher that did not read was closed');
      assert.equal(stuck.bytes, 0, 'its backlog was dropped');
      assert.equal(cache.terminatedWatchers, 1);
      // Its stream just ends (kube-apiserver's cacher closes it without an ERROR event).
      assert.deepEqual(await stuck.next(), { value: undefined, done: true });
      assert.equal(cache.watcherCount, 0, 'both watchers left the set (the reader by returning)');
    });
  });

  it('a watcher closed for falling behind resumes from the last resourceVersion it read, from the window or the store, and gets 410 once that is compacted', async () => {
    await withCache({ maxQueuedBytes: 4 * 1024, windowSize: 5 }, async (cache, store) => {
      const from = await store.currentRevision();
      const stuck = await cache.watch({ resourceVersion: from, filter: namespaceFilter('') });
      const revs: number[] = [];
      revs.push(await put(store, cm('c0', {}, { blob: 'x'.repeat(1000) })));
      revs.push(await put(store, cm('c1', {}, { blob: 'x'.repeat(1000) })));
      const lastSeen = rvOf(await next(stuck));
      assert.equal(lastSeen, revs[0]);
      for (let i = 2; i < 20; i++) revs.push(await put(store, cm(`c${i}`, {}, { blob: 'x'.repeat(1000) })));
      assert.equal(stuck.closed, true);
      // The window holds the last 5 changes: this resume is served from the store's history.
      const resumed = await cache.watch({ resourceVersion: lastSeen, filter: namespaceFilter('') });
      for (const expected of revs.slice(1)) assert.equal(rvOf(await next(resumed)), expected);
      resumed.end();
      await store.compact(revs[10]!);
      const expired = await cache.watch({ resourceVersion: lastSeen, filter: namespaceFilter('') });
      await assert.rejects(expired.next(), (err: unknown) => err instanceof ApiError && err.code === 410);
    });
  });

  it('streams initial events (resourceVersion 0, sendInitialEvents) as the watcher reads, however much larger than maxQueuedBytes the list is', async () => {
    await withCache({ maxQueuedBytes: 4 * 1024, start: false }, async (cache, store) => {
      for (let i = 0; i < 100; i++) await put(store, cm(`c${String(i).padStart(3, '0')}`, {}, { blob: 'x'.repeat(1000) }));
      await cache.start();
      for (const options of [{ resourceVersion: 0 }, { resourceVersion: undefined, sendInitialEvents: true }]) {
        const count = cache.size;
        const queue = await cache.watch({ ...options, filter: namespaceFilter('') });
        assert.ok(queue.bytes < 1024, `nothing of the list is encoded ahead of the reader (${queue.bytes} bytes held)`);
        const names = new Set<string>();
        for (let i = 0; i < count; i++) {
          const line = await next(queue);
          assert.equal(line.type, 'ADDED');
          names.add((line.object as KubeObject).metadata.name!);
        }
        assert.equal(names.size, count);
        if (options.sendInitialEvents === true) assert.equal((await next(queue)).type, 'BOOKMARK');
        const rv = await put(store, cm(`after-${count}`));
        assert.equal(rvOf(await next(queue)), rv, 'then the changes after the list');
        queue.end();
      }
    });
  });

  it('replays history older than its window at the reader\'s pace, however long, without cutting the reader off', async () => {
    // Found by the durability fault test: a client resuming more than maxQueued events back got
    // "fell too far behind" (429) while reading as fast as it could, because the replay from the
    // store was pulled faster than the response was written.
    await withCache({ windowSize: 2, maxQueued: 10, start: false }, async (cache, store) => {
      const from = await put(store, cm('first'));
      await cache.start();
      for (let i = 0; i < 100; i++) await put(store, cm(`c${i}`));
      const queue = await cache.watch({ resourceVersion: from, filter: namespaceFilter('') });
      for (let i = 1; i <= 100; i++) {
        assert.equal(rvOf(await next(queue)), from + i);
        await new Promise((resolve) => setImmediate(resolve)); // a reader slower than the replay
      }
      queue.end();
    });
  });

  it('waits for a resourceVersion it has not reached yet by asking the store for progress', async () => {
    await withCache({ bookmarkIntervalMs: 3_600_000, waitForFreshMs: 2000 }, async (cache, store) => {
      // A write to another kind moves the global revision; the configmap cache sees no event for it.
      await store.create('/registry/core/secrets/ns/s', '{"metadata":{"name":"s","namespace":"ns"}}');
      const current = await store.currentRevision();
      const { rv } = await cache.list(namespaceFilter(''), current);
      assert.equal(rv, current);
    });
  });
});

function cmIn(namespace: string, name: string, labels: Record<string, string> = {}, data: Record<string, string> = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace, labels }, data };
}

async function putIn(store: Store, obj: KubeObject): Promise<number> {
  const key = objectKey(configmaps, obj.metadata.namespace ?? '', obj.metadata.name!);
  const current = await store.get(key);
  const kv = current === undefined ? await store.create(key, encode(obj)) : await store.update(key, encode(obj), current.modRevision);
  return kv.modRevision;
}

async function del(store: Store, namespace: string, name: string): Promise<number> {
  return (await store.delete(objectKey(configmaps, namespace, name))).revision;
}

/** `p`, or a failure after `ms`. */
async function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([p, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Waits for `cond` with a deadline. */
async function until(cond: () => boolean, what: string, ms = 2000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) assert.fail(`${what}: not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

const obj = (line: WatchLine): KubeObject => line.object as KubeObject;

/** What `withCache` sets up: the cache's options, plus its kind (configmaps unless told) and whether to start it first (yes unless `start: false`). */
type CacheSetup = WatchCacheOptions & { def?: ResourceDef; start?: boolean };

/** A cache of `setup.def` on `store`, started unless `setup.start` is false; stopped, and `close` run, after `fn`. */
async function runCache(store: Store, close: () => Promise<void>, setup: CacheSetup, fn: (cache: WatchCache) => Promise<void>): Promise<void> {
  const { def = configmaps, start = true, ...options } = setup;
  const cache = new WatchCache(store, def, options);
  try {
    if (start) await cache.start();
    await fn(cache);
  } finally {
    cache.stop();
    await close();
  }
}

/** A cache on a fresh memory store (or `store`), started unless `start: false`; both stopped after `fn`. */
async function withCache(setup: CacheSetup, fn: (cache: WatchCache, store: MemoryStore) => Promise<void>, store = new MemoryStore()): Promise<void> {
  await runCache(store, () => store.close(), setup, (cache) => fn(cache, store));
}

/** As `withCache`, on a fresh memory store wrapped by failingOnce: `fn` gets the cache, the memory store and the switches. */
async function withFaultyCache(setup: CacheSetup, fn: (cache: WatchCache, base: MemoryStore, faulty: FaultyStore) => Promise<void>): Promise<void> {
  const base = new MemoryStore();
  const faulty = failingOnce(base);
  await runCache(faulty.store, () => base.close(), setup, (cache) => fn(cache, base, faulty));
}

/** A store wrapped by failingOnce, and the switches that make it fail. */
interface FaultyStore {
  readonly store: Store;
  fail(err: Error, which?: number, swallow?: boolean): void;
  failList(err: Error): void;
  /** Watches opened so far. */
  watches: number;
  /** Lists made so far. */
  lists: number;
}

/**
 * A store whose watches can be made to fail: `fail(err)` makes the next read of a watch (the
 * latest one opened, or watch number `which`) throw `err`, once. Reads already waiting are not
 * affected: the failure comes on the read after the next change.
 */
function failingOnce(store: MemoryStore): FaultyStore {
  let pending: { err: Error; which: number; swallow: boolean } | undefined;
  let listError: Error | undefined;
  const state: FaultyStore = {
    watches: 0,
    lists: 0,
    /** With `swallow`, the failing read first takes the next change and loses it. */
    fail(err: Error, which = state.watches - 1, swallow = false) {
      pending = { err, which, swallow };
    },
    /** The next list fails with `err`. */
    failList(err: Error) {
      listError = err;
    },
    store: new Proxy(store, {
      get(target, prop, receiver) {
        if (prop === 'watch') {
          return (prefix: string, from: number, options?: Parameters<Store['watch']>[2]): AsyncIterableIterator<WatchEvent> => {
            const index = state.watches++;
            const inner = target.watch(prefix, from, options);
            return {
              [Symbol.asyncIterator]() {
                return this;
              },
              async next() {
                if (pending !== undefined && pending.which === index) {
                  const { err, swallow } = pending;
                  pending = undefined;
                  if (swallow) await inner.next();
                  await inner.return?.();
                  throw err;
                }
                return inner.next();
              },
              return: () => inner.return?.() ?? Promise.resolve({ value: undefined, done: true }),
            };
          };
        }
        if (prop === 'list') {
          return (...args: Parameters<Store['list']>) => {
            state.lists++;
            const err = listError;
            listError = undefined;
            return err === undefined ? target.list(...args) : Promise.reject(err);
          };
        }
        const value: unknown = Reflect.get(target, prop, receiver);
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    }) as Store,
  };
  return state;
}

describe('WatchCache (behaviour)', () => {
  it('lists the objects passing the filter, sorted by key, at the revision it reflects', async () => {
    await withCache({}, async (cache, store) => {
      await putIn(store, cmIn('b', 'z', { app: 'x' }));
      await putIn(store, cmIn('a', 'y'));
      await putIn(store, cmIn('a', 'x', { app: 'x' }));
      const last = await putIn(store, cmIn('b', 'a'));
      const all = await cache.list(namespaceFilter(''), last);
      assert.equal(all.rv, last);
      assert.deepEqual(
        all.items.map((o) => `${o.metadata.namespace}/${o.metadata.name}`),
        ['a/x', 'a/y', 'b/a', 'b/z'],
      );
      const inA = await cache.list(namespaceFilter('a'));
      assert.deepEqual(inA.items.map((o) => o.metadata.name), ['x', 'y']);
      const labelled = await cache.list(parseFilter(configmaps, '', 'app=x'));
      assert.deepEqual(labelled.items.map((o) => o.metadata.name), ['x', 'z']);
      assert.equal(cache.size, 4);
      assert.equal(cache.snapshot().length, 4);
      assert.equal(cache.get('a', 'x')?.metadata.labels?.['app'], 'x');
      assert.equal(cache.get('a', 'z'), undefined);
    });
  });

  it('loads a kind of more than one page (1000 objects) completely, at one revision', async () => {
    const store = new MemoryStore();
    let last = 0;
    for (let i = 0; i < 1205; i++) last = await putIn(store, cmIn('ns', `c${String(i).padStart(4, '0')}`));
    await store.create('/registry/core/secrets/ns/s', '{"metadata":{"name":"s","namespace":"ns"}}');
    const faulty = failingOnce(store);
    const cache = new WatchCache(faulty.store, configmaps);
    try {
      await cache.start();
      assert.equal(faulty.lists, 2, 'two pages of at most 1000');
      assert.equal(cache.size, 1205);
    } finally {
      cache.stop();
    }
    await withCache(
      {},
      async (cache) => {
        assert.equal(cache.size, 1205);
        const { items, rv } = await cache.list(namespaceFilter(''));
        assert.equal(items.length, 1205);
        assert.ok(rv >= last, `the list reflects revision ${rv} >= ${last}`);
        assert.equal(items.at(-1)?.metadata.name, 'c1204');
      },
      store,
    );
  });

  it('a list or watch for a resourceVersion the cache does not reach within waitForFreshMs (3 s by default) fails with 504 Timeout', async () => {
    const clock = new FakeClock();
    await withCache({ clock }, async (cache, store) => {
      const current = await putIn(store, cmIn('ns', 'a'));
      await within(cache.list(namespaceFilter(''), current), 2000, 'the cache did not reach the write');
      const listing = cache.list(namespaceFilter(''), current + 10);
      let settled = false;
      listing.then(
        () => (settled = true),
        () => (settled = true),
      );
      await clock.advance(2_999);
      assert.equal(settled, false, 'it waits the whole waitForFreshMs');
      await clock.advance(1);
      await assert.rejects(listing, (err: unknown) => {
        assert.ok(err instanceof ApiError);
        assert.equal(err.code, 504);
        assert.equal(err.reason, 'Timeout');
        assert.equal(err.message, `Timeout: Too large resource version: ${current + 10}, current: ${current}`);
        assert.deepEqual(err.details?.causes, [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }]);
        assert.equal(err.details?.retryAfterSeconds, 1);
        return true;
      });
      const watching = assert.rejects(cache.watch({ resourceVersion: current + 10, filter: namespaceFilter('') }), (err: unknown) => err instanceof ApiError && err.code === 504);
      await clock.advance(3_000);
      await watching;
      assert.equal(cache.watcherCount, 0);
    });
  });

  it('a watch from a resourceVersion written but not yet seen waits for it, then sends only what follows', async () => {
    await withCache({}, async (cache, store) => {
      await putIn(store, cmIn('ns', 'a'));
      const rv = await putIn(store, cmIn('ns', 'b'));
      const queue = await cache.watch({ resourceVersion: rv, filter: namespaceFilter('') });
      assert.equal(cache.rv >= rv, true, 'the cache reached it before the watch started');
      const after = await putIn(store, cmIn('ns', 'c'));
      const line = await next(queue);
      assert.equal(line.type, 'ADDED');
      assert.equal(rvOf(line), after);
      queue.end();
    });
  });

  it('stop() ends every watch and releases a list waiting for a resourceVersion', async () => {
    await withCache({ waitForFreshMs: 60_000 }, async (cache) => {
      const queue = await cache.watch({ resourceVersion: 0, filter: namespaceFilter('') });
      const waiting = cache.list(namespaceFilter(''), 1_000);
      await new Promise((resolve) => setImmediate(resolve));
      cache.stop();
      assert.deepEqual(await within(queue.next(), 2000, 'the watch did not end'), { value: undefined, done: true });
      const { items } = await within(waiting, 2000, 'the waiting list was not released');
      assert.deepEqual(items, []);
      // Stopped: nothing to wait for any more.
      assert.deepEqual((await within(cache.list(namespaceFilter(''), 5_000), 2000, 'list after stop')).items, []);
    });
  });

  it('sends DELETED with the last state at the deletion resourceVersion, and forgets the object', async () => {
    await withCache({}, async (cache, store) => {
      const from = await putIn(store, cmIn('ns', 'x', {}, { k: 'last' }));
      const queue = await cache.watch({ resourceVersion: from, filter: namespaceFilter('') });
      const deletedAt = await del(store, 'ns', 'x');
      const line = await next(queue);
      assert.equal(line.type, 'DELETED');
      assert.equal(rvOf(line), deletedAt);
      assert.deepEqual((obj(line) as KubeObject & { data: unknown }).data, { k: 'last' });
      assert.equal(cache.get('ns', 'x'), undefined);
      assert.equal(cache.size, 0);
      assert.equal(cache.rv, deletedAt);
      queue.end();
    });
  });

  it('fans changes out by namespace: a namespace watcher sees only its own, a cluster-wide one sees all', async () => {
    await withCache({}, async (cache, store) => {
      const from = await store.currentRevision();
      const inA = await cache.watch({ resourceVersion: from, filter: namespaceFilter('a') });
      const inA2 = await cache.watch({ resourceVersion: from, filter: namespaceFilter('a') });
      const inB = await cache.watch({ resourceVersion: from, filter: namespaceFilter('b') });
      const everywhere = await cache.watch({ resourceVersion: from, filter: namespaceFilter('') });
      assert.equal(cache.watcherCount, 4);
      const ra = await putIn(store, cmIn('a', 'x'));
      const rb = await putIn(store, cmIn('b', 'y'));
      assert.equal(rvOf(await next(inA)), ra);
      assert.equal(rvOf(await next(inB)), rb, 'b saw nothing of a');
      assert.deepEqual([rvOf(await next(everywhere)), rvOf(await next(everywhere))], [ra, rb]);
      // One of a's watchers leaves: the other still gets a's changes.
      assert.equal(rvOf(await next(inA2)), ra);
      inA2.end();
      assert.equal(cache.watcherCount, 3);
      const ra2 = await putIn(store, cmIn('a', 'x', { v: '2' }));
      assert.equal(rvOf(await next(inA)), ra2);
      assert.equal(rvOf(await next(everywhere)), ra2);
      const rb2 = await putIn(store, cmIn('b', 'y', { v: '2' }));
      assert.equal(rvOf(await next(inB)), rb2, "b's watcher saw nothing of a's second change");
      // The whole namespace goes, then a new watcher of it works again.
      inA.end();
      const inAagain = await cache.watch({ resourceVersion: rb2, filter: namespaceFilter('a') });
      const ra3 = await putIn(store, cmIn('a', 'x', { v: '3' }));
      assert.equal(rvOf(await next(inAagain)), ra3);
      for (const q of [inB, everywhere, inAagain]) q.end();
      assert.equal(cache.watcherCount, 0);
    });
  });

  it('with selectors, watchers of different selectors each get their own view of the same change', async () => {
    await withCache({}, async (cache, store) => {
      const from = await putIn(store, cmIn('ns', 'x', { app: 'a' }));
      const wantA = await cache.watch({ resourceVersion: from, filter: parseFilter(configmaps, 'ns', 'app=a') });
      const wantB = await cache.watch({ resourceVersion: from, filter: parseFilter(configmaps, 'ns', 'app=b') });
      const wantA2 = await cache.watch({ resourceVersion: from, filter: parseFilter(configmaps, '', 'app=a') });
      const rv = await putIn(store, cmIn('ns', 'x', { app: 'b' }));
      const [a, b, a2] = [await next(wantA), await next(wantB), await next(wantA2)];
      assert.deepEqual([a.type, b.type, a2.type], ['DELETED', 'ADDED', 'DELETED']);
      assert.deepEqual([rvOf(a), rvOf(b)], [rv, rv]);
      assert.equal(a.toJSON(), a2.toJSON());
      const rv2 = await putIn(store, cmIn('ns', 'x', { app: 'b', more: 'yes' }));
      const modified = await next(wantB);
      assert.equal(modified.type, 'MODIFIED');
      assert.equal(rvOf(modified), rv2);
      const back = await putIn(store, cmIn('ns', 'x', { app: 'a' }));
      assert.equal((await next(wantA)).type, 'ADDED', 'a, which saw nothing of the MODIFIED it does not match');
      assert.equal(rvOf(await next(wantA2)), back);
      assert.equal((await next(wantB)).type, 'DELETED');
      for (const q of [wantA, wantB, wantA2]) q.end();
    });
  });

  it('replays the window through selectors as well: DELETED when an object stopped matching', async () => {
    await withCache({}, async (cache, store) => {
      const from = await putIn(store, cmIn('ns', 'x', { app: 'a' }));
      await putIn(store, cmIn('ns', 'other', { app: 'z' }));
      const stopped = await putIn(store, cmIn('ns', 'x', { app: 'b' }));
      const started = await putIn(store, cmIn('ns', 'y', { app: 'a' }));
      await cache.list(namespaceFilter(''), started);
      const queue = await cache.watch({ resourceVersion: from, filter: parseFilter(configmaps, 'ns', 'app=a') });
      const l1 = await next(queue);
      const l2 = await next(queue);
      assert.deepEqual([l1.type, rvOf(l1), l2.type, rvOf(l2)], ['DELETED', stopped, 'ADDED', started]);
      queue.end();
    });
  });

  it('sends the current state as ADDED for resourceVersion 0, through the filter, then the changes (no bookmark unless asked)', async () => {
    await withCache({}, async (cache, store) => {
      await putIn(store, cmIn('ns', 'a', { app: 'x' }));
      await putIn(store, cmIn('ns', 'b', { app: 'y' }));
      const rv = await putIn(store, cmIn('other', 'c', { app: 'x' }));
      await cache.list(namespaceFilter(''), rv);
      const queue = await cache.watch({ resourceVersion: 0, filter: parseFilter(configmaps, 'ns', 'app=x') });
      const first = await next(queue);
      assert.equal(first.type, 'ADDED');
      assert.equal(obj(first).metadata.name, 'a');
      const after = await putIn(store, cmIn('ns', 'd', { app: 'x' }));
      await nextIs(queue, 'ADDED', after, 'no bookmark in between');
      queue.end();
    });
  });

  it('watch-list (sendInitialEvents) ends the initial events with a bookmark at the revision they reflect, also from a resourceVersion', async () => {
    await withCache({}, async (cache, store) => {
      await putIn(store, cmIn('ns', 'a'));
      const rv = await putIn(store, cmIn('ns', 'b'));
      const queue = await cache.watch({ resourceVersion: rv, sendInitialEvents: true, filter: namespaceFilter('') });
      assert.deepEqual([(await next(queue)).type, (await next(queue)).type], ['ADDED', 'ADDED']);
      const bookmark = await next(queue);
      assert.equal(bookmark.type, 'BOOKMARK');
      assert.deepEqual(obj(bookmark), {
        kind: 'ConfigMap',
        apiVersion: 'v1',
        metadata: { resourceVersion: String(rv), annotations: { 'k8s.io/initial-events-end': 'true' } },
      });
      queue.end();
    });
  });

  it('sends periodic bookmarks to the watchers that asked for them, at the current revision, without closing a full one', async () => {
    const clock = new FakeClock();
    await withCache({ bookmarkIntervalMs: 20, maxQueued: 1, clock }, async (cache, store) => {
      const rv = await putIn(store, cmIn('ns', 'a'));
      await cache.list(namespaceFilter(''), rv);
      const withBookmarks = await cache.watch({ resourceVersion: rv, bookmarks: true, filter: namespaceFilter('') });
      const without = await cache.watch({ resourceVersion: rv, filter: namespaceFilter('') });
      await clock.advance(19);
      assert.equal(withBookmarks.size, 0, 'no bookmark before the interval');
      await clock.advance(1);
      assert.equal(withBookmarks.size, 1, 'one bookmark at the interval');
      const bookmark = await next(withBookmarks);
      assert.equal(bookmark.type, 'BOOKMARK');
      assert.deepEqual(obj(bookmark), { kind: 'ConfigMap', apiVersion: 'v1', metadata: { resourceVersion: String(rv) } });
      // A watcher whose backlog is full skips bookmarks instead of being closed.
      await clock.advance(20);
      assert.equal(withBookmarks.size, 1, 'a second bookmark waits unread');
      await clock.advance(60);
      assert.equal(withBookmarks.closed, false);
      assert.equal(withBookmarks.size, 1);
      assert.equal(cache.terminatedWatchers, 0);
      const after = await putIn(store, cmIn('ns', 'b'));
      await nextIs(without, 'ADDED', after, 'the watcher that did not ask got no bookmark');
      withBookmarks.end();
      without.end();
    });
    assert.equal(clock.pending(), 0, 'stop() cancelled the bookmark timer');
  });

  it('names a grouped kind group/version in its bookmarks', async () => {
    await withCache({ def: deployments }, async (cache) => {
      const queue = await cache.watch({ resourceVersion: undefined, sendInitialEvents: true, filter: namespaceFilter('') });
      const bookmark = await next(queue);
      assert.equal(bookmark.type, 'BOOKMARK');
      assert.equal(obj(bookmark).apiVersion, 'apps/v1');
      assert.equal(obj(bookmark).kind, 'Deployment');
      queue.end();
    });
  });

  it('tells change listeners about every change, deleted objects with their last state, until they unsubscribe', async () => {
    await withCache({}, async (cache, store) => {
      const seen: string[] = [];
      const unsubscribe = cache.onChange((o) => seen.push(`${o.metadata.name}@${o.metadata.resourceVersion}`));
      const r1 = await putIn(store, cmIn('ns', 'a'));
      const r2 = await putIn(store, cmIn('ns', 'a', { v: '2' }));
      const r3 = await del(store, 'ns', 'a');
      await until(() => seen.length === 3, 'three changes');
      assert.deepEqual(seen, [`a@${r1}`, `a@${r2}`, `a@${r3}`]);
      unsubscribe();
      const r4 = await putIn(store, cmIn('ns', 'b'));
      await cache.list(namespaceFilter(''), r4);
      assert.equal(seen.length, 3);
    });
  });

  it('serves a resume inside its window from memory, even once the store compacted it', async () => {
    await withCache({ windowSize: 3 }, async (cache, store) => {
      const revs: number[] = [];
      for (let i = 0; i < 6; i++) revs.push(await putIn(store, cmIn('ns', 'same', {}, { v: String(i) })));
      await cache.list(namespaceFilter(''), revs[5]);
      await store.compact(revs[5]!);
      // The window holds the last three changes: a watch from just before them needs no history.
      const inWindow = await cache.watch({ resourceVersion: revs[2], filter: namespaceFilter('') });
      for (const expected of revs.slice(3)) assert.equal(rvOf(await next(inWindow)), expected);
      inWindow.end();
      const older = await cache.watch({ resourceVersion: revs[1], filter: namespaceFilter('') });
      await assert.rejects(within(older.next(), 2000, 'no answer'), (err: unknown) => {
        assert.ok(err instanceof ApiError);
        assert.equal(err.code, 410);
        assert.equal(err.message, expiredError(revs[1]!, revs[5]!).message);
        assert.equal(err.message, `too old resource version: ${revs[1]} (${revs[5]})`, "kube-apiserver's words");
        return true;
      });
    });
  });

  it('a watch replayed from the store applies the selector, and sends bookmarks on progress when asked', async () => {
    await withCache({ windowSize: 1, bookmarkIntervalMs: 20 }, async (cache, store) => {
      const from = await putIn(store, cmIn('ns', 'x', { app: 'a' }));
      await putIn(store, cmIn('ns', 'other', { app: 'z' }));
      const stopped = await putIn(store, cmIn('ns', 'x', { app: 'b' }));
      const gone = await del(store, 'ns', 'other');
      await cache.list(namespaceFilter(''), gone);
      const queue = await cache.watch({ resourceVersion: from, bookmarks: true, filter: parseFilter(configmaps, 'ns', 'app=a') });
      await nextIs(queue, 'DELETED', stopped);
      const bookmark = await next(queue);
      assert.equal(bookmark.type, 'BOOKMARK', 'nothing of the object that never matched');
      assert.equal(rvOf(bookmark), gone);
      assert.equal(obj(bookmark).kind, 'ConfigMap');
      assert.equal(obj(bookmark).metadata.annotations, undefined, 'not an initial-events-end bookmark');
      queue.end();
      const plain = await cache.watch({ resourceVersion: from, filter: namespaceFilter('ns') });
      const types: string[] = [];
      for (let i = 0; i < 3; i++) types.push((await next(plain)).type);
      assert.deepEqual(types, ['ADDED', 'MODIFIED', 'DELETED']);
      const live = await putIn(store, cmIn('ns', 'live'));
      await nextIs(plain, 'ADDED', live, 'no bookmark for a watcher that did not ask');
      plain.end();
    });
  });

  it('a watch replayed from the store whose store watch overflowed while its reader lagged ends, counted, once the reader has what it was sent', async () => {
    const logger = recordingLogger();
    await withCache({ windowSize: 1, maxQueued: 4, logger }, async (cache, store) => {
      const from = await putIn(store, cmIn('ns', 'first'));
      await putIn(store, cmIn('ns', 'second'));
      const third = await putIn(store, cmIn('ns', 'third')); // the window's floor is now above `from`
      await cache.list(namespaceFilter(''), third);
      const queue = await cache.watch({ resourceVersion: from, filter: namespaceFilter('') });
      for (let i = 0; i < 40; i++) await putIn(store, cmIn('ns', `c${i}`));
      // The replay waits for its reader with two lines queued (half of maxQueued); the store's
      // buffer for it (maxQueued events) overflows meanwhile.
      assert.deepEqual([queue.size, queue.closed], [2, false], 'paced: memory stays bounded while the reader lags');
      const sent: string[] = [];
      for (;;) {
        const r = await within(queue.next(), 2000, 'the replay ending');
        if (r.done === true) break;
        sent.push(obj(r.value).metadata.name ?? '');
      }
      assert.deepEqual(sent, ['second', 'third'], 'what it was sent before the overflow, then the end');
      assert.equal(cache.terminatedWatchers, 1);
      const line = logger.lines.find((l) => l.message === 'forcing watcher close due to unresponsiveness (store watch overflowed)');
      assert.deepEqual(line?.fields, { resourceVersion: from }, 'closed because the store watch overflowed while the replay waited for its reader');
    });
  });

  it('relists when it fell behind compaction: its watchers end, listeners hear of every object', async () => {
    const logger = recordingLogger();
    await withFaultyCache({ logger, start: false }, async (cache, base, faulty) => {
      await putIn(base, cmIn('ns', 'a'));
      await cache.start();
      const queue = await cache.watch({ resourceVersion: 0, filter: namespaceFilter('') });
      assert.equal((await next(queue)).type, 'ADDED');
      const heard: string[] = [];
      cache.onChange((o) => heard.push(o.metadata.name ?? ''));
      // The store watch fails on the read after the next change.
      faulty.fail(new StoreError('Compacted', 'compacted', { compactRevision: 1 }));
      const rv = await putIn(base, cmIn('ns', 'b'));
      assert.equal(rvOf(await next(queue)), rv);
      assert.deepEqual(await within(queue.next(), 2000, 'the watch did not end'), { value: undefined, done: true });
      await until(() => heard.includes('a') && heard.includes('b'), 'listeners heard of the relisted objects');
      assert.equal(cache.watcherCount, 0);
      const warned = logger.lines.find((l) => l.level === 'warn');
      assert.deepEqual([warned?.message, warned?.fields], ['watch cache fell behind compaction; relisting', { rv, compactRevision: 1 }]);
      const { items } = await cache.list(namespaceFilter(''), rv);
      assert.deepEqual(items.map((o) => o.metadata.name), ['a', 'b']);
      // It follows the store again.
      const c = await putIn(base, cmIn('ns', 'c'));
      assert.equal((await cache.list(namespaceFilter(''), c)).items.length, 3);
    });
  });

  it('a relist forgets what was deleted while it was behind, and retries a relist that fails', async () => {
    const clock = new FakeClock();
    const logger = recordingLogger();
    await withFaultyCache({ clock, logger, start: false }, async (cache, base, faulty) => {
      await putIn(base, cmIn('ns', 'a'));
      await cache.start();
      const seen = await putIn(base, cmIn('ns', 'b'));
      await within(cache.list(namespaceFilter(''), seen), 2000, 'the cache did not reach the write');
      faulty.fail(new StoreError('Compacted', 'compacted', { compactRevision: seen }), undefined, true);
      const listFailed = new Error('list failed');
      faulty.failList(listFailed);
      await putIn(base, cmIn('ns', 'c')); // seen
      const lost = await del(base, 'ns', 'a'); // lost with the watch
      await until(() => clock.nextDue() === clock.now() + 1000, 'the failed relist waits before it retries');
      const lists = faulty.lists;
      await clock.advance(999);
      assert.equal(faulty.lists, lists, 'not before a second');
      const errors = logger.lines.filter((l) => l.level === 'error');
      assert.deepEqual(errors.map((l) => [l.message, l.fields.err]), [['relisting the watch cache failed; retrying', listFailed]]);
      await clock.advance(1);
      const { items, rv } = await within(cache.list(namespaceFilter(''), lost), 2000, 'the relisted cache did not reach the deletion');
      assert.deepEqual(items.map((o) => o.metadata.name), ['b', 'c']);
      assert.ok(rv >= lost);
    });
  });

  it('resumes following the store after a watch error, missing nothing', async () => {
    const clock = new FakeClock();
    const logger = recordingLogger();
    await withFaultyCache({ clock, logger }, async (cache, base, faulty) => {
      const queue = await cache.watch({ resourceVersion: await base.currentRevision(), filter: namespaceFilter('') });
      // The store watch fails on the read after the next change.
      const reset = new Error('connection reset');
      faulty.fail(reset);
      const revs = [await putIn(base, cmIn('ns', 'a')), await putIn(base, cmIn('ns', 'b'))];
      await until(() => clock.nextDue() === clock.now() + 200, 'the cache waits before it watches again');
      const watches = faulty.watches;
      await clock.advance(199);
      assert.equal(faulty.watches, watches, 'not before 200 ms');
      await clock.advance(1);
      for (const expected of revs) assert.equal(rvOf(await next(queue)), expected);
      queue.end();
      const errors = logger.lines.filter((l) => l.level === 'error');
      assert.deepEqual(errors.map((l) => [l.message, l.fields.err]), [['store watch failed; resuming', reset]]);
    });
  });

  it('after a store watch overflow it watches again at once', async () => {
    const clock = new FakeClock();
    const logger = recordingLogger();
    await withFaultyCache({ clock, logger }, async (cache, base, faulty) => {
      const queue = await cache.watch({ resourceVersion: await base.currentRevision(), filter: namespaceFilter('') });
      // The store watch fails on the read after the next change.
      faulty.fail(new StoreError('WatchOverflow', 'overflow'));
      const revs = [await putIn(base, cmIn('ns', 'a')), await putIn(base, cmIn('ns', 'b'))];
      await until(() => clock.nextDue() === clock.now(), 'the cache yields before it watches again');
      await clock.advance(0);
      for (const expected of revs) assert.equal(rvOf(await next(queue)), expected, 'without waiting 200 ms');
      queue.end();
      assert.deepEqual(logger.lines.filter((l) => l.level === 'error'), [], 'an overflow is expected under load: no error');
    });
  });

  it('a store that closes ends the follow loop for good', async () => {
    const clock = new FakeClock();
    const logger = recordingLogger();
    await withFaultyCache({ clock, logger }, async (cache, base, faulty) => {
      const watches = faulty.watches;
      // The store watch fails on the read after the next change.
      faulty.fail(new StoreError('Closed', 'closed'));
      await putIn(base, cmIn('ns', 'a'));
      await until(() => cache.size === 1, 'the change before the close was applied');
      await putIn(base, cmIn('ns', 'b'));
      await clock.advance(5_000); // past any retry wait
      assert.equal(faulty.watches, watches, 'no new watch');
      assert.deepEqual(logger.lines.filter((l) => l.level === 'error'), [], 'a closed store is no error');
      assert.equal(cache.get('ns', 'b'), undefined, 'the change after the close was not applied');
    });
  });

  it('leaves malformed objects out: watchers that saw one see it go, a new one is never sent', async () => {
    const decoder = new StoredObjectDecoder();
    await withCache({ decoder }, async (cache, store) => {
      const key = (name: string) => objectKey(configmaps, 'ns', name);
      const from = await putIn(store, cmIn('ns', 'good'));
      const queue = await cache.watch({ resourceVersion: from, filter: namespaceFilter('') });
      const current = await store.get(key('good'));
      const broken = (await store.update(key('good'), '{"metadata":{"name":"good","namespace":"ns"},"data":{"k":1}}', current!.modRevision)).modRevision;
      await nextIs(queue, 'DELETED', broken);
      assert.equal(cache.get('ns', 'good'), undefined);
      const bad = (await store.create(key('bad'), '{"metadata":{"name":"bad","namespace":"ns"},"data":{"k":1}}')).modRevision;
      const ok = await putIn(store, cmIn('ns', 'ok'));
      await nextIs(queue, 'ADDED', ok, 'nothing for the malformed new object');
      assert.ok(ok > bad);
      queue.end();
    });
  });

  it('ends a watch when its signal aborts, at once for an aborted signal', async () => {
    await withCache({}, async (cache) => {
      const controller = new AbortController();
      const queue = await cache.watch({ resourceVersion: 0, filter: namespaceFilter(''), signal: controller.signal });
      assert.equal(cache.watcherCount, 1);
      controller.abort();
      assert.equal(queue.closed, true);
      assert.equal(cache.watcherCount, 0);
      const already = await cache.watch({ resourceVersion: 0, filter: namespaceFilter(''), signal: AbortSignal.abort() });
      assert.equal(already.closed, true);
      assert.equal(cache.watcherCount, 0);
    });
  });

  it('a cluster-scoped kind sends each change once to a watcher of every namespace', async () => {
    await withCache({ def: namespaces }, async (cache, store) => {
      const from = await store.currentRevision();
      const queue = await cache.watch({ resourceVersion: from, filter: namespaceFilter('') });
      const key = objectKey(namespaces, '', 'n1');
      const first = (await store.create(key, '{"metadata":{"name":"n1"}}')).modRevision;
      const second = (await store.create(objectKey(namespaces, '', 'n2'), '{"metadata":{"name":"n2"}}')).modRevision;
      assert.deepEqual([rvOf(await next(queue)), rvOf(await next(queue))], [first, second]);
      queue.end();
    });
  });

  it('serialises a change once for all the watchers that send it', async () => {
    await withCache({}, async (cache, store) => {
      const from = await store.currentRevision();
      const a = await cache.watch({ resourceVersion: from, filter: namespaceFilter('') });
      const b = await cache.watch({ resourceVersion: from, filter: namespaceFilter('ns') });
      const c = await cache.watch({ resourceVersion: from, filter: parseFilter(configmaps, 'ns', 'app=x') });
      const d = await cache.watch({ resourceVersion: from, filter: parseFilter(configmaps, '', 'app=x') });
      await putIn(store, cmIn('ns', 'x', { app: 'x' }));
      const lines = [await next(a), await next(b), await next(c), await next(d)];
      for (const line of lines) assert.equal(line, lines[0], 'the same line');
      for (const q of [a, b, c, d]) q.end();
    });
  });

  it('follows the store\'s progress: its revision moves on with writes to other kinds', async () => {
    await withCache({ bookmarkIntervalMs: 20 }, async (cache, store) => {
      await store.create('/registry/core/secrets/ns/s', '{"metadata":{"name":"s","namespace":"ns"}}');
      const current = await store.currentRevision();
      await until(() => cache.rv === current, 'the cache reached the revision of the other write', 1500);
      const { rv } = await cache.list(namespaceFilter(''));
      assert.equal(rv, current);
    });
  });

  it('replays history at the reader\'s pace in bytes as well: large events never overflow maxQueuedBytes', async () => {
    await withCache({ windowSize: 1, maxQueuedBytes: 4 * 1024 }, async (cache, store) => {
      const from = await putIn(store, cmIn('ns', 'first'));
      const revs: number[] = [];
      for (let i = 0; i < 30; i++) revs.push(await putIn(store, cmIn('ns', `c${i}`, {}, { blob: 'x'.repeat(1000) })));
      await cache.list(namespaceFilter(''), revs.at(-1));
      const queue = await cache.watch({ resourceVersion: from, filter: namespaceFilter('') });
      for (const expected of revs) {
        assert.equal(rvOf(await next(queue)), expected);
        await new Promise((resolve) => setImmediate(resolve)); // a reader slower than the replay
      }
      assert.equal(cache.terminatedWatchers, 0);
      queue.end();
    });
  });

  it('stop() also ends the watches it serves from the store', async () => {
    await withCache({ windowSize: 1 }, async (cache, store) => {
      const from = await putIn(store, cmIn('ns', 'a'));
      const last = await putIn(store, cmIn('ns', 'b'));
      await putIn(store, cmIn('ns', 'c'));
      await cache.list(namespaceFilter(''), last + 1);
      const queue = await cache.watch({ resourceVersion: from, filter: namespaceFilter('') });
      assert.equal(rvOf(await next(queue)), last);
      assert.equal(rvOf(await next(queue)), last + 1);
      cache.stop();
      assert.deepEqual(await within(queue.next(), 2000, 'the replayed watch did not end'), { value: undefined, done: true });
    });
  });

  it('hands a replayed watch\'s store error to its reader', async () => {
    await withFaultyCache({ windowSize: 1 }, async (cache, base, faulty) => {
      const from = await putIn(base, cmIn('ns', 'a'));
      const last = await putIn(base, cmIn('ns', 'b'));
      await putIn(base, cmIn('ns', 'c'));
      await cache.list(namespaceFilter(''), last + 1);
      const queue = await cache.watch({ resourceVersion: from, filter: namespaceFilter('') });
      assert.equal(rvOf(await next(queue)), last);
      assert.equal(rvOf(await next(queue)), last + 1);
      const boom = new Error('disk on fire');
      faulty.fail(boom); // the latest store watch: the replay's
      const d = await putIn(base, cmIn('ns', 'd'));
      assert.equal(rvOf(await next(queue)), d);
      await assert.rejects(within(queue.next(), 2000, 'no error'), (err: unknown) => err === boom);
      assert.equal(cache.terminatedWatchers, 0);
    });
  });

  it('sends a live watcher ADDED for a create, MODIFIED for an update and DELETED for a delete, with or without a namespace', async () => {
    await withCache({}, async (cache, store) => {
      const from = await putIn(store, cmIn('ns', 'first'));
      const inNs = await cache.watch({ resourceVersion: from, filter: namespaceFilter('ns') });
      const everywhere = await cache.watch({ resourceVersion: from, filter: namespaceFilter('') });
      const revs = [await putIn(store, cmIn('ns', 'x')), await putIn(store, cmIn('ns', 'x', { v: '2' })), await del(store, 'ns', 'x')];
      for (const queue of [inNs, everywhere]) {
        const lines = [await next(queue), await next(queue), await next(queue)];
        assert.deepEqual(
          lines.map((l) => [l.type, rvOf(l)]),
          [
            ['ADDED', revs[0]],
            ['MODIFIED', revs[1]],
            ['DELETED', revs[2]],
          ],
        );
        queue.end();
      }
    });
  });

  it("with a store whose events carry no prev, the cache's own last state stands in: DELETED with it, and an object that stops matching a selector is DELETED", async () => {
    const base = new MemoryStore();
    // The store's watch events without prev (a backend is allowed to leave it out).
    const store = new Proxy(base, {
      get(target, prop, receiver) {
        if (prop === 'watch') {
          return (prefix: string, from: number, options?: Parameters<Store['watch']>[2]): AsyncIterableIterator<WatchEvent> => {
            const inner = target.watch(prefix, from, options);
            return {
              [Symbol.asyncIterator]() {
                return this;
              },
              async next() {
                const r = await inner.next();
                if (r.done === true || r.value.type === 'create' || r.value.type === 'progress') return r;
                return { value: { ...r.value, prev: undefined }, done: false };
              },
              return: () => inner.return?.() ?? Promise.resolve({ value: undefined, done: true }),
            };
          };
        }
        const value: unknown = Reflect.get(target, prop, receiver);
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    }) as Store;
    const cache = new WatchCache(store, configmaps);
    try {
      await cache.start();
      const from = await putIn(base, cmIn('ns', 'x', { app: 'a' }));
      await putIn(base, cmIn('ns', 'y', { app: 'a' }, { k: 'last' }));
      const selected = await cache.watch({ resourceVersion: from, filter: parseFilter(configmaps, 'ns', 'app=a') });
      assert.equal((await next(selected)).type, 'ADDED');
      const stopped = await putIn(base, cmIn('ns', 'x', { app: 'b' }));
      const line = await next(selected);
      assert.deepEqual([line.type, rvOf(line), obj(line).metadata.name], ['DELETED', stopped, 'x']);
      const deletedAt = await del(base, 'ns', 'y');
      const deleted = await nextIs(selected, 'DELETED', deletedAt);
      assert.deepEqual((obj(deleted) as KubeObject & { data: unknown }).data, { k: 'last' });
      selected.end();
    } finally {
      cache.stop();
      await base.close();
    }
  });

  it('a deleted object it never held (malformed) moves its revision on and sends nothing', async () => {
    const decoder = new StoredObjectDecoder();
    await withCache({ decoder }, async (cache, store) => {
      const key = (name: string) => objectKey(configmaps, 'ns', name);
      const from = await putIn(store, cmIn('ns', 'good'));
      const queue = await cache.watch({ resourceVersion: from, filter: namespaceFilter('') });
      await store.create(key('bad'), '{"metadata":{"name":"bad","namespace":"ns"},"data":{"k":1}}');
      const gone = (await store.delete(key('bad'))).revision;
      const { rv } = await within(cache.list(namespaceFilter(''), gone), 2000, 'the cache did not reach the deletion');
      assert.equal(rv, gone);
      const ok = await putIn(store, cmIn('ns', 'ok'));
      await nextIs(queue, 'ADDED', ok, 'nothing for the malformed object');
      queue.end();
    });
  });

  it('a list waiting for a resourceVersion is released only once the cache reaches it, not by an earlier one', async () => {
    const clock = new FakeClock();
    await withCache({ clock, waitForFreshMs: 3_000 }, async (cache, store) => {
      const start = await putIn(store, cmIn('ns', 'a'));
      await within(cache.list(namespaceFilter(''), start), 2000, 'the cache did not reach the write');
      let released: number | undefined;
      const listing = cache.list(namespaceFilter(''), start + 2);
      void listing.then(({ rv }) => (released = rv));
      const first = await putIn(store, cmIn('ns', 'b'));
      await until(() => cache.rv === first, 'the cache reached the first write');
      await new Promise((resolve) => setImmediate(resolve));
      assert.equal(released, undefined, 'not released at an earlier revision');
      const second = await putIn(store, cmIn('ns', 'c'));
      const { items, rv } = await within(listing, 2000, 'the list was not released');
      assert.equal(rv, second);
      assert.deepEqual(items.map((o) => o.metadata.name), ['a', 'b', 'c']);
    });
  });

  it("forgets its listener on the request's abort signal once the watch ends", async () => {
    await withCache({}, async (cache) => {
      const controller = new AbortController();
      const queue = await cache.watch({ resourceVersion: 0, filter: namespaceFilter(''), signal: controller.signal });
      assert.equal(getEventListeners(controller.signal, 'abort').length, 1);
      queue.end();
      assert.equal(getEventListeners(controller.signal, 'abort').length, 0, 'a long-lived signal does not collect listeners');
    });
  });

  it('sizes a watch line as its UTF-8 JSON text plus a newline', () => {
    const line = new WatchLine('ADDED', { data: { k: 'é€' } });
    assert.equal(line.toJSON(), '{"type":"ADDED","object":{"data":{"k":"é€"}}}');
    assert.equal(line.byteLength, Buffer.byteLength('{"type":"ADDED","object":{"data":{"k":"é€"}}}', 'utf8') + 1);
  });
});

describe('WatchCache (lifecycle, waiting and fan-out)', () => {
  it('start() called again lists and follows the store once: each change reaches a watcher once', async () => {
    await withFaultyCache({ start: false }, async (cache, base, faulty) => {
      await Promise.all([cache.start(), cache.start()]);
      await cache.start();
      assert.deepEqual([faulty.lists, faulty.watches], [1, 1], 'one list and one store watch');
      const queue = await cache.watch({ resourceVersion: await base.currentRevision(), filter: namespaceFilter('') });
      const a = await putIn(base, cmIn('ns', 'a'));
      const b = await putIn(base, cmIn('ns', 'b'));
      assert.deepEqual([rvOf(await next(queue)), rvOf(await next(queue))], [a, b], 'no change sent twice');
      queue.end();
    });
  });

  it('a list that waited for a resourceVersion leaves no timer behind once the cache reaches it', async () => {
    const clock = new FakeClock();
    await withCache({ clock }, async (cache, store) => {
      const current = await putIn(store, cmIn('ns', 'a'));
      await within(cache.list(namespaceFilter(''), current), 2000, 'the cache reaching the first write');
      const timers = clock.pending();
      const listing = cache.list(namespaceFilter(''), current + 1);
      assert.equal(clock.pending(), timers + 1, 'the wait is bounded by a timer');
      const next = await putIn(store, cmIn('ns', 'b'));
      const { rv } = await within(listing, 2000, 'the list being released');
      assert.equal(rv, next);
      assert.equal(clock.pending(), timers, 'its timer was cancelled');
    });
  });

  it('once stopped, a list for a resourceVersion it never reached answers at once with what it holds', async () => {
    await withCache({ clock: new FakeClock() }, async (cache, store) => {
      const current = await putIn(store, cmIn('ns', 'a'));
      await within(cache.list(namespaceFilter(''), current), 2000, 'the cache reaching the write');
      cache.stop();
      const { items, rv } = await within(cache.list(namespaceFilter(''), current + 100), 2000, 'a list on a stopped cache');
      assert.deepEqual([items.map((o) => o.metadata.name), rv], [['a'], current]);
    });
  });

  it('several watchers of one namespace each get its changes; one ending or joining does not cut off the others', async () => {
    await withCache({}, async (cache, store) => {
      const from = await store.currentRevision();
      const first = await cache.watch({ resourceVersion: from, filter: namespaceFilter('a') });
      const second = await cache.watch({ resourceVersion: from, filter: namespaceFilter('a') });
      const selective = await cache.watch({ resourceVersion: from, filter: parseFilter(configmaps, 'a', 'app=x') });
      const x = await putIn(store, cmIn('a', 'x', { app: 'x' }));
      for (const q of [first, second, selective]) assert.equal(rvOf(await next(q)), x);
      first.end();
      const third = await cache.watch({ resourceVersion: x, filter: namespaceFilter('a') });
      const y = await putIn(store, cmIn('a', 'y', { app: 'x' }));
      for (const q of [second, selective, third]) assert.equal(rvOf(await next(q)), y);
      second.end();
      selective.end();
      const z = await putIn(store, cmIn('a', 'z'));
      assert.equal(rvOf(await next(third)), z, 'the last watcher of the namespace still gets its changes');
      assert.equal(cache.watcherCount, 1);
      third.end();
      assert.equal(cache.watcherCount, 0);
    });
  });

  it('logs as component watchcache with its resource, e.g. when it closes a watcher that fell behind', async () => {
    const logger = recordingLogger();
    let from = 0;
    await withCache({ logger, maxQueued: 1 }, async (cache, store) => {
      from = await store.currentRevision();
      const stuck = await cache.watch({ resourceVersion: from, filter: namespaceFilter('') });
      await putIn(store, cmIn('ns', 'a'));
      await putIn(store, cmIn('ns', 'b'));
      await until(() => stuck.closed, 'the watcher closed for falling behind');
    });
    const line = logger.lines.find((l) => l.message === 'forcing watcher close due to unresponsiveness');
    assert.deepEqual(line?.bindings, { component: 'watchcache', resource: 'configmaps' });
    const { queuedBytes, ...fields } = line?.fields ?? {};
    assert.deepEqual(fields, { queued: 1, maxQueued: 1, maxQueuedBytes: DEFAULT_MAX_QUEUED_BYTES, namespace: '', resourceVersion: from }, 'the one line waiting when the next did not fit');
    assert.equal(typeof queuedBytes === 'number' && queuedBytes > 0, true);
  });

  it('stop() before start() ends nothing and throws nothing', () => {
    const cache = new WatchCache(new MemoryStore(), configmaps);
    cache.stop();
    assert.equal(cache.watcherCount, 0);
  });

  it('leaves a malformed object out of what it loads at start', async () => {
    const store = new MemoryStore();
    await putIn(store, cmIn('ns', 'good'));
    await store.create(objectKey(configmaps, 'ns', 'bad'), '{"metadata":{"name":"bad","namespace":"ns"},"data":{"k":1}}');
    await withCache(
      { decoder: new StoredObjectDecoder() },
      async (cache) => {
        assert.equal(cache.size, 1);
        assert.equal(cache.get('ns', 'bad'), undefined);
        assert.deepEqual((await cache.list(namespaceFilter(''))).items.map((o) => o.metadata.name), ['good']);
      },
      store,
    );
  });

  it('stop() during a failed relist\'s wait ends the relist: the store is not listed again', async () => {
    const clock = new FakeClock();
    await withFaultyCache({ clock }, async (cache, base, faulty) => {
      faulty.fail(new StoreError('Compacted', 'compacted', { compactRevision: 1 }));
      faulty.failList(new Error('list failed'));
      await putIn(base, cmIn('ns', 'a'));
      await until(() => clock.nextDue() === clock.now() + 1000, 'the failed relist waits before it retries');
      const lists = faulty.lists;
      cache.stop();
      await clock.advance(5_000);
      assert.equal(faulty.lists, lists);
      assert.equal(clock.pending(), 0, 'no retry left waiting');
    });
  });

  it('a watch replayed from the store shows malformed values as the live path does: gone for who saw the object, never sent when new', async () => {
    await withCache({ windowSize: 1, decoder: new StoredObjectDecoder() }, async (cache, store) => {
      const key = (name: string) => objectKey(configmaps, 'ns', name);
      const from = await putIn(store, cmIn('ns', 'seed'));
      const created = await putIn(store, cmIn('ns', 'a'));
      const modified = await putIn(store, cmIn('ns', 'a', {}, { v: '2' }));
      const broken = (await store.update(key('a'), '{"metadata":{"name":"a","namespace":"ns"},"data":{"k":1}}', modified)).modRevision;
      await store.create(key('bad'), '{"metadata":{"name":"bad","namespace":"ns"},"data":{"k":1}}');
      const c = await putIn(store, cmIn('ns', 'c'));
      const deleted = await del(store, 'ns', 'c');
      const badGone = (await store.delete(key('bad'))).revision;
      await cache.list(namespaceFilter(''), badGone);
      const queue = await cache.watch({ resourceVersion: from, filter: namespaceFilter('') });
      const lines: Array<[string, number, string | undefined]> = [];
      for (let i = 0; i < 5; i++) {
        const line = await next(queue);
        lines.push([line.type, rvOf(line), obj(line).metadata.name]);
      }
      assert.deepEqual(lines, [
        ['ADDED', created, 'a'],
        ['MODIFIED', modified, 'a'],
        ['DELETED', broken, 'a'],
        ['ADDED', c, 'c'],
        ['DELETED', deleted, 'c'],
      ]);
      const after = await putIn(store, cmIn('ns', 'z'));
      await nextIs(queue, 'ADDED', after, 'nothing for the malformed object, created or deleted');
      queue.end();
    });
  });

  it('a watch replayed from the store that did not ask for bookmarks gets none when the store reports progress', async () => {
    await withCache({ windowSize: 1 }, async (cache, store) => {
      const from = await putIn(store, cmIn('ns', 'a'));
      await putIn(store, cmIn('ns', 'b'));
      const last = await putIn(store, cmIn('ns', 'c'));
      await cache.list(namespaceFilter(''), last);
      const queue = await cache.watch({ resourceVersion: from, filter: namespaceFilter('') });
      assert.deepEqual([rvOf(await next(queue)), rvOf(await next(queue))], [from + 1, last]);
      store.requestProgress();
      const after = await putIn(store, cmIn('ns', 'd'));
      await nextIs(queue, 'ADDED', after, 'no bookmark before the change');
      queue.end();
    });
  });

  it('sends bookmarks every 60 s by default', async () => {
    const clock = new FakeClock();
    await withCache({ clock }, async (cache, store) => {
      const rv = await putIn(store, cmIn('ns', 'a'));
      await cache.list(namespaceFilter(''), rv);
      const queue = await cache.watch({ resourceVersion: rv, bookmarks: true, filter: namespaceFilter('') });
      await clock.advance(59_999);
      assert.equal(queue.size, 0);
      await clock.advance(1);
      assert.equal((await next(queue)).type, 'BOOKMARK');
      queue.end();
    });
  });
});
