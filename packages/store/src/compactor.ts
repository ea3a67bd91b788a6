/**
 * Compactor: compacts a store on a schedule, as kube-apiserver does every 5 minutes.
 *
 * Expected flow: every `intervalMs` it compacts to the revision it saw at its previous run, so at
 * least one interval of history stays available for watchers to resume from, and never closer than
 * `retainRevisions` to the current revision (kine's fixed tail), so a burst of writes inside one
 * interval stays resumable too.
 *
 * Guarantees: it never stops silently. A failed run is logged with its error, counted in `status`,
 * and retried at the next tick; `status` always tells when it last ran, how far, and what it removed.
 *
 * Several processes on one shared store (API servers on one etcd cluster) pass a `leadership`: a
 * run compacts only while this process holds it, and every process still notes the revision at
 * each tick, so a new leader compacts to what it saw one interval earlier. Two leaders at once (a
 * hand-over while a lease runs out) do no harm: compacting twice to nearly the same revision is
 * what one of them would have done alone; the election only spares the duplicate work.
 */
import { realClock, silentLogger, type Clock, type Logger, type Timer } from '@setpoint/api';
import type { Store } from './store.js';

export interface CompactorOptions {
  /** Time between runs. Default 5 minutes. */
  readonly intervalMs?: number;
  /** Revisions always kept behind the current one. Default 1,000. */
  readonly retainRevisions?: number;
  /** With several processes on one store: run only while this process leads. Default: always run. */
  readonly leadership?: Leadership;
  readonly clock?: Clock;
  readonly logger?: Logger;
}

/**
 * The right to act alone among processes sharing a store (an etcd lease, say). `acquire` is
 * called before each run: it campaigns when not leading, and says whether this process leads now.
 * It may throw when the store is unreachable (the run then counts as failed).
 */
export interface Leadership {
  acquire(): Promise<boolean>;
  /** Gives leadership up, so that another process may take it at its next try. */
  release(): Promise<void>;
}

/** What the compactor did so far (for metrics and health). */
export interface CompactorStatus {
  runs: number;
  failures: number;
  /** Runs that did nothing because another process leads (with `leadership`). */
  skipped: number;
  /** Whether this process led at its last run (always true without `leadership`). */
  leading: boolean;
  /** Rows removed over all runs. */
  removed: number;
  compactRevision: number;
  /** Clock time (ms) of the last finished run, successful or not. */
  lastRunAt: number | undefined;
  /** The error of the last run, cleared by a successful one. */
  lastError: string | undefined;
}

export class Compactor {
  readonly status: CompactorStatus = { runs: 0, failures: 0, skipped: 0, leading: true, removed: 0, compactRevision: 0, lastRunAt: undefined, lastError: undefined };
  private readonly intervalMs: number;
  private readonly retain: number;
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly leadership: Leadership | undefined;
  private timer: Timer | undefined;
  private seenAtLastRun = 0;
  private running: Promise<void> | undefined;
  private stopped = true;

  constructor(
    private readonly store: Store,
    options: CompactorOptions = {},
  ) {
    this.intervalMs = options.intervalMs ?? 5 * 60_000;
    this.retain = options.retainRevisions ?? 1000;
    this.clock = options.clock ?? realClock;
    this.logger = options.logger ?? silentLogger;
    this.leadership = options.leadership;
  }

  /** Starts the schedule; the first run happens one interval from now. */
  async start(): Promise<void> {
    if (!this.stopped) return;
    this.stopped = false;
    this.seenAtLastRun = await this.store.currentRevision();
    this.status.compactRevision = await this.store.compactRevision();
    this.schedule();
  }

  /** Stops the schedule, waits for a run in progress, and gives up leadership. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.timer?.cancel();
    this.timer = undefined;
    await this.running;
    try {
      await this.leadership?.release();
    } catch (err) {
      // Others take over once the lease runs out instead of at once: slower, not wrong.
      this.logger.warn({ err }, 'giving up compaction leadership failed; it lapses when its lease expires');
    }
  }

  /** Runs once now: compacts to min(revision seen at the previous run, current - retainRevisions). */
  runOnce(): Promise<void> {
    this.running ??= this.run().finally(() => (this.running = undefined));
    return this.running;
  }

  /** Resolves when no run is in progress (a run the timer started included). */
  async whenIdle(): Promise<void> {
    await this.running;
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = this.clock.setTimeout(() => {
      void this.runOnce().then(() => this.schedule());
    }, this.intervalMs);
    this.timer.unref?.();
  }

  private async run(): Promise<void> {
    try {
      const current = await this.store.currentRevision();
      const target = Math.min(this.seenAtLastRun, current - this.retain);
      this.seenAtLastRun = current;
      if (this.leadership !== undefined) {
        this.status.leading = await this.leadership.acquire();
        if (!this.status.leading) {
          this.status.skipped++;
          this.status.lastError = undefined;
          return;
        }
        // Another leader may have compacted since this process last looked.
        this.status.compactRevision = Math.max(this.status.compactRevision, await this.store.compactRevision());
      }
      if (target > this.status.compactRevision) {
        const result = await this.store.compact(target);
        this.status.removed += result.removed;
        this.status.compactRevision = result.compactRevision;
        this.logger.debug({ compactRevision: result.compactRevision, removed: result.removed }, 'compacted the store');
      }
      this.status.lastError = undefined;
    } catch (err) {
      this.status.failures++;
      this.status.lastError = err instanceof Error ? err.message : String(err);
      this.logger.error({ err }, 'store compaction failed; retrying at the next interval');
    } finally {
      this.status.runs++;
      this.status.lastRunAt = this.clock.now();
    }
  }
}
