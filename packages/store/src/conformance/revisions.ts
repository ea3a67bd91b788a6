/** Revisions: a new store is at revision 0; every write makes exactly one new, higher revision; a failed write makes none. */
import assert from 'node:assert/strict';
import { expectStoreError, getKv, plainCount, plainKv, type Register } from './fixture.js';

export function revisionTests(test: Register): void {
  test('a new store is at revision 0, compact revision 0, with no keys', async ({ store }) => {
    assert.equal(typeof store.backend, 'string');
    assert.ok(store.backend.length > 0, 'backend names itself');
    assert.equal(await store.currentRevision(), 0);
    assert.equal(await store.compactRevision(), 0);
    const listed = await store.list('/');
    assert.deepEqual({ items: listed.items, revision: listed.revision, more: listed.more }, { items: [], revision: 0, more: false });
    assert.deepEqual(plainCount(await store.count('/')), { count: 0, revision: 0 });
    assert.equal(await store.get('/a'), undefined);
  });

  test('every write creates one new revision, greater than every one before it, and currentRevision() reports it', async ({ store }) => {
    let last = await store.currentRevision();
    const step = async (what: string, write: () => Promise<number>): Promise<void> => {
      const revision = await write();
      assert.ok(revision > last, `${what}: revision ${revision} is not greater than the previous ${last}`);
      assert.equal(await store.currentRevision(), revision, `${what}: currentRevision() after it`);
      last = revision;
    };
    await step('create /a', async () => (await store.create('/a', '1')).modRevision);
    await step('create /b', async () => (await store.create('/b', '1')).modRevision);
    await step('update /a', async () => (await store.update('/a', '2', (await getKv(store, '/a')).modRevision)).modRevision);
    await step('update /a to the same value', async () => (await store.update('/a', '2', (await getKv(store, '/a')).modRevision)).modRevision);
    await step('delete /b', async () => (await store.delete('/b')).revision);
    await step('create /b again', async () => (await store.create('/b', '2')).modRevision);
    await step('guarded delete /a', async () => (await store.delete('/a', (await getKv(store, '/a')).modRevision)).revision);
  });

  test('a failed write (AlreadyExists, Conflict, NotFound) creates no revision and changes nothing', async ({ store }) => {
    const a1 = await store.create('/a', '1');
    const a2 = await store.update('/a', '2', a1.modRevision);
    await store.create('/gone', 'x');
    await store.delete('/gone');
    const revision = await store.currentRevision();
    const before = await store.list('/');
    await expectStoreError(() => store.create('/a', '3'), 'AlreadyExists', 'create of an existing key');
    await expectStoreError(() => store.update('/a', '3', a1.modRevision), 'Conflict', 'update with a stale revision');
    await expectStoreError(() => store.delete('/a', a1.modRevision), 'Conflict', 'delete with a stale revision');
    await expectStoreError(() => store.update('/gone', '3', 1), 'NotFound', 'update of a deleted key');
    await expectStoreError(() => store.delete('/gone'), 'NotFound', 'delete of a deleted key');
    await expectStoreError(() => store.delete('/never'), 'NotFound', 'delete of an absent key');
    assert.equal(await store.currentRevision(), revision, 'the revision did not move');
    assert.deepEqual((await store.list('/')).items.map(plainKv), before.items.map(plainKv), 'the data did not change');
    assert.deepEqual(plainKv(await store.get('/a')), plainKv(a2));
  });
}
