import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { describePath, FieldPathError, keyElement, readFieldsV1, valueElement } from './elements.js';
import { childOf, compareElements, difference, hasPath, intersection, isEmptySet, pathsOf, setOf, setsEqual, union, withPrefix, type FieldSet } from './fieldset.js';

const p = (...elements: string[]) => elements;

describe('field sets in FieldsV1 form', () => {
  test('a member with children carries "." and a leaf member is {}', () => {
    const set = setOf(p('f:metadata', 'f:labels'), p('f:metadata', 'f:labels', 'f:app'), p('f:data', 'f:key'));
    assert.deepEqual(set, { 'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } }, 'f:data': { 'f:key': {} } });
    // Inserting the parent after the child marks it too.
    const other = setOf(p('f:spec', 'f:a', 'f:b'), p('f:spec', 'f:a'));
    assert.deepEqual(other, { 'f:spec': { 'f:a': { '.': {}, 'f:b': {} } } });
    assert.equal(hasPath(set, p('f:metadata', 'f:labels')), true);
    assert.ok(!hasPath(set, p('f:metadata')), 'a node with only children is not a member');
    assert.equal(hasPath(set, p('f:data', 'f:key')), true);
    assert.equal(!hasPath(set, p('f:data', 'f:other')), true);
    assert.ok(!hasPath(set, []), 'nobody owns the whole object');
  });

  test('the same leaf inserted twice stays a bare leaf {}, without "."', () => {
    assert.deepEqual(setOf(p('f:data', 'f:key'), p('f:data', 'f:key')), { 'f:data': { 'f:key': {} } });
  });

  test('childOf reads own children only: never the member marker, nor what objects inherit', () => {
    const set = setOf(p('f:spec'), p('f:spec', 'f:a'));
    assert.deepEqual(childOf(set, 'f:spec'), { '.': {}, 'f:a': {} });
    assert.equal(childOf(set['f:spec']!, '.'), undefined);
    assert.equal(childOf(set, 'toString'), undefined);
    assert.equal(childOf(set, 'constructor'), undefined);
    assert.equal(childOf(set, 'f:missing'), undefined);
  });

  test('withPrefix is the set below one element, empty when there is none', () => {
    const set = setOf(p('f:spec', 'f:a'), p('f:spec', 'f:b', 'f:c'));
    assert.deepEqual(pathsOf(withPrefix(set, 'f:spec')), [p('f:a'), p('f:b', 'f:c')]);
    const none = withPrefix(set, 'f:status');
    assert.equal(isEmptySet(none), true);
    assert.deepEqual(none, {});
    assert.deepEqual(withPrefix(set, 'toString'), {});
  });

  test('a zero-length path is not tracked', () => {
    const set = setOf([]);
    assert.equal(isEmptySet(set), true);
  });

  test('union keeps membership from either side and shares untouched subtrees', () => {
    const a = setOf(p('f:spec', 'f:replicas'), p('f:spec', 'f:template', 'f:spec', 'f:x'));
    const b = setOf(p('f:spec', 'f:paused'), p('f:spec', 'f:template'));
    const u = union(a, b);
    assert.equal(setsEqual(u, setOf(p('f:spec', 'f:replicas'), p('f:spec', 'f:paused'), p('f:spec', 'f:template'), p('f:spec', 'f:template', 'f:spec', 'f:x'))), true);
    assert.equal(union(a, {}), a);
    assert.equal(union(a, a), a);
    assert.deepEqual(a, setOf(p('f:spec', 'f:replicas'), p('f:spec', 'f:template', 'f:spec', 'f:x')), 'inputs are not modified');
  });

  test('intersection is exact: a parent does not contain its children', () => {
    const owned = setOf(p('f:spec', 'f:replicas'), p('f:spec', 'f:template'), p('f:data', 'f:a'));
    const changed = setOf(p('f:spec', 'f:replicas'), p('f:spec', 'f:template', 'f:x'), p('f:data', 'f:b'));
    assert.deepEqual(pathsOf(intersection(owned, changed)), [p('f:spec', 'f:replicas')]);
    assert.equal(isEmptySet(intersection(owned, {})), true);
  });

  test('difference: parent - child = parent, child - parent = child (exact paths)', () => {
    const parent = setOf(p('f:a'));
    const child = setOf(p('f:a', 'f:b'));
    assert.equal(setsEqual(difference(parent, child), parent), true);
    assert.equal(setsEqual(difference(child, parent), child), true);
    const both = setOf(p('f:a'), p('f:a', 'f:b'), p('f:c'));
    assert.equal(setsEqual(difference(both, setOf(p('f:a'))), setOf(p('f:a', 'f:b'), p('f:c'))), true);
    assert.equal(setsEqual(difference(both, setOf(p('f:a', 'f:b'), p('f:c'))), setOf(p('f:a'))), true);
    assert.equal(isEmptySet(difference(both, both)), true);
    assert.equal(difference(both, setOf(p('f:zzz'))), both, 'nothing removed: the same tree');
  });

  test('a "." at the root (which a client may send) is ignored: the root is never a member', () => {
    const sent = readFieldsV1({ '.': {}, 'f:a': {} });
    assert.deepEqual(pathsOf(sent), [p('f:a')]);
    assert.equal(setsEqual(sent, setOf(p('f:a'))), true);
    assert.equal(setsEqual(setOf(p('f:a')), sent), true);
    assert.equal(setsEqual(readFieldsV1({ '.': {} }), {}), true);
    assert.equal(isEmptySet(readFieldsV1({ '.': {} })), true);
    assert.equal(hasPath(sent, []), false);
    assert.equal(setsEqual(union(sent, setOf(p('f:b'))), setOf(p('f:a'), p('f:b'))), true);
    // Sets that share subtrees (as union's result shares its inputs') compare by their paths.
    const shared = setOf(p('f:a', 'f:b'), p('f:c'));
    assert.equal(setsEqual({ ...shared }, shared), true);
    assert.equal(setsEqual(union(shared, setOf(p('f:d'))), setOf(p('f:a', 'f:b'), p('f:c'), p('f:d'))), true);
    // Below the root a "." is membership.
    assert.equal(setsEqual(setOf(p('f:a'), p('f:a', 'f:b')), setOf(p('f:a', 'f:b'))), false);
  });

  test('paths come out in Kubernetes order: members of a level first, then below each child', () => {
    const set = setOf(p('f:spec', 'f:template', 'f:spec', 'f:containers', 'k:{"name":"b"}'), p('f:spec', 'f:replicas'), p('f:metadata', 'f:labels', 'f:z'), p('f:spec', 'f:paused'));
    assert.deepEqual(
      pathsOf(set).map(describePath),
      ['.metadata.labels.z', '.spec.paused', '.spec.replicas', '.spec.template.spec.containers[name="b"]'],
    );
  });
});

describe('path elements', () => {
  test('keys sort their fields and print as Kubernetes prints them', () => {
    const e = keyElement([
      ['protocol', 'TCP'],
      ['containerPort', 80],
    ]);
    assert.equal(e, 'k:{"containerPort":80,"protocol":"TCP"}');
    assert.equal(describePath(['f:spec', 'f:containers', 'k:{"name":"nginx"}', 'f:ports', e]), '.spec.containers[name="nginx"].ports[containerPort=80,protocol="TCP"]');
    assert.equal(describePath(['f:metadata', 'f:finalizers', valueElement('example.com/x')]), '.metadata.finalizers[="example.com/x"]');
    assert.equal(describePath(['f:items', 'i:3']), '.items[3]');
  });

  test('values are written as Go writes JSON (HTML characters escaped)', () => {
    assert.equal(valueElement('a<b&c>'), 'v:"a\\u003cb\\u0026c\\u003e"');
    assert.equal(keyElement([['name', 'x']]), 'k:{"name":"x"}');
  });
});

describe('reading FieldsV1', () => {
  test('a canonical tree is used as it is', () => {
    const fields = { 'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } }, 'f:spec': { 'f:containers': { 'k:{"name":"a"}': { '.': {}, 'f:image': {} } } } };
    assert.equal(readFieldsV1(fields), fields);
  });

  test('keys written by another encoder are put in canonical form; unknown element types are dropped', () => {
    const fields = { 'f:spec': { 'f:ports': { 'k:{"protocol": "TCP", "containerPort": 80}': {} } }, 'x:future': {} };
    const set: FieldSet = readFieldsV1(fields);
    assert.deepEqual(set, { 'f:spec': { 'f:ports': { 'k:{"containerPort":80,"protocol":"TCP"}': {} } } });
  });

  test('malformed trees are refused', () => {
    assert.throws(() => readFieldsV1({ 'f:a': 1 }), FieldPathError);
    assert.throws(() => readFieldsV1({ 'k:{not json': {} }), FieldPathError);
    assert.throws(() => readFieldsV1({ z: {} }), FieldPathError);
    assert.throws(() => readFieldsV1([]), FieldPathError);
  });
});

// ---------------------------------------------------------------------------------------------
// Properties: the set operations against a model (a set of paths), the FieldsV1 form canonical

/** A few elements of each type, the indexes chosen so that numeric and string order differ. */
const element = fc.constantFrom('f:a', 'f:b', 'f:spec', 'k:{"name":"x"}', 'k:{"name":"y"}', 'v:"1"', 'v:2', 'i:2', 'i:10');
const fieldPath = fc.array(element, { minLength: 1, maxLength: 3 });
const pathList = fc.array(fieldPath, { maxLength: 8 });

const keyOf = (path: readonly string[]) => JSON.stringify(path);
const model = (paths: ReadonlyArray<readonly string[]>) => new Set(paths.map(keyOf));
const fromModel = (keys: Iterable<string>) => setOf(...[...keys].map((k) => JSON.parse(k) as string[]));
const modelOf = (set: FieldSet) => new Set(pathsOf(set).map(keyOf));
const sorted = (keys: Iterable<string>) => [...keys].sort();

/**
 * What is wrong with a set's FieldsV1 form, if anything (the form the header of fieldset.ts
 * describes, which managedFields carry): "." only in a member that has children, first and empty;
 * a member leaf is {}; the root never holds ".".
 */
function formProblem(set: FieldSet, where = ''): string | undefined {
  const keys = Object.keys(set);
  if (keys.includes('.')) {
    if (where === '') return 'a "." at the root';
    if (keys[0] !== '.') return `${where}: "." is not first`;
    if (keys.length === 1) return `${where}: a "." without children`;
    if (Object.keys(set['.']!).length !== 0) return `${where}: a "." with content`;
  }
  for (const key of keys) {
    if (key === '.') continue;
    const problem = formProblem(set[key]!, `${where}/${key}`);
    if (problem !== undefined) return problem;
  }
  return undefined;
}

describe('field set properties', () => {
  test('a set holds exactly the paths put in it, each listed once', () => {
    fc.assert(
      fc.property(pathList, fieldPath, (paths, probe) => {
        const set = setOf(...paths);
        const listed = pathsOf(set).map(keyOf);
        assert.deepEqual(sorted(listed), sorted(model(paths)));
        assert.equal(new Set(listed).size, listed.length, 'no path twice');
        assert.equal(hasPath(set, probe), model(paths).has(keyOf(probe)));
        assert.equal(isEmptySet(set), paths.length === 0);
        assert.equal(formProblem(set), undefined);
      }),
      { numRuns: 300 },
    );
  });

  test('the FieldsV1 form depends only on the paths, not on the order they were added', () => {
    fc.assert(
      fc.property(pathList, (paths) => {
        assert.deepEqual(setOf(...paths), setOf(...[...paths].reverse()));
      }),
      { numRuns: 200 },
    );
  });

  test('union, intersection and difference hold the paths of the model, in canonical form, inputs untouched', () => {
    fc.assert(
      fc.property(pathList, pathList, (pa, pb) => {
        const a = setOf(...pa);
        const b = setOf(...pb);
        const [ma, mb] = [model(pa), model(pb)];
        const u = union(a, b);
        const i = intersection(a, b);
        const d = difference(a, b);
        assert.deepEqual(sorted(modelOf(u)), sorted(new Set([...ma, ...mb])), 'union');
        assert.deepEqual(sorted(modelOf(i)), sorted([...ma].filter((k) => mb.has(k))), 'intersection');
        assert.deepEqual(sorted(modelOf(d)), sorted([...ma].filter((k) => !mb.has(k))), 'difference');
        // What a manager's entry would record: the same tree as the set built from those paths.
        assert.deepEqual(u, fromModel(modelOf(u)));
        assert.deepEqual(i, fromModel(modelOf(i)));
        assert.deepEqual(d, fromModel(modelOf(d)));
        for (const [what, result] of [['union', u], ['intersection', i], ['difference', d]] as const) assert.equal(formProblem(result), undefined, what);
        assert.deepEqual(a, setOf(...pa), 'a is not modified');
        assert.deepEqual(b, setOf(...pb), 'b is not modified');
      }),
      { numRuns: 400 },
    );
  });

  test('setsEqual and isEmptySet agree with the model', () => {
    fc.assert(
      fc.property(pathList, pathList, (pa, pb) => {
        const [ma, mb] = [model(pa), model(pb)];
        const same = ma.size === mb.size && [...ma].every((k) => mb.has(k));
        assert.equal(setsEqual(setOf(...pa), setOf(...pb)), same);
        assert.equal(setsEqual(setOf(...pa), setOf(...pa, ...pb)), [...mb].every((k) => ma.has(k)));
        assert.equal(isEmptySet(difference(setOf(...pa), setOf(...pb))), [...ma].every((k) => mb.has(k)));
        assert.equal(isEmptySet(intersection(setOf(...pa), setOf(...pb))), ![...ma].some((k) => mb.has(k)));
      }),
      { numRuns: 300 },
    );
  });
});

describe('element order', () => {
  test('fields, then keys, then values, then indexes (by number), then anything else', () => {
    const elements = ['x:other', 'i:10', 'v:"b"', 'i:2', 'k:{"name":"b"}', 'f:b', 'v:"a"', 'k:{"name":"a"}', 'f:a', 'i:1'];
    assert.deepEqual([...elements].sort(compareElements), ['f:a', 'f:b', 'k:{"name":"a"}', 'k:{"name":"b"}', 'v:"a"', 'v:"b"', 'i:1', 'i:2', 'i:10', 'x:other']);
    // A comparator: 0 for the same element, opposite signs for a pair either way round.
    for (const x of elements) {
      assert.equal(compareElements(x, x), 0, x);
      for (const y of elements) if (x !== y) assert.equal(Math.sign(compareElements(x, y)), -Math.sign(compareElements(y, x)), `${x} ${y}`);
    }
    assert.ok(compareElements('f:b', 'f:a') > 0, 'f:b after f:a');
    assert.ok(compareElements('i:10', 'i:9') > 0, 'i:10 after i:9');
    assert.ok(compareElements('k:{"a":1}', 'f:z') > 0, 'keys after fields');
    assert.deepEqual(
      pathsOf(setOf(['f:l', 'i:10'], ['f:l', 'i:9'], ['f:l', 'v:1'], ['f:l', 'f:z'], ['f:l', 'k:{"a":1}'])).map(describePath),
      ['.l.z', '.l[a=1]', '.l[=1]', '.l[9]', '.l[10]'],
    );
  });

  test('members of a level come before what is below its children; a member with children is listed once', () => {
    const set = setOf(['f:b', 'f:c'], ['f:a'], ['f:b'], ['f:a', 'f:z'], ['f:a', 'f:y', 'f:x']);
    assert.deepEqual(pathsOf(set).map(describePath), ['.a', '.b', '.a.z', '.a.y.x', '.b.c']);
  });
});
