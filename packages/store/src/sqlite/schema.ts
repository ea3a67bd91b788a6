/**
 * The SQLite layout: an append-only log of changes whose row id is the revision (as kine does it),
 * plus `kv`, an index from each live key to the revision of its latest version, so reads of the
 * present touch one row per key instead of searching the log.
 */
import type Database from 'better-sqlite3';

export const SCHEMA_VERSION = 1;

/** Row types in the log. */
export const RowType = { Create: 0, Update: 1, Delete: 2 } as const;
export type RowType = (typeof RowType)[keyof typeof RowType];

/**
 * Creates the tables. The connection must already be in incremental auto-vacuum mode
 * (`useIncrementalVacuum`): SQLite fixes that mode when the first table is made.
 */
export function createSchema(db: Database.Database): void {
  db.exec(`
    CREATE TABLE IF NOT EXISTS log (
      revision        INTEGER PRIMARY KEY AUTOINCREMENT,
      key             TEXT    NOT NULL,
      type            INTEGER NOT NULL,
      create_revision INTEGER NOT NULL,
      prev_revision   INTEGER NOT NULL,
      value           TEXT
    );
    CREATE INDEX IF NOT EXISTS log_key_revision ON log (key, revision);
    CREATE TABLE IF NOT EXISTS kv (
      key      TEXT    PRIMARY KEY,
      revision INTEGER NOT NULL
    ) WITHOUT ROWID;
    CREATE TABLE IF NOT EXISTS meta (
      name  TEXT    PRIMARY KEY,
      value INTEGER NOT NULL
    ) WITHOUT ROWID;
    INSERT OR IGNORE INTO meta (name, value) VALUES ('schema_version', ${SCHEMA_VERSION});
    INSERT OR IGNORE INTO meta (name, value) VALUES ('compact_revision', 0);
    INSERT OR IGNORE INTO meta (name, value) VALUES ('compacted_through', 0);
  `);
}

/** A row of the log as the statements below return it. */
export interface LogRow {
  revision: number;
  key: string;
  type: RowType;
  create_revision: number;
  prev_revision: number;
  value: string | null;
}

/** A log row with the version it replaced (for watch events). */
export interface EventRow extends LogRow {
  p_create: number | null;
  p_value: string | null;
}

export interface CurrentRow {
  key: string;
  revision: number;
  create_revision: number;
  value: string;
}

type Stmt<P extends unknown[], R = unknown> = Database.Statement<P, R>;

/** The prepared statements the store runs. */
export interface Statements {
  get: Stmt<[string], CurrentRow>;
  listFrom: Stmt<[string, string, number], CurrentRow>;
  listAfter: Stmt<[string, string, number], CurrentRow>;
  listPastFrom: Stmt<[string, string, number, number], CurrentRow>;
  listPastAfter: Stmt<[string, string, number, number], CurrentRow>;
  count: Stmt<[string, string], { n: number }>;
  history: Stmt<[number, string, string, number], EventRow>;
  insert: Stmt<[number, string, number, number, number, string | null]>;
  putKv: Stmt<[string, number]>;
  deleteKv: Stmt<[string]>;
  sequence: Stmt<[], { seq: number }>;
  getMeta: Stmt<[string], { value: number }>;
  setMeta: Stmt<[number, string]>;
  compactSuperseded: Stmt<[number, number]>;
  compactTombstones: Stmt<[number, number]>;
}

export function prepareStatements(db: Database.Database): Statements {
  const current = `SELECT kv.key, kv.revision, l.create_revision, l.value FROM kv JOIN log l ON l.revision = kv.revision`;
  const past = `SELECT l.key, l.revision, l.create_revision, l.value FROM (
      SELECT key, MAX(revision) AS r FROM log WHERE key %LOW% ? AND key < ? AND revision <= ? GROUP BY key
    ) m JOIN log l ON l.revision = m.r WHERE l.type != ${RowType.Delete} ORDER BY l.key LIMIT ?`;
  return {
    get: db.prepare<[string], CurrentRow>(`${current} WHERE kv.key = ?`),
    listFrom: db.prepare<[string, string, number], CurrentRow>(`${current} WHERE kv.key >= ? AND kv.key < ? ORDER BY kv.key LIMIT ?`),
    listAfter: db.prepare<[string, string, number], CurrentRow>(`${current} WHERE kv.key > ? AND kv.key < ? ORDER BY kv.key LIMIT ?`),
    listPastFrom: db.prepare<[string, string, number, number], CurrentRow>(past.replace('%LOW%', '>=')),
    listPastAfter: db.prepare<[string, string, number, number], CurrentRow>(past.replace('%LOW%', '>')),
    count: db.prepare<[string, string], { n: number }>(`SELECT COUNT(*) AS n FROM kv WHERE key >= ? AND key < ?`),
    history: db.prepare<[number, string, string, number], EventRow>(
      `SELECT l.revision, l.key, l.type, l.create_revision, l.prev_revision, l.value, p.create_revision AS p_create, p.value AS p_value
       FROM log l LEFT JOIN log p ON p.revision = l.prev_revision
       WHERE l.revision > ? AND l.key >= ? AND l.key < ? ORDER BY l.revision LIMIT ?`,
    ),
    insert: db.prepare<[number, string, number, number, number, string | null]>(
      `INSERT INTO log (revision, key, type, create_revision, prev_revision, value) VALUES (?, ?, ?, ?, ?, ?)`,
    ),
    putKv: db.prepare<[string, number]>(`INSERT INTO kv (key, revision) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET revision = excluded.revision`),
    deleteKv: db.prepare<[string]>(`DELETE FROM kv WHERE key = ?`),
    sequence: db.prepare<[], { seq: number }>(`SELECT seq FROM sqlite_sequence WHERE name = 'log'`),
    getMeta: db.prepare<[string], { value: number }>(`SELECT value FROM meta WHERE name = ?`),
    setMeta: db.prepare<[number, string]>(`UPDATE meta SET value = ? WHERE name = ?`),
    compactSuperseded: db.prepare<[number, number]>(
      `DELETE FROM log WHERE revision IN (SELECT prev_revision FROM log WHERE revision > ? AND revision <= ? AND prev_revision > 0)`,
    ),
    compactTombstones: db.prepare<[number, number]>(`DELETE FROM log WHERE revision > ? AND revision <= ? AND type = ${RowType.Delete}`),
  };
}

/**
 * Puts the file in incremental auto-vacuum mode, so that compaction can hand freed pages back to
 * the file system. SQLite takes the mode only before the file's first table exists and before it is
 * switched to WAL (afterwards the pragma is silently ignored), so this runs first on a fresh
 * connection. A file made before the store chose the mode in that order (auto_vacuum still NONE)
 * is rewritten once by VACUUM, which applies it; on a disk too full for the copy VACUUM needs, the
 * file is left as it is (it works, it only keeps its free pages) and the next open tries again.
 */
export function useIncrementalVacuum(db: Database.Database, isDiskFull: (err: unknown) => boolean): void {
  db.pragma('auto_vacuum = INCREMENTAL');
  if (db.pragma('auto_vacuum', { simple: true }) !== 0) return;
  try {
    db.exec('VACUUM');
  } catch (err) {
    if (!isDiskFull(err)) throw err;
  }
}
