/**
 * SqliteStore's commit and compaction paths when something goes wrong, and how compaction hands
 * space back. Failures inside a transaction are made with SQLite triggers put in the file before the
 * store opens it (a trigger that refuses some rows, as a constraint of the file would), so the
 * store's own code meets them exactly where a real failure would be met.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { isStoreError, type WatchEvent } from '../store.js';
import { createSchema } from './schema.js';
import { SqliteStore, worthReclaiming } from './sqlite.js';
import { fillDisk, rejection, smallDisk, withDir } from './disk.test-support.js';

/** A store file with the store's tables and `sql` (triggers) added. */
function prepareFile(path: string, sql: string): void {
  const db = new Database(path);
  try {
    db.pragma('auto_vacuum = INCREMENTAL');
    createSchema(db);
    db.exec(sql);
  } finally {
    db.close();
  }
}

/** The next event of `watch`, failing after `ms`. */
async function nextEvent(watch: AsyncIterator<WatchEvent>, ms = 5_000): Promise<WatchEvent> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no event within ${ms} ms`)), ms);
  });
  try {
    const result = await Promise.race([watch.next(), deadline]);
    assert.equal(result.done, false);
    return result.value as WatchEvent;
  } finally {
    clearTimeout(timer);
  }
}

const REFUSE = `CREATE TRIGGER refuse BEFORE INSERT ON log WHEN NEW.key LIKE '/refused/%' BEGIN SELECT RAISE(ABORT, 'refused by a trigger'); END;`;

describe('SqliteStore: a commit that fails', { timeout: 10_000 }, () => {
  it('rejects every write of its batch with the reason, takes no revision, publishes nothing, and the next writes commit', async () => {
    await withDir(async (dir) => {
      const path = join(dir, 'state.db');
      prepareFile(path, REFUSE);
      const store = await SqliteStore.open({ path, reserveBytes: 64 * 1024 });
      try {
        const a = await store.create('/ok/0', 'a');
        const watch = store.watch('/', a.modRevision)[Symbol.asyncIterator]();
        const commits = store.stats.commits;
        const results = await Promise.allSettled([store.create('/ok/1', 'x'), store.create('/refused/1', 'x'), store.update('/ok/0', 'b', a.modRevision), store.delete('/ok/0')]);
        for (const result of results) {
          assert.equal(result.status, 'rejected');
          const err = (result as PromiseRejectedResult).reason as Error;
          assert.ok(isStoreError(err, 'Unavailable'), String(err));
          assert.equal(err.message, 'the write could not be committed: refused by a trigger');
          assert.equal((err.cause as { code?: string }).code, 'SQLITE_CONSTRAINT_TRIGGER');
        }
        assert.equal(await store.currentRevision(), a.modRevision);
        assert.deepEqual([store.stats.commits, store.stats.writes], [commits, 1]);
        assert.equal(await store.get('/ok/1'), undefined);
        assert.equal((await store.get('/ok/0'))?.value, 'a');
        assert.equal(store.diskFull, false, 'a failure that is not a full disk keeps the reserve');
        assert.equal((await stat(`${path}-reserve`)).size, 64 * 1024);
        assert.equal(store.damaged, undefined);

        const next = await store.create('/ok/2', 'x');
        assert.equal(next.modRevision, a.modRevision + 1);
        const event = await nextEvent(watch);
        assert.deepEqual([event.type, event.revision], ['create', next.modRevision], 'the first event the watch sees is the next write');
        await watch.return?.();
      } finally {
        await store.close();
      }
    });
  });

  it('with maxBatch 1 only the refused write fails', async () => {
    await withDir(async (dir) => {
      const path = join(dir, 'state.db');
      prepareFile(path, REFUSE);
      const store = await SqliteStore.open({ path, reserveBytes: 0, maxBatch: 1 });
      try {
        const results = await Promise.allSettled([store.create('/ok/1', 'x'), store.create('/refused/1', 'x'), store.create('/ok/2', 'x')]);
        assert.deepEqual(
          results.map((r) => r.status),
          ['fulfilled', 'rejected', 'fulfilled'],
        );
        assert.deepEqual((await store.list('/')).items.map((kv) => [kv.key, kv.modRevision]), [
          ['/ok/1', 1],
          ['/ok/2', 2],
        ]);
      } finally {
        await store.close();
      }
    });
  });
});

describe('SqliteStore: compaction', { timeout: 10_000 }, () => {
  it('one compaction at a time: a second call waits for the first, then goes on from where it ended', async () => {
    await withDir(async (dir) => {
      const store = await SqliteStore.open({ path: join(dir, 'state.db'), reserveBytes: 0, compactionBatch: 1 });
      try {
        let kv = await store.create('/a', '0');
        for (let i = 1; i < 20; i++) kv = await store.update('/a', String(i), kv.modRevision);
        assert.equal(kv.modRevision, 20);
        // Each update supersedes the version before it: at 10, versions 1-9 go; at 20, 10-19.
        const [first, second] = await Promise.all([store.compact(10), store.compact(20)]);
        assert.deepEqual({ ...first }, { compactRevision: 10, removed: 9 });
        assert.deepEqual({ ...second }, { compactRevision: 20, removed: 10 });
        assert.deepEqual({ ...(await store.compact(15)) }, { compactRevision: 20, removed: 0 });
        assert.equal(store.stats.compactedRows, 19);
      } finally {
        await store.close();
      }
    });
  });

  it('removes a deleted key: its last version and the mark of its deletion', async () => {
    await withDir(async (dir) => {
      const store = await SqliteStore.open({ path: join(dir, 'state.db'), reserveBytes: 0 });
      try {
        await store.create('/t', 'x');
        await store.delete('/t');
        const u = await store.create('/u', 'y');
        assert.deepEqual({ ...(await store.compact(u.modRevision)) }, { compactRevision: u.modRevision, removed: 2 });
        assert.deepEqual((await store.list('/', { revision: u.modRevision })).items.map((kv) => kv.key), ['/u']);
      } finally {
        await store.close();
      }
    });
  });

  it('one that fails part way rejects with the reason, keeps the compact revision and the reserve, and the next compact() finishes it, even one below', async () => {
    await withDir(async (dir) => {
      const path = join(dir, 'state.db');
      // Versions of /pinned cannot be removed until /unpin exists.
      prepareFile(path, `CREATE TRIGGER pin BEFORE DELETE ON log WHEN OLD.key = '/pinned' AND NOT EXISTS (SELECT 1 FROM kv WHERE key = '/unpin') BEGIN SELECT RAISE(ABORT, 'compaction blocked'); END;`);
      const store = await SqliteStore.open({ path, reserveBytes: 64 * 1024, compactionBatch: 2 });
      try {
        let a = await store.create('/a', '0');
        for (let i = 1; i <= 5; i++) a = await store.update('/a', String(i), a.modRevision);
        const pinned = await store.create('/pinned', '0');
        await store.update('/pinned', '1', pinned.modRevision);
        for (let i = 6; i <= 9; i++) a = await store.update('/a', String(i), a.modRevision);
        const superseded = 9 + 1;
        const target = a.modRevision;

        const err = await rejection(() => store.compact(target));
        assert.match(err.message, /compaction blocked/);
        assert.equal(await store.compactRevision(), target, 'the compact revision was moved before the work began');
        const partial = store.stats.compactedRows;
        assert.ok(partial > 0 && partial < superseded, `${partial} of ${superseded} versions removed before the failure`);
        assert.equal(store.diskFull, false, 'a failure that is not a full disk keeps the reserve');
        assert.equal((await stat(`${path}-reserve`)).size, 64 * 1024);

        await store.create('/unpin', 'x');
        assert.deepEqual({ ...(await store.compact(1)) }, { compactRevision: target, removed: superseded - partial });
        assert.equal(store.stats.compactedRows, superseded);
        assert.deepEqual({ ...(await store.compact(target)) }, { compactRevision: target, removed: 0 });
        assert.deepEqual((await store.list('/', { revision: target })).items.map((kv) => [kv.key, kv.value]), [
          ['/a', '9'],
          ['/pinned', '1'],
        ]);
      } finally {
        await store.close();
      }
    });
  });
});

describe('SqliteStore: compaction keeps a few free pages', { timeout: 10_000 }, () => {
  const value = 'x'.repeat(10_000);
  const creates = (store: SqliteStore, from: number, to: number) => Promise.all(Array.from({ length: to - from }, (_, i) => store.create(`/v/${from + i}`, value)));
  const deletes = (store: SqliteStore, from: number, to: number) => Promise.all(Array.from({ length: to - from }, (_, i) => store.delete(`/v/${from + i}`)));

  it('under 1 MiB of free pages, or under a quarter of the file, stay in the file for the next writes', async () => {
    await withDir(async (dir) => {
      const store = await SqliteStore.open({ path: join(dir, 'state.db'), reserveBytes: 0, durable: false });
      try {
        // 20 values of 10 KB: about 60 pages, fewer than 256.
        await creates(store, 0, 20);
        const small = store.pageCount();
        await deletes(store, 0, 20);
        await store.compact(await store.currentRevision());
        assert.ok(store.pageCount() >= small, `${small} pages before, ${store.pageCount()} after`);

        // 150 values of 10 KB in a file of 1,150: more than 256 pages, less than a quarter.
        await creates(store, 0, 1000);
        const most = store.pageCount();
        await creates(store, 1000, 1150);
        const all = store.pageCount();
        assert.ok(all - most > 256 && 4 * (all - most) < all, `the last 150 values take ${all - most} of ${all} pages`);
        await deletes(store, 1000, 1150);
        await store.compact(await store.currentRevision());
        assert.ok(store.pageCount() >= all, `${all} pages before, ${store.pageCount()} after`);
        assert.equal(store.stats.vacuumedPages, 0);
      } finally {
        await store.close();
      }
    });
  });
});

describe('worthReclaiming', { timeout: 10_000 }, () => {
  it('more than 256 free pages (1 MiB) and more than a quarter of the file', () => {
    assert.equal(worthReclaiming(257, 1000), true);
    assert.equal(worthReclaiming(256, 1000), false);
    assert.equal(worthReclaiming(257, 1027), true);
    assert.equal(worthReclaiming(257, 1028), false);
    assert.equal(worthReclaiming(600, 1000), true);
    assert.equal(worthReclaiming(0, 0), false);
  });
});

describe('SqliteStore: compaction on a full disk', { timeout: 10_000 }, () => {
  it('gives up the reserve to commit, hands back every free page, empties the write-ahead log; writes resume once space is freed', async () => {
    await using disk = await smallDisk('8m');
    const path = join(disk.dir, 'state.db');
    const reserveBytes = 1024 * 1024;
    let store = await SqliteStore.open({ path, reserveBytes });
    try {
      for (let i = 0; i < 5; i++) await store.create(`/kept/${i}`, 'k');
      // 60 values of 10 KB: under 256 pages, which compaction would otherwise keep.
      const big = 60;
      await Promise.all(Array.from({ length: big }, (_, i) => store.create(`/big/${i}`, 'x'.repeat(10_000))));
      await Promise.all(Array.from({ length: big }, (_, i) => store.delete(`/big/${i}`)));
      // Opened again with an empty write-ahead log: compaction needs new room for it.
      await store.close();
      store = await SqliteStore.open({ path, reserveBytes });
      assert.equal(store.diskFull, false);
      fillDisk(join(disk.dir, 'filler'));
      const before = store.pageCount();

      const result = await store.compact(await store.currentRevision());
      assert.equal(result.removed, 2 * big, 'each big value and the mark of its deletion');
      assert.equal(store.diskFull, true);
      assert.equal(existsSync(`${path}-reserve`), false, 'the reserve was given up');
      const after = store.pageCount();
      assert.ok(after < before - big, `${before} pages before, ${after} after`);
      assert.equal(store.stats.vacuumedPages, before - after);
      assert.equal(existsSync(`${path}-wal`) ? (await stat(`${path}-wal`)).size : 0, 0, 'the write-ahead log is emptied');
      assert.equal((await store.list('/kept/')).items.length, 5);

      await rm(join(disk.dir, 'filler'));
      await store.create('/after', 'x');
      assert.equal(store.diskFull, false);
      assert.equal((await stat(`${path}-reserve`)).size, reserveBytes);
      await store.close();
      store = await SqliteStore.open({ path, reserveBytes });
      assert.equal(await store.compactRevision(), result.compactRevision, 'the compact revision was recorded');
    } finally {
      await store.close();
    }
  });

  it('with too little room even to hand pages back (the data kept is at the end of the file), compaction still completes', async () => {
    await using disk = await smallDisk('8m');
    const path = join(disk.dir, 'state.db');
    // A reserve big enough for compaction's deletes, not for moving 60 values of 10 KB within the file.
    const reserveBytes = 256 * 1024;
    let store = await SqliteStore.open({ path, reserveBytes });
    try {
      const value = 'x'.repeat(10_000);
      await Promise.all(Array.from({ length: 60 }, (_, i) => store.create(`/big/${i}`, value)));
      await Promise.all(Array.from({ length: 60 }, (_, i) => store.create(`/kept/${i}`, value)));
      await Promise.all(Array.from({ length: 60 }, (_, i) => store.delete(`/big/${i}`)));
      await store.close();
      store = await SqliteStore.open({ path, reserveBytes });
      fillDisk(join(disk.dir, 'filler'));
      const before = store.pageCount();
      const result = await store.compact(await store.currentRevision());
      assert.equal(result.removed, 2 * 60);
      assert.equal(store.diskFull, true);
      assert.equal(store.pageCount(), before, 'the freed pages stay in the file');
      assert.equal(store.stats.vacuumedPages, 0);
      assert.equal((await store.list('/kept/')).items.length, 60);
      assert.equal(existsSync(`${path}-wal`) ? (await stat(`${path}-wal`)).size : 0, 0, 'the write-ahead log is emptied');
    } finally {
      await store.close();
    }
  });
});
