import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { writeSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { tempDir } from '../testing/helpers.js';
import { ContainerLog } from './logs.js';

describe('ContainerLog', () => {
  it('rotates by copy and truncate once past the cap: the current file and one previous, the writer appending on', async () => {
    await using dir = await tempDir();
    const log = new ContainerLog(join(dir.path, 'main.log'), 100);
    assert.equal(await log.rotateIfNeeded(), false, 'no file yet is not an error');
    const fd = log.openForChild(); // what the process holds as stdout
    try {
      writeSync(fd, 'a'.repeat(80));
      assert.equal(await log.rotateIfNeeded(), false);
      writeSync(fd, 'b'.repeat(40));
      assert.equal(await log.rotateIfNeeded(), true);
      assert.equal(await readFile(log.previousPath, 'utf8'), 'a'.repeat(80) + 'b'.repeat(40));
      assert.equal(await readFile(log.path, 'utf8'), '');
      writeSync(fd, 'after\n');
      assert.equal(await readFile(log.path, 'utf8'), 'after\n', 'appends continue at the start of the truncated file');
      await writeFile(log.path, 'c'.repeat(150));
      await log.rotateIfNeeded();
      assert.equal(await readFile(log.previousPath, 'utf8'), 'c'.repeat(150), 'only one previous file is kept');
    } finally {
      log.closeFd(fd);
    }
  });
});
