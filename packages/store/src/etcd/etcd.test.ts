/**
 * EtcdStore against a real etcd (Debian's etcd-server): the shared conformance suite, unchanged,
 * each test on a fresh etcd (revisions and compaction are cluster-wide, and the suite starts from
 * an empty store); then what only etcd has: two stores on one cluster, an etcd that goes away and
 * comes back, compaction by another client, and the compaction election.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { closeStore, storeConformance } from '../conformance/index.js';
import { isStoreError, type Store, type StoreOptions, type WatchEvent } from '../store.js';
import { EtcdStore } from './etcd.js';
import { orderedProgressRequests } from './version.js';
import { EtcdServerPool, startEtcd, type EtcdServer } from './testing.js';
import { within } from '@setpoint/api';

const pool = new EtcdServerPool();
after(() => pool.close());

storeConformance({
  name: 'etcd',
  persistent: true,
  async open(options?: StoreOptions) {
    const etcd = await pool.take();
    let current: Store;
    try {
      current = await EtcdStore.open({ endpoints: etcd.endpoints, ...options });
    } catch (err) {
      await etcd.stop();
      throw err;
    }
    return {
      store: current,
      async reopen() {
        await closeStore(current);
        current = await EtcdStore.open({ endpoints: etcd.endpoints, ...options });
        return current;
      },
      async dispose() {
        try {
          await closeStore(current);
        } finally {
          await etcd.stop();
        }
      },
    };
  },
});

/** The next change of `watch` (progress events skipped). */
async function nextChange(watch: AsyncIterator<WatchEvent>, what: string): Promise<WatchEvent> {
  for (;;) {
    const result = await within(watch.next(), what);
    assert.ok(result.done !== true, `${what}: the watch ended`);
    if (result.value.type !== 'progress') return result.value;
  }
}

