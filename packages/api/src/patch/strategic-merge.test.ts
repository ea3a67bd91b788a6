/**
 * The merge of strategic-merge.ts in the corners the other suites leave open: where unlisted
 * elements go when one patch deletes, appends and orders a list; the `replace` strategy on maps;
 * both modes ('apply' through applyStrategicMergePatch, 'combine' through mergeMap as
 * createThreeWayMergePatch uses it) for `$retainKeys`, `$setElementOrder` and
 * `$deleteFromPrimitiveList`, with their errors; directives inside added values. Expected results
 * are kube-apiserver's (k8s.io/apimachinery/pkg/util/strategicpatch), except where the header of
 * strategic.ts says Setpoint differs.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Schema } from '../schema.js';
import { ApiError } from '../meta/errors.js';
import { applyStrategicMergePatch } from './strategic.js';
import { DELETED, mergeMap } from './strategic-merge.js';
import type { JsonObject } from './value.js';

const str: Schema = { type: 'string' };
const mergedList = (mergeKey: string, items: Schema, strategy = 'merge'): Schema => ({
  type: 'array',
  items,
  'x-kubernetes-patch-strategy': strategy,
  'x-kubernetes-patch-merge-key': mergeKey,
});
const primitiveSet: Schema = { type: 'array', items: str, 'x-kubernetes-patch-strategy': 'merge' };
const item: Schema = {
  type: 'object',
  properties: {
    name: str,
    value: str,
    tags: primitiveSet,
    sub: mergedList('name', { type: 'object', properties: { name: str, value: str } }),
    conf: { type: 'object', 'x-kubernetes-patch-strategy': 'replace', additionalProperties: str },
  },
};
const schema: Schema = {
  type: 'object',
  properties: {
    list: mergedList('name', item),
    tags: primitiveSet,
    plain: { type: 'array', items: str },
    conf: { type: 'object', 'x-kubernetes-patch-strategy': 'replace', properties: { a: str, b: str, c: str, nested: { type: 'object' } } },
    strategy: { type: 'object', 'x-kubernetes-patch-strategy': 'retainKeys', properties: { type: str, rolling: { type: 'object' }, other: str } },
    noKey: { type: 'array', items: { type: 'object' }, 'x-kubernetes-patch-strategy': 'merge' },
    meta: { type: 'object', properties: { labels: { type: 'object', additionalProperties: str } } },
  },
};

const names = (n: string[]): JsonObject[] => n.map((name) => ({ name }));

function apply(original: unknown, patch: unknown): unknown {
  return applyStrategicMergePatch(structuredClone(original), structuredClone(patch), schema);
}

/** mergeMap in 'combine' mode, as createThreeWayMergePatch adds the changes onto the deletions. */
function combine(deletions: JsonObject, changes: JsonObject): JsonObject | typeof DELETED {
  return mergeMap(structuredClone(deletions), structuredClone(changes), schema, '', 'combine');
}

function assertBadRequest(run: () => unknown, message: string | RegExp): void {
  assert.throws(run, (err: unknown) => {
    assert.ok(err instanceof ApiError, `not an ApiError: ${String(err)}`);
    assert.equal(err.code, 400);
    if (typeof message === 'string') assert.equal(err.message, message);
    else assert.match(err.message, message);
    return true;
  });
}

