import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { closeStore, storeConformance, type OpenedStore } from '../conformance/index.js';
import { isStoreError, type KeyValue, type Store, type StoreOptions } from '../store.js';
import { SqliteStore } from './sqlite.js';

/** A database file in a fresh temporary directory, removed by `dispose`. */
async function openTemp(options?: StoreOptions): Promise<OpenedStore & { readonly path: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'setpoint-sqlite-'));
  const path = join(dir, 'store.db');
  let current: Store;
  try {
    current = await SqliteStore.open({ path, ...options });
  } catch (err) {
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
  return {
    path,
    store: current,
    async reopen() {
      await closeStore(current);
      current = await SqliteStore.open({ path, ...options });
      return current;
    },
    async dispose() {
      try {
        await closeStore(current);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
  };
}

storeConformance({ name: 'sqlite', persistent: true, open: openTemp });

describe('SqliteStore: durability across close and open', () => {
  it('data and the revision survive closing the store and opening the same file', async () => {
    const opened = await openTemp();
    try {
      const { store, path } = opened;
      const a = await store.create('/a', 'one');
      const b = await store.create('/b', 'two');
      const a2 = await store.update('/a', 'one, changed', a.modRevision);
      const deletion = await store.delete('/b', b.modRevision);
      await store.close();

      const again = await SqliteStore.open({ path });
      try {
        assert.equal(await again.currentRevision(), deletion.revision, 'currentRevision() after opening again');
        assert.deepEqual(plain(await again.get('/a')), plain(a2));
        assert.equal(await again.get('/b'), undefined);
        assert.deepEqual((await again.list('/', { revision: b.modRevision })).items.map(plain), [plain(a), plain(b)], 'history survives');
        const next = await again.create('/c', 'three');
        assert.ok(next.modRevision > deletion.revision, `the first write after opening got ${next.modRevision}, not above ${deletion.revision}`);
      } finally {
        await closeStore(again);
      }
    } finally {
      await opened.dispose();
    }
  });

  it('a write acknowledged before close is present after opening again; a refused one is absent', async () => {
    const opened = await openTemp();
    try {
      const { store, path } = opened;
      const before = await store.create('/before', 'x');
      // Writes in flight when close() is called: each either resolves (then it must be durable)
      // or is refused with StoreError Closed (then it must not be there).
      const writes = Array.from({ length: 50 }, (_, i) => store.create(`/w/${String(i).padStart(2, '0')}`, `value ${i}`));
      const closing = store.close();
      const results = await Promise.allSettled(writes);
      await closing;

      const again = await SqliteStore.open({ path });
      try {
        assert.equal((await again.get('/before'))?.value, 'x');
        let acknowledged = 0;
        for (const [i, result] of results.entries()) {
          const key = `/w/${String(i).padStart(2, '0')}`;
          const found = await again.get(key);
          if (result.status === 'fulfilled') {
            acknowledged++;
            assert.deepEqual(plain(found), plain(result.value), `acknowledged ${key} is present after opening again`);
          } else {
            assert.ok(isStoreError(result.reason, 'Closed'), `a write refused at close fails with Closed, got ${String(result.reason)}`);
            assert.equal(found, undefined, `refused ${key} is absent`);
          }
        }
        const listed = await again.list('/w/');
        assert.equal(listed.items.length, acknowledged, 'only the acknowledged writes are present');
        const last = results.reduce((max, r) => (r.status === 'fulfilled' ? Math.max(max, r.value.modRevision) : max), before.modRevision);
        assert.equal(await again.currentRevision(), last, 'the revision is that of the last acknowledged write');
      } finally {
        await closeStore(again);
      }
    } finally {
      await opened.dispose();
    }
  });
});

function plain(kv: KeyValue | undefined): KeyValue | undefined {
  return kv === undefined ? undefined : { key: kv.key, value: kv.value, createRevision: kv.createRevision, modRevision: kv.modRevision };
}

describe('sqlite space', () => {
  it('a lease-style key rewritten thousands of times does not grow the database while compaction keeps up', async () => {
    const opened = await openTemp();
    const store = opened.store as SqliteStore;
    const value = 'x'.repeat(2048);
    try {
      let kv = await store.create('/leases/node-1', value);
      const pages: number[] = [];
      for (let round = 0; round < 10; round++) {
        for (let i = 0; i < 1000; i++) kv = await store.update('/leases/node-1', value, kv.modRevision);
        await store.compact(kv.modRevision);
        pages.push(store.pageCount());
      }
      // 10,000 versions of 2 KiB were written (20 MiB); after each compaction only the latest stays,
      // and freed pages are reused or handed back: the file stops growing after the first rounds.
      assert.ok(pages[9]! <= pages[1]!, `pages per round: ${pages.join(', ')}`);
      assert.ok(pages[9]! * 4096 < 4 * 1024 * 1024, `the database stays small (${pages[9]} pages)`);
      assert.ok(store.stats.compactedRows >= 9_999, 'every superseded version was removed');
    } finally {
      await opened.dispose();
    }
  });
});
