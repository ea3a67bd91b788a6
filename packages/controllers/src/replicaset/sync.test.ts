/**
 * syncReplicaSet against an in-memory cache and API that do not move unless the test moves them:
 * what a sync does when its cache lags behind its own writes.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError, FakeClock, silentLogger, type KubeObject, type Pod, type ReplicaSet } from '@setpoint/api';
import { CachedReader, Expectations, FakeEventRecorder, requestKey, type ReconcileContext, type SharedInformer } from '@setpoint/client';
import { syncReplicaSet, type PodWriter, type ReplicaSetSyncContext, type ReplicaSetWriter } from './sync.js';

/** A cache the test fills by hand (what a CachedReader reads of an informer). */
class FakeCache<T extends KubeObject> {
  readonly objects = new Map<string, T>();
  put(obj: T): void {
    this.objects.set(`${obj.metadata.namespace}/${obj.metadata.name}`, obj);
  }
  remove(obj: T): void {
    this.objects.delete(`${obj.metadata.namespace}/${obj.metadata.name}`);
  }
  reader(): CachedReader<T> {
    const store = {
      get: (key: string) => this.objects.get(key),
      list: () => [...this.objects.values()],
      byIndex: (_index: string, ns: string) => [...this.objects.values()].filter((o) => o.metadata.namespace === ns),
    };
    return new CachedReader<T>({ store, hasSynced: () => true } as unknown as SharedInformer<T>);
  }
}

interface Harness {
  readonly ctx: ReplicaSetSyncContext;
  readonly rsCache: FakeCache<ReplicaSet>;
  readonly podCache: FakeCache<Pod>;
  readonly created: Pod[];
  readonly deleted: Array<{ name: string; uid: string }>;
  readonly statuses: ReplicaSet[];
  readonly events: FakeEventRecorder;
  failCreates: boolean;
  sync(): Promise<unknown>;
}

const context: ReconcileContext = { signal: new AbortController().signal, logger: silentLogger };

function harness(rs: ReplicaSet, pods: Pod[] = []): Harness {
  const rsCache = new FakeCache<ReplicaSet>();
  const podCache = new FakeCache<Pod>();
  rsCache.put(rs);
  for (const p of pods) podCache.put(p);
  let n = 0;
  const h: Harness = {
    rsCache,
    podCache,
    created: [],
    deleted: [],
    statuses: [],
    events: new FakeEventRecorder(),
    failCreates: false,
    ctx: undefined as unknown as ReplicaSetSyncContext,
    sync: () => syncReplicaSet(h.ctx, { namespace: 'ns', name: rs.metadata.name! }, context).then(
      (r) => r,
      (err: unknown) => err,
    ),
  };
  const podApi: PodWriter = {
    create: async (pod) => {
      if (h.failCreates) throw new ApiError('Invalid', 'Pod "web-x" is invalid');
      const made = { ...pod, metadata: { ...pod.metadata, name: `${pod.metadata.generateName}${n}`, uid: `new-${n++}` } };
      h.created.push(made);
      return made;
    },
    patch: async () => {
      throw new Error('no patches expected');
    },
    delete: async (name, options) => {
      h.deleted.push({ name, uid: options.preconditions.uid });
    },
  };
  const replicaSetApi: ReplicaSetWriter = {
    get: async () => rsCache.objects.get(`ns/${rs.metadata.name}`)!,
    updateStatus: async (obj) => {
      h.statuses.push(obj);
      return obj;
    },
  };
  (h as { ctx: ReplicaSetSyncContext }).ctx = {
    replicaSets: rsCache.reader(),
    pods: podCache.reader(),
    replicaSetApi,
    podApi,
    expectations: new Expectations(),
    events: h.events,
    clock: new FakeClock(Date.parse('2026-01-10T12:00:00Z')),
    burstReplicas: 500,
  };
  return h;
}

