import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { closeStore, storeConformance, type OpenedStore } from '../conformance/index.js';
import { isStoreError, type KeyValue, type Store, type StoreError, type StoreOptions, type WatchEvent } from '../store.js';
import { createSchema } from './schema.js';
import { SqliteStore, type SqliteStoreOptions } from './sqlite.js';

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

describe('SqliteStore: durability across close and open', { timeout: 10_000 }, () => {
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

describe('sqlite space', { timeout: 10_000 }, () => {
  it('a lease-style key rewritten thousands of times does not grow the database while compaction keeps up', async () => {
    const opened = await openTemp();
    const store = opened.store as SqliteStore;
    // 10 KB values (larger than a lease, three pages each): the same 20 MB in 2,000 commits as in
    // 10,000 of 2 KiB, five times faster (each commit is a transaction and an fsync).
    const value = 'x'.repeat(10_000);
    try {
      let kv = await store.create('/leases/node-1', value);
      const pages: number[] = [];
      for (let round = 0; round < 10; round++) {
        for (let i = 0; i < 200; i++) kv = await store.update('/leases/node-1', value, kv.modRevision);
        await store.compact(kv.modRevision);
        pages.push(store.pageCount());
      }
      // 2,000 versions of 10 KB were written (20 MB); after each compaction only the latest stays,
      // and freed pages are reused or handed back: the file stops growing after the first rounds.
      assert.ok(pages[9]! <= pages[1]!, `pages per round: ${pages.join(', ')}`);
      assert.ok(pages[9]! * 4096 < 4 * 1024 * 1024, `the database stays small (${pages[9]} pages)`);
      assert.ok(store.stats.compactedRows >= 1_999, 'every superseded version was removed');
    } finally {
      await opened.dispose();
    }
  });
});

async function withTemp<T>(body: (path: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'setpoint-sqlite-'));
  try {
    return await body(join(dir, 'store.db'));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Waits until `check` holds, failing after `ms` with `what`. */
async function until(check: () => boolean, what: string, ms = 5_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) assert.fail(`not within ${ms} ms: ${what}`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe('SqliteStore: compaction gives space back', { timeout: 10_000 }, () => {
  /** Writes 400 values of 10 KB, deletes all but two, compacts; the page counts before and after. */
  async function shrink(store: SqliteStore): Promise<{ before: number; after: number }> {
    const value = 'x'.repeat(10_000);
    for (let i = 0; i < 400; i++) await store.create(`/big/${i}`, value);
    const before = store.pageCount();
    for (let i = 2; i < 400; i++) await store.delete(`/big/${i}`);
    await store.compact(await store.currentRevision());
    return { before, after: store.pageCount() };
  }

  it('once most of the data is deleted and compacted, the file shrinks to what is left', async () => {
    const opened = await openTemp();
    const store = opened.store as SqliteStore;
    try {
      const { before, after } = await shrink(store);
      assert.ok(before > 1_000, `400 values of 10 KB take ${before} pages`);
      assert.ok(after * 10 < before, `after compaction ${after} pages of ${before} remain`);
      // The deletes themselves added a few pages before compaction freed them all.
      const vacuumed = store.stats.vacuumedPages;
      assert.ok(vacuumed >= before - after && vacuumed < before, `${vacuumed} pages counted as handed back, ${before - after} fewer in the file`);
      assert.equal((await store.list('/big/')).items.length, 2);
      const reopened = (await opened.reopen!()) as SqliteStore;
      assert.equal(reopened.pageCount(), after, 'the smaller file is what is opened again');
      assert.ok((await stat(opened.path)).size <= after * 4096, 'and its size on disk');
    } finally {
      await opened.dispose();
    }
  });

  it('a file made without incremental vacuum is converted when opened, and then shrinks too', async () => {
    await withTemp(async (path) => {
      const legacy = new Database(path);
      legacy.pragma('journal_mode = WAL');
      createSchema(legacy);
      assert.equal(legacy.pragma('auto_vacuum', { simple: true }), 0, 'the file keeps its free pages as SQLite makes it by default');
      legacy.close();
      const store = await SqliteStore.open({ path });
      try {
        const { before, after } = await shrink(store);
        assert.ok(after * 10 < before, `after compaction ${after} pages of ${before} remain`);
      } finally {
        await store.close();
      }
    });
  });
});

describe('SqliteStore: group commit', { timeout: 10_000 }, () => {
  it('writes issued in one turn share one commit; maxBatch caps how many one commit takes', async () => {
    const cases: Array<[Partial<SqliteStoreOptions>, number, number]> = [
      [{}, 10, 1],
      [{ maxBatch: 4 }, 10, 3],
      [{ maxBatch: 5 }, 10, 2],
      [{ maxBatch: 1 }, 10, 10],
      [{ maxBatch: 0 }, 3, 3],
      [{}, 2049, 2],
    ];
    for (const [options, writes, commits] of cases) {
      await withTemp(async (path) => {
        const store = await SqliteStore.open({ path, reserveBytes: 0, ...options });
        try {
          const kvs = await Promise.all(Array.from({ length: writes }, (_, i) => store.create(`/g/${i}`, 'x')));
          const what = `${writes} creates with ${JSON.stringify(options)}`;
          assert.equal(store.stats.commits, commits, `${what}: commits`);
          assert.equal(store.stats.writes, writes, `${what}: writes`);
          assert.deepEqual(kvs.map((kv) => kv.modRevision), Array.from({ length: writes }, (_, i) => i + 1), `${what}: revisions in call order`);
          assert.equal((await store.count('/g/')).count, writes);
        } finally {
          await store.close();
        }
      });
    }
  });
});

describe('SqliteStore: files', { timeout: 10_000 }, () => {
  it('a new database file is made mode 0600 whatever the umask, and so is its write-ahead log', async () => {
    await withTemp(async (path) => {
      const umask = process.umask(0);
      let store: SqliteStore;
      try {
        store = await SqliteStore.open({ path, reserveBytes: 0 });
      } finally {
        process.umask(umask);
      }
      try {
        await store.create('/a', '1');
        assert.equal((await stat(path)).mode & 0o777, 0o600, 'the database file');
        assert.equal((await stat(`${path}-wal`)).mode & 0o777, 0o600, 'the write-ahead log');
      } finally {
        await store.close();
      }
    });
  });
});

describe('SqliteStore: compaction across close and open', { timeout: 10_000 }, () => {
  it('close() stops a running compaction between batches; opening the file again finishes it', async () => {
    await withTemp(async (path) => {
      const store = await SqliteStore.open({ path, reserveBytes: 0, compactionBatch: 2 });
      let kv = await store.create('/a', '0');
      for (let i = 1; i <= 40; i++) kv = await store.update('/a', String(i), kv.modRevision);
      const target = kv.modRevision;
      const compacting = store.compact(target);
      await store.close();
      const first = await compacting;
      assert.equal(first.compactRevision, target);
      assert.ok(first.removed < 40, `close() let the compaction finish (${first.removed} rows removed)`);

      const again = await SqliteStore.open({ path, reserveBytes: 0, compactionBatch: 2 });
      try {
        assert.equal(await again.compactRevision(), target, 'the compact revision survives');
        await until(() => first.removed + again.stats.compactedRows === 40, 'the compaction resumed after open removes the remaining superseded versions');
        assert.deepEqual((await again.list('/')).items.map((x) => x.value), ['40']);
        assert.deepEqual((await again.list('/', { revision: target })).items.map((x) => x.value), ['40']);
        assert.deepEqual({ ...(await again.compact(target)) }, { compactRevision: target, removed: 0 }, 'compacting again once the resumed compaction is done');
        const next = await again.update('/a', 'after', (await again.get('/a'))!.modRevision);
        assert.deepEqual({ ...(await again.compact(next.modRevision)) }, { compactRevision: next.modRevision, removed: 1 }, 'a compaction after the resumed one');
      } finally {
        await again.close();
      }
    });
  });
});

/** The StoreError `action` rejects with (failing unless it rejects with one of `code`). */
async function storeError(action: () => Promise<unknown>, code: StoreError['code']): Promise<StoreError> {
  let caught: unknown;
  try {
    await action();
  } catch (err) {
    caught = err;
  }
  assert.equal(isStoreError(caught, code), true, `expected StoreError ${code}, got ${String(caught)}`);
  return caught as StoreError;
}

describe('SqliteStore: errors and edge cases', { timeout: 10_000 }, () => {
  it('a refused write names its key, and AlreadyExists and Conflict carry the version the key has', async () => {
    await withTemp(async (path) => {
      const store = await SqliteStore.open({ path, reserveBytes: 0 });
      try {
        const a = await store.create('/a', '1');
        const exists = await storeError(() => store.create('/a', '2'), 'AlreadyExists');
        assert.deepEqual([exists.message, exists.key, plain(exists.current)], ['key "/a" already exists', '/a', plain(a)]);
        const missing = await storeError(() => store.update('/b', 'x', 1), 'NotFound');
        assert.deepEqual([missing.message, missing.key], ['key "/b" not found', '/b']);
        const deleted = await storeError(() => store.delete('/b'), 'NotFound');
        assert.equal(deleted.key, '/b');
        const stale = await storeError(() => store.update('/a', 'x', a.modRevision + 7), 'Conflict');
        assert.deepEqual([stale.message, stale.key, plain(stale.current)], [`key "/a" is at revision ${a.modRevision}, not ${a.modRevision + 7}`, '/a', plain(a)]);
      } finally {
        await store.close();
      }
    });
  });

  it('an expectedModRevision or fromRevision that is not a non-negative integer throws InvalidValue naming it, and writes nothing', async () => {
    await withTemp(async (path) => {
      const store = await SqliteStore.open({ path, reserveBytes: 0 });
      try {
        const a = await store.create('/a', '1');
        for (const bad of [-1, 1.5]) {
          const update = await storeError(() => store.update('/a', 'x', bad), 'InvalidValue');
          assert.match(update.message, /^expectedModRevision must be a non-negative integer/);
          const del = await storeError(() => store.delete('/a', bad), 'InvalidValue');
          assert.match(del.message, /^expectedModRevision must be a non-negative integer/);
          const watch = await storeError(async () => store.watch('/', bad), 'InvalidValue');
          assert.match(watch.message, /^fromRevision must be a non-negative integer/);
        }
        assert.deepEqual(plain(await store.get('/a')), plain(a), 'nothing was written');
        assert.equal(await store.currentRevision(), a.modRevision);
      } finally {
        await store.close();
      }
    });
  });

  it('the empty prefix lists, counts and watches every key', async () => {
    await withTemp(async (path) => {
      const store = await SqliteStore.open({ path, reserveBytes: 0 });
      try {
        for (const key of ['/a', '/b/c', '/\u{10FFFF}']) await store.create(key, key);
        assert.deepEqual((await store.list('')).items.map((kv) => kv.key), ['/a', '/b/c', '/\u{10FFFF}']);
        assert.equal((await store.count('')).count, 3);
        const controller = new AbortController();
        const events: WatchEvent[] = [];
        for await (const event of store.watch('', 0, { signal: controller.signal })) {
          events.push(event);
          if (events.length === 3) controller.abort();
        }
        assert.deepEqual(events.map((e) => (e.type === 'create' ? e.kv.key : e.type)), ['/a', '/b/c', '/\u{10FFFF}']);
      } finally {
        await store.close();
      }
    });
  });

  it('list after the prefix itself leaves out the key equal to the prefix', async () => {
    await withTemp(async (path) => {
      const store = await SqliteStore.open({ path, reserveBytes: 0 });
      try {
        for (const key of ['/p', '/p/1', '/p2']) await store.create(key, key);
        const current = await store.currentRevision();
        for (const revision of [undefined, current - 1]) {
          const listed = await store.list('/p', { after: '/p', ...(revision === undefined ? {} : { revision }) });
          assert.deepEqual(listed.items.map((kv) => kv.key), revision === undefined ? ['/p/1', '/p2'] : ['/p/1'], `at revision ${revision ?? 'now'}`);
        }
      } finally {
        await store.close();
      }
    });
  });
});

describe('SqliteStore: compaction errors', { timeout: 10_000 }, () => {
  it('compacting above the current revision, or watching from below the compact revision, says where the store stands', async () => {
    await withTemp(async (path) => {
      const store = await SqliteStore.open({ path, reserveBytes: 0 });
      try {
        let kv = await store.create('/a', '0');
        for (let i = 1; i <= 3; i++) kv = await store.update('/a', String(i), kv.modRevision);
        const future = await storeError(() => store.compact(kv.modRevision + 1), 'FutureRevision');
        assert.deepEqual([future.message, future.currentRevision], [`cannot compact at revision ${kv.modRevision + 1}: the current revision is ${kv.modRevision}`, kv.modRevision]);
        await store.compact(kv.modRevision - 1);
        const compacted = await storeError(async () => {
          for await (const event of store.watch('/', kv.modRevision - 2)) assert.fail(`an event from a compacted revision: ${JSON.stringify(event)}`);
        }, 'Compacted');
        assert.deepEqual(
          [compacted.message, compacted.compactRevision, compacted.currentRevision],
          [`revision ${kv.modRevision - 2} has been compacted (compact revision ${kv.modRevision - 1})`, kv.modRevision - 1, kv.modRevision],
        );
      } finally {
        await store.close();
      }
    });
  });
});
