/**
 * SqliteStore's life cycle outside the hot paths: what open() makes of its options and of files it
 * cannot use, the reserve made at open, close(), backup() and pageCount(), and isCorruptDatabase.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { chmod, copyFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { isStoreError, StoreError } from '../store.js';
import { SqliteStore, isCorruptDatabase } from './sqlite.js';
import { rejection, withDir } from './disk.test-support.js';

describe('SqliteStore.open: files it cannot use', { timeout: 10_000 }, () => {
  it('a path in a missing directory is refused with the reason, and nothing is made', async () => {
    await withDir(async (dir) => {
      const path = join(dir, 'missing', 'state.db');
      const err = await rejection(() => SqliteStore.open({ path }));
      assert.ok(isStoreError(err, 'Unavailable'), String(err));
      assert.match(err.message, new RegExp(`^cannot open the database ${path}: ENOENT`));
      assert.equal((err.cause as { code?: string }).code, 'ENOENT');
      assert.equal(existsSync(join(dir, 'missing')), false);
    });
  });

  it("an SQLite file of another program (tables of the same names, other columns) is refused with SQLite's reason", async () => {
    await withDir(async (dir) => {
      // meta without the store's columns: making the schema fails.
      const metaPath = join(dir, 'meta.db');
      const meta = new Database(metaPath);
      meta.exec('CREATE TABLE meta (x INTEGER)');
      meta.close();
      const err = await rejection(() => SqliteStore.open({ path: metaPath, reserveBytes: 0 }));
      assert.ok(isStoreError(err, 'Unavailable'), String(err));
      assert.equal(err.message, `cannot open the database ${metaPath}: table meta has no column named name`);
      assert.equal((err.cause as { code?: string }).code, 'SQLITE_ERROR');

      // log without the store's columns: the schema is there, preparing the statements fails.
      const logPath = join(dir, 'log.db');
      const log = new Database(logPath);
      log.exec('CREATE TABLE log (revision INTEGER PRIMARY KEY AUTOINCREMENT, key TEXT)');
      log.close();
      const err2 = await rejection(() => SqliteStore.open({ path: logPath, reserveBytes: 0 }));
      assert.ok(isStoreError(err2, 'Unavailable'), String(err2));
      assert.match(err2.message, new RegExp(`^cannot open the database ${logPath}: no such column`));
      // Refused cleanly: the connection was closed, so another program can use the file.
      const after = new Database(logPath);
      after.exec('BEGIN EXCLUSIVE; COMMIT');
      after.close();
    });
  });

  it('a file that is not a database is refused as damaged', async () => {
    await withDir(async (dir) => {
      const path = join(dir, 'state.db');
      await writeFile(path, 'not a database at all, '.repeat(400));
      const err = await rejection(() => SqliteStore.open({ path, reserveBytes: 0 }));
      assert.ok(isStoreError(err, 'Unavailable'), String(err));
      assert.match(err.message, new RegExp(`^the database ${path} is damaged: file is not a database`));
      assert.ok(isCorruptDatabase(err));
    });
  });

  it('a file another store holds is refused as in use, once busyTimeoutMs has passed; free again once it closes', async () => {
    await withDir(async (dir) => {
      const path = join(dir, 'state.db');
      const first = await SqliteStore.open({ path, reserveBytes: 0 });
      try {
        await first.create('/a', 'x');
        const err = await rejection(() => SqliteStore.open({ path, reserveBytes: 0, busyTimeoutMs: 0 }));
        assert.ok(isStoreError(err, 'Unavailable'), String(err));
        assert.equal(err.message, `cannot open the database ${path}: it is in use by another process`);
        assert.equal((err.cause as { code?: string }).code, 'SQLITE_BUSY');
      } finally {
        await first.close();
      }
      const again = await SqliteStore.open({ path, reserveBytes: 0, busyTimeoutMs: 0 });
      try {
        assert.equal((await again.get('/a'))?.value, 'x');
      } finally {
        await again.close();
      }
    });
  });
});

describe('SqliteStore.open: options', { timeout: 10_000 }, () => {
  it('an existing file keeps its mode; a new one is made 0600', async () => {
    await withDir(async (dir) => {
      const path = join(dir, 'state.db');
      await writeFile(path, '');
      await chmod(path, 0o640);
      const store = await SqliteStore.open({ path, reserveBytes: 0 });
      try {
        await store.create('/a', '1');
        assert.equal((await stat(path)).mode & 0o777, 0o640);
      } finally {
        await store.close();
      }
    });
  });

  it('a path starting with "file:" is a file of that name (better-sqlite3 takes no URIs), made 0600 too', async () => {
    await withDir(async (dir) => {
      const cwd = process.cwd();
      const umask = process.umask(0o022);
      process.chdir(dir);
      try {
        const store = await SqliteStore.open({ path: 'file:state.db', reserveBytes: 0 });
        try {
          await store.create('/a', '1');
        } finally {
          await store.close();
        }
      } finally {
        process.chdir(cwd);
        process.umask(umask);
      }
      assert.equal((await stat(join(dir, 'file:state.db'))).mode & 0o777, 0o600);
    });
  });

  it("SQLite's in-memory and temporary names work and leave no file behind (no reserve either)", async () => {
    for (const path of [':memory:', '']) {
      const strays = [join(process.cwd(), path === '' ? '-reserve' : ':memory:'), join(process.cwd(), `${path}-reserve`)];
      try {
        const store = await SqliteStore.open({ path });
        try {
          assert.equal(store.diskFull, false);
          const kv = await store.create('/a', '1');
          assert.equal((await store.get('/a'))?.modRevision, kv.modRevision);
          for (const stray of strays) assert.equal(existsSync(stray), false, `${JSON.stringify(path)} made ${stray}`);
        } finally {
          await store.close();
        }
      } finally {
        for (const stray of strays) await rm(stray, { force: true });
      }
    }
  });

  it('the reserve: 16 MiB beside the database unless told, the size asked for, none with 0', async () => {
    await withDir(async (dir) => {
      for (const [reserveBytes, size] of [
        [undefined, 16 * 1024 * 1024],
        [64 * 1024, 64 * 1024],
        [0, undefined],
      ] as const) {
        const path = join(dir, `state-${String(reserveBytes)}.db`);
        const store = await SqliteStore.open({ path, ...(reserveBytes === undefined ? {} : { reserveBytes }) });
        try {
          assert.equal(store.diskFull, false, `reserveBytes ${String(reserveBytes)}`);
          if (size === undefined) assert.equal(existsSync(`${path}-reserve`), false);
          else assert.equal((await stat(`${path}-reserve`)).size, size, `reserveBytes ${String(reserveBytes)}`);
        } finally {
          await store.close();
        }
      }
    });
  });

  it('a reserve the volume has no room for: the store opens with the disk full, takes deletes and small updates, refuses the rest', async () => {
    await withDir(async (dir) => {
      const path = join(dir, 'state.db');
      const before = await SqliteStore.open({ path, reserveBytes: 0 });
      const kept = await before.create('/kept', 'v');
      const gone = await before.create('/gone', 'v');
      await before.close();
      // Twice this is free on no volume.
      const reserveBytes = 2 ** 50;
      const store = await SqliteStore.open({ path, reserveBytes });
      try {
        assert.equal(store.diskFull, true);
        assert.equal(existsSync(`${path}-reserve`), false);
        const refused = await rejection(() => store.create('/new', 'v'));
        assert.ok(isStoreError(refused, 'Unavailable'), String(refused));
        assert.equal(
          refused.message,
          `the disk is full (${path}): only deletes and small updates are committed until ${2 * reserveBytes} bytes are free on its volume`,
        );
        assert.equal((refused as StoreError).key, '/new');
        const revision = await store.currentRevision();
        const deleted = await store.delete('/gone', gone.modRevision);
        assert.equal(deleted.revision, revision + 1, 'the refused create took no revision');
        const small = await store.update('/kept', 'v'.repeat(1 + 1024), kept.modRevision);
        assert.equal(small.value.length, 1025);
        await assert.rejects(store.update('/kept', 'v'.repeat(1025 + 1025), small.modRevision), /the disk is full/);
        assert.equal(await store.get('/new'), undefined);
      } finally {
        await store.close();
      }
    });
  });

  it('durable (the default) fsyncs every commit, durable: false does not', async () => {
    // What fsyncs is SQLite's synchronous setting of the store's connection: read it there.
    const synchronous = (store: SqliteStore): unknown => (store as unknown as { db: Database.Database }).db.pragma('synchronous', { simple: true });
    await withDir(async (dir) => {
      for (const [durable, expected] of [
        [undefined, 2],
        [true, 2],
        [false, 1],
      ] as const) {
        const store = await SqliteStore.open({ path: join(dir, `state-${String(durable)}.db`), reserveBytes: 0, ...(durable === undefined ? {} : { durable }) });
        try {
          assert.equal(synchronous(store), expected, `durable: ${String(durable)} (2 is FULL, 1 NORMAL)`);
        } finally {
          await store.close();
        }
      }
    });
  });

  it('a batch of maxBatch writes is committed at once, not at the end of the turn', async () => {
    await withDir(async (dir) => {
      const store = await SqliteStore.open({ path: join(dir, 'state.db'), reserveBytes: 0, maxBatch: 3 });
      try {
        const writes = [store.create('/a', '1'), store.create('/b', '1')];
        assert.equal(store.stats.commits, 0, 'two writes wait for the end of the turn');
        writes.push(store.create('/c', '1'));
        assert.deepEqual([store.stats.commits, store.stats.writes], [1, 3], 'the third fills the batch');
        writes.push(store.create('/d', '1'));
        assert.equal(store.stats.commits, 1);
        await Promise.all(writes);
        assert.deepEqual([store.stats.commits, store.stats.writes], [2, 4]);
        // The flush the fourth write scheduled (the first one took that write) runs before this
        // turn ends: it finds nothing to commit, and commits nothing.
        await new Promise((resolve) => setImmediate(resolve));
        assert.equal(store.stats.commits, 2);
        await store.create('/e', '1');
        assert.deepEqual([store.stats.commits, store.stats.writes], [3, 5]);
      } finally {
        await store.close();
      }
    });
  });
});

describe('SqliteStore: close, backup, pageCount', { timeout: 10_000 }, () => {
  it('after close() the database file alone holds everything (the write-ahead log is emptied), and close() again does nothing', async () => {
    await withDir(async (dir) => {
      const path = join(dir, 'state.db');
      const store = await SqliteStore.open({ path, reserveBytes: 0 });
      for (let i = 0; i < 20; i++) await store.create(`/k/${i}`, 'x'.repeat(1000));
      assert.ok((await stat(`${path}-wal`)).size > 0, 'the writes went to the write-ahead log');
      await store.close();
      await store.close();
      assert.equal(existsSync(`${path}-wal`) ? (await stat(`${path}-wal`)).size : 0, 0);
      // Only the database file, copied alone, and opened by plain SQLite.
      const copy = join(dir, 'copy.db');
      await copyFile(path, copy);
      const db = new Database(copy, { readonly: true });
      try {
        assert.equal((db.prepare('SELECT COUNT(*) AS n FROM kv').get() as { n: number }).n, 20);
      } finally {
        db.close();
      }
      for (const action of [() => store.backup(join(dir, 'b.db')), async () => store.pageCount()]) {
        const err = await rejection(action);
        assert.ok(isStoreError(err, 'Closed'), String(err));
      }
    });
  });

  it('backup() writes a copy that opens as a store with the same data and revision', async () => {
    await withDir(async (dir) => {
      const store = await SqliteStore.open({ path: join(dir, 'state.db'), reserveBytes: 0 });
      const destination = join(dir, 'backup.db');
      try {
        let kv = await store.create('/a', '0');
        for (let i = 1; i <= 5; i++) kv = await store.update('/a', String(i), kv.modRevision);
        await store.create('/b', 'b');
        await store.backup(destination);
        await store.update('/a', 'after the backup', kv.modRevision);
        assert.ok(store.pageCount() > 0);
      } finally {
        await store.close();
      }
      const copy = await SqliteStore.open({ path: destination, reserveBytes: 0 });
      try {
        assert.deepEqual(
          (await copy.list('/')).items.map((x) => [x.key, x.value]),
          [
            ['/a', '5'],
            ['/b', 'b'],
          ],
        );
        assert.equal(await copy.currentRevision(), 7);
        assert.equal((await copy.list('/', { revision: 3 })).items[0]?.value, '2', 'and the history');
      } finally {
        await copy.close();
      }
    });
  });

  it('pageCount() is the size of the database file in 4 KiB pages', async () => {
    await withDir(async (dir) => {
      const path = join(dir, 'state.db');
      const store = await SqliteStore.open({ path, reserveBytes: 0 });
      try {
        const empty = store.pageCount();
        for (let i = 0; i < 50; i++) await store.create(`/k/${i}`, 'x'.repeat(10_000));
        const full = store.pageCount();
        assert.ok(full >= empty + 50 * 2, `50 values of 10 KB: ${empty} pages, then ${full}`);
        await store.close();
        assert.equal((await stat(path)).size, full * 4096);
      } finally {
        await store.close();
      }
    });
  });
});

describe('isCorruptDatabase', { timeout: 10_000 }, () => {
  const sqlite = (code: unknown): Error => Object.assign(new Error('x'), { code });
  it("is true for SQLite's damaged-file codes, also as the cause (of a cause) of another error", () => {
    for (const code of ['SQLITE_CORRUPT', 'SQLITE_CORRUPT_INDEX', 'SQLITE_NOTADB']) {
      assert.equal(isCorruptDatabase(sqlite(code)), true, code);
      assert.equal(isCorruptDatabase(new StoreError('Unavailable', 'y', { cause: new Error('z', { cause: sqlite(code) }) })), true, `${code} as a cause`);
    }
  });
  it('is false for other codes, errors without one, and what is not an error; a cycle of causes ends', () => {
    for (const code of ['SQLITE_FULL', 'SQLITE_BUSY', 'SQLITE_NOTFOUND', 'ENOSPC', 5, undefined, null]) {
      assert.equal(isCorruptDatabase(sqlite(code)), false, String(code));
    }
    for (const value of [undefined, null, 'SQLITE_CORRUPT', 11, new Error('x', { cause: null }), new Error('x', { cause: 'SQLITE_CORRUPT' })]) {
      assert.equal(isCorruptDatabase(value), false, String(value));
    }
    const cycle: Error & { cause?: unknown } = new Error('cycle');
    cycle.cause = cycle;
    assert.equal(isCorruptDatabase(cycle), false);
  });
});
