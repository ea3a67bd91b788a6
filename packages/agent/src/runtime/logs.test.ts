import assert from 'node:assert/strict';
import { existsSync, writeSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { FakeClock } from '@setpoint/api';
import { eventually, tempDir } from '../testing/helpers.js';
import { ContainerLog, logTimesPath, parseLogTimes, type ContainerLogEvent } from './logs.js';

describe('ContainerLog', () => {
  it('rotates by copy and truncate once past the cap: the current file and one rotated part, the writer appending on', async () => {
    await using dir = await tempDir();
    const log = new ContainerLog(join(dir.path, 'main.log'), { maxBytes: 100 });
    assert.equal(await log.rotateIfNeeded(), false, 'no file yet is not an error');
    const fd = log.openForChild(); // what the process holds as stdout
    try {
      writeSync(fd, 'a'.repeat(80));
      assert.equal(await log.rotateIfNeeded(), false);
      writeSync(fd, 'b'.repeat(40));
      assert.equal(await log.rotateIfNeeded(), true);
      assert.equal(await readFile(log.rotatedPath, 'utf8'), 'a'.repeat(80) + 'b'.repeat(40));
      assert.equal(await readFile(log.path, 'utf8'), '');
      writeSync(fd, 'after\n');
      assert.equal(await readFile(log.path, 'utf8'), 'after\n', 'appends continue at the start of the truncated file');
      await writeFile(log.path, 'c'.repeat(150));
      await log.rotateIfNeeded();
      assert.equal(await readFile(log.rotatedPath, 'utf8'), 'c'.repeat(150), 'only one rotated part is kept');
    } finally {
      log.closeFd(fd);
    }
  });

  it('rotates when the time records outgrow half the cap (many tiny writes), even below the cap', async () => {
    await using dir = await tempDir();
    const log = new ContainerLog(join(dir.path, 'main.log'), { maxBytes: 100 });
    await writeFile(log.path, 'abcdef');
    await writeFile(logTimesPath(log.path), '1 1000\n2 1100\n3 1200\n4 1300\n5 1400\n6 1500\n');
    assert.equal(await log.rotateIfNeeded(), false, '42 bytes of records: under half the cap');
    await writeFile(logTimesPath(log.path), Array.from({ length: 6 }, (_, i) => `${i + 1} 10000000${i}\n`).join(''));
    assert.equal(await log.rotateIfNeeded(), true);
    assert.equal(await readFile(log.rotatedPath, 'utf8'), 'abcdef');
    assert.equal(parseLogTimes(await readFile(logTimesPath(log.rotatedPath), 'utf8')).length, 6, 'the records go with the copy');
    assert.equal(await readFile(logTimesPath(log.path), 'utf8'), '');
  });

  it("a rotated copy with bytes no record covers gets its last record at the log's clock time", async () => {
    await using dir = await tempDir();
    const clock = new FakeClock(Date.UTC(2026, 5, 1));
    const log = new ContainerLog(join(dir.path, 'main.log'), { maxBytes: 10, clock });
    await writeFile(log.path, 'x'.repeat(20));
    await writeFile(logTimesPath(log.path), '5 1000\n');
    assert.equal(await log.rotateIfNeeded(), true);
    assert.deepEqual(parseLogTimes(await readFile(logTimesPath(log.rotatedPath), 'utf8')), [
      { end: 5, ms: 1000 },
      { end: 20, ms: Date.UTC(2026, 5, 1) },
    ]);
  });

  it('while recording, checks the file every pollIntervalMs of its clock', async () => {
    await using dir = await tempDir();
    const clock = new FakeClock();
    const log = new ContainerLog(join(dir.path, 'main.log'), { recordIntervalMs: 0, pollIntervalMs: 60_000, clock });
    const events: ContainerLogEvent[] = [];
    log.subscribe((e) => events.push(e));
    await writeFile(log.path, '');
    log.startRecording();
    try {
      assert.equal(clock.pending(), 1, 'the poll waits on the clock');
      await clock.advance(60_000);
      assert.equal(clock.pending() >= 1, true, 'and repeats');
    } finally {
      await log.stopRecording();
    }
    assert.equal(clock.pending(), 0, 'stopping cancels the poll and any record waiting');
    assert.deepEqual(events.at(-1), { type: 'ended' });
  });

  it('records when the file grew while a run is recorded, and says when the run ended', async () => {
    await using dir = await tempDir();
    const log = new ContainerLog(join(dir.path, 'main.log'), { recordIntervalMs: 5, pollIntervalMs: 50 });
    const events: ContainerLogEvent[] = [];
    log.subscribe((e) => events.push(e));
    const fd = log.openForChild();
    try {
      const before = Date.now();
      log.startRecording();
      assert.equal(log.recording, true);
      writeSync(fd, 'one\n');
      await eventually('the first record', () => events.some((e) => e.type === 'appended' && e.time.end === 4));
      writeSync(fd, 'two\n');
      await eventually('the second record', () => events.some((e) => e.type === 'appended' && e.time.end === 8));
      await log.stopRecording();
      assert.equal(log.recording, false);
      assert.deepEqual(events.at(-1), { type: 'ended' });
      const times = parseLogTimes(await readFile(logTimesPath(log.path), 'utf8'));
      assert.deepEqual(times.map((t) => t.end), [4, 8]);
      for (const t of times) assert.ok(t.ms >= before - 1000 && t.ms <= Date.now() + 1000, `a plausible time: ${t.ms}`);
    } finally {
      log.closeFd(fd);
    }
  });

  it('moves the last run aside as the previous one at a restart, replacing the one before', async () => {
    await using dir = await tempDir();
    const log = new ContainerLog(join(dir.path, 'main.log'), { maxBytes: 10 });
    await writeFile(log.path, 'run 1 is long\n');
    await log.rotateIfNeeded();
    await writeFile(log.path, 'run 1 end\n', { flag: 'a' });
    await log.moveToPrevious();
    assert.equal(log.previousPath, join(dir.path, 'main.previous.log'));
    assert.equal(await readFile(log.previousPath, 'utf8'), 'run 1 end\n');
    assert.equal(await readFile(`${log.previousPath}.1`, 'utf8'), 'run 1 is long\n');
    assert.equal(existsSync(log.path), false);
    await writeFile(log.path, 'run 2\n');
    await log.moveToPrevious();
    assert.equal(await readFile(log.previousPath, 'utf8'), 'run 2\n');
    assert.equal(existsSync(`${log.previousPath}.1`), false, "the older run's rotated part goes with it");
  });
});