describe('strategic merge: where unlisted elements go after $patch: delete, appends and $setElementOrder', () => {
  // kube-apiserver deletes in place: the freed slots at the end of the original list are taken
  // by the appended elements, so an appended element counts as after the server-only ones.
  it('one deletion, two appended elements: the first takes the freed slot', () => {
    const original = { list: names(['a', 'b', 's1', 's2']) };
    const patch = { '$setElementOrder/list': names(['b', 'x', 'y']), list: [{ name: 'x' }, { name: 'y' }, { name: 'a', $patch: 'delete' }] };
    assert.deepEqual(apply(original, patch), { list: names(['b', 's1', 's2', 'x', 'y']) });
  });

  it('two deletions, two appended elements: both take freed slots', () => {
    const original = { list: names(['a', 'b', 'c', 's']) };
    const patch = { '$setElementOrder/list': names(['c', 'x', 'y']), list: [{ name: 'a', $patch: 'delete' }, { name: 'x' }, { name: 'b', $patch: 'delete' }, { name: 'y' }] };
    assert.deepEqual(apply(original, patch), { list: names(['c', 's', 'x', 'y']) });
  });

  it('more appended elements than freed slots: the rest go after', () => {
    const original = { list: names(['a', 's']) };
    const patch = { '$setElementOrder/list': names(['x', 'y']), list: [{ name: 'x' }, { name: 'y' }, { name: 'a', $patch: 'delete' }] };
    assert.deepEqual(apply(original, patch), { list: names(['s', 'x', 'y']) });
  });

  it('deleting the last element, then the first', () => {
    const original = { list: names(['a', 'b', 's', 'z']) };
    const patch = { '$setElementOrder/list': names(['b', 'x']), list: [{ name: 'z', $patch: 'delete' }, { name: 'a', $patch: 'delete' }, { name: 'x' }] };
    assert.deepEqual(apply(original, patch), { list: names(['b', 's', 'x']) });
  });

  it('a listed original element after the appended one in the order', () => {
    const original = { list: names(['a', 's', 'k']) };
    const patch = { '$setElementOrder/list': names(['x', 'k']), list: [{ name: 'x' }, { name: 'a', $patch: 'delete' }] };
    // x takes the freed slot after k: s (before k) goes first; x before k by the order list.
    assert.deepEqual(apply(original, patch), { list: names(['s', 'x', 'k']) });
  });

  it('a deletion that matches nothing frees no slot', () => {
    const original = { list: names(['b', 's']) };
    const patch = { '$setElementOrder/list': names(['x', 'b']), list: [{ name: 'x' }, { name: 'zz', $patch: 'delete' }] };
    // x is not in the server's list: it goes before the server-only s, as ordered before b.
    assert.deepEqual(apply(original, patch), { list: names(['x', 'b', 's']) });
  });

  it('deleting the same key twice frees one slot per element', () => {
    const original = { list: names(['a', 'b', 's']) };
    const patch = {
      '$setElementOrder/list': names(['b', 'x', 'y']),
      list: [{ name: 'a', $patch: 'delete' }, { name: 'a', $patch: 'delete' }, { name: 'x' }, { name: 'y' }],
    };
    // One slot freed (a was one element): x takes it, after s; y follows.
    assert.deepEqual(apply(original, patch), { list: names(['b', 's', 'x', 'y']) });
  });

  it('without $setElementOrder, new elements go first and server-only ones keep their order', () => {
    const original = { list: names(['a', 's1', 'b', 's2']) };
    const patch = { list: [{ name: 'x' }, { name: 'b', value: 'v' }, { name: 'a', $patch: 'delete' }] };
    assert.deepEqual(apply(original, patch), { list: [{ name: 'x' }, { name: 's1' }, { name: 'b', value: 'v' }, { name: 's2' }] });
  });

  it('$setElementOrder of a list of primitives with server-only values', () => {
    const original = { tags: ['s1', 'a', 's2', 'b'] };
    const patch = { '$setElementOrder/tags': ['b', 'c', 'a'], tags: ['c'] };
    assert.deepEqual(apply(original, patch), { tags: ['s1', 's2', 'b', 'c', 'a'] });
  });
});

describe('strategic merge: the replace strategy on maps', () => {
  it('apply: the patch map replaces the original map', () => {
    assert.deepEqual(apply({ conf: { a: '1', b: '2' }, keep: 1 }, { conf: { c: '3' } }), { conf: { c: '3' }, keep: 1 });
  });

  it('apply: nulls and directives in the replacing map are carried out, not stored', () => {
    const patch = { conf: { c: '3', a: null, nested: { $patch: 'delete', x: 1 }, $retainKeys: ['c'] } };
    assert.deepEqual(apply({ conf: { a: '1', b: '2' } }, patch), { conf: { c: '3' } });
  });

  it('apply: a replace-strategy map nested in a merged list element', () => {
    const original = { list: [{ name: 'a', conf: { x: '1', y: '2' }, value: 'v' }] };
    assert.deepEqual(apply(original, { list: [{ name: 'a', conf: { z: '3' } }] }), { list: [{ name: 'a', conf: { z: '3' }, value: 'v' }] });
  });

  it('apply: without the strategy the same map merges', () => {
    assert.deepEqual(apply({ meta: { labels: { a: '1' } } }, { meta: { labels: { b: '2' } } }), { meta: { labels: { a: '1', b: '2' } } });
  });

  it('combine: the changes\' map replaces the deletions\' one literally (a patch keeps its nulls)', () => {
    assert.deepEqual(combine({ conf: { a: null } }, { conf: { c: '3', b: null } }), { conf: { c: '3', b: null } });
  });
});

