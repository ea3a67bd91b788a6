import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MemoryStore, type ListOptions, type Store } from '@setpoint/store';
import { scanStore } from './scan.js';

/** `store` recording the options of every list call. */
function recording(store: Store): { store: Store; lists: ListOptions[] } {
  const lists: ListOptions[] = [];
  const wrapped = new Proxy(store, {
    get(target, prop, receiver) {
      if (prop === 'list') {
        return (prefix: string, options: ListOptions = {}) => {
          lists.push(options);
          return target.list(prefix, options);
        };
      }
      const value: unknown = Reflect.get(target, prop, receiver);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { store: wrapped, lists };
}

async function seeded(n: number): Promise<MemoryStore> {
  const store = new MemoryStore();
  for (let i = 0; i < n; i++) await store.create(`/r/k${String(i).padStart(2, '0')}`, `v${i}`);
  return store;
}

describe('scanStore', () => {
  it('reads every key in order, page after page at the first page’s revision', async () => {
    const base = await seeded(7);
    const { store, lists } = recording(base);
    const first = await base.list('/r/', { limit: 1 });
    await base.create('/r/late', 'after the scan started'); // a later revision the scan must not see
    const keys: string[] = [];
    const result = await scanStore(store, '/r/', { revision: first.revision, pageLimit: () => 3 }, (kv) => keys.push(kv.key));
    assert.deepEqual(keys, ['/r/k00', '/r/k01', '/r/k02', '/r/k03', '/r/k04', '/r/k05', '/r/k06']);
    assert.deepEqual(result, { revision: first.revision, more: false, lastKey: '/r/k06' });
    assert.deepEqual(lists, [
      { revision: first.revision, limit: 3 },
      { revision: first.revision, after: '/r/k02', limit: 3 },
      { revision: first.revision, after: '/r/k05', limit: 3 },
    ]);
  });

  it('starts at the current revision when given none, and keeps it for later pages', async () => {
    const base = await seeded(3);
    const { store, lists } = recording(base);
    const result = await scanStore(store, '/r/', { pageLimit: () => 2 }, () => undefined);
    assert.equal(lists[0]!.revision, undefined);
    assert.equal(lists[1]!.revision, result.revision);
    assert.equal(result.more, false);
  });

  it('stops before the next key once full, saying more keys remain, without reading another page', async () => {
    const { store, lists } = recording(await seeded(6));
    const seen: string[] = [];
    const result = await scanStore(store, '/r/', { after: '/r/k00', pageLimit: () => 0, full: () => seen.length >= 2 }, (kv) => seen.push(kv.key));
    assert.deepEqual(seen, ['/r/k01', '/r/k02']);
    assert.equal(result.more, true);
    assert.equal(result.lastKey, '/r/k02');
    assert.deepEqual(lists, [{ after: '/r/k00' }]);

    const paged = recording(await seeded(6));
    const two: string[] = [];
    const atPageEnd = await scanStore(paged.store, '/r/', { pageLimit: () => 2, full: () => two.length >= 2 }, (kv) => two.push(kv.key));
    assert.deepEqual(atPageEnd, { revision: atPageEnd.revision, more: true, lastKey: '/r/k01' });
    assert.equal(paged.lists.length, 1);
  });

  it('asks pageLimit before every page', async () => {
    const { store, lists } = recording(await seeded(5));
    let n = 0;
    await scanStore(store, '/r/', { pageLimit: () => 4 - n }, () => n++);
    assert.deepEqual(lists.map((o) => o.limit), [4, undefined]);
  });
});
