import { test } from 'node:test';
import assert from 'node:assert/strict';
import { IndexedStore, NAMESPACE_INDEX, deepFreeze, keyOf } from './store.js';
import { cm, type ConfigMap } from './fake-listwatch.test.js';

const onNode = (name: string, rv: number, node: string, ns = 'default'): ConfigMap => cm(name, rv, { spec: { nodeName: node } }, ns);

test('keys are namespace/name, or name for cluster-scoped objects', () => {
  assert.equal(keyOf(cm('a', 1, {}, 'ns1')), 'ns1/a');
  assert.equal(keyOf({ metadata: { name: 'node-1' } }), 'node-1');
});

test('get, list, listKeys and the built-in namespace index', () => {
  const store = new IndexedStore<ConfigMap>();
  store.upsert(cm('a', 1, {}, 'x'));
  store.upsert(cm('b', 2, {}, 'x'));
  store.upsert(cm('c', 3, {}, 'y'));
  assert.equal(store.get('x/a')?.metadata.name, 'a');
  assert.equal(store.get('x/zz'), undefined);
  assert.deepEqual(store.listKeys().sort(), ['x/a', 'x/b', 'y/c']);
  assert.equal(store.list().length, 3);
  assert.equal(store.size, 3);
  assert.deepEqual(store.indexKeys(NAMESPACE_INDEX, 'x').sort(), ['x/a', 'x/b']);
  assert.deepEqual(store.byIndex(NAMESPACE_INDEX, 'y').map((o) => o.metadata.name), ['c']);
  assert.deepEqual(store.indexValues(NAMESPACE_INDEX).sort(), ['x', 'y']);
  assert.equal(store.resourceVersion, '3');
});

test('custom indexers follow updates and deletes', () => {
  const store = new IndexedStore<ConfigMap>({ byNode: (obj) => [obj.spec?.nodeName] });
  store.upsert(onNode('a', 1, 'n1'));
  store.upsert(onNode('b', 2, 'n1'));
  store.upsert(onNode('c', 3, 'n2'));
  assert.deepEqual(store.indexKeys('byNode', 'n1').sort(), ['default/a', 'default/b']);
  store.upsert(onNode('a', 4, 'n2'));
  assert.deepEqual(store.indexKeys('byNode', 'n1'), ['default/b']);
  assert.deepEqual(store.indexKeys('byNode', 'n2').sort(), ['default/a', 'default/c']);
  store.delete('default/b');
  assert.deepEqual(store.indexKeys('byNode', 'n1'), []);
  assert.deepEqual(store.indexValues('byNode'), ['n2']);
  // An object without a node is simply not indexed (undefined values are skipped).
  store.upsert(cm('d', 5));
  assert.deepEqual(store.indexValues('byNode'), ['n2']);
  assert.throws(() => store.byIndex('nope', 'x'), /index "nope" does not exist/);
});

test('indexers added later index what is cached; names are unique', () => {
  const store = new IndexedStore<ConfigMap>();
  store.upsert(onNode('a', 1, 'n1'));
  store.addIndexers({ byNode: (obj) => [obj.spec?.nodeName] });
  assert.deepEqual(store.indexKeys('byNode', 'n1'), ['default/a']);
  assert.throws(() => store.addIndexers({ byNode: () => [] }), /already exists/);
  assert.throws(() => store.addIndexers({ namespace: () => [] }), /already exists/);
  assert.deepEqual(store.indexNames(), ['namespace', 'byNode']);
});

test('replace reports added, updated (resourceVersion changed) and deleted objects, and reindexes', () => {
  const store = new IndexedStore<ConfigMap>({ byNode: (obj) => [obj.spec?.nodeName] });
  store.replace([onNode('a', 1, 'n1'), onNode('b', 2, 'n1'), onNode('c', 3, 'n1')], '3');
  const cachedC = store.get('default/c');
  const changes = store.replace([onNode('a', 7, 'n2'), onNode('c', 3, 'n1'), onNode('d', 8, 'n2')], '9');
  assert.deepEqual(
    changes.map((c) => `${c.type} ${c.obj.metadata.name}@${c.obj.metadata.resourceVersion}`),
    ['updated a@7', 'added d@8', 'deleted b@2'],
  );
  const updated = changes[0]!;
  assert.equal(updated.type === 'updated' && updated.old.metadata.resourceVersion, '1');
  const deleted = changes[2]!;
  assert.equal(deleted.type === 'deleted' && deleted.key, 'default/b');
  assert.equal(store.get('default/c'), cachedC, 'an unchanged object keeps its cached instance');
  assert.deepEqual(store.indexKeys('byNode', 'n2').sort(), ['default/a', 'default/d']);
  assert.deepEqual(store.indexKeys('byNode', 'n1'), ['default/c']);
  assert.equal(store.resourceVersion, '9');
});

