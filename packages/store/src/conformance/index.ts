/**
 * The conformance suite: the one set of tests every `Store` backend (memory, SQLite, etcd) must pass,
 * after hono's shared router suite. A backend's test file calls `storeConformance` with a harness
 * that opens an empty store; the suite registers node:test `describe`/`it` blocks that prove the
 * contract written in store.ts. The tests live one group per file beside this one; fixture.ts holds
 * what they share.
 *
 * Guarantees: every test opens its own store and disposes it, also when it fails. Nothing waits on a
 * fixed sleep: every wait has a deadline (WAIT_MS) and fails the test saying what it waited for. No
 * test is skipped: the close-and-reopen group is registered only for a persistent harness.
 * Assumes: the tests of one file run one at a time (node:test's default inside a file).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isStoreError, type Store, type StoreOptions } from '../store.js';
import { compactionTests } from './compaction.js';
import { Fixture, type Register, type RegisterReopen } from './fixture.js';
import { keyValueTests } from './keys.js';
import { closeTests, reopenTests } from './lifecycle.js';
import { listTests } from './lists.js';
import { revisionTests } from './revisions.js';
import { watchTests } from './watch.js';
import { writeTests } from './writes.js';

/** How a backend's test file gives the suite its stores. */
export interface StoreHarness {
  /** Names the suite, e.g. "memory". */
  readonly name: string;
  /**
   * Whether the backend keeps its data across close and open (SQLite: yes; memory: no). When true,
   * the close-and-reopen tests are registered, and `open()` must return `reopen`.
   */
  readonly persistent: boolean;
  /** Opens a new, empty store with these options. Every test opens its own. */
  open(options?: StoreOptions): Promise<OpenedStore>;
}

/** One store opened for one test. */
export interface OpenedStore {
  /** The new, empty store. */
  readonly store: Store;
  /**
   * Closes the store and opens the same data again. Required when the harness is `persistent` (a
   * reopen test fails without it); ignored otherwise.
   */
  readonly reopen?: () => Promise<Store>;
  /**
   * Closes whatever is still open (the test may have closed it already) and removes files.
   * Called exactly once after every test, also after failures.
   */
  dispose(): Promise<void>;
}

/** Closes `store`; a store the test already closed (StoreError Closed) counts as closed. For `dispose`. */
export async function closeStore(store: Store): Promise<void> {
  try {
    await store.close();
  } catch (err) {
    // A second close() may throw Closed: the store is closed either way, which is all dispose needs.
    if (!isStoreError(err, 'Closed')) throw err;
  }
}

const TEST_TIMEOUT_MS = 30_000;

/** Registers the conformance suite for one backend. Call it at the top level of a test file. */
export function storeConformance(harness: StoreHarness): void {
  describe(`store conformance: ${harness.name}`, () => {
    const test: Register = (name, body, options) => {
      it(name, { timeout: TEST_TIMEOUT_MS }, async (t) => {
        const fx = new Fixture(await harness.open(options));
        try {
          await body(fx, t);
        } catch (err) {
          await fx.dispose().catch((disposeErr: unknown) => {
            console.error(`[${harness.name}] dispose failed after the test failed:`, disposeErr);
          });
          throw err;
        }
        await fx.dispose();
      });
    };
    const reopenTest: RegisterReopen = (name, body) =>
      test(name, async (fx) => {
        assert.ok(fx.canReopen, `the harness "${harness.name}" is persistent, but its open() returned no reopen`);
        await body(fx);
      });

    describe('revisions', () => revisionTests(test));
    describe('get, create, update, delete', () => writeTests(test));
    describe('list and count', () => listTests(test));
    describe('keys and values', () => keyValueTests(test));
    describe('watch', () => watchTests(test));
    describe('compaction', () => compactionTests(test));
    describe('close', () => closeTests(test));
    if (harness.persistent) describe('close and reopen', () => reopenTests(reopenTest));
  });
}
