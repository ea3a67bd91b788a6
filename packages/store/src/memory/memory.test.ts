import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { closeStore, storeConformance } from '../conformance/index.js';
import { isStoreError, type KeyValue, type StoreError, type StoreErrorCode } from '../store.js';
import { MemoryStore } from './memory.js';
import { within } from '@setpoint/api';

storeConformance({
  name: 'memory',
  persistent: false,
  async open(options) {
    const store = new MemoryStore(options);
    return { store, dispose: () => closeStore(store) };
  },
});

async function storeError(action: () => Promise<unknown>, code: StoreErrorCode): Promise<StoreError> {
  try {
    await action();
  } catch (err) {
    if (isStoreError(err, code)) return err;
    assert.fail(`expected StoreError ${code}, got ${String(err)}`);
  }
  assert.fail(`expected StoreError ${code}, but it succeeded`);
}

function plain(kv: KeyValue | undefined): KeyValue | undefined {
  return kv === undefined ? undefined : { key: kv.key, value: kv.value, createRevision: kv.createRevision, modRevision: kv.modRevision };
}

const key = (i: number) => `/many/${String(i).padStart(5, '0')}`;

/** A store with `n` keys, each created and updated (or deleted when `deleted`); returns it and its revision. */
async function manyKeys(n: number, deleted = false): Promise<{ store: MemoryStore; revision: number }> {
  const store = new MemoryStore();
  for (let i = 0; i < n; i++) {
    const kv = await store.create(key(i), 'v1');
    if (deleted) await store.delete(key(i), kv.modRevision);
    else await store.update(key(i), 'v2', kv.modRevision);
  }
  return { store, revision: await store.currentRevision() };
}

describe('MemoryStore: errors say what failed', () => {
  it('AlreadyExists, NotFound and Conflict carry the key (and the current version) and name the key', async () => {
    const store = new MemoryStore();
    try {
      const kv = await store.create('/a', '1');
      const exists = await storeError(() => store.create('/a', '2'), 'AlreadyExists');
      assert.equal(exists.key, '/a');
      assert.deepEqual(plain(exists.current), plain(kv));
      assert.match(exists.message, /"\/a"/);
      for (const [what, action] of [
        ['update', () => store.update('/b', 'x', 1)],
        ['delete', () => store.delete('/b')],
      ] as const) {
        const missing = await storeError(action, 'NotFound');
        assert.equal(missing.key, '/b', `${what}: NotFound.key`);
        assert.match(missing.message, /"\/b"/, `${what}: the message names the key`);
      }
      for (const [what, action] of [
        ['update', () => store.update('/a', 'x', kv.modRevision + 5)],
        ['delete', () => store.delete('/a', kv.modRevision + 5)],
      ] as const) {
        const conflict = await storeError(action, 'Conflict');
        assert.equal(conflict.key, '/a', `${what}: Conflict.key`);
        assert.match(conflict.message, new RegExp(`"/a" is at revision ${kv.modRevision}, not ${kv.modRevision + 5}`), `${what}: the message`);
      }
    } finally {
      await store.close();
    }
  });

  it('FutureRevision and Compacted carry the revisions and say them', async () => {
    const store = new MemoryStore();
    try {
      const kv = await store.create('/a', '1');
      await store.update('/a', '2', kv.modRevision);
      await store.update('/a', '3', kv.modRevision + 1);
      const current = await store.currentRevision();
      const future = await storeError(() => store.compact(current + 1), 'FutureRevision');
      assert.equal(future.currentRevision, current, 'compact: FutureRevision.currentRevision');
      assert.match(future.message, new RegExp(`revision ${current + 1}.*${current}`));
      const listFuture = await storeError(() => store.list('/', { revision: current + 1 }), 'FutureRevision');
      assert.equal(listFuture.currentRevision, current, 'list: FutureRevision.currentRevision');
      assert.match(listFuture.message, new RegExp(`revision ${current + 1}.*${current}`));
      await store.compact(current - 1);
      const compacted = await storeError(() => store.list('/', { revision: current - 2 }), 'Compacted');
      assert.deepEqual({ compactRevision: compacted.compactRevision, currentRevision: compacted.currentRevision }, { compactRevision: current - 1, currentRevision: current });
      assert.match(compacted.message, new RegExp(`revision ${current - 2} .*compact revision ${current - 1}`));
      const watch = store.watch('/', current - 2);
      const watchCompacted = await storeError(() => within(watch.next(), 'a watch from below the compact revision'), 'Compacted');
      assert.match(watchCompacted.message, new RegExp(`revision ${current - 2} .*compact revision ${current - 1}`));
    } finally {
      await store.close();
    }
  });

  it('a revision that is not a non-negative integer is refused as InvalidValue naming the argument', async () => {
    const store = new MemoryStore();
    try {
      await store.create('/a', '1');
      const cases: Array<[string, () => Promise<unknown>]> = [
        ['expectedModRevision', () => store.update('/a', 'x', -1)],
        ['expectedModRevision', () => store.delete('/a', 1.5)],
        ['fromRevision', async () => store.watch('/', -1)],
        ['revision', () => store.compact(-1)],
        ['revision', () => store.list('/', { revision: -1 })],
      ];
      for (const [argument, action] of cases) {
        const err = await storeError(action, 'InvalidValue');
        assert.match(err.message, new RegExp(`^${argument} must be a non-negative integer`), err.message);
      }
      assert.equal((await store.get('/a'))?.value, '1', 'the refused delete deleted nothing');
    } finally {
      await store.close();
    }
  });

  it('after close, operations and open watches fail with Closed saying the store is closed', async () => {
    const store = new MemoryStore();
    const watch = store.watch('/', 0);
    const waiting = watch.next();
    const unread = store.watch('/', 0);
    await store.close();
    const ended = await storeError(() => within(waiting, 'the open watch to fail'), 'Closed');
    assert.match(ended.message, /closed/);
    const unreadEnded = await storeError(() => within(unread.next(), 'the unread watch to fail'), 'Closed');
    assert.match(unreadEnded.message, /closed/);
    const refused = await storeError(() => store.get('/a'), 'Closed');
    assert.match(refused.message, /closed/);
  });
});