test('cached objects are frozen at every depth: mutation throws', () => {
  const store = new IndexedStore<ConfigMap>();
  store.upsert(cm('a', 1, { data: { k: 'v' }, metadata: { finalizers: ['f'] } }));
  store.replace([cm('b', 2, { data: { k: 'v' } })], '2');
  for (const obj of [store.get('default/b')!, deepFreeze(cm('c', 3, { data: { k: 'v' } }))]) {
    assert.throws(() => {
      (obj as ConfigMap).metadata.name = 'x';
    }, TypeError);
    assert.throws(() => {
      (obj as ConfigMap).data!['k'] = 'changed';
    }, TypeError);
  }
  store.upsert(cm('a', 4, { metadata: { finalizers: ['f'] } }));
  assert.throws(() => store.get('default/a')!.metadata.finalizers!.push('g'), TypeError);
});

test('an index function that throws: the write changes nothing, or with onIndexError the object is not indexed by it', () => {
  const picky = (obj: { metadata: { name?: string } }) => {
    if (obj.metadata.name === 'bad') throw new Error('picky refused');
    return ['ok'];
  };
  const strict = new IndexedStore<ConfigMap>({ picky });
  strict.upsert(cm('good', 1));
  assert.throws(() => strict.upsert(cm('bad', 2)), { message: 'picky refused' });
  assert.throws(() => strict.replace([cm('bad', 3)], '3'), { message: 'picky refused' });
  assert.deepEqual(strict.listKeys(), ['default/good']);
  assert.deepEqual(strict.indexKeys('picky', 'ok'), ['default/good']);

  const failures: string[] = [];
  const lenient = new IndexedStore<ConfigMap>({ picky }, { onIndexError: (_err, index, key) => failures.push(`${index} ${key}`) });
  lenient.replace([cm('good', 1), cm('bad', 2)], '2');
  assert.deepEqual(lenient.listKeys().sort(), ['default/bad', 'default/good']);
  assert.deepEqual(lenient.indexKeys('picky', 'ok'), ['default/good']);
  assert.deepEqual(lenient.indexValues('picky'), ['ok'], 'the failed object is under no value');
  assert.deepEqual(lenient.indexKeys(NAMESPACE_INDEX, 'default').sort(), ['default/bad', 'default/good']);
  assert.deepEqual(failures, ['picky default/bad']);
});

test('the store’s resourceVersion follows writes: an upsert without one keeps it, a delete at one sets it (even for a missing key)', () => {
  const store = new IndexedStore<ConfigMap>();
  store.upsert(cm('a', 5));
  store.upsert({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'b', namespace: 'default' } });
  assert.equal(store.resourceVersion, '5');
  assert.equal(store.delete('default/gone', '7'), undefined);
  assert.equal(store.resourceVersion, '7');
  assert.equal(store.delete('default/a', '')?.metadata.name, 'a', 'delete returns what it removed');
  assert.equal(store.delete('default/a'), undefined);
  assert.equal(store.resourceVersion, '7', 'an unknown ("" or no) resourceVersion changes nothing');
  assert.deepEqual(store.listKeys(), ['default/b']);
  assert.deepEqual(store.indexKeys(NAMESPACE_INDEX, 'default'), ['default/b']);
  assert.equal(store.upsert(cm('b', 8))?.metadata.resourceVersion, undefined, 'upsert returns the version it replaced');
  assert.equal(store.upsert(cm('b', 9))?.metadata.resourceVersion, '8');
});