function replicaSet(replicas: number): ReplicaSet {
  return {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: { name: 'web', namespace: 'ns', uid: 'rs-uid', generation: 1, resourceVersion: '1' },
    spec: { replicas, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
  };
}

function ownedPod(name: string): Pod {
  return {
    metadata: {
      name,
      namespace: 'ns',
      uid: `uid-${name}`,
      labels: { app: 'web' },
      creationTimestamp: '2026-01-10T11:00:00Z',
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web', uid: 'rs-uid', controller: true }],
    },
    status: { phase: 'Pending' },
  };
}

const KEY = requestKey({ namespace: 'ns', name: 'web' });

describe('syncReplicaSet with a cache that lags behind', () => {
  it('creates the missing pods once, and not again until the cache has seen them', async () => {
    const h = harness(replicaSet(3));
    assert.equal(await h.sync(), undefined);
    assert.equal(h.created.length, 3);
    assert.deepEqual(
      h.events.lines(),
      h.created.map((p) => `Normal SuccessfulCreate Created pod: ${p.metadata.name}`),
    );
    // The informer has not delivered them: another sync must not create more.
    await h.sync();
    await h.sync();
    assert.equal(h.created.length, 3, 'no second round while the creations are expected');
    // Two of three seen: still waiting.
    for (const p of h.created.slice(0, 2)) {
      h.podCache.put(p);
      h.ctx.expectations.creationObserved(KEY);
    }
    await h.sync();
    assert.equal(h.created.length, 3);
    const last = h.created[2]!;
    h.podCache.put(last);
    h.ctx.expectations.creationObserved(KEY);
    await h.sync();
    assert.equal(h.created.length, 3, 'all three in the cache: nothing to do');
    assert.equal(h.statuses.at(-1)?.status?.replicas, 3);
  });

  it('lowers the expectations of creates that failed, so the next sync tries again (one create each)', async () => {
    const h = harness(replicaSet(5));
    h.failCreates = true;
    const err = await h.sync();
    assert.ok(err instanceof ApiError, 'the create error is thrown, for a retry with backoff');
    assert.equal(h.ctx.expectations.satisfied(KEY), true);
    assert.deepEqual(h.events.lines(), ['Warning FailedCreate Error creating: Pod "web-x" is invalid']);
    const condition = h.statuses.at(-1)?.status?.conditions?.[0];
    assert.deepEqual([condition?.type, condition?.reason, condition?.message], ['ReplicaFailure', 'FailedCreate', 'Pod "web-x" is invalid']);
    await h.sync();
    assert.equal(h.events.events.length, 2, 'each failing sync makes exactly one create');
    h.failCreates = false;
    h.rsCache.put({ ...replicaSet(5), status: h.statuses.at(-1)?.status ?? { replicas: 0 } });
    assert.equal(await h.sync(), undefined);
    assert.equal(h.created.length, 5);
    assert.equal(h.statuses.at(-1)?.status?.conditions, undefined, 'ReplicaFailure removed once creates succeed');
  });

  it('expects deletions by uid, and deletes no more until the cache shows them gone', async () => {
    const pods = ['a', 'b', 'c'].map(ownedPod);
    const h = harness(replicaSet(1), pods);
    await h.sync();
    assert.equal(h.deleted.length, 2);
    for (const d of h.deleted) assert.equal(d.uid, `uid-${d.name}`, 'deleted on the precondition of its uid');
    await h.sync();
    assert.equal(h.deleted.length, 2, 'no second round while the deletions are expected');
    for (const d of h.deleted) {
      h.podCache.remove(ownedPod(d.name));
      h.ctx.expectations.deletionObserved(KEY, d.uid);
    }
    await h.sync();
    assert.equal(h.deleted.length, 2);
    assert.equal(h.podCache.objects.size, 1);
  });

  it('writes the status only when it changed', async () => {
    const h = harness(replicaSet(1), [ownedPod('a')]);
    await h.sync();
    assert.equal(h.statuses.length, 1);
    assert.deepEqual(h.statuses[0]?.status, { replicas: 1, fullyLabeledReplicas: 1, observedGeneration: 1 });
    h.rsCache.put(h.statuses[0]!);
    await h.sync();
    await h.sync();
    assert.equal(h.statuses.length, 1, 'the same status is not written again');
  });

  it('forgets the expectations of a ReplicaSet gone from the cache', async () => {
    const h = harness(replicaSet(2));
    await h.sync();
    assert.equal(h.ctx.expectations.satisfied(KEY), false);
    h.rsCache.remove(replicaSet(2));
    await h.sync();
    assert.equal(h.ctx.expectations.satisfied(KEY), true);
  });
});
