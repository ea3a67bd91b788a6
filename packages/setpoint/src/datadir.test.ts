import assert from 'node:assert/strict';
import { lstatSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { tightenDataDir } from './datadir.js';

const mode = (path: string) => lstatSync(path).mode & 0o777;

describe('tightenDataDir', () => {
  it('creates a missing data dir 0700 with nothing to report', async () => {
    const parent = await mkdtemp(join(tmpdir(), 'setpoint-datadir-unit-'));
    try {
      const dir = join(parent, 'a', 'b');
      assert.deepEqual(tightenDataDir(dir), []);
      assert.equal(mode(dir), 0o700);
    } finally {
      await rm(parent, { recursive: true, force: true });
    }
  });

  it('tightens directories to 0700 and files to their owner\'s bits, leaving links and pods\' own directories alone', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'setpoint-datadir-unit-'));
    const outside = await mkdtemp(join(tmpdir(), 'setpoint-datadir-outside-'));
    try {
      await chmod(dir, 0o755);
      await writeFile(join(dir, 'state.db'), '', { mode: 0o644 });
      await chmod(join(dir, 'state.db'), 0o644);
      await writeFile(join(dir, 'run.sh'), '', { mode: 0o755 });
      await chmod(join(dir, 'run.sh'), 0o755);
      await writeFile(join(dir, 'ok.key'), '', { mode: 0o600 });
      const rootfs = join(dir, 'agent', 'n', 'pods', 'u1', 'rootfs');
      await mkdir(rootfs, { recursive: true, mode: 0o755 });
      await chmod(join(dir, 'agent', 'n', 'pods', 'u1'), 0o700);
      await chmod(join(dir, 'agent', 'n', 'pods'), 0o700);
      await chmod(join(dir, 'agent', 'n'), 0o700);
      await chmod(join(dir, 'agent'), 0o700);
      await chmod(rootfs, 0o755);
      await writeFile(join(rootfs, 'app.txt'), '', { mode: 0o644 });
      await chmod(outside, 0o755);
      await symlink(outside, join(dir, 'link'));
      const tightened = tightenDataDir(dir);
      assert.deepEqual(tightened.sort(), ['. (0755 → 0700)', 'run.sh (0755 → 0700)', 'state.db (0644 → 0600)']);
      assert.equal(mode(dir), 0o700);
      assert.equal(mode(join(dir, 'state.db')), 0o600);
      assert.equal(mode(rootfs), 0o755, "the pod's working directory is the pod's");
      assert.equal(mode(join(rootfs, 'app.txt')), 0o644);
      assert.equal(mode(outside), 0o755, 'a link is not followed');
      assert.deepEqual(tightenDataDir(dir), [], 'once tight, nothing more');
    } finally {
      await rm(dir, { recursive: true, force: true });
      await rm(outside, { recursive: true, force: true });
    }
  });
});
