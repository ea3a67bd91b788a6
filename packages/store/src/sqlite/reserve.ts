/**
 * A reserve of disk space beside the database: a file of zeros (`state.db-reserve`) the store
 * deletes when the disk fills, so that what frees space — deletes, the writes that finish a
 * deletion, compaction — still has room to be committed (SQLite in WAL mode appends even to
 * delete). It is made again once the volume has twice its size free.
 */
import { closeSync, fstatSync, fsyncSync, openSync, statfsSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';

/** The reserve's size unless told otherwise: 16 MiB, a few thousand deletes and a compaction's worth of log. */
export const DEFAULT_RESERVE_BYTES = 16 * 1024 * 1024;

const CHUNK = Buffer.alloc(1024 * 1024);

export class SpaceReserve {
  readonly path: string;
  readonly bytes: number;
  private holding = false;

  /** The reserve of `bytes` (0: none) for the database at `databasePath`; call acquire() to make it. */
  constructor(databasePath: string, bytes: number) {
    this.path = `${databasePath}-reserve`;
    this.bytes = bytes;
  }

  /** Whether the reserve file holds its space now. */
  get held(): boolean {
    return this.holding;
  }

  /**
   * Makes the reserve file when it is missing or short, if the volume has twice its size free (so
   * making it never fills the disk). True when it is held afterwards (always true without a
   * reserve). Never throws: a reserve that cannot be made is simply not held.
   */
  acquire(): boolean {
    if (this.bytes === 0 || this.holding) return true;
    try {
      if (statSync(this.path).size >= this.bytes) return (this.holding = true);
    } catch {
      // missing: make it
    }
    let fd: number | undefined;
    try {
      const fs = statfsSync(dirname(this.path));
      if (fs.bavail * fs.bsize < 2 * this.bytes) return false;
      fd = openSync(this.path, 'w', 0o600);
      for (let written = 0; written < this.bytes; ) written += writeSync(fd, CHUNK, 0, Math.min(CHUNK.length, this.bytes - written));
      fsyncSync(fd);
      this.holding = fstatSync(fd).size >= this.bytes;
    } catch {
      this.holding = false;
    } finally {
      if (fd !== undefined) closeSync(fd);
      if (!this.holding) this.remove();
    }
    return this.holding;
  }

  /** Deletes the reserve file, giving its space back to the volume. True when it was held. */
  release(): boolean {
    const was = this.holding;
    this.holding = false;
    this.remove();
    return was;
  }

  private remove(): void {
    try {
      unlinkSync(this.path);
    } catch {
      // already gone
    }
  }
}

/** Whether an error from SQLite means the disk (or the database's size limit) is full. */
export function isDiskFull(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === 'SQLITE_FULL' || code === 'ENOSPC';
}