describe('strategic merge: combining two patches (mode combine)', () => {
  it('$retainKeys moves to the result when the deletions have none; no key is cleared', () => {
    const merged = combine({ strategy: { rolling: null } }, { strategy: { $retainKeys: ['type'], type: 'Recreate' } });
    assert.deepEqual(merged, { strategy: { rolling: null, $retainKeys: ['type'], type: 'Recreate' } });
  });

  it('equal $retainKeys in both patches are kept once', () => {
    const merged = combine({ strategy: { $retainKeys: ['type'], rolling: null } }, { strategy: { $retainKeys: ['type'], type: 'Recreate' } });
    assert.deepEqual(merged, { strategy: { $retainKeys: ['type'], rolling: null, type: 'Recreate' } });
  });

  it('different $retainKeys in the two patches are refused', () => {
    assertBadRequest(
      () => combine({ strategy: { $retainKeys: ['type'] } }, { strategy: { $retainKeys: ['type', 'other'] } }),
      'invalid patch format of retainKeys: ["type"] and ["type","other"] differ at strategy',
    );
    assertBadRequest(() => combine({ $retainKeys: ['a'] }, { $retainKeys: ['b'] }), 'invalid patch format of retainKeys: ["a"] and ["b"] differ at the root');
  });

  it('$setElementOrder moves to the result and still orders the combined list', () => {
    const merged = combine({ list: [{ name: 'a', $patch: 'delete' }] }, { '$setElementOrder/list': names(['c', 'b']), list: names(['c', 'b']) });
    assert.deepEqual(merged, { '$setElementOrder/list': names(['c', 'b']), list: [{ name: 'c' }, { name: 'b' }, { name: 'a', $patch: 'delete' }] });
  });

  it('equal $setElementOrder lists in both patches are kept once', () => {
    const order = names(['b', 'a']);
    const merged = combine({ '$setElementOrder/list': order, list: [{ name: 'z', $patch: 'delete' }] }, { '$setElementOrder/list': order, list: [{ name: 'a', value: '1' }] });
    assert.deepEqual(merged, { '$setElementOrder/list': order, list: [{ name: 'a', value: '1' }, { name: 'z', $patch: 'delete' }] });
  });

  it('different $setElementOrder lists in the two patches are refused', () => {
    assertBadRequest(
      () => combine({ '$setElementOrder/list': names(['a']) }, { '$setElementOrder/list': names(['b']) }),
      'invalid patch format of setElementOrder list: two different $setElementOrder/list lists',
    );
  });

  it('$deleteFromPrimitiveList is carried over as it is, nulls stay', () => {
    const merged = combine({ meta: { labels: { x: null } } }, { '$deleteFromPrimitiveList/tags': ['a'], meta: { labels: { y: null, z: '1' } } });
    assert.deepEqual(merged, { '$deleteFromPrimitiveList/tags': ['a'], meta: { labels: { x: null, y: null, z: '1' } } });
  });

  it('an added value keeps its nulls and loses the maps carrying $patch', () => {
    const merged = combine({}, { meta: { labels: { a: null } }, list: [{ name: 'a', sub: [{ name: 's', $patch: 'delete' }, { name: 't' }] }, { $patch: 'replace' }] });
    assert.deepEqual(merged, { meta: { labels: { a: null } }, list: [{ name: 'a', sub: [{ name: 't' }] }] });
  });

  it('$patch: replace keeps the rest of the map as a patch', () => {
    assert.deepEqual(combine({ meta: { labels: { a: null } } }, { meta: { labels: { $patch: 'replace', b: null } } }), { meta: { labels: { b: null } } });
  });

  it('$patch: delete removes the map', () => {
    assert.deepEqual(combine({ meta: { labels: { a: null } }, k: 1 }, { meta: { $patch: 'delete' } }), { k: 1 });
    assert.equal(combine({ a: 1 }, { $patch: 'delete' }), DELETED);
  });
});

