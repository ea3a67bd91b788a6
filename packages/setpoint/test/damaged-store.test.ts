/**
 * `setpoint server` on a damaged state.db (blocks overwritten with random bytes) stops with a
 * message that names the file and says how to restore a snapshot, not SQLite's bare "database
 * disk image is malformed".
 */
import assert from 'node:assert/strict';
import { closeSync, openSync, statSync, writeSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { silentLogger } from '@setpoint/api';
import { SqliteStore } from '@setpoint/store';
import { startServer } from '../src/commands/server.js';

function serverFlags(dataDir: string) {
  return { dataDir, port: '0', host: '127.0.0.1', store: 'sqlite', insecureHttp: true, compactionInterval: '5m', logLevel: 'silent' };
}

/** Overwrites `blocks` 4 KiB blocks after the header with a fixed pseudo-random sequence. */
function damage(path: string, blocks: number): void {
  const pages = Math.floor(statSync(path).size / 4096);
  let state = 7;
  const next = () => (state = (state * 1103515245 + 12345) % 2147483648) / 2147483648;
  const fd = openSync(path, 'r+');
  try {
    for (let i = 0; i < blocks; i++) {
      const block = Buffer.alloc(4096);
      for (let j = 0; j < block.length; j++) block[j] = Math.floor(next() * 256);
      writeSync(fd, block, 0, block.length, 4096 * (1 + Math.floor(next() * (pages - 1))));
    }
  } finally {
    closeSync(fd);
  }
}

describe('setpoint server on a damaged store', () => {
  for (const blocks of [40, 200]) {
    it(`names the file and the way back (${blocks} damaged blocks)`, async () => {
      const dir = await mkdtemp(join(tmpdir(), 'sp-damaged-'));
      try {
        const path = join(dir, 'state.db');
        const store = await SqliteStore.open({ path, reserveBytes: 0 });
        for (let i = 0; i < 3000; i++) await store.create(`/registry/namespaces/n${i}`, JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: `n${i}` }, pad: 'p'.repeat(500) }));
        await store.close();
        damage(path, blocks);
        let failure: Error | undefined;
        try {
          const running = await startServer(serverFlags(dir), silentLogger);
          await running.stop();
        } catch (err) {
          failure = err as Error;
        }
        assert.ok(failure !== undefined, 'the server started on the damaged store');
        assert.ok(failure.message.startsWith(`the store ${path} is damaged: database disk image is malformed. `), failure.message);
        assert.match(failure.message, /setpoint snapshot restore SNAPSHOT_FILE --data-dir NEW_DIR/);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    });
  }
});
