/** Helpers of the SQLite store's tests: temporary directories, small disks, expected rejections. */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { closeSync, openSync, writeSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Runs `body` with a new temporary directory, removed afterwards. */
export async function withDir<T>(body: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'setpoint-sqlite-'));
  try {
    return await body(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The error `action` rejects with (failing when it resolves). */
export async function rejection(action: () => Promise<unknown>): Promise<Error> {
  try {
    await action();
  } catch (err) {
    return err as Error;
  }
  assert.fail('expected a rejection');
}

/** A tmpfs of `size` mounted on a new directory (needs root); unmounted and removed at the end of the scope. */
export async function smallDisk(size: string): Promise<{ dir: string } & AsyncDisposable> {
  const dir = await mkdtemp(join(tmpdir(), 'setpoint-fulldisk-'));
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir]);
  return {
    dir,
    async [Symbol.asyncDispose]() {
      execFileSync('umount', [dir]);
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Writes `path` until the file system holding it has no byte left. */
export function fillDisk(path: string): void {
  const fd = openSync(path, 'w');
  try {
    for (let chunk = 1 << 20; chunk >= 1; chunk >>= 1) {
      const bytes = Buffer.alloc(chunk);
      for (;;) {
        try {
          writeSync(fd, bytes);
        } catch (err) {
          if ((err as { code?: string }).code !== 'ENOSPC') throw err;
          break;
        }
      }
    }
  } finally {
    closeSync(fd);
  }
}