describe('MemoryStore: compaction', () => {
  it('removed counts exactly the superseded versions and tombstones at or below the compact revision', async () => {
    const store = new MemoryStore();
    try {
      const a = await store.create('/a', '1'); // 1
      const a2 = await store.update('/a', '2', a.modRevision); // 2: supersedes 1
      const b = await store.create('/b', '1'); // 3
      await store.delete('/b', b.modRevision); // 4: supersedes 3, a tombstone
      await store.create('/c', '1'); // 5
      await store.update('/a', '3', a2.modRevision); // 6: supersedes 2
      assert.deepEqual(await store.compact(4), { compactRevision: 4, removed: 3 }, 'revisions 1 and 3, and the tombstone 4');
      assert.deepEqual(await store.compact(6), { compactRevision: 6, removed: 1 }, 'revision 2');
      assert.deepEqual((await store.list('/')).items.map((kv) => [kv.key, kv.value]), [['/a', '3'], ['/c', '1']]);
    } finally {
      await store.close();
    }
  });

  it('a compaction of many keys lets other work run: writes and reads made meanwhile finish first and see the right state', async () => {
    const { store, revision } = await manyKeys(5_000);
    try {
      const order: string[] = [];
      const compacting = store.compact(revision).then((result) => {
        order.push('compaction');
        return result;
      });
      const created = store.create('/during', 'x').then((kv) => {
        order.push('create');
        return kv;
      });
      const listed = store.list('/many/', { limit: 3 });
      const [result, kv, page] = await within(Promise.all([compacting, created, listed]), 'the compaction and the work beside it');
      assert.deepEqual(order, ['create', 'compaction'], 'the create did not wait for the whole compaction');
      assert.deepEqual(result, { compactRevision: revision, removed: 5_000 }, 'every superseded version of the 5,000 keys');
      assert.equal(kv.modRevision, revision + 1);
      assert.deepEqual(page.items.map((x) => [x.key, x.value]), [0, 1, 2].map((i) => [key(i), 'v2']));
      assert.equal((await store.count('/many/')).count, 5_000);
    } finally {
      await store.close();
    }
  });

  it('lists and a second compaction while a compaction of many deleted keys runs: both finish, nothing deleted comes back', async () => {
    const { store, revision } = await manyKeys(5_000, true);
    try {
      await store.create('/kept', 'x');
      const first = store.compact(revision - 2);
      const listedDuring = store.list('/');
      const pastDuring = store.list('/', { revision });
      const second = store.compact(revision);
      const [a, listed, past, b] = await within(Promise.all([first, listedDuring, pastDuring, second]), 'two compactions and two lists');
      assert.deepEqual(listed.items.map((kv) => kv.key), ['/kept'], 'a list during the compaction');
      assert.deepEqual(past.items, [], 'a list at a past revision during the compaction (every /many/ key deleted, /kept not yet created)');
      assert.equal(b.compactRevision, revision);
      assert.equal(a.removed + b.removed, 10_000, 'every version and tombstone of the 5,000 deleted keys, once');
      assert.deepEqual((await store.list('/')).items.map((kv) => kv.key), ['/kept']);
      const again = await store.create(key(0), 'again');
      assert.deepEqual((await store.list('/many/')).items.map(plain), [plain(again)], 'a deleted key created again is listed once');
    } finally {
      await store.close();
    }
  });

  it('close() stops a compaction of many keys between batches', async () => {
    const { store, revision } = await manyKeys(10_000);
    const compacting = store.compact(revision);
    await store.close();
    const result = await within(compacting, 'the compaction to end after close');
    assert.equal(result.compactRevision, revision);
    assert.ok(result.removed > 0 && result.removed < 10_000, `the compaction stopped after a batch (${result.removed} removed)`);
  });
});
