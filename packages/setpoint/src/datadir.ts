/**
 * The data directory is private: it holds the store (every Secret), the cluster's keys, tokens and
 * kubeconfigs, the logs, and the agent's pod records and logs. It is created mode 0700 and every
 * file in it is written 0600; at start, what an older version, a copy or a hand left looser is
 * tightened (directories to 0700, files and sockets to the owner's bits only), with one warning
 * naming what was tightened.
 *
 * Left alone: symbolic links (never followed), and what the agent gave a pod — its working
 * directory (`pods/<uid>/rootfs`) and its ServiceAccount files (`pods/<uid>/serviceaccount`), whose
 * modes are the pod's business (the pod's own directory above them is the agent's, 0700).
 */
import { chmodSync, closeSync, lstatSync, mkdirSync, openSync, readdirSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import type { Logger } from '@setpoint/api';

/** Mode of the data dir and every directory in it. */
export const DATA_DIR_MODE = 0o700;
/** Mode every file of the data dir is created with. */
export const DATA_FILE_MODE = 0o600;

/** The agent's per-pod directories that belong to the pod (see the file comment). */
const POD_OWNED = /(^|\/)pods\/[^/]+\/(rootfs|serviceaccount)$/;

function octal(mode: number): string {
  return `0${(mode & 0o777).toString(8)}`;
}

/**
 * Creates `dir` (and missing parents) mode 0700, then tightens whatever in it others may read,
 * write or enter. Returns what was tightened, as `path (0755 → 0700)` relative to `dir` ("." for
 * `dir` itself); empty when nothing was. Throws what the file system throws.
 */
export function tightenDataDir(dir: string): string[] {
  mkdirSync(dir, { recursive: true, mode: DATA_DIR_MODE });
  const tightened: string[] = [];
  const visit = (path: string) => {
    const rel = relative(dir, path) || '.';
    if (POD_OWNED.test(rel)) return;
    const st = lstatSync(path);
    if (st.isSymbolicLink()) return;
    if ((st.mode & 0o077) !== 0 || (st.isDirectory() && (st.mode & 0o700) !== 0o700)) {
      const mode = st.isDirectory() ? DATA_DIR_MODE : st.mode & 0o700;
      chmodSync(path, mode);
      tightened.push(`${rel} (${octal(st.mode)} → ${octal(mode)})`);
    }
    if (st.isDirectory()) for (const name of readdirSync(path)) visit(join(path, name));
  };
  visit(dir);
  return tightened;
}

/** Logs one warning naming what tightenDataDir tightened (at most 20 names, and how many more). */
export function reportTightened(logger: Logger, dir: string, tightened: readonly string[]): void {
  if (tightened.length === 0) return;
  const shown = tightened.slice(0, 20);
  logger.warn(
    { dataDir: dir, tightened: shown, ...(tightened.length > shown.length ? { more: tightened.length - shown.length } : {}) },
    `the data dir was open to other users; tightened ${tightened.length} ${tightened.length === 1 ? 'entry' : 'entries'} to 0700 (directories) and 0600 (files)`,
  );
}

/** Creates `file` (and its directory, 0700) mode 0600 when missing, so a writer that appends to it never makes it readable by others. */
export function createPrivateFile(file: string): void {
  mkdirSync(dirname(file), { recursive: true, mode: DATA_DIR_MODE });
  closeSync(openSync(file, 'a', DATA_FILE_MODE));
}
