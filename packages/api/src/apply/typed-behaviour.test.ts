/**
 * What server-side apply users rely on from the typed layer: which fields an object owns, how a
 * change is classified, how a configuration merges into a live object, what is removed, and how
 * values that cannot be typed are refused.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Schema } from '../schema.js';
import { describePath } from './elements.js';
import { pathsOf, setOf, setsEqual, union, type FieldSet } from './fieldset.js';
import { compare, createdFieldSet, ensureNamedFieldsAreMembers, isSame, itemElement, jsonEqual, merge, removeItems, toFieldSet, TypedValueError, validateConfiguration } from './typed.js';
import { deploymentSchema } from './testdata.test-support.js';
import { typeOf, UNTYPED, type ListType } from './types.js';

const str: Schema = { type: 'string' };
const deployment = typeOf(deploymentSchema);
const paths = (set: FieldSet) => pathsOf(set).map(describePath).sort();
const podSpec = (spec: unknown) => ({ spec: { template: { spec } } });
const containers = (items: unknown) => podSpec({ containers: items });

/** The message of the TypedValueError `fn` throws. */
function refusal(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof TypedValueError, String(err));
    return err.message;
  }
  assert.fail('accepted');
}

describe('list items that cannot be identified', () => {
  const setList = typeOf({ type: 'array', items: str, 'x-kubernetes-list-type': 'set' }) as ListType;
  const keyedList = typeOf({ type: 'array', items: { type: 'object', properties: { name: str } }, 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'] }) as ListType;

  test('keyed list items must be maps', () => {
    assert.equal(refusal(() => toFieldSet(containers([null]), deployment)), '.spec.template.spec.containers: associative list with keys may not have a null element');
    assert.equal(refusal(() => toFieldSet(containers(['nginx']), deployment)), '.spec.template.spec.containers: associative list with keys may not have non-map elements');
    assert.equal(refusal(() => toFieldSet(containers([['nginx']]), deployment)), '.spec.template.spec.containers: associative list with keys may not have non-map elements');
  });

  test('set items must be scalars', () => {
    assert.equal(refusal(() => toFieldSet({ metadata: { finalizers: [{ a: 'x' }] } }, deployment)), ".metadata.finalizers: associative list without keys has an element that's a map type");
    assert.equal(refusal(() => toFieldSet({ metadata: { finalizers: [['a']] } }, deployment)), '.metadata.finalizers: not supported: associative list with lists as elements');
    assert.equal(refusal(() => toFieldSet({ metadata: { finalizers: ['a', null] } }, deployment)), ".metadata.finalizers: associative list without keys has an element that's an explicit null");
  });

  test('at the root the message has no path', () => {
    assert.equal(refusal(() => itemElement(setList, null)), "associative list without keys has an element that's an explicit null");
    assert.equal(refusal(() => itemElement(keyedList, undefined)), 'associative list with keys may not have a null element');
    assert.equal(refusal(() => itemElement(keyedList, {})), 'associative list with keys has an element that omits all key fields ["name"] (and doesn\'t have default values for any key fields)');
  });

  test('items are identified by their keys (falsy keys count; defaults fill missing ones) or by value', () => {
    assert.equal(itemElement(keyedList, { name: '', x: 1 }), 'k:{"name":""}');
    assert.equal(itemElement(setList, 0), 'v:0');
    assert.equal(itemElement(setList, false), 'v:false');
    const ports = typeOf({ type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['port', 'protocol'], items: { type: 'object', properties: { port: { type: 'integer' }, protocol: { type: 'string', default: 'TCP' } } } }) as ListType;
    assert.equal(itemElement(ports, { port: 0 }), 'k:{"port":0,"protocol":"TCP"}');
    assert.equal(itemElement(ports, { port: 80, protocol: 'UDP' }), 'k:{"port":80,"protocol":"UDP"}');
    // Only the default key: still identified.
    assert.equal(itemElement(ports, { name: 'x' }), 'k:{"protocol":"TCP"}');
    // A key inherited from the prototype is not a key the item sets.
    assert.equal(refusal(() => itemElement(keyedList, Object.create({ name: 'a' }) as object)), 'associative list with keys has an element that omits all key fields ["name"] (and doesn\'t have default values for any key fields)');
  });
});

describe('what an applied object owns', () => {
  test('errors are TypedValueErrors by name too', () => {
    try {
      toFieldSet(containers([null]), deployment);
      assert.fail('accepted');
    } catch (err) {
      assert.equal((err as Error).name, 'TypedValueError');
    }
  });

  test('fields that set nothing leave no trace in the set', () => {
    assert.deepEqual(toFieldSet({ metadata: { finalizers: [] }, spec: { template: { spec: { containers: [] } } } }, deployment), {});
    assert.deepEqual(toFieldSet({ metadata: { name: undefined } }, deployment), {});
    assert.deepEqual(createdFieldSet({ spec: { replicas: undefined, template: undefined } }, deployment, new Set(['spec'])), {});
    assert.deepEqual(toFieldSet(null, typeOf({ type: 'array', items: str, 'x-kubernetes-list-type': 'set' })), {});
  });

  test('a create refuses unidentifiable items with their path', () => {
    assert.equal(refusal(() => createdFieldSet(containers([{ image: 'x' }]), deployment, new Set(['spec']))), '.spec.template.spec.containers: associative list with keys has an element that omits all key fields ["name"] (and doesn\'t have default values for any key fields)');
  });

  test('a list item that appears twice is owned as a whole, without its fields', () => {
    assert.deepEqual(paths(toFieldSet(containers([{ name: 'a', image: 'x' }, { name: 'b', image: 'y' }, { name: 'a', image: 'z' }]), deployment)), [
      '.spec.template.spec.containers[name="a"]',
      '.spec.template.spec.containers[name="b"]',
      '.spec.template.spec.containers[name="b"].image',
      '.spec.template.spec.containers[name="b"].name',
    ]);
    assert.deepEqual(paths(toFieldSet({ metadata: { finalizers: ['f', 'g', 'f'] } }, deployment)), ['.metadata.finalizers[="f"]', '.metadata.finalizers[="g"]']);
  });

  test('an empty granular list owns nothing; an atomic or untyped list is owned as one value; null and empty maps are owned', () => {
    assert.deepEqual(paths(toFieldSet({ metadata: { finalizers: [] } }, deployment)), []);
    assert.deepEqual(paths(toFieldSet(containers([{ name: 'a', args: [], ports: [] }]), deployment)), [
      '.spec.template.spec.containers[name="a"]',
      '.spec.template.spec.containers[name="a"].args',
      '.spec.template.spec.containers[name="a"].name',
    ]);
    assert.deepEqual(paths(toFieldSet({ extra: [{ a: 1 }], metadata: { labels: {}, finalizers: null } }, deployment)), ['.extra', '.metadata.finalizers', '.metadata.labels']);
    // A map-typed field holding a scalar is typed by its value: a leaf.
    assert.deepEqual(paths(toFieldSet({ metadata: 'x', spec: { template: 5 } }, deployment)), ['.metadata', '.spec.template']);
    // Atomic maps are one value, whatever is inside.
    assert.deepEqual(paths(toFieldSet({ spec: { selector: {} } }, deployment)), ['.spec.selector']);
    assert.deepEqual(paths(toFieldSet(podSpec({ nodeSelector: { a: '1', b: '2' } }), deployment)), ['.spec.template.spec.nodeSelector']);
  });

  test('a struct with content is not itself owned; a map key that is not a field is', () => {
    const set = toFieldSet({ metadata: { labels: { a: '1' } }, spec: { extra: { x: 1 } } }, deployment);
    assert.deepEqual(paths(set), ['.metadata.labels.a', '.spec.extra', '.spec.extra.x']);
  });

  test('a whole object that is null or empty owns nothing; undefined fields are ignored', () => {
    assert.deepEqual(toFieldSet(null, deployment), {});
    assert.deepEqual(toFieldSet({}, deployment), {});
    assert.deepEqual(toFieldSet([], typeOf({ type: 'array', items: str, 'x-kubernetes-list-type': 'set' })), {});
    assert.deepEqual(paths(toFieldSet({ kind: 'X', spec: undefined }, deployment)), ['.kind']);
    assert.deepEqual(toFieldSet(['a'], typeOf({ type: 'array', items: str })), {});
  });

  test('a root list of items owns each item', () => {
    assert.deepEqual(paths(toFieldSet(['a', 'b'], typeOf({ type: 'array', items: str, 'x-kubernetes-list-type': 'set' }))), ['[="a"]', '[="b"]']);
  });
});

describe('what a create owns (createdFieldSet)', () => {
  const present = new Set(['metadata', 'spec', 'status']);
  const created = (obj: unknown) => paths(createdFieldSet(obj, deployment, present));

  test('every path set, each struct, map and item a member; the zero-value structs only through their content', () => {
    assert.deepEqual(created({ kind: 'Deployment', metadata: { name: 'x', labels: { a: '1' } }, spec: {}, status: undefined }), ['.kind', '.metadata.labels', '.metadata.labels.a', '.metadata.name']);
    assert.deepEqual(created({ spec: { template: { metadata: {} } }, other: {} }), ['.other', '.spec.template', '.spec.template.metadata']);
    assert.deepEqual(created({ spec: null, metadata: { finalizers: [] } }), ['.metadata.finalizers', '.spec']);
    assert.deepEqual(created({ spec: 'x' }), ['.spec']);
  });

  test('a value that is not a granular map is owned as toFieldSet owns it', () => {
    assert.deepEqual(createdFieldSet(null, deployment, present), {});
    const list = typeOf({ type: 'array', items: str, 'x-kubernetes-list-type': 'set' });
    assert.deepEqual(paths(createdFieldSet(['a'], list, present)), ['[="a"]']);
    const atomic = typeOf({ type: 'object', properties: { a: str }, 'x-kubernetes-map-type': 'atomic' });
    assert.deepEqual(createdFieldSet({ a: 'x' }, atomic, new Set(['a'])), {});
  });

  test('equals what a comparison with the zero-value object reports as added or modified', () => {
    const objects: unknown[] = [
      { spec: { template: { spec: { containers: [{ name: 'a', image: 'x' }, { name: 'a' }] } } } },
      { metadata: { finalizers: ['a', 'b', 'a'], labels: {} }, spec: { selector: {}, extra: [] }, status: null },
      { metadata: 'x', spec: [], status: 3 },
      { extra: { a: { b: {} } }, kind: null },
    ];
    for (const obj of objects) {
      const c = compare({ metadata: {}, spec: {}, status: {} }, obj, deployment);
      assert.ok(setsEqual(createdFieldSet(obj, deployment, present), union(c.added, c.modified)), JSON.stringify(obj));
    }
  });
});

describe('ensureNamedFieldsAreMembers', () => {
  test('only declared fields become members; unknown fields, map keys and untyped values do not', () => {
    const set = setOf(['f:spec', 'f:extra', 'f:x'], ['f:other', 'f:y'], ['f:metadata', 'f:labels', 'f:a']);
    assert.deepEqual(paths(ensureNamedFieldsAreMembers(set, deployment)), ['.metadata', '.metadata.labels', '.metadata.labels.a', '.other.y', '.spec', '.spec.extra.x']);
    assert.deepEqual(paths(ensureNamedFieldsAreMembers(set, UNTYPED)), ['.metadata.labels.a', '.other.y', '.spec.extra.x']);
    assert.deepEqual(paths(ensureNamedFieldsAreMembers(set, undefined)), ['.metadata.labels.a', '.other.y', '.spec.extra.x']);
  });

  test('inside list items declared fields become members; set items are left alone', () => {
    const set = setOf(['f:spec', 'f:template', 'f:spec', 'f:containers', 'k:{"name":"a"}', 'f:ports', 'k:{"containerPort":80,"protocol":"TCP"}', 'f:name'], ['f:metadata', 'f:finalizers', 'v:"a"']);
    assert.deepEqual(paths(ensureNamedFieldsAreMembers(set, deployment)), [
      '.metadata',
      '.metadata.finalizers',
      '.metadata.finalizers[="a"]',
      '.spec',
      '.spec.template',
      '.spec.template.spec',
      '.spec.template.spec.containers',
      '.spec.template.spec.containers[name="a"].ports',
      '.spec.template.spec.containers[name="a"].ports[containerPort=80,protocol="TCP"].name',
    ]);
  });

  test('a set already in shape is returned as is', () => {
    const set = setOf(['f:kind'], ['f:metadata'], ['f:metadata', 'f:name'], ['f:extra', 'f:x']);
    assert.equal(ensureNamedFieldsAreMembers(set, deployment), set);
  });

  test('an untyped value under a list item of an untyped list is not a struct', () => {
    const set = setOf(['k:{"a":1}', 'f:x', 'f:y']);
    assert.deepEqual(paths(ensureNamedFieldsAreMembers(set, UNTYPED)), ['[a=1].x.y']);
    const list = typeOf({ type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['a'], items: { type: 'object', properties: { a: str, x: { type: 'object', properties: { y: str } } } } });
    assert.deepEqual(paths(ensureNamedFieldsAreMembers(set, list)), ['[a=1].x', '[a=1].x.y']);
    // A field element where the type is a list names nothing.
    assert.deepEqual(paths(ensureNamedFieldsAreMembers(setOf(['f:x', 'f:y']), list)), ['.x.y']);
  });
});

describe('compare', () => {
  const cmp = (a: unknown, b: unknown) => {
    const c = compare(a, b, deployment);
    return { added: paths(c.added), modified: paths(c.modified), removed: paths(c.removed) };
  };
  const none = { added: [], modified: [], removed: [] };

  test('a struct that disappears is removed with its content', () => {
    assert.deepEqual(cmp({ spec: { replicas: 1, template: { metadata: { labels: { a: '1' } } } } }, { spec: { replicas: 1 } }), {
      ...none,
      removed: ['.spec.template', '.spec.template.metadata', '.spec.template.metadata.labels', '.spec.template.metadata.labels.a'],
    });
  });

  test('null is a value: setting it or clearing it is a modification', () => {
    assert.deepEqual(cmp({ spec: { paused: null } }, { spec: { paused: true } }), { ...none, modified: ['.spec.paused'] });
    // A struct set to null loses its content; the struct itself stays (as structured-merge-diff compares it).
    assert.deepEqual(cmp({ spec: { template: { a: 1 } } }, { spec: { template: null } }), { ...none, removed: ['.spec.template.a'] });
    assert.deepEqual(cmp({ spec: { template: {} } }, { spec: { template: null } }), { ...none, modified: ['.spec.template'] });
    assert.deepEqual(cmp({ spec: null }, { spec: null }), none);
  });

  test('empty maps and lists are leaves', () => {
    assert.deepEqual(cmp({ metadata: { labels: {} } }, { metadata: { labels: {} } }), none);
    assert.deepEqual(cmp({ metadata: { labels: {} } }, { metadata: {} }), { ...none, removed: ['.metadata.labels'] });
    assert.deepEqual(cmp({ metadata: {} }, { metadata: { labels: {} } }), { ...none, added: ['.metadata.labels'] });
    assert.deepEqual(cmp({ metadata: { labels: {} } }, { metadata: { labels: { a: '1' } } }), { ...none, added: ['.metadata.labels.a'] });
    assert.deepEqual(cmp({ metadata: { finalizers: [] } }, { metadata: { finalizers: [] } }), none);
    assert.deepEqual(cmp({ metadata: { finalizers: [] } }, { metadata: {} }), { ...none, removed: ['.metadata.finalizers'] });
    assert.deepEqual(cmp({ metadata: { finalizers: [] } }, { metadata: { finalizers: ['a'] } }), { ...none, added: ['.metadata.finalizers[="a"]'] });
    assert.deepEqual(cmp({ metadata: { finalizers: ['a'] } }, { metadata: { finalizers: [] } }), { ...none, removed: ['.metadata.finalizers[="a"]'] });
  });

  test('set items come and go by value; an atomic list changes as a whole', () => {
    assert.deepEqual(cmp({ metadata: { finalizers: ['a', 'b'] } }, { metadata: { finalizers: ['b', 'c'] } }), { ...none, added: ['.metadata.finalizers[="c"]'], removed: ['.metadata.finalizers[="a"]'] });
    assert.deepEqual(cmp({ metadata: { finalizers: ['a', 'b'] } }, { metadata: { finalizers: ['b', 'a'] } }), none);
    assert.deepEqual(cmp(containers([{ name: 'a', args: ['x'] }]), containers([{ name: 'a', args: ['x', 'y'] }])), { ...none, modified: ['.spec.template.spec.containers[name="a"].args'] });
    assert.deepEqual(cmp(containers([{ name: 'a', args: ['x'] }]), containers([{ name: 'a', args: [] }])), { ...none, modified: ['.spec.template.spec.containers[name="a"].args'] });
    assert.deepEqual(cmp(containers([{ name: 'a', args: ['x', 'y'] }]), containers([{ name: 'a', args: ['x', 'y'] }])), none);
    assert.deepEqual(cmp(containers([{ name: 'a', args: ['x'] }]), containers([{ name: 'a' }])), { ...none, removed: ['.spec.template.spec.containers[name="a"].args'] });
  });

  test('a keyed item that disappears is removed with its fields', () => {
    assert.deepEqual(cmp(containers([{ name: 'a', image: 'x' }, { name: 'b' }]), containers([{ name: 'b' }])), {
      ...none,
      removed: ['.spec.template.spec.containers[name="a"]', '.spec.template.spec.containers[name="a"].image', '.spec.template.spec.containers[name="a"].name'],
    });
  });

  test('items that appear twice on both sides compare as one value', () => {
    const twice = (image: string) => containers([{ name: 'a', image: 'x' }, { name: 'a', image }]);
    assert.deepEqual(cmp(twice('y'), twice('y')), none);
    assert.deepEqual(cmp(twice('y'), twice('z')), { ...none, modified: ['.spec.template.spec.containers[name="a"]'] });
    assert.deepEqual(cmp(twice('y'), containers([{ name: 'a', image: 'x' }, { name: 'a', image: 'y' }, { name: 'a', image: 'y' }])), { ...none, modified: ['.spec.template.spec.containers[name="a"]'] });
  });

  test('items that appear twice on one side only: the duplicated item is removed or added as a whole', () => {
    const twice = containers([{ name: 'a', image: 'x' }, { name: 'a', image: 'y' }]);
    const c1 = cmp(twice, containers([{ name: 'b' }]));
    assert.deepEqual(c1.removed, ['.spec.template.spec.containers[name="a"]']);
    assert.deepEqual(c1.added.filter((p) => p.includes('name="a"')), []);
    const c2 = cmp(containers([{ name: 'b' }]), twice);
    assert.deepEqual(c2.added.filter((p) => p.includes('name="a"')), ['.spec.template.spec.containers[name="a"]']);
    assert.deepEqual(c2.removed.filter((p) => p.includes('name="a"')), []);
    const c3 = cmp(twice, containers([{ name: 'a', image: 'x' }]));
    assert.ok(c3.removed.includes('.spec.template.spec.containers[name="a"]'), JSON.stringify(c3));
    assert.ok(c3.added.includes('.spec.template.spec.containers[name="a"].image'), JSON.stringify(c3));
    const c4 = cmp(containers([{ name: 'a', image: 'x' }]), twice);
    assert.ok(c4.added.includes('.spec.template.spec.containers[name="a"]'), JSON.stringify(c4));
    assert.ok(c4.removed.includes('.spec.template.spec.containers[name="a"].image'), JSON.stringify(c4));
  });

  test('a value that changes shape is compared both ways', () => {
    // An unknown field that was a map and is now a scalar: the leaf changes, its old content is removed.
    assert.deepEqual(cmp({ extra: { a: 1 } }, { extra: 'x' }), { ...none, modified: ['.extra'], removed: ['.extra.a'] });
    assert.deepEqual(cmp({ extra: 'x' }, { extra: { a: 1 } }), { ...none, modified: ['.extra'], added: ['.extra.a'] });
    // A struct that became a list (typed by its value: atomic).
    assert.deepEqual(cmp({ spec: { template: { a: 1 } } }, { spec: { template: [1] } }), { ...none, modified: ['.spec.template'], removed: ['.spec.template.a'] });
    assert.deepEqual(cmp({ spec: { template: [1] } }, { spec: { template: [1] } }), none);
  });

  test('unchanged shared subtrees and fields present on one side only', () => {
    const shared = { a: { b: 1 } };
    assert.deepEqual(cmp({ extra: shared }, { extra: shared }), none);
    assert.deepEqual(cmp({ kind: 'A' }, { kind: 'A', apiVersion: 'v1' }), { ...none, added: ['.apiVersion'] });
    assert.deepEqual(cmp({ kind: 'A', apiVersion: undefined }, { kind: 'A' }), none);
    assert.deepEqual(cmp({ kind: 'A' }, { kind: 'A', apiVersion: undefined }), none);
    assert.deepEqual(cmp(undefined, { kind: 'A' }), { ...none, added: ['.kind'] });
    assert.deepEqual(cmp({ kind: 'A' }, undefined), { ...none, removed: ['.kind'] });
  });

  test('an unchanged subtree shared by both sides is not looked into', () => {
    // What is stored may not fit a newer schema; only the parts that change are typed.
    const stored = containers([{ image: 'no name' }]).spec;
    assert.deepEqual(cmp({ kind: 'A', spec: stored }, { kind: 'B', spec: stored }), { ...none, modified: ['.kind'] });
    assert.equal(refusal(() => compare({ kind: 'A', spec: stored }, { kind: 'B', spec: structuredClone(stored) }, deployment)), '.spec.template.spec.containers: associative list with keys has an element that omits all key fields ["name"] (and doesn\'t have default values for any key fields)');
  });

  test('isSame', () => {
    assert.equal(isSame(compare({ kind: 'A' }, { kind: 'A' }, deployment)), true);
    assert.equal(isSame(compare({ kind: 'A' }, { kind: 'B' }, deployment)), false);
    assert.equal(isSame(compare({ kind: 'A' }, {}, deployment)), false);
    assert.equal(isSame(compare({}, { kind: 'A' }, deployment)), false);
  });
});

describe('jsonEqual', () => {
  test('deep equality of JSON values', () => {
    assert.equal(jsonEqual({ a: 1, b: [1, { c: 'x' }] }, { b: [1, { c: 'x' }], a: 1 }), true);
    assert.equal(jsonEqual({ a: 1 }, { a: 1, b: 2 }), false);
    assert.equal(jsonEqual({ a: 1, b: 2 }, { a: 1 }), false);
    assert.equal(jsonEqual({ a: 1, b: undefined }, { a: 1 }), true);
    assert.equal(jsonEqual({ a: 1 }, { a: 1, b: undefined }), true);
    assert.equal(jsonEqual({ a: undefined }, { b: 1 }), false);
    assert.equal(jsonEqual({ a: 1 }, { b: 1 }), false);
    assert.equal(jsonEqual([1, 2], [1, 2]), true);
    assert.equal(jsonEqual([1, 2], [2, 1]), false);
    assert.equal(jsonEqual([1], [1, 2]), false);
    assert.equal(jsonEqual([], {}), false);
    assert.equal(jsonEqual({}, []), false);
    assert.equal(jsonEqual({ 0: 'a' }, ['a']), false);
    assert.equal(jsonEqual(['a'], { 0: 'a' }), false);
    assert.equal(jsonEqual(null, {}), false);
    assert.equal(jsonEqual({}, null), false);
    assert.equal(jsonEqual(null, null), true);
    assert.equal(jsonEqual(1, '1'), false);
    assert.equal(jsonEqual('a', 'a'), true);
    assert.equal(jsonEqual({}, {}), true);
    assert.equal(jsonEqual({ toString: 1 }, {}), false);
    assert.equal(jsonEqual({ a: { toString: undefined } }, { a: {} }), true);
  });
});

describe('merge', () => {
  test('the configuration wins; fields it does not set are kept; null removes', () => {
    const live = { kind: 'A', metadata: { name: 'x', labels: { a: '1', b: '2' } }, spec: { replicas: 1 } };
    assert.deepEqual(merge(live, { metadata: { labels: { b: '3', c: null, a: null } }, spec: undefined }, deployment), { kind: 'A', metadata: { name: 'x', labels: { b: '3' } }, spec: { replicas: 1 } });
    assert.deepEqual(merge(live, undefined, deployment), live);
    assert.deepEqual(merge(live, null, deployment), null);
    assert.deepEqual(merge(undefined, { kind: 'B' }, deployment), { kind: 'B' });
    assert.deepEqual(merge(null, { kind: 'B' }, deployment), { kind: 'B' });
    assert.deepEqual(merge({ spec: null }, { spec: { replicas: 2 } }, deployment), { spec: { replicas: 2 } });
    assert.deepEqual(merge({ spec: { replicas: 1 } }, { spec: { replicas: undefined, paused: undefined } }, deployment), { spec: { replicas: 1 } });
    // Keys without a value on either side do not appear in the result.
    assert.deepEqual(merge({ kind: 'A', spec: undefined }, { kind: 'B', apiVersion: undefined }, deployment), { kind: 'B' });
  });

  test('atomic values and values of another shape are replaced whole', () => {
    assert.deepEqual(merge({ spec: { selector: { matchLabels: { a: '1' } } } }, { spec: { selector: { matchLabels: { b: '2' } } } }, deployment), { spec: { selector: { matchLabels: { b: '2' } } } });
    assert.deepEqual(merge(containers([{ name: 'a', args: ['x', 'y'] }]), containers([{ name: 'a', args: ['z'] }]), deployment), containers([{ name: 'a', args: ['z'] }]));
    assert.deepEqual(merge({ extra: { a: 1 } }, { extra: 'x' }, deployment), { extra: 'x' });
    assert.deepEqual(merge({ extra: 'x' }, { extra: { a: 1 } }, deployment), { extra: { a: 1 } });
    assert.deepEqual(merge({ extra: [1, 2] }, { extra: [3] }, deployment), { extra: [3] });
    assert.deepEqual(merge({ extra: { a: 1 } }, { extra: { b: 2 } }, deployment), { extra: { a: 1, b: 2 } });
    assert.deepEqual(merge({ metadata: { labels: {} } }, { metadata: { labels: {} } }, deployment), { metadata: { labels: {} } });
    assert.deepEqual(merge({ metadata: { labels: { a: '1' } } }, { metadata: { labels: {} } }, deployment), { metadata: { labels: { a: '1' } } });
    assert.deepEqual(merge({ metadata: { finalizers: [] } }, { metadata: { finalizers: [] } }, deployment), { metadata: { finalizers: [] } });
  });

  test('a key named __proto__ is kept as data', () => {
    const live = JSON.parse('{"metadata":{"labels":{"__proto__":"x","a":"1"}}}') as unknown;
    const config = JSON.parse('{"metadata":{"labels":{"b":"2"}},"extra":{"__proto__":"y"}}') as unknown;
    const out = merge(live, config, deployment) as { metadata: { labels: Record<string, unknown> }; extra: Record<string, unknown> };
    assert.deepEqual(Object.keys(out.metadata.labels), ['__proto__', 'a', 'b']);
    assert.equal(Object.getOwnPropertyDescriptor(out.metadata.labels, '__proto__')?.value, 'x');
    assert.equal(Object.getPrototypeOf(out.metadata.labels), Object.prototype);
    assert.deepEqual(Object.getOwnPropertyDescriptor(out.metadata.labels, '__proto__'), { value: 'x', enumerable: true, configurable: true, writable: true });
    assert.equal(Object.getOwnPropertyDescriptor(out.extra, '__proto__')?.value, 'y');
  });

  test('a configuration with the same item twice is refused', () => {
    assert.equal(refusal(() => merge(containers([]), containers([{ name: 'a' }, { name: 'b' }, { name: 'a' }]), deployment)), '.spec.template.spec.containers[name="a"]: duplicate entries for key [name="a"]');
    assert.equal(refusal(() => merge(containers([{ name: 'x' }]), containers([{ name: 'a' }, { name: 'a' }]), deployment)), '.spec.template.spec.containers[name="a"]: duplicate entries for key [name="a"]');
  });

  test('keyed items merge field by field', () => {
    assert.deepEqual(merge(containers([{ name: 'a', image: 'x', args: ['1'] }, { name: 'b' }]), containers([{ name: 'a', image: 'y' }]), deployment), containers([{ name: 'a', image: 'y', args: ['1'] }, { name: 'b' }]));
    assert.deepEqual(merge(containers([{ name: 'a', image: 'x' }]), containers([{ name: 'a', image: null }]), deployment), containers([{ name: 'a' }]));
    assert.deepEqual(merge(containers([{ name: 'a' }]), containers([]), deployment), containers([{ name: 'a' }]));
    assert.deepEqual(merge(containers([]), containers([{ name: 'a' }]), deployment), containers([{ name: 'a' }]));
    assert.deepEqual(merge(containers([]), containers([]), deployment), containers([]));
  });

  test('inputs are not modified', () => {
    const live = { metadata: { labels: { a: '1' }, finalizers: ['a'] } };
    const config = { metadata: { labels: { b: '2' }, finalizers: ['b'] } };
    const liveCopy = structuredClone(live);
    const configCopy = structuredClone(config);
    assert.deepEqual(merge(live, config, deployment), { metadata: { labels: { a: '1', b: '2' }, finalizers: ['a', 'b'] } });
    assert.deepEqual(live, liveCopy);
    assert.deepEqual(config, configCopy);
  });
});

describe('validateConfiguration', () => {
  const message = (value: unknown) => {
    try {
      validateConfiguration(value, deployment);
      return 'accepted';
    } catch (err) {
      assert.ok(err instanceof TypedValueError);
      return err.message;
    }
  };

  test('shapes are checked inside list items and maps, not inside atomic values', () => {
    assert.equal(message(containers([{ name: 'a', ports: 5 }])), '.spec.template.spec.containers[name="a"].ports: expected list, got &{5}');
    assert.equal(message(containers([{ name: 'a', ports: [{ containerPort: 80, protocol: 'UDP' }, { containerPort: 80, protocol: 'UDP' }] }])), '.spec.template.spec.containers[name="a"].ports: duplicate entries for key [containerPort=80,protocol="UDP"]');
    assert.equal(message({ metadata: { finalizers: ['a', 'a'] } }), '.metadata.finalizers: duplicate entries for key [="a"]');
    assert.equal(message({ metadata: { finalizers: ['a', 'b'] } }), 'accepted');
    assert.equal(message({ spec: { template: { spec: 3 } } }), '.spec.template.spec: expected map, got &{3}');
    assert.equal(message({ spec: { template: { spec: { containers: true } } } }), '.spec.template.spec.containers: expected list, got &{true}');
    // Atomic values are not looked into.
    assert.equal(message({ spec: { selector: { matchLabels: 'x' } } }), 'accepted');
    assert.equal(message(containers([{ name: 'a', args: [{}, {}] }])), 'accepted');
    // A scalar field with a map or list, an unknown field with anything: accepted here.
    assert.equal(message({ kind: { a: 1 }, extra: { b: [1] } }), 'accepted');
    assert.equal(message(null), 'accepted');
    assert.equal(message(undefined), 'accepted');
    assert.equal(message('x'), 'expected map, got &{x}');
  });

  test('values print as Go prints them', () => {
    assert.equal(message({ metadata: { finalizers: { z: { y: [false, null] }, a: 'x' } } }), '.metadata.finalizers: expected list, got &{map[a:x z:map[y:[false <nil>]]]}');
    assert.equal(message({ metadata: [] }), '.metadata: expected map, got &{[]}');
    assert.equal(message({ metadata: [{}] }), '.metadata: expected map, got &{[map[]]}');
    assert.equal(message({ metadata: 1.5 }), '.metadata: expected map, got &{1.5}');
  });
});

describe('removeItems', () => {
  test('an empty set or a set naming nothing present leaves the object as it is', () => {
    const obj = { metadata: { name: 'x', finalizers: ['a'] }, spec: { template: { spec: { containers: [{ name: 'a' }] } } } };
    assert.equal(removeItems(obj, {}, deployment), obj);
    assert.deepEqual(removeItems(obj, setOf(['f:metadata', 'f:labels', 'f:a'], ['f:metadata', 'f:finalizers', 'v:"b"'], ['f:spec', 'f:template', 'f:spec', 'f:containers', 'k:{"name":"b"}']), deployment), obj);
    assert.equal(removeItems(obj, setOf(['f:kind'], ['f:status', 'f:replicas']), deployment), obj);
    const set = typeOf({ type: 'array', items: str, 'x-kubernetes-list-type': 'set' });
    const list = ['a'];
    assert.equal(removeItems(list, setOf(['v:"b"']), set), list);
    // Null values are not entered.
    const nulls = { metadata: null, spec: { template: { spec: { containers: null } } } };
    assert.deepEqual(removeItems(nulls, setOf(['f:metadata', 'f:name'], ['f:spec', 'f:template', 'f:spec', 'f:containers', 'k:{"name":"a"}', 'f:image']), deployment), nulls);
  });

  test('set items are removed by value; a list left empty goes, and so does a struct left empty', () => {
    const obj = { metadata: { finalizers: ['a', 'b'] } };
    assert.deepEqual(removeItems(obj, setOf(['f:metadata', 'f:finalizers', 'v:"a"']), deployment), { metadata: { finalizers: ['b'] } });
    assert.equal(removeItems(obj, setOf(['f:metadata', 'f:finalizers', 'v:"a"'], ['f:metadata', 'f:finalizers', 'v:"b"']), deployment), undefined);
    assert.deepEqual(removeItems({ kind: 'A', ...obj }, setOf(['f:metadata', 'f:finalizers', 'v:"a"'], ['f:metadata', 'f:finalizers', 'v:"b"']), deployment), { kind: 'A' });
  });

  test('removing fields of an item keeps the item while it has fields left', () => {
    const obj = containers([{ name: 'a', image: 'x' }, { name: 'b', image: 'y' }]);
    assert.deepEqual(removeItems(obj, setOf(['f:spec', 'f:template', 'f:spec', 'f:containers', 'k:{"name":"a"}', 'f:image']), deployment), containers([{ name: 'a' }, { name: 'b', image: 'y' }]));
    assert.deepEqual(
      removeItems(obj, setOf(['f:spec', 'f:template', 'f:spec', 'f:containers', 'k:{"name":"a"}', 'f:image'], ['f:spec', 'f:template', 'f:spec', 'f:containers', 'k:{"name":"a"}', 'f:name']), deployment),
      containers([{ name: 'b', image: 'y' }]),
    );
  });

  test('atomic values, empty values and scalars are never entered', () => {
    const sel = { spec: { selector: { matchLabels: { a: '1' } } } };
    assert.deepEqual(removeItems(sel, setOf(['f:spec', 'f:selector', 'f:matchLabels', 'f:a']), deployment), sel);
    const args = containers([{ name: 'a', args: ['x'] }]);
    assert.deepEqual(removeItems(args, setOf(['f:spec', 'f:template', 'f:spec', 'f:containers', 'k:{"name":"a"}', 'f:args', 'v:"x"']), deployment), args);
    const empty = { metadata: { labels: {}, finalizers: [] } };
    assert.deepEqual(removeItems(empty, setOf(['f:metadata', 'f:labels', 'f:a'], ['f:metadata', 'f:finalizers', 'v:"a"']), deployment), empty);
    const scalar = { metadata: { name: 'x' } };
    assert.deepEqual(removeItems(scalar, setOf(['f:metadata', 'f:name', 'f:x']), deployment), scalar);
    // A member path removes the field, even an empty one.
    assert.deepEqual(removeItems({ kind: 'A', ...empty }, setOf(['f:metadata', 'f:labels']), deployment), { kind: 'A', metadata: { finalizers: [] } });
  });

  test('a key named __proto__ is kept as data', () => {
    const obj = JSON.parse('{"metadata":{"labels":{"__proto__":"x","a":"1"}}}') as unknown;
    const out = removeItems(obj, setOf(['f:metadata', 'f:labels', 'f:a']), deployment) as { metadata: { labels: Record<string, unknown> } };
    assert.deepEqual(Object.keys(out.metadata.labels), ['__proto__']);
    assert.equal(Object.getPrototypeOf(out.metadata.labels), Object.prototype);
  });
});
