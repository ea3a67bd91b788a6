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

  it('cuts off a watcher that stops reading once maxQueued events wait, without holding up the writers or other watchers', async () => {
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
