import assert from 'node:assert/strict';
import { mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { FakeClock } from '@setpoint/api';
import { AuditLogWriter, backupPath, listBackups } from './writer.js';

async function withDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'setpoint-audit-writer-'));
  try {
    await fn(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Every line of the log and its backups, oldest first. */
async function allLines(path: string): Promise<string[]> {
  const backups = (await listBackups(path)).reverse();
  const texts = await Promise.all([...backups.map((b) => b.path), path].map((p) => readFile(p, 'utf8')));
  return texts.flatMap((t) => t.split('\n').filter((l) => l !== ''));
}

describe('AuditLogWriter', () => {
  it('appends lines in order, to a file only its owner reads, creating its directory', async () => {
    await withDir(async (dir) => {
      const path = join(dir, 'logs', 'audit.log');
      const writer = await AuditLogWriter.open({ path });
      for (let i = 0; i < 100; i++) assert.equal(writer.write(`{"n":${i}}`), true);
      await writer.close();
      assert.deepEqual(await allLines(path), Array.from({ length: 100 }, (_, i) => `{"n":${i}}`));
      assert.equal((await stat(path)).mode & 0o777, 0o600);
      assert.equal(writer.write('{"late":true}'), false, 'a closed writer drops lines');
    });
  });

  it('appends to an existing file', async () => {
    await withDir(async (dir) => {
      const path = join(dir, 'audit.log');
      await writeFile(path, '{"old":1}\n');
      const writer = await AuditLogWriter.open({ path });
      writer.write('{"new":2}');
      await writer.close();
      assert.equal(await readFile(path, 'utf8'), '{"old":1}\n{"new":2}\n');
    });
  });

  it('rotates by size into lumberjack-named backups, keeps maxBackups, and loses no line', async () => {
    await withDir(async (dir) => {
      const path = join(dir, 'audit.log');
      const clock = new FakeClock(Date.UTC(2025, 0, 31, 10, 0, 0));
      const writer = await AuditLogWriter.open({ path, maxSizeBytes: 1000, maxBackups: 3, clock });
      const line = (i: number) => JSON.stringify({ n: i, pad: 'x'.repeat(80) }); // about 100 bytes
      // Several batches (one per turn of the event loop), each crossing the size.
      for (let batch = 0; batch < 6; batch++) {
        for (let i = 0; i < 10; i++) writer.write(line(batch * 10 + i));
        await writer.flushed();
        clock.advance(1000);
      }
      await writer.close();
      const backups = await listBackups(path);
      assert.equal(backups.length, 3, 'only the 3 newest backups are kept');
      for (const b of backups) assert.match(b.path, /audit-2025-01-31T10-00-0\d\.\d{3}\.log$/);
      for (const p of [path, ...backups.map((b) => b.path)]) assert.ok((await stat(p)).size <= 1000, `${p} stays within maxsize`);
      const kept = (await allLines(path)).map((l) => (JSON.parse(l) as { n: number }).n);
      assert.deepEqual(kept, [...kept].sort((a, b) => a - b), 'lines stay in order across files');
      assert.equal(kept.at(-1), 59);
    });
  });

  it('keeps every backup when maxBackups is 0, and none older than maxAgeDays', async () => {
    await withDir(async (dir) => {
      const path = join(dir, 'audit.log');
      const day = 24 * 3600 * 1000;
      const clock = new FakeClock(Date.UTC(2025, 0, 1));
      // An old backup from before this writer, found by its name.
      await writeFile(backupPath(path, Date.UTC(2024, 11, 1)), '{"ancient":true}\n');
      const writer = await AuditLogWriter.open({ path, maxSizeBytes: 50, maxAgeDays: 10, clock });
      for (let i = 0; i < 5; i++) {
        writer.write(JSON.stringify({ i, pad: 'y'.repeat(30) }));
        await writer.flushed();
        clock.advance(day);
      }
      await writer.close();
      const backups = await listBackups(path);
      assert.equal(backups.length, 4, 'every rotated file is kept');
      assert.ok(backups.every((b) => b.time >= Date.UTC(2024, 11, 25)), 'the 31-day-old backup was deleted');
    });
  });

  it('never blocks: lines beyond the bounded queue are dropped and counted', async () => {
    await withDir(async (dir) => {
      const path = join(dir, 'audit.log');
      const drops: Array<[number, string]> = [];
      const writer = await AuditLogWriter.open({ path, bufferEvents: 10, onDrop: (n, why) => drops.push([n, why]) });
      // All in one turn of the event loop: nothing has been written yet.
      const accepted = Array.from({ length: 25 }, (_, i) => writer.write(`{"i":${i}}`)).filter(Boolean).length;
      assert.equal(accepted, 10);
      assert.deepEqual(drops, Array.from({ length: 15 }, () => [1, 'buffer']));
      await writer.close();
      assert.equal((await allLines(path)).length, 10);
    });
  });

  it('counts the lines of a failed write and carries on with the next batch', async () => {
    await withDir(async (dir) => {
      const path = join(dir, 'audit.log');
      const drops: number[] = [];
      const writer = await AuditLogWriter.open({ path, maxSizeBytes: 20, onDrop: (n) => drops.push(n) });
      writer.write('{"first":1}');
      await writer.flushed();
      // The next rotation cannot rename into a directory that is gone.
      await rm(dir, { recursive: true, force: true });
      writer.write('{"second":2,"pad":"zzzzzzzz"}');
      await writer.flushed();
      assert.deepEqual(drops, [1]);
      await writer.close();
    });
  });

  it('names backups as lumberjack does, in UTC', () => {
    assert.equal(backupPath('/var/log/audit.log', Date.UTC(2025, 0, 31, 10, 5, 9, 7)), '/var/log/audit-2025-01-31T10-05-09.007.log');
    assert.equal(backupPath('/x/audit', Date.UTC(2025, 0, 31)), '/x/audit-2025-01-31T00-00-00.000');
  });

  it('lists only its own backups', async () => {
    await withDir(async (dir) => {
      const path = join(dir, 'audit.log');
      for (const name of ['audit-2025-01-01T00-00-00.000.log', 'audit-x.log', 'other-2025-01-01T00-00-00.000.log', 'audit.log']) await writeFile(join(dir, name), '');
      assert.deepEqual(
        (await listBackups(path)).map((b) => b.path),
        [join(dir, 'audit-2025-01-01T00-00-00.000.log')],
      );
      assert.equal((await readdir(dir)).length, 4);
    });
  });
});