describe('strategic merge: directives inside added values (apply)', () => {
  it('an unknown $patch in an added map is refused', () => {
    assertBadRequest(() => apply({}, { meta: { labels: { $patch: 'explode', a: '1' } } }), 'unknown patch type: "explode" in map: {"$patch":"explode","a":"1"}');
  });

  it('an unknown $patch in an element of an added list is refused', () => {
    assertBadRequest(() => apply({}, { list: [{ name: 'a', $patch: 'explode' }] }), 'unknown patch type: "explode" in map: {"name":"a","$patch":"explode"}');
  });

  it('$patch: merge in an element of an added list is refused', () => {
    assertBadRequest(() => apply({}, { list: [{ name: 'a' }, { $patch: 'merge' }] }), 'merging lists cannot yet be specified in the patch (list)');
  });

  it('an unknown $patch on a value replacing one of another type is refused', () => {
    assertBadRequest(() => apply({ meta: 'text' }, { meta: { $patch: 'explode' } }), /^unknown patch type: "explode"/);
  });

  it('an unknown $patch in an appended list element is refused', () => {
    assertBadRequest(() => apply({ list: names(['a']) }, { list: [{ name: 'b', sub: [{ name: 's', $patch: 'bogus' }] }] }), /^unknown patch type: "bogus"/);
  });

  it('$patch: merge and replace on added maps are removed, delete drops the map', () => {
    const patch = { meta: { $patch: 'merge', labels: { $patch: 'replace', a: '1' } }, gone: { $patch: 'delete', x: 1 }, list: [{ name: 'a', $patch: 'delete' }, { name: 'b' }] };
    assert.deepEqual(apply({}, patch), { meta: { labels: { a: '1' } }, list: [{ name: 'b' }] });
  });

  it('parallel lists inside added maps are removed; nulls in maps go, nulls in lists stay', () => {
    const patch = { list: [{ name: 'a', '$setElementOrder/sub': [], '$deleteFromPrimitiveList/tags': ['x'], value: null, tags: ['t'] }], plain: ['p', null] };
    assert.deepEqual(apply({}, patch), { list: [{ name: 'a', tags: ['t'] }], plain: ['p', null] });
  });

  it('an unknown $patch on a nested map the original has is refused', () => {
    assertBadRequest(() => apply({ meta: { labels: { a: '1' } } }, { meta: { labels: { $patch: 'explode' } } }), 'unknown patch type: "explode" in map: {"$patch":"explode"}');
  });
});

