/** Single-key writes: get, create, update and delete, with their optimistic-concurrency guards. */
import assert from 'node:assert/strict';
import { isStoreError, type KeyValue } from '../store.js';
import { expectStoreError, getKv, item, plainKv, range, type Register, within } from './fixture.js';

const WRITERS = 16;
const INCREMENTS = 20;

export function writeTests(test: Register): void {
  test('get returns undefined for a key that does not exist or was deleted', async ({ store }) => {
    assert.equal(await store.get('/a'), undefined);
    await store.create('/a', '1');
    await store.delete('/a');
    assert.equal(await store.get('/a'), undefined);
  });

  test('get returns the createRevision of the create and the modRevision of the latest write', async ({ store }) => {
    const created = await store.create('/a', 'v1');
    assert.deepEqual(plainKv(created), { key: '/a', value: 'v1', createRevision: created.modRevision, modRevision: created.modRevision });
    assert.deepEqual(plainKv(await store.get('/a')), plainKv(created));
    const updated = await store.update('/a', 'v2', created.modRevision);
    assert.deepEqual(plainKv(updated), { key: '/a', value: 'v2', createRevision: created.createRevision, modRevision: updated.modRevision });
    assert.deepEqual(plainKv(await store.get('/a')), plainKv(updated));
    await store.create('/b', 'other');
    assert.deepEqual(plainKv(await store.get('/a')), plainKv(updated), 'a write to another key does not touch /a');
    await store.delete('/a');
    const again = await store.create('/a', 'v3');
    assert.ok(again.createRevision > updated.modRevision, 'a re-created key has a new createRevision');
    assert.deepEqual(plainKv(await store.get('/a')), { key: '/a', value: 'v3', createRevision: again.modRevision, modRevision: again.modRevision });
  });

  test('create of a key that exists throws AlreadyExists; after its deletion create works again', async ({ store }) => {
    const kv = await store.create('/a', '1');
    const err = await expectStoreError(() => store.create('/a', '2'), 'AlreadyExists', 'second create');
    assert.equal(err.key ?? '/a', '/a');
    assert.deepEqual(plainKv(await store.get('/a')), plainKv(kv));
    await store.delete('/a');
    assert.equal((await store.create('/a', '3')).value, '3');
  });

  test('update with a stale expectedModRevision throws Conflict carrying the current version', async ({ store }) => {
    const v1 = await store.create('/a', '1');
    const v2 = await store.update('/a', '2', v1.modRevision);
    const err = await expectStoreError(() => store.update('/a', '3', v1.modRevision), 'Conflict', 'update with the old revision');
    assert.deepEqual(plainKv(err.current), plainKv(v2), 'Conflict.current is the version the key has now');
    await expectStoreError(() => store.update('/a', '3', v2.modRevision + 1000), 'Conflict', 'update with a revision the key never had');
    const v3 = await store.update('/a', '3', v2.modRevision);
    assert.equal(v3.value, '3');
  });

  test('delete with a stale expectedModRevision throws Conflict carrying the current version, and deletes nothing', async ({ store }) => {
    const v1 = await store.create('/a', '1');
    const v2 = await store.update('/a', '2', v1.modRevision);
    const err = await expectStoreError(() => store.delete('/a', v1.modRevision), 'Conflict', 'delete with the old revision');
    assert.deepEqual(plainKv(err.current), plainKv(v2), 'Conflict.current is the version the key has now');
    assert.deepEqual(plainKv(await store.get('/a')), plainKv(v2), 'the key is still there');
  });

  test('delete (guarded by the current modRevision, or not) returns the deletion revision and the deleted version', async ({ store }) => {
    const a = await store.create('/a', '1');
    const b = await store.create('/b', '1');
    const guarded = await store.delete('/a', a.modRevision);
    assert.ok(guarded.revision > b.modRevision);
    assert.deepEqual(plainKv(guarded.prev), plainKv(a));
    assert.equal(await store.currentRevision(), guarded.revision);
    const unguarded = await store.delete('/b');
    assert.ok(unguarded.revision > guarded.revision);
    assert.deepEqual(plainKv(unguarded.prev), plainKv(b));
    assert.equal(await store.get('/a'), undefined);
    assert.equal(await store.get('/b'), undefined);
  });

  test('update and delete of a key that is absent or deleted throw NotFound', async ({ store }) => {
    await expectStoreError(() => store.update('/never', 'x', 1), 'NotFound', 'update of an absent key');
    await expectStoreError(() => store.delete('/never'), 'NotFound', 'delete of an absent key');
    await expectStoreError(() => store.delete('/never', 1), 'NotFound', 'guarded delete of an absent key');
    const kv = await store.create('/a', '1');
    await store.delete('/a');
    await expectStoreError(() => store.update('/a', 'x', kv.modRevision), 'NotFound', 'update of a deleted key');
    await expectStoreError(() => store.delete('/a', kv.modRevision), 'NotFound', 'guarded delete of a deleted key');
    assert.equal(await store.get('/a'), undefined, 'the failed update did not create the key');
  });

  test('a key deleted and created again is a new key: the modRevision of its old life no longer matches', async ({ store }) => {
    const old = await store.create('/a', '1');
    await store.delete('/a');
    const fresh = await store.create('/a', '2');
    const err = await expectStoreError(() => store.update('/a', 'x', old.modRevision), 'Conflict', 'update with the old life\'s revision');
    assert.deepEqual(plainKv(err.current), plainKv(fresh));
    await expectStoreError(() => store.delete('/a', old.modRevision), 'Conflict', 'delete with the old life\'s revision');
  });

  test(`${WRITERS} concurrent read-modify-write writers × ${INCREMENTS} increments, retrying on Conflict, lose no update`, async (fx) => {
    const { store } = fx;
    const total = WRITERS * INCREMENTS;
    const start = await store.create('/counter', '0');
    const reader = fx.watch('/counter', start.modRevision);
    const watched = reader.take(total, 'the watch of every increment');
    const applied: KeyValue[] = [];
    let attempts = 0;
    const writer = async (): Promise<void> => {
      for (let i = 0; i < INCREMENTS; i++) {
        for (;;) {
          attempts++;
          assert.ok(attempts < total * WRITERS * 4, 'the writers keep conflicting without progress');
          const kv = await getKv(store, '/counter');
          try {
            applied.push(await store.update('/counter', String(Number(kv.value) + 1), kv.modRevision));
            break;
          } catch (err) {
            if (!isStoreError(err, 'Conflict')) throw err;
            assert.ok(err.current !== undefined && err.current.modRevision > kv.modRevision, 'Conflict carries the newer version');
          }
        }
      }
    };
    await within(Promise.all(Array.from({ length: WRITERS }, writer)), 'the concurrent writers', 20_000);
    assert.equal((await getKv(store, '/counter')).value, String(total), 'the final count');
    const byValue = [...applied].sort((x, y) => Number(x.value) - Number(y.value));
    assert.deepEqual(byValue.map((kv) => Number(kv.value)), range(1, total), 'every increment was applied exactly once');
    for (let i = 1; i < byValue.length; i++) {
      assert.ok(item(byValue, i).modRevision > item(byValue, i - 1).modRevision, 'each increment has a higher revision than the one it built on');
    }
    const events = await watched;
    assert.deepEqual(events.map((e) => (e.type === 'update' ? Number(e.kv.value) : e.type)), range(1, total), 'the watch saw every increment in order');
    for (const e of events) {
      assert.ok(e.type === 'update' && e.prev !== undefined && Number(e.prev.value) === Number(e.kv.value) - 1, 'each update event carries the value it replaced');
    }
  });
}
