import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const logging = join(dirname(fileURLToPath(import.meta.url)), 'logging.ts');

it('a process with a logger survives a rejected promise nobody handles, and logs it', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'setpoint-logging-'));
  try {
    const log = join(dir, 'log');
    const script = `
      const { createLogger } = await import(${JSON.stringify(logging)});
      createLogger('info', ${JSON.stringify(log)});
      void Promise.reject(new Error('boom from nowhere'));
      await new Promise((r) => setTimeout(r, 50));
      console.log('still alive');
    `;
    const { stdout } = await promisify(execFile)(process.execPath, ['--conditions=setpoint-src', '--import', 'tsx', '--input-type=module', '-e', script], { timeout: 30_000 });
    assert.match(stdout, /still alive/);
    const text = await readFile(log, 'utf8');
    assert.match(text, /nothing handled it/);
    assert.match(text, /boom from nowhere/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
