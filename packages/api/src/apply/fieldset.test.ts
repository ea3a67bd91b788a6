import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { describePath, FieldPathError, keyElement, readFieldsV1, valueElement } from './elements.js';
import { difference, hasPath, intersection, isEmptySet, pathsOf, setOf, setsEqual, union, type FieldSet } from './fieldset.js';

const p = (...elements: string[]) => elements;

describe('field sets in FieldsV1 form', () => {
  test('a member with children carries "." and a leaf member is {}', () => {
    const set = setOf(p('f:metadata', 'f:labels'), p('f:metadata', 'f:labels', 'f:app'), p('f:data', 'f:key'));
    assert.deepEqual(set, { 'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } }, 'f:data': { 'f:key': {} } });
    // Inserting the parent after the child marks it too.
    const other = setOf(p('f:spec', 'f:a', 'f:b'), p('f:spec', 'f:a'));
    assert.deepEqual(other, { 'f:spec': { 'f:a': { '.': {}, 'f:b': {} } } });
    assert.ok(hasPath(set, p('f:metadata', 'f:labels')));
    assert.ok(!hasPath(set, p('f:metadata')), 'a node with only children is not a member');
    assert.ok(hasPath(set, p('f:data', 'f:key')));
    assert.ok(!hasPath(set, p('f:data', 'f:other')));
    assert.ok(!hasPath(set, []), 'nobody owns the whole object');
  });

  test('a zero-length path is not tracked', () => {
    const set = setOf([]);
    assert.ok(isEmptySet(set));
  });

  test('union keeps membership from either side and shares untouched subtrees', () => {
    const a = setOf(p('f:spec', 'f:replicas'), p('f:spec', 'f:template', 'f:spec', 'f:x'));
    const b = setOf(p('f:spec', 'f:paused'), p('f:spec', 'f:template'));
    const u = union(a, b);
    assert.ok(setsEqual(u, setOf(p('f:spec', 'f:replicas'), p('f:spec', 'f:paused'), p('f:spec', 'f:template'), p('f:spec', 'f:template', 'f:spec', 'f:x'))));
    assert.equal(union(a, {}), a);
    assert.equal(union(a, a), a);
    assert.deepEqual(a, setOf(p('f:spec', 'f:replicas'), p('f:spec', 'f:template', 'f:spec', 'f:x')), 'inputs are not modified');
  });

  test('intersection is exact: a parent does not contain its children', () => {
    const owned = setOf(p('f:spec', 'f:replicas'), p('f:spec', 'f:template'), p('f:data', 'f:a'));
    const changed = setOf(p('f:spec', 'f:replicas'), p('f:spec', 'f:template', 'f:x'), p('f:data', 'f:b'));
    assert.deepEqual(pathsOf(intersection(owned, changed)), [p('f:spec', 'f:replicas')]);
    assert.ok(isEmptySet(intersection(owned, {})));
  });

  test('difference: parent - child = parent, child - parent = child (exact paths)', () => {
    const parent = setOf(p('f:a'));
    const child = setOf(p('f:a', 'f:b'));
    assert.ok(setsEqual(difference(parent, child), parent));
    assert.ok(setsEqual(difference(child, parent), child));
    const both = setOf(p('f:a'), p('f:a', 'f:b'), p('f:c'));
    assert.ok(setsEqual(difference(both, setOf(p('f:a'))), setOf(p('f:a', 'f:b'), p('f:c'))));
    assert.ok(setsEqual(difference(both, setOf(p('f:a', 'f:b'), p('f:c'))), setOf(p('f:a'))));
    assert.ok(isEmptySet(difference(both, both)));
    assert.equal(difference(both, setOf(p('f:zzz'))), both, 'nothing removed: the same tree');
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