test('index values that are not strings are skipped; a value shared by several keys stays until its last key goes', () => {
  const store = new IndexedStore<ConfigMap>({ tags: (o) => [o.data?.['t1'], o.data?.['t2'], null, 3 as unknown as string] });
  store.upsert(cm('a', 1, { data: { t1: 'x', t2: 'y' } }));
  store.upsert(cm('b', 2, { data: { t1: 'x' } }));
  assert.deepEqual(store.indexValues('tags').sort(), ['x', 'y']);
  assert.deepEqual(store.byIndex('tags', 'x').map((o) => o.metadata.name).sort(), ['a', 'b']);
  assert.deepEqual(store.byIndex('tags', 'zz'), []);
  assert.deepEqual(store.indexKeys('tags', 'zz'), []);
  store.upsert(cm('a', 3, { data: { t1: 'z' } }));
  assert.deepEqual(store.indexKeys('tags', 'x'), ['default/b']);
  assert.deepEqual(store.indexValues('tags').sort(), ['x', 'z'], 'y went with its last key');
  store.delete('default/b');
  assert.deepEqual(store.indexValues('tags'), ['z']);
  assert.equal(store.size, 1);
  assert.throws(() => store.indexKeys('nope', 'x'), /index "nope" does not exist/);
  assert.throws(() => store.indexValues('nope'), /index "nope" does not exist/);
});

test('replace: objects without a resourceVersion always count as updated; the cluster-scoped namespace index value is ""', () => {
  const store = new IndexedStore<ConfigMap>();
  const bare = (name: string, resourceVersion?: string): ConfigMap => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ...(resourceVersion === undefined ? {} : { resourceVersion }) } });
  store.replace([bare('n1'), bare('n2', ''), bare('n3', '4')], '4');
  assert.deepEqual(store.indexKeys(NAMESPACE_INDEX, '').sort(), ['n1', 'n2', 'n3']);
  const changes = store.replace([bare('n1'), bare('n2', ''), bare('n3', '4')], '5');
  assert.deepEqual(changes.map((c) => `${c.type} ${c.obj.metadata.name}`), ['updated n1', 'updated n2']);
  assert.deepEqual(store.replace([], '6').map((c) => `${c.type} ${c.obj.metadata.name}`), ['deleted n1', 'deleted n2', 'deleted n3']);
  assert.equal(store.size, 0);
  assert.deepEqual(store.indexValues(NAMESPACE_INDEX), []);
});

test('addIndexers is all or nothing: a name taken, or an index function that throws on a cached object, adds none', () => {
  const store = new IndexedStore<ConfigMap>();
  store.upsert(cm('a', 1));
  assert.throws(() => store.addIndexers({ fresh: () => ['v'], namespace: () => [] }), /indexer "namespace" already exists/);
  assert.throws(
    () =>
      store.addIndexers({
        good: () => ['v'],
        bad: () => {
          throw new Error('no');
        },
      }),
    /no/,
  );
  assert.deepEqual(store.indexNames(), ['namespace']);
  store.addIndexers({ fresh: () => ['v'] });
  assert.deepEqual(store.indexKeys('fresh', 'v'), ['default/a']);
});

test('deepFreeze freezes arrays and nested objects, and passes other values through', () => {
  const value = { list: [{ deep: { x: 1 } }], s: 'str' };
  assert.equal(deepFreeze(value), value);
  assert.ok(Object.isFrozen(value.list) && Object.isFrozen(value.list[0]) && Object.isFrozen(value.list[0]!.deep));
  assert.equal(deepFreeze(5), 5);
  assert.equal(deepFreeze(null), null);
});

test('a new store is at resourceVersion ""; keyOf an object without a name is its namespace and ""', () => {
  assert.equal(new IndexedStore<ConfigMap>().resourceVersion, '');
  assert.equal(keyOf({ metadata: { namespace: 'ns' } }), 'ns/');
  assert.equal(keyOf({ metadata: {} }), '');
});

test('an index function that yields one value twice: updates and deletes still work', () => {
  const store = new IndexedStore<ConfigMap>({ twice: (o) => [o.data?.['v'], o.data?.['v']] });
  store.upsert(cm('a', 1, { data: { v: 'x' } }));
  assert.deepEqual(store.indexKeys('twice', 'x'), ['default/a']);
  store.upsert(cm('a', 2, { data: { v: 'y' } }));
  assert.deepEqual(store.indexValues('twice'), ['y']);
  store.delete('default/a');
  assert.deepEqual(store.indexValues('twice'), []);
});
