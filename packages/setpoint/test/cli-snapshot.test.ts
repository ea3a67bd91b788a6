/**
 * `setpoint snapshot save|restore`: a copy taken while the server is writing is consistent (every
 * acknowledged write before the save is in it, and what it holds is a prefix of the writes, never
 * a torn state), restores into a new data directory whose server serves every object, refuses a
 * non-empty directory and files that are not sound Setpoint stores; with no server running the
 * file is copied directly.
 */
import assert from 'node:assert/strict';
import { chmod, mkdir, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { silentLogger, type ConfigMap } from '@setpoint/api';
import { Client } from '@setpoint/client';
import { startServer, type RunningServer } from '../src/commands/server.js';
import { runSetpoint } from './cli-support.js';

function serverFlags(dataDir: string) {
  return { dataDir, port: '0', host: '127.0.0.1', store: 'sqlite', insecureHttp: true, compactionInterval: '5m', logLevel: 'silent' };
}

async function names(running: RunningServer): Promise<string[]> {
  const client = new Client(running.connection, { qps: Infinity });
  try {
    return (await client.configMaps().listAll({ namespace: 'default' })).items.map((c) => c.metadata.name!);
  } finally {
    client.close();
  }
}

describe('setpoint snapshot', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sp-snap-'));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('saves a consistent copy while the server writes, and restores it into a new data directory', { timeout: 60_000 }, async () => {
    const data = join(dir, 'data');
    const running = await startServer(serverFlags(data), silentLogger);
    const client = new Client(running.connection, { qps: Infinity });
    const acked: string[] = [];
    let writing = true;
    const writer = (async () => {
      for (let i = 0; writing; i++) {
        const name = `cm-${String(i).padStart(5, '0')}`;
        await client.configMaps().create({ metadata: { name, namespace: 'default' }, data: { i: String(i) } } as ConfigMap);
        acked.push(name);
      }
    })();
    let restored: RunningServer | undefined;
    try {
      while (acked.length < 50) await new Promise((r) => setTimeout(r, 5));
      const before = acked.length;
      const file = join(dir, 'snap.db');
      const saved = await runSetpoint(['snapshot', 'save', file, '--data-dir', data]);
      const atSave = acked.length;
      assert.equal(saved.code, 0, saved.stderr);
      assert.match(saved.stdout, new RegExp(`^snapshot saved to ${file} \\(\\d+ keys at revision \\d+, integrity ok, taken from the running server\\)\\n$`));
      // The writer never paused: it goes on through and after the save.
      while (acked.length < atSave + 20) await new Promise((r) => setTimeout(r, 5));
      writing = false;
      await writer;
      assert.deepEqual((await readdir(dir)).sort(), ['data', 'snap.db'], 'no temporary file is left');
      assert.equal((await stat(file)).mode & 0o777, 0o600, 'as private as the store');

      const target = join(dir, 'restored');
      const r = await runSetpoint(['snapshot', 'restore', file, '--data-dir', target]);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, new RegExp(`^restored ${file} into ${target} \\(\\d+ keys at revision \\d+, integrity ok\\)\\nstart it with: setpoint up --data-dir ${target}\\n$`));
      restored = await startServer(serverFlags(target), silentLogger);
      const got = await names(restored);
      // A consistent copy holds a prefix of the sequential writes: all acknowledged before the save, none torn.
      assert.deepEqual(got, acked.slice(0, got.length), 'a prefix of the writes, in order');
      assert.ok(got.length >= before && got.length <= atSave + 1, `${got.length} objects: between ${before} and ${atSave + 1}`);
      const again = await runSetpoint(['snapshot', 'restore', file, '--data-dir', target]);
      assert.deepEqual([again.code, again.stderr], [1, `error: ${target} is not empty: restore needs a new data directory (it never overwrites a store)\n`]);
    } finally {
      writing = false;
      await writer.catch(() => undefined);
      client.close();
      await restored?.stop();
      await running.stop();
    }

    // With the server stopped, the file is copied directly.
    const offline = await runSetpoint(['snapshot', 'save', join(dir, 'offline.db'), '--data-dir', data]);
    assert.equal(offline.code, 0, offline.stderr);
    assert.match(offline.stdout, /^snapshot saved to .*offline\.db \(\d+ keys at revision \d+, integrity ok\)\n$/);
    const target = join(dir, 'from-offline');
    assert.equal((await runSetpoint(['snapshot', 'restore', join(dir, 'offline.db'), '--data-dir', target])).code, 0);
    // Into an empty directory that exists, 0755: made private, as the server makes its own.
    const existing = join(dir, 'existing');
    await mkdir(existing);
    await chmod(existing, 0o755);
    assert.equal((await runSetpoint(['snapshot', 'restore', join(dir, 'offline.db'), '--data-dir', existing])).code, 0);
    assert.equal((await stat(existing)).mode & 0o777, 0o700);
    assert.equal((await stat(join(existing, 'state.db'))).mode & 0o777, 0o600);
    const served = await startServer(serverFlags(target), silentLogger);
    try {
      assert.deepEqual(await names(served), acked);
    } finally {
      await served.stop();
    }
  });

  it('refuses files that are not sound Setpoint stores, leaving no directory behind', async () => {
    const junk = join(dir, 'junk.db');
    await writeFile(junk, 'this is not a database, just text that is long enough to have a header'.repeat(20));
    const r = await runSetpoint(['snapshot', 'restore', junk, '--data-dir', join(dir, 'j')]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, new RegExp(`^error: ${junk}: not a SQLite database \\(file is not a database\\)\\n$`));
    assert.deepEqual((await readdir(dir)).includes('j'), false);

    const other = join(dir, 'other.db');
    const db = new Database(other);
    db.exec('CREATE TABLE t (x)');
    db.close();
    const notOurs = await runSetpoint(['snapshot', 'restore', other, '--data-dir', join(dir, 'o')]);
    assert.deepEqual([notOurs.code, notOurs.stderr], [1, `error: ${other}: not a Setpoint store (no log table)\n`]);

    const empty = join(dir, 'empty-data');
    await mkdir(empty);
    const none = await runSetpoint(['snapshot', 'save', join(dir, 'x.db'), '--data-dir', empty]);
    assert.deepEqual([none.code, none.stderr], [1, `error: ${empty}: no store to save (no state.db; is it a setpoint data directory?)\n`]);
    const missing = await runSetpoint(['snapshot', 'restore', join(dir, 'nope.db'), '--data-dir', join(dir, 'n')]);
    assert.deepEqual([missing.code, missing.stderr], [1, `error: ${join(dir, 'nope.db')}: no such file\n`]);
  });
});
