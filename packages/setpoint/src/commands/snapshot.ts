/**
 * `setpoint snapshot save FILE [--data-dir D]`: a consistent copy of the store of data directory D
 * — from the running server through its snapshot socket (SQLite's online backup, taken while it
 * keeps serving), or from the file itself when no server runs. The copy is checked (PRAGMA
 * integrity_check, the store's tables) before it replaces FILE (mode 0600: the store holds
 * Secrets); nothing half-written is left.
 *
 * `setpoint snapshot restore FILE --data-dir NEW`: checks FILE and makes it the store of a new data
 * directory (refusing one that is not empty); `setpoint up --data-dir NEW` then serves every object
 * of the snapshot, with new credentials (a new CA, token and kubeconfig are made at first start).
 */
import { existsSync } from 'node:fs';
import { chmod, copyFile, mkdir, readdir, rename, rm, rmdir } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import type { Command } from 'commander';
import { defaultDataDir } from '../cli/connect.js';
import { CliError, type CliIO } from '../cli/io.js';
import { runVerb } from '../cli/verb.js';
import { backupDatabase, SnapshotError, STATE_DB, verifyDatabase, type SnapshotInfo } from '../snapshot/database.js';
import { requestSnapshot, SNAPSHOT_SOCKET } from '../snapshot/socket.js';

export interface SnapshotFlags {
  dataDir?: string;
}

export function registerSnapshot(program: Command, io: CliIO): void {
  const snapshot = program.command('snapshot').description('save a consistent copy of the store, or restore one into a new data directory');
  snapshot
    .command('save')
    .description('copy the store of a data directory to FILE (while setpoint up runs, or not)')
    .argument('<file>', 'where to write the snapshot')
    .option('--data-dir <dir>', 'the data directory (default: ~/.setpoint)')
    .action(async (file: string, flags: SnapshotFlags) => {
      await runVerb(io, {}, () => saveSnapshot(file, flags, io));
    });
  snapshot
    .command('restore')
    .description('make a snapshot the store of a new, empty data directory')
    .argument('<file>', 'the snapshot to restore')
    .requiredOption('--data-dir <dir>', 'the new data directory (must not exist or be empty)')
    .action(async (file: string, flags: SnapshotFlags) => {
      await runVerb(io, {}, () => restoreSnapshot(file, flags, io));
    });
}

function summary(info: SnapshotInfo): string {
  return `${info.keys} keys at revision ${info.revision}, integrity ok`;
}

async function fail(err: unknown): Promise<never> {
  if (err instanceof SnapshotError || err instanceof CliError) throw new CliError(err.message, { cause: err });
  throw err;
}

/** snapshot save (exported for tests). */
export async function saveSnapshot(file: string, flags: SnapshotFlags, io: CliIO): Promise<void> {
  const dataDir = resolve(flags.dataDir ?? defaultDataDir(io.env));
  const database = join(dataDir, STATE_DB);
  if (!existsSync(database)) throw new CliError(`${dataDir}: no store to save (no ${STATE_DB}; is it a setpoint data directory?)`);
  const destination = resolve(file);
  if (!existsSync(dirname(destination))) throw new CliError(`${dirname(destination)}: no such directory`);
  const temp = join(dirname(destination), `.${basename(destination)}.${process.pid}.tmp`);
  try {
    const fromServer = await requestSnapshot(join(dataDir, SNAPSHOT_SOCKET), temp);
    if (!fromServer) await backupDatabase(database, temp);
    // The store holds Secrets: the copy is as private as state.db.
    await chmod(temp, 0o600);
    const info = verifyDatabase(temp, `the snapshot of ${database}`, { selfContained: true });
    await rename(temp, destination);
    io.stdout.write(`snapshot saved to ${file} (${summary(info)}${fromServer ? ', taken from the running server' : ''})\n`);
  } catch (err) {
    await rm(temp, { force: true });
    await rm(`${temp}-journal`, { force: true });
    await fail(err);
  }
}

/** snapshot restore (exported for tests). */
export async function restoreSnapshot(file: string, flags: SnapshotFlags, io: CliIO): Promise<void> {
  if (flags.dataDir === undefined) throw new CliError('--data-dir is required: restore makes a new data directory');
  const source = resolve(file);
  if (!existsSync(source)) throw new CliError(`${file}: no such file`);
  const dataDir = resolve(flags.dataDir);
  let created = false;
  if (existsSync(dataDir)) {
    const entries = await readdir(dataDir).catch((err: Error) => fail(new CliError(`${dataDir}: ${err.message}`)));
    if (entries.length > 0) throw new CliError(`${dataDir} is not empty: restore needs a new data directory (it never overwrites a store)`);
    await chmod(dataDir, 0o700); // private, as setpoint server makes it
  } else {
    await mkdir(dataDir, { recursive: true, mode: 0o700 });
    created = true;
  }
  const temp = join(dataDir, `${STATE_DB}.restoring`);
  try {
    // Check a copy: the snapshot file itself is never opened for writing.
    await copyFile(source, temp);
    await chmod(temp, 0o600);
    const info = verifyDatabase(temp, file, { selfContained: true });
    await rename(temp, join(dataDir, STATE_DB));
    io.stdout.write(`restored ${file} into ${dataDir} (${summary(info)})\n`);
    io.stdout.write(`start it with: setpoint up --data-dir ${dataDir}\n`);
  } catch (err) {
    await rm(temp, { force: true });
    await rm(`${temp}-journal`, { force: true });
    if (created) await rmdir(dataDir).catch(() => undefined);
    await fail(err);
  }
}
