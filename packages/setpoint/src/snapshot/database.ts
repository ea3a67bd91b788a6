/**
 * Snapshot files: copies of the SQLite store (state.db) taken with SQLite's online backup, checked
 * before they are trusted. A snapshot is a self-contained database in rollback-journal mode (the
 * store switches it back to WAL when it opens it).
 */
import Database from 'better-sqlite3';

/** The database file of the SQLite store in a data directory. */
export const STATE_DB = 'state.db';

/** What a checked snapshot holds. */
export interface SnapshotInfo {
  /** Live keys (objects and the store's own records). */
  readonly keys: number;
  /** The store's revision (resourceVersion) when the copy was taken. */
  readonly revision: number;
}

/** A SQLite failure, worded for people. */
export class SnapshotError extends Error {
  override readonly name = 'SnapshotError';
}

/**
 * Checks the database at `path` (PRAGMA integrity_check, and the store's tables and schema version)
 * and returns what it holds. With `selfContained`, first turns it into one file (journal_mode DELETE).
 * Throws SnapshotError naming `label` when the file is not a sound Setpoint store.
 */
export function verifyDatabase(path: string, label: string, options: { selfContained?: boolean } = {}): SnapshotInfo {
  let db: Database.Database;
  try {
    db = new Database(path, { fileMustExist: true });
  } catch (err) {
    throw new SnapshotError(`${label}: cannot open: ${(err as Error).message}`, { cause: err });
  }
  try {
    let problems: string[];
    try {
      if (options.selfContained) db.pragma('journal_mode = DELETE');
      problems = (db.pragma('integrity_check') as Array<{ integrity_check: string }>).map((r) => r.integrity_check).filter((r) => r !== 'ok');
    } catch (err) {
      throw new SnapshotError(`${label}: not a SQLite database (${(err as Error).message})`, { cause: err });
    }
    if (problems.length > 0) throw new SnapshotError(`${label}: integrity check failed: ${problems.slice(0, 3).join('; ')}`);
    const tables = new Set((db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as Array<{ name: string }>).map((r) => r.name));
    for (const table of ['log', 'kv', 'meta']) if (!tables.has(table)) throw new SnapshotError(`${label}: not a Setpoint store (no ${table} table)`);
    const version = (db.prepare("SELECT value FROM meta WHERE name = 'schema_version'").get() as { value: number } | undefined)?.value;
    if (version !== 1) throw new SnapshotError(`${label}: a Setpoint store of schema version ${String(version)}, this setpoint reads version 1`);
    const keys = (db.prepare('SELECT COUNT(*) AS n FROM kv').get() as { n: number }).n;
    const revision = (db.prepare("SELECT seq FROM sqlite_sequence WHERE name = 'log'").get() as { seq: number } | undefined)?.seq ?? 0;
    return { keys, revision };
  } finally {
    db.close();
  }
}

/**
 * Copies the store at `source` to `destination` with SQLite's online backup, reading through a
 * connection of this process. Throws SnapshotError "in use" when another process holds the store
 * (a running server keeps an exclusive lock; ask it through its snapshot socket instead).
 */
export async function backupDatabase(source: string, destination: string): Promise<void> {
  let db: Database.Database;
  try {
    db = new Database(source, { fileMustExist: true });
  } catch (err) {
    throw new SnapshotError(`${source}: cannot open: ${(err as Error).message}`, { cause: err });
  }
  try {
    db.pragma('busy_timeout = 0');
    await db.backup(destination);
  } catch (err) {
    if ((err as { code?: string }).code === 'SQLITE_BUSY' || /locked|busy/i.test((err as Error).message)) {
      throw new SnapshotError(`${source} is in use by a running setpoint, and its snapshot socket did not answer`, { cause: err });
    }
    throw new SnapshotError(`${source}: backup failed: ${(err as Error).message}`, { cause: err });
  } finally {
    db.close();
  }
}
