/** Compaction: what compact removes and keeps, and how list and watch answer below the compact revision. */
import assert from 'node:assert/strict';
import { isStoreError } from '../store.js';
import { assertEvents, describeError, expectStoreError, type History, plainCompact, plainCount, plainKv, range, type Register, runWriters, type WatchReader, within, writeMixedHistory } from './fixture.js';

export function compactionTests(test: Register): void {
  /** a1 a2 a3, b1, delete b, c1: compacting at the deletion of b leaves superseded a1, a2, b1 and b's tombstone. */
  const compactable = async (h: History): Promise<number> => {
    await h.create('/c/a', 'a1');
    await h.update('/c/a', 'a2');
    await h.update('/c/a', 'a3');
    await h.create('/c/b', 'b1');
    const deletion = await h.delete('/c/b');
    await h.create('/c/c', 'c1');
    return deletion;
  };

  test('compact removes superseded history (removed > 0) and compactRevision() reports it; at or below it nothing happens; above current throws FutureRevision', async (fx) => {
    const { store } = fx;
    const h = await fx.history();
    const target = await compactable(h);
    const result = await store.compact(target);
    assert.equal(result.compactRevision, target, 'compact returns the new compact revision');
    assert.ok(result.removed > 0, `compact removed ${result.removed} rows of superseded history`);
    assert.equal(await store.compactRevision(), target);
    assert.deepEqual(plainCompact(await store.compact(target)), { compactRevision: target, removed: 0 }, 'compacting at the compact revision again');
    assert.deepEqual(plainCompact(await store.compact(target - 1)), { compactRevision: target, removed: 0 }, 'compacting below the compact revision');
    const current = await store.currentRevision();
    await expectStoreError(() => store.compact(current + 1), 'FutureRevision', 'compact above the current revision');
    assert.equal(await store.compactRevision(), target, 'the refused compaction moved nothing');
    assert.equal(await store.currentRevision(), current, 'compaction creates no revision');
    assert.deepEqual((await store.list('/c/')).items.map(plainKv), h.stateAt(current, '/c/'), 'compaction changed no live data');
  });

  test('a watch from below the compact revision throws Compacted with compactRevision; from exactly the compact revision it yields the events after it', async (fx) => {
    const { store } = fx;
    const h = await fx.history();
    const target = await compactable(h);
    await store.compact(target);
    await h.update('/c/a', 'a4');
    await h.delete('/c/c');
    await h.create('/c/b', 'b2');
    for (const from of [target - 1, 0]) {
      let reader: WatchReader;
      try {
        reader = fx.watch('/c/', from);
      } catch (err) {
        assert.fail(`watch() itself threw ${describeError(err)}; the contract says its iterator throws`);
      }
      const { events, error } = await reader.failure(`Compacted from a watch from ${from}`);
      assert.deepEqual(events, [], 'no events before the error');
      assert.ok(isStoreError(error, 'Compacted'), `expected StoreError Compacted, got ${describeError(error)}`);
      assert.equal(error.compactRevision, target, 'Compacted.compactRevision');
    }
    const reader = fx.watch('/c/', target);
    assertEvents(await reader.until(h.lastRevision, 'the events after the compact revision'), h.eventsAfter(target), 'watch from the compact revision');
  });

  test('list at or above the compact revision returns that revision\'s state; below it throws Compacted', async (fx) => {
    const { store } = fx;
    const h = await fx.history();
    const target = await compactable(h);
    await store.compact(target);
    await h.update('/c/a', 'a4');
    await h.delete('/c/c');
    for (let revision = target; revision <= h.lastRevision; revision++) {
      const listed = await store.list('/c/', { revision });
      assert.deepEqual(listed.items.map(plainKv), h.stateAt(revision, '/c/'), `list at revision ${revision}`);
    }
    for (const revision of [target - 1, 1]) {
      const err = await expectStoreError(() => store.list('/c/', { revision }), 'Compacted', `list at revision ${revision}`);
      assert.equal(err.compactRevision, target, 'Compacted.compactRevision');
      await expectStoreError(() => store.list('/c/', { revision, limit: 1 }), 'Compacted', `a page at revision ${revision}`);
    }
    await expectStoreError(() => store.list('/c/', { revision: h.lastRevision + 1 }), 'FutureRevision', 'list above the current revision');
  });

  test('compaction at a past revision keeps the history after it: lists at every later revision and a watch from it see all of it', async (fx) => {
    const { store } = fx;
    const h = await fx.history();
    await writeMixedHistory(h, '/m/');
    const target = h.baseRevision + 8; // in the middle of the history: most keys have versions on both sides
    assert.ok(target < h.lastRevision, 'the history goes on after the compact revision');
    await store.compact(target);
    for (let revision = target; revision <= h.lastRevision; revision++) {
      assert.deepEqual((await store.list('/m/', { revision })).items.map(plainKv), h.stateAt(revision, '/m/'), `list at revision ${revision}`);
    }
    const reader = fx.watch('/m/', target);
    assertEvents(await reader.until(h.lastRevision, 'the events after the compact revision'), h.eventsAfter(target, '/m/'), 'watch from the compact revision');
  });

  test('after compacting at the current revision, a watch from it yields the writes that follow, and nothing before them', async (fx) => {
    const { store } = fx;
    const h = await fx.history();
    await writeMixedHistory(h, '/m/');
    await store.compact(h.lastRevision);
    const target = h.lastRevision;
    const reader = fx.watch('/m/', target);
    await h.update('/m/b', 'after the compaction');
    await h.create('/m/new', 'after the compaction');
    assertEvents(await reader.until(h.lastRevision, 'the writes after the compaction'), h.eventsAfter(target, '/m/'), 'watch from the compact revision');
  });

  test('compaction keeps the latest version of every live key and drops deleted keys', async (fx) => {
    const { store } = fx;
    const h = await fx.history();
    for (const key of ['a', 'b', 'c', 'd', 'e']) {
      await h.create(`/k/${key}`, '0');
      for (let i = 1; i <= 3; i++) await h.update(`/k/${key}`, String(i));
    }
    await h.delete('/k/b');
    await h.delete('/k/d');
    await h.create('/k/d', 'again');
    await h.create('/k/x', 'never updated');
    const target = h.lastRevision;
    const result = await store.compact(target);
    assert.ok(result.removed > 0, 'superseded versions were removed');
    const state = h.stateAt(target, '/k/');
    assert.deepEqual((await store.list('/k/')).items.map(plainKv), state, 'list after compaction');
    assert.deepEqual((await store.list('/k/', { revision: target })).items.map(plainKv), state, 'list at the compact revision');
    for (const kv of state) assert.deepEqual(plainKv(await store.get(kv.key)), kv, `get(${kv.key}) keeps createRevision and modRevision`);
    assert.equal(await store.get('/k/b'), undefined, 'a deleted key stays deleted');
    assert.deepEqual(plainCount(await store.count('/k/')), { count: state.length, revision: target });
    await h.update('/k/a', 'after compaction');
    await h.create('/k/b', 'created after its tombstone was compacted');
    await h.delete('/k/d');
    assert.deepEqual((await store.list('/k/')).items.map(plainKv), h.stateAt(h.lastRevision, '/k/'), 'writes after compaction');
  });

  test('revisions keep increasing after compaction removed the newest history', async ({ store }) => {
    await store.create('/n/a', '1');
    const deletion = (await store.delete('/n/a')).revision;
    await store.compact(deletion);
    assert.equal(await store.currentRevision(), deletion, 'currentRevision() is still the deletion\'s revision');
    const next = await store.create('/n/b', '1');
    assert.ok(next.modRevision > deletion, `the next write got ${next.modRevision}, not above ${deletion}`);
    const again = (await store.delete('/n/b')).revision;
    await store.compact(again);
    assert.ok((await store.create('/n/a', '2')).modRevision > again);
  });

  test('writes made while compaction runs all succeed and are all kept', async (fx) => {
    const { store } = fx;
    const h = await fx.history();
    for (let i = 0; i < 10; i++) await h.create(`/k/${i}`, '0');
    for (let round = 1; round <= 15; round++) for (let i = 0; i < 10; i++) await h.update(`/k/${i}`, String(round));
    const target = h.lastRevision;
    const writers = [
      ...range(0, 3).map(async (w) => {
        for (let i = 0; i < 10; i++) await h.update(`/k/${w}`, `during ${i}`);
      }),
      runWriters(h, 2, 10),
    ];
    const [result] = await within(Promise.all([store.compact(target), Promise.all(writers)]), 'compaction and the writers');
    assert.equal(result.compactRevision, target);
    assert.ok(result.removed > 0);
    assert.deepEqual((await store.list('/')).items.map(plainKv), h.stateAt(h.lastRevision), 'every write is kept');
    const reader = fx.watch('/', target);
    assertEvents(await reader.until(h.lastRevision, 'the events after the compact revision'), h.eventsAfter(target), 'watch after compaction');
  });
}