describe('strategic merge: parallel lists and $retainKeys (apply)', () => {
  it('$retainKeys clears unlisted keys and lets the patch null or order unlisted ones', () => {
    const original = { strategy: { type: 'RollingUpdate', rolling: { x: 1 }, other: 'o' } };
    const patch = { strategy: { $retainKeys: ['type', 'other'], type: 'Recreate', rolling: null, '$setElementOrder/x': [], '$deleteFromPrimitiveList/y': [] } };
    assert.deepEqual(apply(original, patch), { strategy: { type: 'Recreate', other: 'o' } });
  });

  it('$retainKeys: [] clears the map', () => {
    assert.deepEqual(apply({ strategy: { type: 'a', other: 'b' } }, { strategy: { $retainKeys: [] } }), { strategy: {} });
  });

  it('$retainKeys naming a key the patch sets, at the root', () => {
    assertBadRequest(() => apply({ a: 1 }, { $retainKeys: ['a'], b: 2 }), 'invalid patch format of retainKeys: the patch sets "b", which is not in $retainKeys');
  });

  it('$deleteFromPrimitiveList on a value that is not a list deletes nothing and adds nothing', () => {
    assert.deepEqual(apply({ tags: 'x' }, { '$deleteFromPrimitiveList/tags': ['x'] }), { tags: 'x' });
  });

  it('$deleteFromPrimitiveList refuses maps and lists among the values', () => {
    assertBadRequest(() => apply({ tags: ['a'] }, { '$deleteFromPrimitiveList/tags': [{ a: 1 }] }), 'invalid patch format of primitive list: tags may only list primitive values to delete');
    assertBadRequest(() => apply({ tags: ['a'] }, { '$deleteFromPrimitiveList/tags': [['a']] }), /^invalid patch format of primitive list: tags may only/);
  });

  it('$deleteFromPrimitiveList with a malformed key', () => {
    assertBadRequest(() => apply({}, { '$deleteFromPrimitiveListX/tags': ['a'] }), 'invalid patch format of primitive list: $deleteFromPrimitiveListX/tags is not of the form $deleteFromPrimitiveList/<field>');
    assertBadRequest(() => apply({}, { '$deleteFromPrimitiveList/tags': 'a' }), 'invalid patch format of primitive list: the value of $deleteFromPrimitiveList/tags must be a list');
  });

  it('$deleteFromPrimitiveList works on a list without the merge strategy', () => {
    assert.deepEqual(apply({ plain: ['a', 'b', 'c'] }, { '$deleteFromPrimitiveList/plain': ['b'] }), { plain: ['a', 'c'] });
  });

  it('$setElementOrder for a list the patch deletes orders nothing', () => {
    assert.deepEqual(apply({ list: names(['a', 'b']), k: 1 }, { '$setElementOrder/list': names(['b', 'a']), list: null }), { k: 1 });
  });

  it('$setElementOrder for a list neither side has adds nothing', () => {
    assert.deepEqual(apply({ k: 1 }, { '$setElementOrder/list': names(['b', 'a']) }), { k: 1 });
  });

  it('$setElementOrder with a patch value that is not a list', () => {
    assertBadRequest(() => apply({ list: names(['a']) }, { '$setElementOrder/list': names(['a']), list: { name: 'a' } }), 'invalid patch format of setElementOrder list: list in the patch is not a list');
  });

  it('$setElementOrder with a malformed key', () => {
    assertBadRequest(() => apply({}, { '$setElementOrderX/list': [] }), 'invalid patch format of setElementOrder list: $setElementOrderX/list is not of the form $setElementOrder/<field>');
    assertBadRequest(() => apply({}, { '$setElementOrder/list': 'a' }), 'invalid patch format of setElementOrder list: the value of $setElementOrder/list must be a list');
  });

  it('$setElementOrder entries and patch elements need the merge key', () => {
    assertBadRequest(() => apply({ list: names(['a']) }, { '$setElementOrder/list': [{ value: 'a' }] }), 'map: {"value":"a"} does not contain declared merge key: name');
    assertBadRequest(() => apply({ list: names(['a']) }, { '$setElementOrder/list': ['a'] }), 'map: "a" does not contain declared merge key: name');
    assertBadRequest(() => apply({ list: names(['a']) }, { '$setElementOrder/list': names(['a']), list: [{ value: 'a' }] }), 'map: {"value":"a"} does not contain declared merge key: name');
    assertBadRequest(() => apply({ list: names(['a']) }, { '$setElementOrder/list': [{ value: 'a' }], list: names(['a']) }), 'map: {"value":"a"} does not contain declared merge key: name');
  });

  it('$setElementOrder: an original element without its merge key', () => {
    assertBadRequest(() => apply({ list: [{ value: 'a' }] }, { '$setElementOrder/list': names(['a']) }), 'map: {"value":"a"} does not contain declared merge key: name');
  });

  it('$setElementOrder: an empty order list or an empty patch list skips the order check', () => {
    assert.deepEqual(apply({ list: names(['a', 'b']) }, { '$setElementOrder/list': [], list: names(['b']) }), { list: names(['a', 'b']) });
    assert.deepEqual(apply({ list: names(['a', 'b']) }, { '$setElementOrder/list': names(['b', 'a']), list: [] }), { list: names(['b', 'a']) });
  });

  it('$setElementOrder: directive elements of the patch list are not checked against the order', () => {
    const patch = { '$setElementOrder/list': names(['c', 'b']), list: [{ name: 'a', $patch: 'delete' }, { name: 'c' }, { name: 'b', value: 'v' }] };
    assert.deepEqual(apply({ list: names(['a', 'b']) }, patch), { list: [{ name: 'c' }, { name: 'b', value: 'v' }] });
  });

  it('$setElementOrder: the order check names the lists', () => {
    assertBadRequest(
      () => apply({}, { '$setElementOrder/tags': ['a', 'b'], tags: ['b', 'a'] }),
      'The order in patch list:\n["b","a"]\n doesn\'t match $setElementOrder/tags list:\n["a","b"]\n',
    );
  });

  it('$setElementOrder: a list of primitives the patch adds to, on a list the original lacks', () => {
    assert.deepEqual(apply({}, { '$setElementOrder/tags': ['b', 'a'], tags: ['b', 'a'] }), { tags: ['b', 'a'] });
  });

  it('$setElementOrder on a merged list of maps without a merge key leaves the order alone', () => {
    assertBadRequest(() => apply({ noKey: [{ a: 1 }] }, { noKey: [{ b: 2 }] }), 'cannot merge lists without merge key for noKey');
    assert.deepEqual(apply({ noKey: [{ a: 1 }, { b: 2 }] }, { '$setElementOrder/noKey': [{ b: 2 }, { a: 1 }] }), { noKey: [{ a: 1 }, { b: 2 }] });
  });

  it('$setElementOrder on a list of primitives: values may be of any primitive type', () => {
    assert.deepEqual(apply({ tags: [1, 'a', true] }, { '$setElementOrder/tags': [true, 1, 'a'] }), { tags: [true, 1, 'a'] });
  });
});

