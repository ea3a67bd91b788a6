/**
 * Secret files in the data dir: written whole or not at all (a temporary file beside the target,
 * then rename or link), with the mode they need from the first byte on.
 */
import { randomBytes } from 'node:crypto';
import { chmod, link, mkdir, open, readFile, rename, stat, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { Logger } from '@setpoint/api';

/** Mode of private keys, tokens and kubeconfigs: owner read/write only. */
export const SECRET_FILE_MODE = 0o600;
/** Mode of the directories we create for them. */
const SECRET_DIR_MODE = 0o700;

function isErrno(err: unknown, code: string): boolean {
  return err instanceof Error && (err as NodeJS.ErrnoException).code === code;
}

/** Writes `data` to a fresh temporary file in `path`'s directory with `mode`, synced; returns its path. */
async function writeTemp(path: string, data: string, mode: number): Promise<string> {
  const dir = dirname(path);
  await mkdir(dir, { recursive: true, mode: SECRET_DIR_MODE });
  const temp = join(dir, `.${basename(path)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  const handle = await open(temp, 'wx', mode);
  try {
    await handle.chmod(mode); // exactly `mode`, whatever the umask
    await handle.writeFile(data, 'utf8');
    await handle.sync();
  } catch (err) {
    await handle.close().catch(() => undefined);
    await unlink(temp).catch(() => undefined);
    throw err;
  }
  await handle.close();
  return temp;
}

/**
 * Replaces `path` with `data` atomically: readers see the old content or the new, never a part.
 * Creates the parent directory (mode 0700) when missing. The file gets `mode` (default 0600)
 * whatever the umask. Throws what the file system throws; leaves no temporary file behind.
 */
export async function writeFileAtomic(path: string, data: string, mode: number = SECRET_FILE_MODE): Promise<void> {
  const temp = await writeTemp(path, data, mode);
  try {
    await rename(temp, path);
  } catch (err) {
    await unlink(temp).catch(() => undefined);
    throw err;
  }
}

/**
 * Creates `path` with `data` atomically unless it exists; of two processes racing, exactly one
 * wins. Returns true when this call created the file, false when it was already there (its
 * content untouched). Mode and parent directory as writeFileAtomic.
 */
export async function createFileExclusive(path: string, data: string, mode: number = SECRET_FILE_MODE): Promise<boolean> {
  const temp = await writeTemp(path, data, mode);
  try {
    await link(temp, path);
    return true;
  } catch (err) {
    if (isErrno(err, 'EEXIST')) return false;
    throw err;
  } finally {
    await unlink(temp).catch(() => undefined);
  }
}

/** The file's text, or undefined when it does not exist. Other errors are thrown. */
export async function readFileIfExists(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (err) {
    if (isErrno(err, 'ENOENT')) return undefined;
    throw err;
  }
}

/**
 * Reads a secret file (or undefined when absent). When others than the owner may read it, narrows
 * its mode to 0600 and logs a warning: the file was created by hand or copied carelessly.
 */
export async function readSecretFile(path: string, logger: Logger): Promise<string | undefined> {
  const text = await readFileIfExists(path);
  if (text === undefined) return undefined;
  const { mode } = await stat(path);
  if ((mode & 0o077) !== 0) {
    logger.warn({ path, mode: `0${(mode & 0o777).toString(8)}` }, 'secret file was readable by others; narrowing its mode to 0600');
    await chmod(path, SECRET_FILE_MODE);
  }
  return text;
}
