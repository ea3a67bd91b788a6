/**
 * Several API servers on one etcd (a real one, started by the test): a write through one is seen by
 * watches and reads on another with the same resourceVersion, a restarted server resumes watches
 * from the last resourceVersion a client saw, and only one server at a time compacts.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '@setpoint/api';
import { EtcdStore, isStoreError, type Store } from '@setpoint/store';
import { startEtcd } from '@setpoint/store/testing';
import { ApiServer, type ApiServerOptions } from '../src/server.js';
import { openWatch, request } from './harness.js';
import { CM, configMap, ok } from './support.js';

interface Node extends AsyncDisposable {
  readonly server: ApiServer;
  readonly store: EtcdStore;
  /** Store compactions this server made, by revision. */
  readonly compactions: number[];
  stop(): Promise<void>;
}

/** An API server on its own EtcdStore (as each `setpoint server` process has). */
async function apiServer(endpoints: readonly string[], options: Partial<Omit<ApiServerOptions, 'store'>> & { elect?: boolean } = {}): Promise<Node> {
  const store = await EtcdStore.open({ endpoints });
  const compactions: number[] = [];
  const compact = store.compact.bind(store);
  store.compact = async (revision: number) => {
    compactions.push(revision);
    return compact(revision);
  };
  const { elect, ...rest } = options;
  let server: ApiServer;
  try {
    server = await ApiServer.start({
      port: 0,
      compaction: false,
      ...rest,
      ...(elect === true ? { compaction: { intervalMs: 150, retainRevisions: 0, leadership: store.election('compactor', { ttlSeconds: 5 }) } } : {}),
      store,
    });
  } catch (err) {
    await store.close();
    throw err;
  }
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await server.stop();
    await store.close();
  };
  return { server, store, compactions, stop, [Symbol.asyncDispose]: stop };
}

async function waitFor(what: string, check: () => boolean | Promise<boolean>, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) assert.fail(`not within ${ms} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe('API servers on one etcd', () => {
  it('a write through one server reaches a watch and reads on another with the same resourceVersion', async () => {
    await using etcd = await startEtcd();
    await using a = await apiServer(etcd.endpoints);
    await using b = await apiServer(etcd.endpoints);
    const listed = ok(await request(b.server.url, 'GET', CM));
    const watch = openWatch(b.server.url, `${CM}?watch=true&resourceVersion=${listed.metadata.resourceVersion}`);
    try {
      const created = ok(await request(a.server.url, 'POST', CM, configMap('from-a', { k: 'v' })), 201) as KubeObject;
      const event = await watch.next();
      assert.equal(event.type, 'ADDED');
      assert.equal(event.object.metadata.name, 'from-a');
      assert.equal(event.object.metadata.resourceVersion, created.metadata.resourceVersion, 'the same resourceVersion on both servers');
      const rv = created.metadata.resourceVersion!;
      const got = ok(await request(b.server.url, 'GET', `${CM}/from-a`));
      assert.deepEqual(got, created, 'a read on the other server returns the object as written');
      // A kind that did not change: its cache on b learns from etcd's progress notifications that it
      // is current at rv, so a list at least as new as the write is served.
      const secrets = ok(await request(b.server.url, 'GET', `/api/v1/namespaces/default/secrets?resourceVersion=${rv}&resourceVersionMatch=NotOlderThan`));
      assert.ok(Number(secrets.metadata.resourceVersion) >= Number(rv), `secrets listed at ${secrets.metadata.resourceVersion}, not before ${rv}`);
      // An update on b with the resourceVersion read on a succeeds; with a stale one it conflicts on a.
      const updated = ok(await request(b.server.url, 'PUT', `${CM}/from-a`, { ...created, data: { k: 'changed on b' } })) as KubeObject;
      const stale = await request(a.server.url, 'PUT', `${CM}/from-a`, { ...created, data: { k: 'stale' } });
      assert.equal(stale.status, 409, 'a stale resourceVersion conflicts across servers');
      const modified = await watch.next();
      assert.deepEqual([modified.type, modified.object.metadata.resourceVersion], ['MODIFIED', updated.metadata.resourceVersion]);
    } finally {
      watch.close();
    }
  });

  it('a restarted API server resumes a watch from the last resourceVersion a client saw', async () => {
    await using etcd = await startEtcd();
    await using b = await apiServer(etcd.endpoints);
    let a = await apiServer(etcd.endpoints);
    try {
      const first = ok(await request(a.server.url, 'POST', CM, configMap('one')), 201) as KubeObject;
      const watch = openWatch(a.server.url, `${CM}?watch=true&resourceVersion=${first.metadata.resourceVersion}`);
      ok(await request(a.server.url, 'POST', CM, configMap('two')), 201);
      const seen = await watch.next();
      const lastRv = seen.object.metadata.resourceVersion as string;
      await a.stop();
      await watch.waitClosed();
      watch.close();
      // While a is down, b takes writes.
      const three = ok(await request(b.server.url, 'POST', CM, configMap('three')), 201) as KubeObject;
      ok(await request(b.server.url, 'DELETE', `${CM}/one`));
      a = await apiServer(etcd.endpoints);
      const resumed = openWatch(a.server.url, `${CM}?watch=true&resourceVersion=${lastRv}`);
      try {
        const events = [await resumed.next(), await resumed.next()];
        assert.deepEqual(
          events.map((e) => [e.type, e.object.metadata.name]),
          [['ADDED', 'three'], ['DELETED', 'one']],
          'exactly the changes after the last resourceVersion seen, in order',
        );
        assert.equal(events[0]!.object.metadata.resourceVersion, three.metadata.resourceVersion);
      } finally {
        resumed.close();
      }
    } finally {
      await a.stop();
    }
  });

  it('only one server compacts at a time; when it stops, another takes over', async () => {
    await using etcd = await startEtcd();
    const servers = [await apiServer(etcd.endpoints, { elect: true }), await apiServer(etcd.endpoints, { elect: true })];
    try {
      let i = 0;
      const writes = async (n: number) => {
        for (let k = 0; k < n; k++) ok(await request(servers[k % servers.length]!.server.url, 'POST', CM, configMap(`cm-${i++}`)), 201);
      };
      const compacted = async (store: Store) => (await store.compactRevision()) > 0;
      await writes(10);
      await waitFor('a compaction', () => compacted(servers[0]!.store));
      await writes(10);
      await new Promise((resolve) => setTimeout(resolve, 600)); // several intervals
      const leaders = servers.filter((s) => s.compactions.length > 0);
      assert.equal(leaders.length, 1, `compactions by server: ${servers.map((s) => s.compactions.length).join(', ')}`);
      const leader = leaders[0]!;
      const other = servers.find((s) => s !== leader)!;
      await leader.stop(); // gives up leadership
      const before = await other.store.compactRevision();
      for (let k = 0; k < 10; k++) ok(await request(other.server.url, 'POST', CM, configMap(`after-${k}`)), 201);
      await waitFor('the other server to compact', async () => other.compactions.length > 0 && (await other.store.compactRevision()) > before);
      const err = await other.store.list('/registry/', { revision: 1 }).catch((e: unknown) => e);
      assert.ok(isStoreError(err, 'Compacted'), 'history below the compact revision is gone');
    } finally {
      for (const s of servers) await s.stop();
    }
  });
});
