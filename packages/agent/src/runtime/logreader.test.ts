/**
 * The log reader as the kubelet serves logs: tail, since, limitBytes, timestamps over a run's
 * rotated part and current file; follow across rotation while the reader lags; the previous run;
 * and which run a request reads.
 */
import assert from 'node:assert/strict';
import { writeSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { FakeClock } from '@setpoint/api';
import { eventually, tempDir } from '../testing/helpers.js';
import { readContainerLog, rfc3339Nano, type LogInstance, type LogReadOptions } from './logreader.js';
import { ContainerLog, logTimesPath, rotatedLogPath } from './logs.js';
import { chooseLogInstance, ContainerLogError } from './logsource.js';
import type { ContainerObservation } from './runtime.js';

async function readAll(instance: LogInstance, options: LogReadOptions = {}): Promise<string> {
  const chunks: Buffer[] = [];
  await readContainerLog(instance, options, (c) => void chunks.push(Buffer.from(c)), new AbortController().signal);
  return Buffer.concat(chunks).toString('utf8');
}

/** Writes a run's files: the rotated part and the current file, each with its time records. */
async function writeRun(dir: string, rotated: string | undefined, current: string, times: { rotated?: string; current?: string } = {}): Promise<string> {
  const path = join(dir, 'main.log');
  if (rotated !== undefined) await writeFile(rotatedLogPath(path), rotated);
  await writeFile(path, current);
  if (times.rotated !== undefined) await writeFile(logTimesPath(rotatedLogPath(path)), times.rotated);
  if (times.current !== undefined) await writeFile(logTimesPath(path), times.current);
  return path;
}

describe('readContainerLog', () => {
  it('tailLines: the last N lines, across the rotated part; 0 is nothing; a last line without newline counts', async () => {
    await using dir = await tempDir();
    const path = await writeRun(dir.path, 'a\nb\n', 'c\nd\n');
    assert.equal(await readAll({ path }), 'a\nb\nc\nd\n');
    assert.equal(await readAll({ path }, { tailLines: 2 }), 'c\nd\n');
    assert.equal(await readAll({ path }, { tailLines: 3 }), 'b\nc\nd\n');
    assert.equal(await readAll({ path }, { tailLines: 10 }), 'a\nb\nc\nd\n');
    assert.equal(await readAll({ path }, { tailLines: 0 }), '');
    await writeFile(path, 'c\nd');
    assert.equal(await readAll({ path }, { tailLines: 2 }), 'c\nd');
    assert.equal(await readAll({ path: join(dir.path, 'absent.log') }, { tailLines: 2 }), '', 'no files: an empty log');
  });

  it('since and timestamps: each line has the time of the first record reaching its end', async () => {
    await using dir = await tempDir();
    // "one\n" ends at 4, "two\n" at 8 (rotated part); "three\n" ends at 6, "four\n" at 11 (current).
    const path = await writeRun(dir.path, 'one\ntwo\n', 'three\nfour\n', { rotated: '4 1000\n8 2000\n', current: '6 3000\n11 4500\n' });
    assert.equal(await readAll({ path }, { sinceMs: 2000 }), 'two\nthree\nfour\n');
    assert.equal(await readAll({ path }, { sinceMs: 4000 }), 'four\n');
    assert.equal(
      await readAll({ path }, { timestamps: true, tailLines: 2 }),
      `${rfc3339Nano(3000)} three\n${rfc3339Nano(4500)} four\n`,
    );
    assert.equal(rfc3339Nano(4500), '1970-01-01T00:00:04.5Z', "Go's RFC3339Nano: no trailing zeros");
    assert.equal(rfc3339Nano(3000), '1970-01-01T00:00:03Z');
    assert.equal(await readAll({ path }, { tailLines: 3, sinceMs: 3000 }), 'three\nfour\n', 'tail first, then since');
  });

  it('limitBytes: stops after that many bytes, cutting the last line, timestamps included', async () => {
    await using dir = await tempDir();
    const path = await writeRun(dir.path, undefined, 'hello\nworld\n', { current: '12 1000\n' });
    assert.equal(await readAll({ path }, { limitBytes: 8 }), 'hello\nwo');
    assert.equal(await readAll({ path }, { limitBytes: 100 }), 'hello\nworld\n');
    assert.equal(await readAll({ path }, { limitBytes: 10, timestamps: true }), `${rfc3339Nano(1000)} `.slice(0, 10));
  });

  it('follow: sends what is appended, across a rotation that happened while the reader lagged, until the run ends', async () => {
    await using dir = await tempDir();
    const log = new ContainerLog(join(dir.path, 'main.log'), { maxBytes: 10, recordIntervalMs: 5, pollIntervalMs: 50 });
    const fd = log.openForChild();
    try {
      writeSync(fd, 'early\n');
      log.startRecording();
      let out = '';
      let release: (() => void) | undefined;
      let blocked = false;
      const done = readContainerLog(
        { path: log.path, live: log },
        { follow: true },
        async (chunk) => {
          out += chunk.toString('utf8');
          if (out.includes('A\n') && release === undefined) {
            blocked = true;
            await new Promise<void>((resolve) => (release = resolve)); // the client is slow
          }
        },
        new AbortController().signal,
      );
      await eventually('the existing line', () => out === 'early\n');
      writeSync(fd, 'A\n');
      await eventually('the reader to block on a slow client', () => blocked);
      // While it lags: more lines, then a rotation copies them away and truncates the file.
      writeSync(fd, 'B is longer than the cap\nC\n');
      assert.equal(await log.rotateIfNeeded(), true);
      writeSync(fd, 'D after rotation\n');
      release!();
      await eventually('the line after the rotation', () => out.includes('D after rotation\n'));
      writeSync(fd, 'last words');
      await log.stopRecording();
      await done;
      assert.equal(out, 'early\nA\nB is longer than the cap\nC\nD after rotation\nlast words', 'every line once, in order; the unterminated end when the run ended');
    } finally {
      log.closeFd(fd);
      await log.stopRecording();
    }
  });

  it('follow of a run that no longer runs reads what is there and ends; an aborted follow ends', async () => {
    await using dir = await tempDir();
    const log = new ContainerLog(join(dir.path, 'main.log'));
    await writeFile(log.path, 'done\n');
    assert.equal(await readAll({ path: log.path, live: log }, { follow: true }), 'done\n', 'not recorded: nothing to wait for');
    log.startRecording();
    try {
      const abort = new AbortController();
      let out = '';
      const reading = readContainerLog({ path: log.path, live: log }, { follow: true }, (c) => void (out += c.toString()), abort.signal);
      await eventually('the line', () => out === 'done\n');
      abort.abort();
      await reading;
    } finally {
      await log.stopRecording();
    }
  });

  it("a running run's bytes that no time record covers yet are stamped with the reader's clock", async () => {
    await using dir = await tempDir();
    const log = new ContainerLog(join(dir.path, 'main.log'), { recordIntervalMs: 60_000, pollIntervalMs: 60_000, clock: new FakeClock() });
    await writeFile(log.path, 'fresh\n');
    log.startRecording();
    try {
      const clock = new FakeClock(Date.UTC(2026, 6, 1, 12));
      assert.equal(await readAll({ path: log.path, live: log }, { timestamps: true, clock }), `${rfc3339Nano(Date.UTC(2026, 6, 1, 12))} fresh\n`);
    } finally {
      await log.stopRecording();
    }
  });

  it('previous: the run moved aside at a restart is read, the current file holds the new run', async () => {
    await using dir = await tempDir();
    const log = new ContainerLog(join(dir.path, 'main.log'));
    await writeFile(log.path, 'run 1\n');
    await log.moveToPrevious();
    await writeFile(log.path, 'run 2\n');
    assert.equal(await readAll({ path: log.previousPath }), 'run 1\n');
    assert.equal(await readAll({ path: log.path }), 'run 2\n');
  });
});

describe('chooseLogInstance (which run a request reads, as the kubelet picks it)', () => {
  const log = new ContainerLog('/pods/u/logs/main.log');
  const terminated = { terminated: { exitCode: 1, containerID: 'setpoint-process://1' } };
  const obs = (o: Partial<ContainerObservation>): ContainerObservation => ({ name: 'main', state: {}, lastState: {}, ready: false, started: false, restartCount: 0, ...o });

  it('running: the current run; previous: the run before it', () => {
    const running = obs({ state: { running: { startedAt: 'x' } }, lastState: terminated, restartCount: 1 });
    assert.equal(chooseLogInstance(running, log, 'web', false).path, log.path);
    assert.equal(chooseLogInstance(running, log, 'web', true).path, log.previousPath);
  });

  it('waiting to restart: both read the last run (it is lastState.terminated)', () => {
    const backoff = obs({ state: { waiting: { reason: 'CrashLoopBackOff' } }, lastState: terminated, restartCount: 1 });
    assert.equal(chooseLogInstance(backoff, log, 'web', false).path, log.path);
    assert.equal(chooseLogInstance(backoff, log, 'web', true).path, log.path);
  });

  it("refuses with the kubelet's words when there is no such run", () => {
    const first = obs({ state: { running: { startedAt: 'x' } } });
    assert.throws(
      () => chooseLogInstance(first, log, 'web', true),
      (err: unknown) => err instanceof ContainerLogError && err.status === 400 && err.message === 'previous terminated container "main" in pod "web" not found',
    );
    const creating = obs({ state: { waiting: { reason: 'ContainerCreating' } } });
    assert.throws(
      () => chooseLogInstance(creating, log, 'web', false),
      (err: unknown) => err instanceof ContainerLogError && err.status === 400 && err.message === 'container "main" in pod "web" is waiting to start: ContainerCreating',
    );
  });
});
