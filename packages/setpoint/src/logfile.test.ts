import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { LogFile, type LogFileIO } from './logfile.js';

const logging = join(dirname(fileURLToPath(import.meta.url)), 'logging.ts');

/** File operations that fail with ENOSPC while `full.value` is true, and otherwise write for real. */
function diskThatFills(full: { value: boolean }, real: LogFileIO): LogFileIO {
  const enospc = () => Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
  return {
    write: (fd, buffer, callback) => (full.value ? setImmediate(() => callback(enospc(), 0)) : real.write(fd, buffer, callback)),
    writeSync: (fd, buffer) => {
      if (full.value) throw enospc();
      return real.writeSync(fd, buffer);
    },
  };
}

async function until(what: string, check: () => boolean | Promise<boolean>, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe('LogFile', () => {
  it('on a full disk drops lines without throwing, says so once, and writes again (with the count) once there is room', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'setpoint-logfile-'));
    try {
      const path = join(dir, 'setpoint.log');
      const full = { value: false };
      const { write, writeSync } = await import('node:fs');
      const real: LogFileIO = { write: (fd, b, cb) => write(fd, b, 0, b.length, null, cb), writeSync: (fd, b) => writeSync(fd, b) };
      const reports: string[] = [];
      const log = new LogFile(path, { io: diskThatFills(full, real), report: (line) => reports.push(line) });
      try {
        log.write('{"msg":"before"}\n');
        await until('the first line to be written', async () => (await readFile(path, 'utf8')).includes('before'));
        full.value = true;
        for (let i = 0; i < 5; i++) assert.equal(log.write(`{"msg":"lost ${i}"}\n`), true);
        await until('the lines to be dropped', () => log.dropped === 5);
        assert.equal(reports.length, 1, 'one notice, not one per line');
        assert.match(reports[0]!, new RegExp(`^setpoint: cannot write the log ${path.replace(/[/.]/g, '\\$&')}: ENOSPC; log lines are dropped \\(\\d+ so far\\) until it can$`));
        full.value = false;
        log.write('{"msg":"after"}\n');
        await until('the next line to be written', async () => (await readFile(path, 'utf8')).includes('after'));
        const lines = (await readFile(path, 'utf8')).trim().split('\n').map((l) => JSON.parse(l) as { msg: string; dropped?: number; level?: number });
        assert.deepEqual(lines.map((l) => l.msg.slice(0, 22)), ['before', 'log lines were dropped', 'after']);
        assert.equal(lines[1]!.dropped, 5);
        assert.equal(lines[1]!.level, 40);
      } finally {
        log.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('bounds what it queues: a line beyond the bound is dropped and counted', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'setpoint-logfile-'));
    try {
      const path = join(dir, 'setpoint.log');
      let pending: Array<() => void> = [];
      // A disk that takes writes only when told to.
      const io: LogFileIO = { write: (_fd, b, cb) => void pending.push(() => cb(null, b.length)), writeSync: (_fd, b) => b.length };
      const log = new LogFile(path, { io, bufferBytes: 100, report: () => undefined });
      try {
        assert.equal(log.write(`${'a'.repeat(60)}\n`), true); // goes to the (slow) disk at once
        assert.equal(log.write(`${'b'.repeat(60)}\n`), true); // queued
        assert.equal(log.write(`${'c'.repeat(60)}\n`), false, 'over the bound');
        assert.equal(log.dropped, 1);
        const release = pending;
        pending = [];
        for (const f of release) f();
      } finally {
        log.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('flushes at exit with one attempt, which a full disk cannot turn into a hang', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'setpoint-logfile-'));
    try {
      // Writes never finish in the background, so the line is still queued when flushSync comes.
      const io: LogFileIO = { write: () => undefined, writeSync: () => { throw Object.assign(new Error('ENOSPC'), { code: 'ENOSPC' }); } };
      const log = new LogFile(join(dir, 'setpoint.log'), { io, report: () => undefined });
      log.write('{"msg":"in flight"}\n');
      log.write('{"msg":"pending"}\n');
      assert.equal(log.flushSync(), false, 'the queued line could not be written and is dropped');
      assert.equal(log.dropped, 1);
      assert.equal(log.flushSync(), true, 'nothing left to write');
      log.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('a process logging to a full disk (/dev/full, which Linux always has) keeps running and exits when it is done', async () => {
    // pino's own file destination crashed the process on its first line here, and then hung at exit forever.
    const script = `
      const { createLogger } = await import(${JSON.stringify(logging)});
      const logger = createLogger('info', '/dev/full');
      for (let i = 0; i < 100; i++) logger.info({ i }, 'a line that cannot be written');
      await new Promise((r) => setTimeout(r, 100));
      logger.warn('and another');
      await new Promise((r) => setTimeout(r, 50));
      console.log('still alive');
    `;
    const { stdout, stderr } = await promisify(execFile)(process.execPath, ['--conditions=setpoint-src', '--import', 'tsx', '--input-type=module', '-e', script], { timeout: 30_000 });
    assert.match(stdout, /still alive/);
    assert.match(stderr, /^setpoint: cannot write the log \/dev\/full: ENOSPC; log lines are dropped \(\d+ so far\) until it can$/m);
  });
});
