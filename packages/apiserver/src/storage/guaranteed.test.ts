import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError, isApiError, type KubeObject } from '@setpoint/api';
import { MemoryStore, StoreError, type Store } from '@setpoint/store';
import { AdmissionChain } from '../admission/chain.js';
import { configMapResource } from '../registry/kinds/configmap/configmap.js';
import { WatchCache } from '../watchcache/cache.js';
import { encode, StoredObjectDecoder } from './codec.js';
import { guaranteedUpdate, MAX_CONFLICT_RETRIES, type Current } from './guaranteed.js';
import { ResourceStorage } from './rest.js';

const NS = 'default';

/**
 * `store` with every call answered after a turn of the event loop (setImmediate), as a store on a
 * disk or a network answers: a retry loop that never ends then still lets timers run, so the
 * suite's deadline fails the test instead of hanging the process on microtasks.
 */
function yielding(store: Store): Store {
  return new Proxy(store, {
    get(target, prop, receiver) {
      const value: unknown = Reflect.get(target, prop, receiver);
      if (typeof value !== 'function') return value;
      if (prop === 'get' || prop === 'create' || prop === 'update' || prop === 'delete' || prop === 'list') {
        return async (...args: unknown[]) => {
          await new Promise((resolve) => setImmediate(resolve));
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      }
      return (value as (...a: unknown[]) => unknown).bind(target);
    },
  });
}

/** Fails the attempt (and so the call) when tryUpdate runs more than `max` times: retries are bounded. */
function atMost(attempts: number, max: number): void {
  if (attempts > max) throw new Error(`tryUpdate ran ${attempts} times, more than ${max}`);
}

function setup(store: Store = yielding(new MemoryStore())) {
  const storage = new ResourceStorage(configMapResource, store, new WatchCache(store, configMapResource), AdmissionChain.none);
  const key = storage.key(NS, 'cm');
  const configMap = (data: Record<string, string>): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', namespace: NS, uid: 'u1' }, data });
  const dataOf = async () => (await storage.read(NS, 'cm')).obj.data as Record<string, string>;
  /** Another writer, between this request's read and its write. */
  const concurrentWrite = async (data: Record<string, string>) => {
    const kv = await store.get(key);
    await store.update(key, encode(configMap(data)), kv!.modRevision);
  };
  /** The write guaranteedUpdate makes: `current` with `data` added, conditional on the revision read. */
  const adding = (current: Current, data: Record<string, string>) => async () => {
    const next = { ...current.obj, data: { ...(current.obj.data as Record<string, string>), ...data } };
    const kv = await store.update(key, encode(next), current.kv.modRevision);
    return kv.modRevision;
  };
  return { store, storage, key, configMap, dataOf, concurrentWrite, adding };
}

// A loop that never ends fails on this deadline (a mutant of the retry bound, say), not by hanging.
describe('guaranteedUpdate', { timeout: 15_000 }, () => {
  it('a write that loses a race reads again and changes what is there now: nothing written meanwhile is lost', async () => {
    const { store, storage, key, configMap, dataOf, concurrentWrite, adding } = setup();
    await store.create(key, encode(configMap({ a: '1' })));
    const seen: Array<Record<string, string>> = [];
    await guaranteedUpdate(storage, NS, 'cm', async (current, attempt) => {
      seen.push(current.obj.data as Record<string, string>);
      atMost(seen.length, 2);
      if (attempt === 0) await concurrentWrite({ a: '1', other: 'x' });
      return { write: adding(current, { mine: 'y' }) };
    });
    assert.deepEqual(seen, [{ a: '1' }, { a: '1', other: 'x' }], "the second attempt starts from the other writer's object");
    assert.deepEqual(await dataOf(), { a: '1', other: 'x', mine: 'y' });
  });

  it('a write pinned to the resourceVersion the client named is not retried: 409 Conflict', async () => {
    const { store, storage, key, configMap, dataOf, concurrentWrite, adding } = setup();
    await store.create(key, encode(configMap({ a: '1' })));
    let attempts = 0;
    await assert.rejects(
      guaranteedUpdate(storage, NS, 'cm', async (current) => {
        attempts++;
        atMost(attempts, 1);
        await concurrentWrite({ other: 'x' });
        return { write: adding(current, { mine: 'y' }), pinned: true };
      }),
      (err: unknown) => isApiError(err, 'Conflict') && err.code === 409,
    );
    assert.equal(attempts, 1);
    assert.deepEqual(await dataOf(), { other: 'x' });
  });

  it(`a key that keeps changing is tried ${MAX_CONFLICT_RETRIES + 1} times, then answers 409`, async () => {
    const { store, storage, key, configMap, concurrentWrite, adding } = setup();
    await store.create(key, encode(configMap({})));
    let attempts = 0;
    await assert.rejects(
      guaranteedUpdate(storage, NS, 'cm', async (current) => {
        attempts++;
        atMost(attempts, MAX_CONFLICT_RETRIES + 1);
        await concurrentWrite({ n: String(attempts) });
        return { write: adding(current, { mine: 'y' }) };
      }),
      (err: unknown) => isApiError(err, 'Conflict'),
    );
    assert.equal(attempts, MAX_CONFLICT_RETRIES + 1);
  });

  it('ignoreNotFound hands a missing object over as undefined; a create that finds it made meanwhile applies to it instead', async () => {
    const { store, storage, key, configMap, dataOf, adding } = setup();
    const seen: Array<Current | undefined> = [];
    const result = await guaranteedUpdate(
      storage,
      NS,
      'cm',
      async (current) => {
        seen.push(current);
        atMost(seen.length, 2);
        if (current !== undefined) return { write: adding(current, { mine: 'y' }) };
        await store.create(key, encode(configMap({ theirs: 'x' }))); // someone else creates it first
        return { write: async () => (await store.create(key, encode(configMap({ mine: 'y' })))).modRevision };
      },
      { ignoreNotFound: true },
    );
    assert.equal(seen.length, 2);
    assert.equal(seen[0], undefined);
    assert.deepEqual(seen[1]!.obj.data, { theirs: 'x' });
    assert.equal(typeof result, 'number');
    assert.deepEqual(await dataOf(), { theirs: 'x', mine: 'y' });
  });

  it("a create made meanwhile is retried when the storage's create says so too (its 409 AlreadyExists as an ApiError)", async () => {
    const { store, storage, key, configMap, dataOf, adding } = setup();
    let attempts = 0;
    const result = await guaranteedUpdate(
      storage,
      NS,
      'cm',
      async (current) => {
        attempts++;
        atMost(attempts, 2);
        if (current !== undefined) return { write: adding(current, { mine: 'y' }) };
        await store.create(key, encode(configMap({ theirs: 'x' })));
        return { write: () => Promise.reject(ApiError.alreadyExists(storage.gr, 'cm')) };
      },
      { ignoreNotFound: true },
    );
    assert.equal(typeof result, 'number');
    assert.equal(attempts, 2);
    assert.deepEqual(await dataOf(), { theirs: 'x', mine: 'y' });
  });

  it('only a lost race is retried: another failure of a create, or AlreadyExists from a write over an object that was there, is the answer', async () => {
    const { store, storage, key, configMap } = setup();
    let attempts = 0;
    await assert.rejects(
      guaranteedUpdate(
        storage,
        NS,
        'cm',
        () => {
          attempts++;
          atMost(attempts, 1);
          return { write: () => Promise.reject(new StoreError('Unavailable', 'the disk is full')) };
        },
        { ignoreNotFound: true },
      ),
      (err: unknown) => isApiError(err, 'ServiceUnavailable'),
    );
    assert.equal(attempts, 1, 'a create that fails for another reason is not retried');
    await store.create(key, encode(configMap({})));
    attempts = 0;
    await assert.rejects(
      guaranteedUpdate(storage, NS, 'cm', () => {
        attempts++;
        atMost(attempts, 1);
        return { write: () => Promise.reject(new StoreError('AlreadyExists', 'exists')) };
      }),
      (err: unknown) => isApiError(err, 'AlreadyExists') && err.code === 409,
    );
    assert.equal(attempts, 1, 'AlreadyExists is a lost race only for a create');
  });

  it('without ignoreNotFound a missing object answers 404 and tryUpdate never runs', async () => {
    const { storage } = setup();
    let ran = false;
    await assert.rejects(
      guaranteedUpdate(storage, NS, 'cm', () => {
        ran = true;
        return { result: 0 };
      }),
      (err: unknown) => isApiError(err, 'NotFound') && /configmaps "cm" not found/.test(err.message),
    );
    assert.equal(ran, false);
  });

  it('a result writes nothing; a refusal leaves as it is, without a retry', async () => {
    const { store, storage, key, configMap, dataOf } = setup();
    await store.create(key, encode(configMap({ a: '1' })));
    const before = (await store.get(key))!.modRevision;
    assert.equal(await guaranteedUpdate(storage, NS, 'cm', () => ({ result: 'unchanged' })), 'unchanged');
    assert.equal((await store.get(key))!.modRevision, before);
    let attempts = 0;
    const refusal = ApiError.badRequest('no');
    await assert.rejects(
      guaranteedUpdate(storage, NS, 'cm', () => {
        attempts++;
        atMost(attempts, 1);
        throw refusal;
      }),
      (err: unknown) => err === refusal,
    );
    assert.equal(attempts, 1);
    assert.deepEqual(await dataOf(), { a: '1' });
  });

  it("a store error leaves as the object's Kubernetes error (503 for an unavailable store), not retried", async () => {
    const { store, storage, key, configMap } = setup();
    await store.create(key, encode(configMap({})));
    let attempts = 0;
    await assert.rejects(
      guaranteedUpdate(storage, NS, 'cm', () => {
        attempts++;
        atMost(attempts, 1);
        return { write: () => Promise.reject(new StoreError('Unavailable', 'the disk is full')) };
      }),
      (err: unknown) => isApiError(err, 'ServiceUnavailable') && err.code === 503 && /the disk is full/.test(err.message),
    );
    assert.equal(attempts, 1);
  });

  it('forDelete reads a malformed object as its identity, so that a DELETE can remove it', async () => {
    const store = new MemoryStore();
    const storage = new ResourceStorage(configMapResource, store, new WatchCache(store, configMapResource), AdmissionChain.none, undefined, new StoredObjectDecoder());
    const key = storage.key(NS, 'cm');
    await store.create(key, JSON.stringify({ metadata: { name: 'cm', namespace: NS, uid: 'u9' }, data: 5 }));
    await assert.rejects(
      guaranteedUpdate(storage, NS, 'cm', () => ({ result: 0 })),
      (err: unknown) => isApiError(err, 'InternalError') && /cannot be decoded/.test(err.message),
    );
    const identity = await guaranteedUpdate(storage, NS, 'cm', (current) => ({ result: current.obj.metadata }), { forDelete: true });
    assert.deepEqual({ name: identity.name, uid: identity.uid }, { name: 'cm', uid: 'u9' });
  });
});