describe('strategic merge: lists', () => {
  it('a merged list of primitives is a set: union without duplicates, in the patch\'s order', () => {
    // c is new: it goes first; a came before b on the server, so it stays before b.
    assert.deepEqual(apply({ tags: ['a', 'b', 'a'] }, { tags: ['c', 'b', 'c'] }), { tags: ['c', 'a', 'b'] });
  });

  it('two empty merged lists stay empty', () => {
    assert.deepEqual(apply({ tags: [], list: [] }, { tags: [], list: [] }), { tags: [], list: [] });
  });

  it('an empty patch list keeps a merged list; a replaced list becomes the patch', () => {
    assert.deepEqual(apply({ tags: ['a'], plain: ['a'] }, { tags: [], plain: [] }), { tags: ['a'], plain: [] });
  });

  it('lists mixing maps and primitives, and lists of lists, are refused', () => {
    assertBadRequest(() => apply({ tags: ['a'] }, { tags: [{ a: 1 }] }), 'list element types are not identical: tags');
    assertBadRequest(() => apply({ list: names(['a']) }, { list: ['b'] }), 'list element types are not identical: list');
    assertBadRequest(() => apply({ tags: [['a']] }, { tags: ['b'] }), 'lists of lists are not supported (tags)');
  });

  it('merges a nested merged list inside a merged element, by path', () => {
    const original = { list: [{ name: 'a', sub: [{ name: 's', value: '1' }, { name: 't' }] }] };
    const patch = { list: [{ name: 'a', sub: [{ name: 's', value: '2' }, { name: 't', $patch: 'delete' }] }] };
    assert.deepEqual(apply(original, patch), { list: [{ name: 'a', sub: [{ name: 's', value: '2' }] }] });
    assertBadRequest(() => apply(original, { list: [{ name: 'a', sub: [{ $patch: 'merge' }] }] }), 'merging lists cannot yet be specified in the patch (list.sub)');
  });

  it('a patch element merges into the first original element with its key', () => {
    const original = { list: [{ name: 'a', value: '1' }, { name: 'a', value: '2' }] };
    assert.deepEqual(apply(original, { list: [{ name: 'a', value: '3' }] }), { list: [{ name: 'a', value: '3' }, { name: 'a', value: '2' }] });
  });

  it('two patch elements with the same new key: the second merges into the first', () => {
    assert.deepEqual(apply({ list: [] }, { list: [{ name: 'n', value: '1' }, { name: 'n', tags: ['t'] }] }), { list: [{ name: 'n', value: '1', tags: ['t'] }] });
  });

  it('merge keys that are not strings: numbers and objects', () => {
    const original = { list: [{ name: 1, value: 'a' }, { name: { x: 1 }, value: 'b' }] };
    const patch = { list: [{ name: { x: 1 }, value: 'c' }, { name: 1, $patch: 'delete' }] };
    assert.deepEqual(apply(original, patch), { list: [{ name: { x: 1 }, value: 'c' }] });
  });

  it('$patch: replace in a list with other directive elements', () => {
    const patch = { list: [{ name: 'z', $patch: 'delete' }, { name: 'n', value: { $patch: 'delete' } as unknown as string }, { $patch: 'replace' }] };
    assert.deepEqual(apply({ list: names(['a', 'z']) }, patch), { list: [{ name: 'n' }] });
  });

  it('$patch: replace in a list in combine mode keeps the elements as a patch', () => {
    assert.deepEqual(combine({ list: names(['a']) }, { list: [{ name: 'n', value: null }, { $patch: 'replace' }] }), { list: [{ name: 'n', value: null }] });
  });

  it('an unknown $patch in a list element is refused, in either mode', () => {
    assertBadRequest(() => combine({ list: names(['a']) }, { list: [{ name: 'a', $patch: 'x' }] }), 'unknown patch type: "x" in map: {"name":"a","$patch":"x"}');
  });

  it('combine: a deletion directive of the deletions patch keeps its place before the element it preceded', () => {
    const merged = combine({ list: [{ name: 'a', $patch: 'delete' }, { name: 'b', value: null }] }, { list: [{ name: 'c' }, { name: 'b', value: '1' }] });
    assert.deepEqual(merged, { list: [{ name: 'c' }, { name: 'a', $patch: 'delete' }, { name: 'b', value: '1' }] });
  });

  it('combine: deletion directives go after the other server-only elements', () => {
    const merged = combine({ list: [{ name: 'a', $patch: 'delete' }, { name: 's' }] }, { list: [{ name: 'c' }] });
    assert.deepEqual(merged, { list: [{ name: 'c' }, { name: 's' }, { name: 'a', $patch: 'delete' }] });
  });

  it('a value of another type replaces the original', () => {
    assert.deepEqual(apply({ tags: ['a'], meta: { labels: {} }, s: 'x' }, { tags: 'now-a-string', meta: ['now', 'a', 'list'], s: { now: 'a map' } }), {
      tags: 'now-a-string',
      meta: ['now', 'a', 'list'],
      s: { now: 'a map' },
    });
  });

  it('a replace-strategy map set to $patch: delete is removed', () => {
    assert.deepEqual(apply({ conf: { a: '1' }, k: 1 }, { conf: { $patch: 'delete' } }), { k: 1 });
  });
});

