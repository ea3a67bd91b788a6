/**
 * HistoryRecorder: the invocations and completions of concurrent clients' operations, timed on one
 * clock (performance.now()), as the linearizability checker reads them.
 *
 * Each operation ends one of three ways: `ok(output)` (it completed with that output), `failed()`
 * (it certainly had no effect — e.g. the connection was refused, or the server answered an error
 * that writes nothing — so it is left out of the history), or `unknown()` (it may or may not have
 * taken effect: it stays open forever). An operation never ended is unknown too.
 */
import { performance } from 'node:perf_hooks';
import type { Operation } from './checker.js';

export interface PendingOperation<O> {
  ok(output: O): void;
  failed(): void;
  unknown(): void;
}

export class HistoryRecorder<I, O> {
  readonly #ops: { op: Operation<I, O>; state: 'pending' | 'done' | 'failed' }[] = [];

  /** Records an invocation now. */
  invoke(client: number, key: string, input: I): PendingOperation<O> {
    const id = this.#ops.length;
    const slot = { op: { id, client, key, input, output: undefined, call: performance.now(), ret: undefined } as Operation<I, O>, state: 'pending' as 'pending' | 'done' | 'failed' };
    this.#ops.push(slot);
    const settle = (state: 'done' | 'failed', op: Operation<I, O>) => {
      if (slot.state !== 'pending') throw new Error(`operation ${id} ended twice`);
      slot.state = state;
      slot.op = op;
    };
    return {
      ok: (output) => settle('done', { ...slot.op, output, ret: performance.now() }),
      failed: () => settle('failed', slot.op),
      unknown: () => settle('done', slot.op),
    };
  }

  /** The history: every operation but the failed ones, open ones with ret undefined. */
  operations(): Operation<I, O>[] {
    return this.#ops.filter((s) => s.state !== 'failed').map((s) => s.op);
  }

  /** Counts by how operations ended. */
  counts(): { ok: number; unknown: number; failed: number } {
    let ok = 0;
    let unknown = 0;
    let failed = 0;
    for (const s of this.#ops) {
      if (s.state === 'failed') failed++;
      else if (s.op.ret === undefined) unknown++;
      else ok++;
    }
    return { ok, unknown, failed };
  }
}
