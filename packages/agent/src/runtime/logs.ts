/**
 * Container log files: a container's stdout and stderr go, interleaved and unframed, to
 * `<pod dir>/logs/<container>.log`, opened in append mode and handed to the process as its file
 * descriptors — so the process keeps logging while the agent is down or restarting.
 *
 * Rotation is copy-and-truncate (logrotate's copytruncate): once the file passes `maxBytes`, it is
 * copied to `<container>.log.1` (replacing the previous one) and truncated; the process's appends
 * continue at the new end. At most two files per container: the current one and one previous.
 * Caveat: lines written between the copy and the truncate are lost, and the current file can pass
 * `maxBytes` by what is written between two checks.
 */
import { closeSync, openSync } from 'node:fs';
import { copyFile, stat, truncate } from 'node:fs/promises';
import { join } from 'node:path';

/** The default size cap of one log file: 10 MiB. */
export const DEFAULT_MAX_LOG_BYTES = 10 * 1024 * 1024;

/** Where a container's current log is, in its pod's directory; the previous one has ".1" appended. */
export function containerLogPath(podDir: string, container: string): string {
  return join(podDir, 'logs', `${container}.log`);
}

/** One container's log files. */
export class ContainerLog {
  constructor(
    readonly path: string,
    readonly maxBytes: number = DEFAULT_MAX_LOG_BYTES,
  ) {}

  /** The previous file's path. */
  get previousPath(): string {
    return `${this.path}.1`;
  }

  /**
   * Opens the current file for appending (creating it) and returns the descriptor for a child's
   * stdout and stderr. The caller closes it once the child has it (`closeFd`).
   */
  openForChild(): number {
    return openSync(this.path, 'a', 0o640);
  }

  /** Closes a descriptor from openForChild (the child keeps its own copy). */
  closeFd(fd: number): void {
    closeSync(fd);
  }

  /** Rotates when the current file is larger than maxBytes; returns whether it did. A missing file is not an error. */
  async rotateIfNeeded(): Promise<boolean> {
    let size: number;
    try {
      size = (await stat(this.path)).size;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw err;
    }
    if (size <= this.maxBytes) return false;
    await copyFile(this.path, this.previousPath);
    await truncate(this.path, 0);
    return true;
  }
}