describe('EtcdStore on a shared etcd', () => {
  it('two stores on one etcd share revisions: a write through one is seen by a watch of the other', async () => {
    await using etcd = await startEtcd();
    const a = await EtcdStore.open({ endpoints: etcd.endpoints });
    const b = await EtcdStore.open({ endpoints: etcd.endpoints });
    try {
      const abort = new AbortController();
      const watch = b.watch('/x/', await b.currentRevision(), { signal: abort.signal });
      const kv = await a.create('/x/1', 'one');
      const event = await nextChange(watch, 'the create, through the other store');
      assert.deepEqual(event, { type: 'create', revision: kv.modRevision, kv });
      assert.equal(await b.currentRevision(), kv.modRevision, 'both stores report the same revision');
      const updated = await b.update('/x/1', 'two', kv.modRevision);
      const conflict = await a.update('/x/1', 'three', kv.modRevision).catch((err: unknown) => err);
      assert.ok(isStoreError(conflict, 'Conflict'), 'the stale precondition fails on the other store');
      assert.deepEqual(conflict.current, updated);
      abort.abort();
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('keys live under etcdPrefix; stores with different prefixes do not see each other', async () => {
    await using etcd = await startEtcd();
    const a = await EtcdStore.open({ endpoints: etcd.endpoints, etcdPrefix: '/tenant-a' });
    const b = await EtcdStore.open({ endpoints: etcd.endpoints, etcdPrefix: '/tenant-b' });
    try {
      await a.create('/registry/k', 'a');
      await b.create('/registry/k', 'b');
      assert.equal((await a.get('/registry/k'))?.value, 'a');
      assert.deepEqual((await b.list('/')).items.map((kv) => [kv.key, kv.value]), [['/registry/k', 'b']]);
      assert.equal((await a.count('/')).count, 1);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('a compaction made by another client is reported: compactRevision(), Compacted on lists and watches below it', async () => {
    await using etcd = await startEtcd();
    const a = await EtcdStore.open({ endpoints: etcd.endpoints });
    const b = await EtcdStore.open({ endpoints: etcd.endpoints });
    try {
      let kv = await a.create('/k', '0');
      for (let i = 1; i <= 40; i++) kv = await a.update('/k', String(i), kv.modRevision);
      const target = kv.modRevision - 5;
      assert.equal(await b.compactRevision(), 0);
      await a.compact(target);
      assert.equal(await b.compactRevision(), target, 'the other store finds the compact revision');
      const err = await b.list('/', { revision: target - 1 }).catch((e: unknown) => e);
      assert.ok(isStoreError(err, 'Compacted') && err.compactRevision === target, `list below: ${String(err)}`);
      const watch = b.watch('/', target - 1);
      const failed = await within(watch.next(), 'the watch to fail').catch((e: unknown) => e);
      assert.ok(isStoreError(failed, 'Compacted') && failed.compactRevision === target, `watch below: ${String(failed)}`);
      assert.deepEqual(await b.compact(target - 3), { compactRevision: target, removed: 0 }, 'compacting below it is a no-op');
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('an etcd that is gone: requests fail with Unavailable; a watch resumes without gaps once it is back', async () => {
    const etcd = await startEtcd();
    const store = await EtcdStore.open({ endpoints: etcd.endpoints, requestTimeoutMs: 2_000 });
    try {
      const abort = new AbortController();
      const first = await store.create('/w/a', '1');
      const watch = store.watch('/w/', first.modRevision, { signal: abort.signal });
      const second = await store.create('/w/b', '2');
      assert.equal((await nextChange(watch, 'the create before the outage')).revision, second.modRevision);
      await etcd.kill();
      const err = await store.get('/w/a').catch((e: unknown) => e);
      assert.ok(isStoreError(err, 'Unavailable'), `a read while etcd is down: ${String(err)}`);
      await etcd.restart();
      let third: Awaited<ReturnType<Store['create']>> | undefined;
      for (let i = 0; third === undefined; i++) {
        try {
          third = await store.create('/w/c', '3');
        } catch (e) {
          // The client reconnects with backoff after the outage.
          assert.ok(isStoreError(e, 'Unavailable') && i < 50, `writes come back: ${String(e)}`);
          await new Promise((resolve) => setTimeout(resolve, 200));
        }
      }
      const event = await nextChange(watch, 'the first event after the outage');
      assert.deepEqual(event, { type: 'create', revision: third.modRevision, kv: third });
      abort.abort();
    } finally {
      await store.close();
      await etcd.stop();
    }
  });

  it('one election, two contenders: one leads; when it releases, the other takes over', async () => {
    await using etcd = await startEtcd();
    const a = await EtcdStore.open({ endpoints: etcd.endpoints });
    const b = await EtcdStore.open({ endpoints: etcd.endpoints });
    try {
      const ea = a.election('compactor', { identity: 'a' });
      const eb = b.election('compactor', { identity: 'b' });
      assert.equal(await ea.acquire(), true, 'the first to try leads');
      assert.equal(await eb.acquire(), false, 'the second does not');
      assert.equal(await ea.acquire(), true, 'the leader keeps leading');
      const revision = await a.currentRevision();
      assert.equal(await ea.acquire(), true);
      assert.equal(await a.currentRevision(), revision, 'renewing leadership writes nothing');
      await ea.release();
      assert.equal(await eb.acquire(), true, 'after the release, the other leads');
      assert.equal(await ea.acquire(), false);
      await eb.release();
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('a store that cannot reach any endpoint does not open: Unavailable', async () => {
    const etcd: EtcdServer = await startEtcd();
    const endpoints = etcd.endpoints;
    await etcd.stop();
    const err = await EtcdStore.open({ endpoints, requestTimeoutMs: 1_000 }).catch((e: unknown) => e);
    assert.ok(isStoreError(err, 'Unavailable'), String(err));
  });

  it('with progress requests, requestProgress and progressIntervalMs are answered by etcd at once, not by its periodic notifications', async () => {
    // etcd 3.4.23 answers progress requests out of order only when events are in flight; here none are.
    await using etcd = await startEtcd({ progressNotifyIntervalMs: 600_000 });
    const store = await EtcdStore.open({ endpoints: etcd.endpoints, progressRequests: true });
    try {
      assert.equal(store.cluster.orderedProgressRequests, true);
      const abort = new AbortController();
      const kv = await store.create('/p/a', '1');
      const watch = store.watch('/p/', 0, { signal: abort.signal });
      const ticking = store.watch('/p/', kv.modRevision, { signal: abort.signal, progressIntervalMs: 50 });
      assert.equal((await nextChange(watch, 'the create')).revision, kv.modRevision);
      await store.create('/other', 'x');
      const current = await store.currentRevision();
      store.requestProgress();
      assert.deepEqual((await within(watch.next(), 'the requested progress')).value, { type: 'progress', revision: current });
      // The interval's progress events (one may have come before the last write) reach the current revision.
      for (let seen = 0; seen !== current; ) {
        const event = (await within(ticking.next(), 'the interval\'s progress')).value as WatchEvent;
        assert.equal(event.type, 'progress');
        seen = event.revision;
      }
      abort.abort();
    } finally {
      await store.close();
    }
  });

  it('knows which etcd versions answer progress requests in order', () => {
    assert.equal(orderedProgressRequests('3.4.23'), false);
    assert.equal(orderedProgressRequests('3.4.31'), true);
    assert.equal(orderedProgressRequests('3.5.12'), false);
    assert.equal(orderedProgressRequests('3.5.13'), true);
    assert.equal(orderedProgressRequests('3.6.0'), true);
  });
});