describe('strategic merge: more corners', () => {
  it('$patch: replace on a nested map drops its nulls (apply)', () => {
    assert.deepEqual(apply({ meta: { labels: { a: '1' } } }, { meta: { labels: { $patch: 'replace', b: null, c: '3' } } }), { meta: { labels: { c: '3' } } });
  });

  it('a map with $patch: delete replacing a value of another type removes the key', () => {
    assert.deepEqual(apply({ s: 'x', k: 1 }, { s: { $patch: 'delete', y: 1 } }), { k: 1 });
  });

  it('$setElementOrder on a list the original has as another type: the patch list is taken', () => {
    assert.deepEqual(apply({ list: 'text' }, { '$setElementOrder/list': names(['b', 'a']), list: names(['b', 'a']) }), { list: names(['b', 'a']) });
  });

  it('$setElementOrder: [] on a replaced list puts the elements in the original\'s order', () => {
    // Every element is "server-only" for an empty order list, sorted by the original's order.
    assert.deepEqual(apply({ plain: ['a', 'b'] }, { '$setElementOrder/plain': [], plain: ['b', 'a', 'c'] }), { plain: ['a', 'b', 'c'] });
  });

  it('an original element of a merged list without its merge key is refused', () => {
    assertBadRequest(() => apply({ list: [{ value: 'a' }] }, { list: names(['b']) }), 'map: {"value":"a"} does not contain declared merge key: name');
  });

  it('an original element without its merge key is refused after a deletion by a null key', () => {
    const original = { list: [{ name: null, value: 'a' }, { value: 'nokey' }] } as unknown as JsonObject;
    assertBadRequest(() => apply(original, { list: [{ name: null, $patch: 'delete' }] }), 'map: {"value":"nokey"} does not contain declared merge key: name');
  });
});

describe('strategic merge: scalars and sets', () => {
  it('a scalar replaces a scalar, also where the schema says the field is a merged list', () => {
    assert.deepEqual(apply({ tags: 'ab', list: 7 }, { tags: 'cd', list: 8 }), { tags: 'cd', list: 8 });
  });

  it('an empty patch list still makes a merged list of primitives a set', () => {
    assert.deepEqual(apply({ tags: ['a', 'b', 'a'] }, { tags: [] }), { tags: ['a', 'b'] });
  });
});

describe('strategic merge: a few more errors and combine corners', () => {
  it('$deleteFromPrimitiveList refuses a map among primitive values', () => {
    assertBadRequest(() => apply({ tags: ['a'] }, { '$deleteFromPrimitiveList/tags': ['a', { a: 1 }] }), /^invalid patch format of primitive list: tags may only/);
  });

  it('a patch element without the merge key is reported before an original one', () => {
    assertBadRequest(() => apply({ list: [{ value: 'o' }] }, { list: [{ value: 'p' }] }), 'map: {"value":"p"} does not contain declared merge key: name');
  });

  it('combine: a map member carrying $patch inside an added value goes', () => {
    assert.deepEqual(combine({}, { meta: { labels: { a: null }, gone: { $patch: 'delete' } } }), { meta: { labels: { a: null } } });
  });
});
