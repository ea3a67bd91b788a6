import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FakeClock } from '@setpoint/api';
import { Compactor, type Leadership } from './compactor.js';
import { MemoryStore } from './memory/memory.js';
import { StoreError } from './store.js';

async function writes(store: MemoryStore, n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    const kv = await store.get('/lease');
    if (kv === undefined) await store.create('/lease', String(i));
    else await store.update('/lease', String(i), kv.modRevision);
  }
}

describe('Compactor', () => {
  it('compacts on its interval to the revision seen one interval earlier, keeping the retained tail', async () => {
    const clock = new FakeClock();
    const store = new MemoryStore();
    const compactor = new Compactor(store, { clock, intervalMs: 60_000, retainRevisions: 10 });
    try {
      await writes(store, 100); // revisions 1..100
      await compactor.start(); // remembers 100
      await writes(store, 50); // 101..150
      await clock.advance(60_000);
      await compactor.whenIdle(); // the run the timer started
      // min(100 seen at the previous run, 150 - 10) = 100
      assert.equal(await store.compactRevision(), 100);
      assert.equal(compactor.status.compactRevision, 100);
      assert.ok(compactor.status.removed >= 99, `removed ${compactor.status.removed}`);
      await writes(store, 5); // 151..155: the tail bound wins now
      await clock.advance(60_000);
      await compactor.whenIdle();
      assert.equal(await store.compactRevision(), 145);
      assert.equal(compactor.status.failures, 0);
    } finally {
      await compactor.stop();
      await store.close();
    }
  });

  it('never stops silently: a failed run is counted, reported, and the next interval tries again', async () => {
    const clock = new FakeClock();
    const store = new MemoryStore();
    const compactor = new Compactor(store, { clock, intervalMs: 1000, retainRevisions: 0 });
    const realCompact = store.compact.bind(store);
    let failNext = true;
    store.compact = async (revision: number) => {
      if (failNext) {
        failNext = false;
        throw new StoreError('Unavailable', 'disk full');
      }
      return realCompact(revision);
    };
    try {
      await writes(store, 10);
      await compactor.start();
      await writes(store, 10);
      await clock.advance(1000);
      await compactor.whenIdle();
      assert.equal(compactor.status.failures, 1);
      assert.equal(compactor.status.lastError, 'disk full');
      assert.equal(await store.compactRevision(), 0);
      await clock.advance(1000);
      await compactor.whenIdle();
      assert.equal(compactor.status.lastError, undefined);
      assert.equal(await store.compactRevision(), 20);
      assert.ok(compactor.status.runs >= 2);
    } finally {
      await compactor.stop();
      await store.close();
    }
  });

  it('with a shared leadership, only the leader compacts; when it stops, another takes over at its next run', async () => {
    const clock = new FakeClock();
    const store = new MemoryStore();
    let holder: string | undefined;
    const leadership = (name: string): Leadership => ({
      async acquire() {
        holder ??= name;
        return holder === name;
      },
      async release() {
        if (holder === name) holder = undefined;
      },
    });
    const a = new Compactor(store, { clock, intervalMs: 1000, retainRevisions: 0, leadership: leadership('a') });
    const b = new Compactor(store, { clock, intervalMs: 1000, retainRevisions: 0, leadership: leadership('b') });
    const compactions: number[] = [];
    const realCompact = store.compact.bind(store);
    store.compact = async (revision: number) => {
      compactions.push(revision);
      return realCompact(revision);
    };
    try {
      await writes(store, 10);
      await a.start();
      await b.start();
      await writes(store, 10);
      await clock.advance(1000);
      await Promise.all([a.whenIdle(), b.whenIdle()]);
      assert.deepEqual(compactions, [10], 'one compaction, by the leader');
      assert.equal(a.status.leading, true);
      assert.deepEqual({ leading: b.status.leading, skipped: b.status.skipped }, { leading: false, skipped: 1 });
      await writes(store, 10);
      await a.stop(); // releases leadership
      await clock.advance(1000);
      await b.whenIdle();
      assert.deepEqual(compactions, [10, 20], 'the other compacts to the revision it saw one interval earlier');
      assert.equal(b.status.leading, true);
      assert.equal(b.status.compactRevision, 20);
    } finally {
      await a.stop();
      await b.stop();
      await store.close();
    }
  });
});
