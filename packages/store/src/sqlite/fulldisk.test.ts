/**
 * SqliteStore on a full disk: a small tmpfs (mounting one needs root, which the test machines
 * have) filled by the store itself. Deletes still commit (the reserve gives them room), creates
 * get a clear 'disk is full' error, compaction runs, and once enough is freed writes resume —
 * all without reopening the store.
 */
import assert from 'node:assert/strict';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { isStoreError, type StoreError } from '../store.js';
import { SqliteStore } from './sqlite.js';
import { fillDisk, smallDisk } from './disk.test-support.js';

const VALUE = 'v'.repeat(100_000);

describe('SqliteStore: full disk', { timeout: 10_000 }, () => {
  it('commits deletes on a full disk, refuses creates clearly, and resumes once space is freed', async () => {
    await using disk = await smallDisk('8m');
    const path = join(disk.dir, 'state.db');
    const store = await SqliteStore.open({ path, reserveBytes: 1024 * 1024 });
    try {
      assert.equal((await stat(`${path}-reserve`)).size, 1024 * 1024, 'the reserve is made at open');
      assert.equal(store.diskFull, false);
      let created = 0;
      let refusal: unknown;
      for (;;) {
        try {
          await store.create(`/k/${created}`, VALUE);
          created++;
        } catch (err) {
          refusal = err;
          break;
        }
      }
      assert.ok(created > 10, `only ${created} values fit`);
      assert.ok(isStoreError(refusal, 'Unavailable'), String(refusal));
      assert.match((refusal as Error).message, /the disk is full \(.*state\.db\)/);
      assert.equal((refusal as StoreError).key, `/k/${created}`, 'the refusal names the key');
      assert.equal(store.diskFull, true);
      await assert.rejects(stat(`${path}-reserve`), 'the reserve was given up');
      await assert.rejects(store.create('/small', 'x'), /the disk is full .*only deletes and small updates are committed until 2097152 bytes are free/);

      // Deletes commit, an update that grows an object by at most 1 KiB does (one more byte is
      // refused), and so does compaction.
      for (let i = 0; i < created - 2; i++) await store.delete(`/k/${i}`);
      const last = await store.get(`/k/${created - 1}`);
      await assert.rejects(
        store.update(`/k/${created - 1}`, `${VALUE}${'+'.repeat(1025)}`, last!.modRevision),
        /the disk is full .*only deletes and small updates are committed/,
        'an update growing the object by 1025 bytes is refused',
      );
      const grown = await store.update(`/k/${created - 1}`, `${VALUE}${'+'.repeat(1024)}`, last!.modRevision);
      await store.update(`/k/${created - 1}`, `${VALUE}-deleting`, grown.modRevision);
      await store.compact(await store.currentRevision());

      // With the space back, the next write makes the reserve again and commits.
      await store.create('/after', 'x');
      assert.equal(store.diskFull, false);
      assert.equal((await stat(`${path}-reserve`)).size, 1024 * 1024);
      assert.equal((await store.list('/k/')).items.length, 2);
    } finally {
      await store.close();
    }
  });

  it('without a reserve, a full disk refuses deletes as SQLite does', async () => {
    await using disk = await smallDisk('4m');
    const store = await SqliteStore.open({ path: join(disk.dir, 'state.db'), reserveBytes: 0 });
    try {
      let created = 0;
      for (;;) {
        try {
          await store.create(`/k/${created}`, VALUE);
          created++;
        } catch {
          break;
        }
      }
      // Every byte the file system has left taken by another file: a delete has only the room the
      // write-ahead log already holds (the frames of the create that failed), and once the deletes
      // have used it, the next one cannot commit.
      fillDisk(join(disk.dir, 'filler'));
      let refused: { index: number; err: unknown; revision: number } | undefined;
      for (let i = 0; i < created && refused === undefined; i++) {
        const revision = await store.currentRevision();
        await store.delete(`/k/${i}`).catch((err: unknown) => {
          refused = { index: i, err, revision };
        });
      }
      assert.ok(refused !== undefined, `all ${created} deletes committed on a full disk`);
      const { err, index, revision } = refused;
      assert.ok(isStoreError(err, 'Unavailable'), String(err));
      assert.match(err.message, /the write could not be committed: the disk is full/);
      assert.equal((err.cause as { code?: string } | undefined)?.code, 'SQLITE_FULL', "the cause is SQLite's error");
      assert.equal(await store.currentRevision(), revision, 'the delete that did not commit took no revision');
      assert.equal((await store.get(`/k/${index}`))?.value, VALUE, 'and deleted nothing');
    } finally {
      await store.close().catch(() => undefined);
    }
  });
});
