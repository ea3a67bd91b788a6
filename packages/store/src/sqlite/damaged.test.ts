/**
 * A damaged database file (blocks overwritten with random bytes): whatever step finds it —
 * opening, a read, a write — fails with a StoreError that names the file, and the store says it is
 * damaged, instead of SQLite's bare "database disk image is malformed".
 */
import assert from 'node:assert/strict';
import { closeSync, openSync, statSync, writeSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { isStoreError } from '../store.js';
import { SqliteStore, isCorruptDatabase } from './sqlite.js';

/**
 * Overwrites `blocks` 4 KiB blocks after the first (the header) with bytes of a fixed
 * pseudo-random sequence; blocks 0 overwrites the header itself.
 */
function damage(path: string, blocks: number, seed: number): void {
  const pages = Math.floor(statSync(path).size / 4096);
  let state = seed;
  const next = () => (state = (state * 1103515245 + 12345) % 2147483648) / 2147483648;
  const fd = openSync(path, 'r+');
  try {
    if (blocks === 0) writeSync(fd, Buffer.alloc(100, 0x5a), 0, 100, 0);
    for (let i = 0; i < blocks; i++) {
      const block = Buffer.alloc(4096);
      for (let j = 0; j < block.length; j++) block[j] = Math.floor(next() * 256);
      writeSync(fd, block, 0, block.length, 4096 * (1 + Math.floor(next() * (pages - 1))));
    }
  } finally {
    closeSync(fd);
  }
}

async function filledStore(path: string): Promise<void> {
  const store = await SqliteStore.open({ path, reserveBytes: 0 });
  // Issued in one turn: one group commit instead of 2,000 (each an fsync); the same rows result.
  await Promise.all(Array.from({ length: 2000 }, (_, i) => store.create(`/registry/things/t${String(i).padStart(5, '0')}`, JSON.stringify({ n: i, pad: 'p'.repeat(500) }))));
  await store.close();
}

describe('SqliteStore: a damaged file', { timeout: 10_000 }, () => {
  for (const [blocks, seed] of [
    [200, 7],
    [3, 11],
    [0, 1],
  ] as const) {
    it(`names the file whichever step finds the damage (${blocks === 0 ? 'the header' : `${blocks} blocks`})`, async () => {
      const dir = await mkdtemp(join(tmpdir(), 'setpoint-damaged-'));
      try {
        const path = join(dir, 'state.db');
        await filledStore(path);
        damage(path, blocks, seed);
        let found: unknown;
        let store: SqliteStore | undefined;
        try {
          store = await SqliteStore.open({ path, reserveBytes: 0 });
          await store.list('/registry/');
          for (let i = 0; i < 2000; i++) await store.get(`/registry/things/t${String(i).padStart(5, '0')}`);
          await store.create('/registry/things/new', 'x');
        } catch (err) {
          found = err;
        }
        assert.ok(found !== undefined, 'the damage went unnoticed');
        assert.ok(isStoreError(found, 'Unavailable'), String(found));
        assert.ok((found as Error).message.includes(`the database ${path} is damaged: `), (found as Error).message);
        assert.ok(isCorruptDatabase(found));
        if (store !== undefined) {
          assert.match(store.damaged ?? '', /malformed|not a database/);
          assert.equal(store.diskFull, false, 'a damaged file is not taken for a full disk');
          await store.close().catch(() => undefined);
        }
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    });
  }
});
