/** Close, and close and reopen (persistent backends only: registered when the harness says `persistent`). */
import assert from 'node:assert/strict';
import { assertEvents, expectStoreError, plainKv, type Register, type RegisterReopen, within, writeMixedHistory } from './fixture.js';

export function closeTests(test: Register): void {
  test('close() ends open watches: one waiting in next() and one not yet read', async (fx) => {
    const { store } = fx;
    await store.create('/a', '1');
    const reading = fx.watch('/', 0);
    assert.equal((await reading.next('the create')).type, 'create');
    const unread = fx.watch('/', await store.currentRevision());
    const readingEnded = reading.endOrClosed('a waiting watch to end on close');
    await within(store.close(), 'close() with open watches');
    await readingEnded;
    await unread.endOrClosed('an unread watch to end on close');
  });

  test('after close, every operation throws Closed', async ({ store }) => {
    const kv = await store.create('/a', '1');
    await store.close();
    await expectStoreError(() => store.currentRevision(), 'Closed', 'currentRevision');
    await expectStoreError(() => store.get('/a'), 'Closed', 'get');
    await expectStoreError(() => store.list('/'), 'Closed', 'list');
    await expectStoreError(() => store.count('/'), 'Closed', 'count');
    await expectStoreError(() => store.create('/b', '1'), 'Closed', 'create');
    await expectStoreError(() => store.update('/a', '2', kv.modRevision), 'Closed', 'update');
    await expectStoreError(() => store.delete('/a'), 'Closed', 'delete');
    await expectStoreError(() => store.compact(kv.modRevision), 'Closed', 'compact');
    await expectStoreError(() => store.compactRevision(), 'Closed', 'compactRevision');
    await expectStoreError(async () => store.watch('/', 0).next(), 'Closed', 'watch');
  });
}

// ---------------------------------------------------------------------------------------------------
// Close and reopen (persistent backends)

export function reopenTests(test: RegisterReopen): void {
  test('data, history and the revision survive close and reopen; the next write gets a higher revision', async (fx) => {
    const h = await fx.history();
    await writeMixedHistory(h, '/h/');
    const last = h.lastRevision;
    const store = await fx.reopen();
    assert.equal(await store.currentRevision(), last, 'currentRevision() after reopen');
    assert.equal(await store.compactRevision(), 0, 'compactRevision() after reopen');
    assert.deepEqual((await store.list('/')).items.map(plainKv), h.stateAt(last), 'list after reopen');
    for (const kv of h.stateAt(last)) assert.deepEqual(plainKv(await store.get(kv.key)), kv, `get(${kv.key}) after reopen`);
    // No write has revision 0, and the contract does not say what `revision: 0` reads (etcd: the current one).
    for (let revision = Math.max(h.baseRevision, 1); revision <= last; revision++) {
      assert.deepEqual((await store.list('/', { revision })).items.map(plainKv), h.stateAt(revision), `list at revision ${revision} after reopen`);
    }
    const reader = fx.watch('/', h.baseRevision);
    assertEvents(await reader.until(last, 'the history after reopen'), h.eventsAfter(h.baseRevision), 'watch of the history after reopen');
    const next = await h.create('/after-reopen', 'x');
    assert.ok(next.modRevision > last, `the first write after reopen got ${next.modRevision}, not above ${last}`);
    assertEvents([await reader.next('the first live event after reopen')], [{ type: 'create', revision: next.modRevision, kv: next }], 'live after reopen');
  });

  test('revisions never go backwards across reopen, even after compaction removed the newest rows; the compact revision survives', async (fx) => {
    await fx.store.create('/n/a', '1');
    const deletion = (await fx.store.delete('/n/a')).revision;
    await fx.store.compact(deletion);
    let store = await fx.reopen();
    assert.equal(await store.currentRevision(), deletion, 'currentRevision() after reopen');
    assert.equal(await store.compactRevision(), deletion, 'compactRevision() after reopen');
    await expectStoreError(() => store.list('/', { revision: deletion - 1 }), 'Compacted', 'list below the compact revision after reopen');
    const next = await store.create('/n/b', '1');
    assert.ok(next.modRevision > deletion, `the first write after reopen got ${next.modRevision}, not above ${deletion}`);
    store = await fx.reopen();
    assert.equal(await store.currentRevision(), next.modRevision, 'currentRevision() after the second reopen');
    assert.ok((await store.create('/n/c', '1')).modRevision > next.modRevision);
  });
}
