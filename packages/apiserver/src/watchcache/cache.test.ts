import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError, type KubeObject } from '@setpoint/api';
import { MemoryStore } from '@setpoint/store';
import { configMapResource as configmaps } from '../registry/kinds/configmap.js';
import { encode, objectKey } from '../storage/codec.js';
import { WatchCache, type WatchLine } from './cache.js';
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

describe('WatchCache', () => {
  it('serves a watch from any resourceVersion inside the window without replaying what came before', async () => {
    const store = new MemoryStore();
    const cache = new WatchCache(store, configmaps);
    try {
      await cache.start();
      const revs: number[] = [];
      for (let i = 0; i < 5; i++) revs.push(await put(store, cm(`c${i}`)));
      const queue = await cache.watch({ resourceVersion: revs[1], filter: namespaceFilter('') });
      for (const expected of revs.slice(2)) assert.equal(rvOf(await next(queue)), expected);
      queue.end();
    } finally {
      cache.stop();
      await store.close();
    }
  });

  it('resumes a watch older than its window from the store history, and answers 410 below the compact revision', async () => {
    const store = new MemoryStore();
    const cache = new WatchCache(store, configmaps, { windowSize: 2 });
    try {
      await cache.start();
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
    } finally {
      cache.stop();
      await store.close();
    }
  });

  it('shows a selector watcher an object that stops matching as DELETED and one that starts matching as ADDED', async () => {
    const store = new MemoryStore();
    const cache = new WatchCache(store, configmaps);
    try {
      await cache.start();
      const start = await put(store, cm('x', { app: 'a' }));
      const queue = await cache.watch({ resourceVersion: start, filter: parseFilter(configmaps, 'ns', 'app=a') });
      await put(store, cm('x', { app: 'b' }));
      assert.equal((await next(queue)).type, 'DELETED');
      await put(store, cm('x', { app: 'a' }));
      assert.equal((await next(queue)).type, 'ADDED');
      queue.end();
    } finally {
      cache.stop();
      await store.close();
    }
  });

  it('closes a watcher that stops reading once maxQueued events wait, without holding up the writers or other watchers', async () => {
    const store = new MemoryStore();
    const cache = new WatchCache(store, configmaps, { maxQueued: 10 });
    try {
      await cache.start();
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
      await reading;
      assert.equal(seen.length, 50, 'the reading watcher got every event');
      assert.equal(stuck.closed, true, 'the stuck watcher was cut off');
      assert.equal(cache.watcherCount, 0);
      // It can resume from the last resourceVersion it received (none here: from `from`).
      const resumed = await cache.watch({ resourceVersion: from, filter: namespaceFilter('') });
      assert.equal(rvOf(await next(resumed)), from + 1);
      resumed.end();
    } finally {
      cache.stop();
      await store.close();
    }
  });

  it('closes a watcher whose backlog passes maxQueuedBytes and drops it from the watcher set, while a reader under the same load gets every event', async () => {
    const store = new MemoryStore();
    // Events of ~1 KiB; 8 KiB of backlog at most; the item bound far away.
    const cache = new WatchCache(store, configmaps, { maxQueuedBytes: 8 * 1024, maxQueued: 10_000 });
    try {
      await cache.start();
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
      await reading;
      assert.deepEqual(seen, revs, 'the reading watcher got every event, in order');
      assert.equal(stuck.closed, true, 'the watcher that did not read was closed');
      assert.equal(stuck.bytes, 0, 'its backlog was dropped');
      assert.equal(cache.terminatedWatchers, 1);
      // Its stream just ends (kube-apiserver's cacher closes it without an ERROR event).
      assert.deepEqual(await stuck.next(), { value: undefined, done: true });
      assert.equal(cache.watcherCount, 0, 'both watchers left the set (the reader by returning)');
    } finally {
      cache.stop();
      await store.close();
    }
  });

  it('a watcher closed for falling behind resumes from the last resourceVersion it read, from the window or the store, and gets 410 once that is compacted', async () => {
    const store = new MemoryStore();
    const cache = new WatchCache(store, configmaps, { maxQueuedBytes: 4 * 1024, windowSize: 5 });
    try {
      await cache.start();
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
    } finally {
      cache.stop();
      await store.close();
    }
  });

  it('streams initial events (resourceVersion 0, sendInitialEvents) as the watcher reads, however much larger than maxQueuedBytes the list is', async () => {
    const store = new MemoryStore();
    const cache = new WatchCache(store, configmaps, { maxQueuedBytes: 4 * 1024 });
    try {
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
    } finally {
      cache.stop();
      await store.close();
    }
  });

  it('replays history older than its window at the reader\'s pace, however long, without cutting the reader off', async () => {
    // Found by the durability fault test: a client resuming more than maxQueued events back got
    // "fell too far behind" (429) while reading as fast as it could, because the replay from the
    // store was pulled faster than the response was written.
    const store = new MemoryStore();
    const cache = new WatchCache(store, configmaps, { windowSize: 2, maxQueued: 10 });
    try {
      const from = await put(store, cm('first'));
      await cache.start();
      for (let i = 0; i < 100; i++) await put(store, cm(`c${i}`));
      const queue = await cache.watch({ resourceVersion: from, filter: namespaceFilter('') });
      for (let i = 1; i <= 100; i++) {
        assert.equal(rvOf(await next(queue)), from + i);
        await new Promise((resolve) => setImmediate(resolve)); // a reader slower than the replay
      }
      queue.end();
    } finally {
      cache.stop();
      await store.close();
    }
  });

  it('waits for a resourceVersion it has not reached yet by asking the store for progress', async () => {
    const store = new MemoryStore();
    const cache = new WatchCache(store, configmaps, { bookmarkIntervalMs: 3_600_000, waitForFreshMs: 2000 });
    try {
      await cache.start();
      // A write to another kind moves the global revision; the configmap cache sees no event for it.
      await store.create('/registry/core/secrets/ns/s', '{"metadata":{"name":"s","namespace":"ns"}}');
      const current = await store.currentRevision();
      const { rv } = await cache.list(namespaceFilter(''), current);
      assert.equal(rv, current);
    } finally {
      cache.stop();
      await store.close();
    }
  });
});
