/**
 * Cases from Kubernetes' own strategic merge patch tests (k8s.io/apimachinery/pkg/util/
 * strategicpatch/patch_test.go), rewritten as data, run against the schema those tests use
 * (MergeItem, a recursive type). Lists are compared in order: these cases pin down the element
 * order kube-apiserver produces.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Schema } from '../schema.js';
import { ApiError } from '../meta/errors.js';
import { applyStrategicMergePatch, createThreeWayMergePatch, createTwoWayMergePatch } from './strategic.js';

// MergeItem and RetainKeysMergeItem: an object that contains lists of itself, every kind of list.
const str: Schema = { type: 'string' };
const mergeItem: Schema = { type: 'object' };
const retainKeysMergeItem: Schema = { type: 'object' };
const mergingList: Schema = { type: 'array', items: mergeItem, 'x-kubernetes-patch-merge-key': 'name', 'x-kubernetes-patch-strategy': 'merge' };
const mergingIntList: Schema = { type: 'array', items: { type: 'integer' }, 'x-kubernetes-patch-strategy': 'merge' };
const nonMergingList: Schema = { type: 'array', items: mergeItem };
mergeItem.properties = {
  name: str,
  value: str,
  other: str,
  mergingList,
  nonMergingList,
  mergingIntList,
  nonMergingIntList: { type: 'array', items: { type: 'integer' } },
  mergeItemPtr: { ...mergingList },
  simpleMap: { type: 'object', additionalProperties: str },
  replacingItem: { 'x-kubernetes-patch-strategy': 'replace' },
  retainKeysMap: { allOf: [retainKeysMergeItem], 'x-kubernetes-patch-strategy': 'retainKeys' },
  retainKeysMergingList: { ...mergingList, 'x-kubernetes-patch-strategy': 'merge,retainKeys' },
};
retainKeysMergeItem.properties = { name: str, value: str, other: str, simpleMap: { type: 'object', additionalProperties: str }, mergingList, nonMergingList, mergingIntList };

/** Freezes a JSON value all the way down, so that any mutation by the code under test throws. */
function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

const apply = (original: unknown, patch: unknown): unknown => applyStrategicMergePatch(deepFreeze(original), deepFreeze(patch), mergeItem);

/** A patch applied to `original` gives `modified`. */
interface ApplyCase {
  name: string;
  original: unknown;
  twoWay: unknown;
  modified: unknown;
}

/** Applying the patch fails with a message containing `expectedError`. */
interface ErrorCase {
  name: string;
  original: unknown;
  twoWay: unknown;
  expectedError: string;
}

/**
 * The two-way patch from `original` to `modified` is `twoWay` and gives `twoWayResult` (default:
 * `modified`); the three-way patch (last-applied `original`, new config `modified`, live
 * `current`) is `threeWay` and gives `result` when applied to `current`.
 */
interface RoundTripCase {
  name: string;
  original: unknown;
  modified: unknown;
  current: unknown;
  twoWay: unknown;
  threeWay: unknown;
  twoWayResult?: unknown;
  result: unknown;
}

// ---------------------------------------------------------------------------------------------
// The cases

const applyCases: ApplyCase[] = [
  {
    name: 'unique scalars when merging lists',
    original: { mergingIntList: [1, 2] },
    twoWay: { mergingIntList: [2, 3] },
    modified: { mergingIntList: [1, 2, 3] },
  },
  {
    name: 'delete all items from merging list',
    original: { mergingList: [{ name: 1 }, { name: 2 }] },
    twoWay: { mergingList: [{ $patch: 'replace' }] },
    modified: { mergingList: [] },
  },
  {
    name: 'merge empty merging lists',
    original: { mergingList: [] },
    twoWay: { mergingList: [] },
    modified: { mergingList: [] },
  },
  {
    name: 'delete all keys from map',
    original: { name: 1, value: 1 },
    twoWay: { $patch: 'replace' },
    modified: {},
  },
  {
    name: 'add key and delete all keys from map',
    original: { name: 1, value: 1 },
    twoWay: { other: 'a', $patch: 'replace' },
    modified: { other: 'a' },
  },
  {
    name: 'delete all duplicate entries in a merging list',
    original: { mergingList: [{ name: 1 }, { name: 1 }, { name: 2, value: 'a' }, { name: 3 }, { name: 3 }] },
    twoWay: { mergingList: [{ name: 1, $patch: 'delete' }, { name: 3, $patch: 'delete' }] },
    modified: { mergingList: [{ name: 2, value: 'a' }] },
  },
  {
    name: 'retainKeys map can add a field when no retainKeys directive present',
    original: { retainKeysMap: { name: 'foo' } },
    twoWay: { retainKeysMap: { value: 'bar' } },
    modified: { retainKeysMap: { name: 'foo', value: 'bar' } },
  },
  {
    name: 'retainKeys map can change a field when no retainKeys directive present',
    original: { retainKeysMap: { name: 'foo', value: 'a' } },
    twoWay: { retainKeysMap: { value: 'b' } },
    modified: { retainKeysMap: { name: 'foo', value: 'b' } },
  },
  {
    name: 'retainKeys map can delete a field when no retainKeys directive present',
    original: { retainKeysMap: { name: 'foo', value: 'a' } },
    twoWay: { retainKeysMap: { value: null } },
    modified: { retainKeysMap: { name: 'foo' } },
  },
  {
    name: 'retainKeys map merge an empty map',
    original: { retainKeysMap: { name: 'foo', value: 'a' } },
    twoWay: { retainKeysMap: {} },
    modified: { retainKeysMap: { name: 'foo', value: 'a' } },
  },
  {
    name: 'retainKeys list can add a field when no retainKeys directive present',
    original: { retainKeysMergingList: [{ name: 'bar' }, { name: 'foo' }] },
    twoWay: { retainKeysMergingList: [{ name: 'foo', value: 'a' }] },
    modified: { retainKeysMergingList: [{ name: 'bar' }, { name: 'foo', value: 'a' }] },
  },
  {
    name: 'retainKeys list can change a field when no retainKeys directive present',
    original: { retainKeysMergingList: [{ name: 'bar' }, { name: 'foo', value: 'a' }] },
    twoWay: { retainKeysMergingList: [{ name: 'foo', value: 'b' }] },
    modified: { retainKeysMergingList: [{ name: 'bar' }, { name: 'foo', value: 'b' }] },
  },
  {
    name: 'retainKeys list can delete a field when no retainKeys directive present',
    original: { retainKeysMergingList: [{ name: 'bar' }, { name: 'foo', value: 'a' }] },
    twoWay: { retainKeysMergingList: [{ name: 'foo', value: null }] },
    modified: { retainKeysMergingList: [{ name: 'bar' }, { name: 'foo' }] },
  },
  {
    name: 'preserve the order from the patch in a merging list',
    original: { mergingList: [{ name: 1 }, { name: 2, value: 'b' }, { name: 3 }] },
    twoWay: { mergingList: [{ name: 3, value: 'c' }, { name: 1, value: 'a' }, { name: 2, other: 'x' }] },
    modified: { mergingList: [{ name: 3, value: 'c' }, { name: 1, value: 'a' }, { name: 2, value: 'b', other: 'x' }] },
  },
  {
    name: 'preserve the order from the patch in a merging list 2',
    original: { mergingList: [{ name: 1 }, { name: 2, value: 'b' }, { name: 3 }] },
    twoWay: { mergingList: [{ name: 3, value: 'c' }, { name: 1, value: 'a' }] },
    modified: { mergingList: [{ name: 2, value: 'b' }, { name: 3, value: 'c' }, { name: 1, value: 'a' }] },
  },
  {
    name: 'preserve the order from the patch in a merging int list',
    original: { mergingIntList: [1, 2, 3] },
    twoWay: { mergingIntList: [3, 1, 2] },
    modified: { mergingIntList: [3, 1, 2] },
  },
  {
    name: 'preserve the order from the patch in a merging int list',
    original: { mergingIntList: [1, 2, 3] },
    twoWay: { mergingIntList: [3, 1] },
    modified: { mergingIntList: [2, 3, 1] },
  },
  {
    name: '$setElementOrder contains item that is not present in the list to be merged',
    original: { mergingList: [{ name: 1 }, { name: 3 }] },
    twoWay: { '$setElementOrder/mergingList': [{ name: 3 }, { name: 2 }, { name: 1 }], mergingList: [{ name: 3, value: 3 }, { name: 1, value: 1 }] },
    modified: { mergingList: [{ name: 3, value: 3 }, { name: 1, value: 1 }] },
  },
  {
    name: '$setElementOrder contains item that is not present in the int list to be merged',
    original: { mergingIntList: [1, 3] },
    twoWay: { '$setElementOrder/mergingIntList': [3, 2, 1] },
    modified: { mergingIntList: [3, 1] },
  },
  {
    name: '$deleteFromPrimitiveList of nonexistent item in primitive list should not add the item to the list',
    original: { mergingIntList: [1, 2] },
    twoWay: { '$deleteFromPrimitiveList/mergingIntList': [3] },
    modified: { mergingIntList: [1, 2] },
  },
  {
    name: '$deleteFromPrimitiveList on empty primitive list should not add the item to the list',
    original: { mergingIntList: null },
    twoWay: { '$deleteFromPrimitiveList/mergingIntList': [3] },
    modified: { mergingIntList: null },
  },
  {
    name: '$deleteFromPrimitiveList on nonexistent primitive list should not add the primitive list',
    original: { foo: ['bar'] },
    twoWay: { '$deleteFromPrimitiveList/mergingIntList': [3] },
    modified: { foo: ['bar'] },
  },
  {
    name: '$deleteFromPrimitiveList should delete item from a list with merge patch strategy',
    original: { mergingIntList: [1, 2, 3] },
    twoWay: { '$deleteFromPrimitiveList/mergingIntList': [2] },
    modified: { mergingIntList: [1, 3] },
  },
  {
    name: '$deleteFromPrimitiveList should delete item from a list without merge patch strategy',
    original: { nonMergingIntList: [1, 2, 3] },
    twoWay: { '$deleteFromPrimitiveList/nonMergingIntList': [2] },
    modified: { nonMergingIntList: [1, 3] },
  },
];

const errorCases: ErrorCase[] = [
  {
    name: 'should check if order in $setElementOrder and patch list match',
    original: { mergingList: [{ name: 1 }, { name: 3 }, { name: 2 }] },
    twoWay: { '$setElementOrder/mergingList': [{ name: 1 }, { name: 2 }, { name: 3 }], mergingList: [{ name: 3, value: 3 }, { name: 1, value: 1 }] },
    expectedError: 'doesn\'t match',
  },
  {
    name: '$setElementOrder contains item that is not present in the int list to be merged',
    original: { mergingIntList: [1, 3, 2] },
    twoWay: { '$setElementOrder/mergingIntList': [1, 2, 3], mergingIntList: [3, 1] },
    expectedError: 'doesn\'t match',
  },
  {
    name: 'missing merge key should error out',
    original: { mergingList: [{ name: 1, value: 'a' }] },
    twoWay: { mergingList: [{ value: 'b' }] },
    expectedError: 'does not contain declared merge key',
  },
];

const roundTripCases: RoundTripCase[] = [
  {
    name: 'nested patch merge with empty list',
    original: { name: 'hi' },
    modified: { name: 'hi', mergingList: [{ name: 'hello' }, { $patch: 'delete', name: 'doesntexist' }] },
    current: { name: 'hi', mergingList: [{ name: 'hello2' }] },
    twoWay: { mergingList: [{ name: 'hello' }, { $patch: 'delete', name: 'doesntexist' }] },
    threeWay: { '$setElementOrder/mergingList': [{ name: 'hello' }, { name: 'doesntexist' }], mergingList: [{ name: 'hello' }] },
    twoWayResult: { name: 'hi', mergingList: [{ name: 'hello' }] },
    result: { name: 'hi', mergingList: [{ name: 'hello' }, { name: 'hello2' }] },
  },
  {
    name: 'delete items in lists of scalars',
    original: { mergingIntList: [1, 2, 3] },
    modified: { mergingIntList: [1, 2] },
    current: { mergingIntList: [1, 2, 3, 4] },
    twoWay: { '$setElementOrder/mergingIntList': [1, 2], '$deleteFromPrimitiveList/mergingIntList': [3] },
    threeWay: { '$setElementOrder/mergingIntList': [1, 2], '$deleteFromPrimitiveList/mergingIntList': [3] },
    result: { mergingIntList: [1, 2, 4] },
  },
  {
    name: 'delete all duplicate items in lists of scalars',
    original: { mergingIntList: [1, 2, 3, 3] },
    modified: { mergingIntList: [1, 2] },
    current: { mergingIntList: [1, 2, 3, 3, 4] },
    twoWay: { '$setElementOrder/mergingIntList': [1, 2], '$deleteFromPrimitiveList/mergingIntList': [3] },
    threeWay: { '$setElementOrder/mergingIntList': [1, 2], '$deleteFromPrimitiveList/mergingIntList': [3] },
    result: { mergingIntList: [1, 2, 4] },
  },
  {
    name: 'add and delete items in lists of scalars',
    original: { mergingIntList: [1, 2, 3] },
    modified: { mergingIntList: [1, 2, 4] },
    current: { mergingIntList: [1, 2, 3, 4] },
    twoWay: { '$setElementOrder/mergingIntList': [1, 2, 4], '$deleteFromPrimitiveList/mergingIntList': [3], mergingIntList: [4] },
    threeWay: { '$setElementOrder/mergingIntList': [1, 2, 4], '$deleteFromPrimitiveList/mergingIntList': [3] },
    result: { mergingIntList: [1, 2, 4] },
  },
  {
    name: 'merge lists of maps',
    original: { mergingList: [{ name: 1 }, { name: 2, value: 2 }] },
    modified: { mergingList: [{ name: 4, value: 4 }, { name: 1 }, { name: 2, value: 2 }, { name: 3, value: 3 }] },
    current: { mergingList: [{ name: 1, other: 'a' }, { name: 2, value: 2, other: 'b' }] },
    twoWay: { '$setElementOrder/mergingList': [{ name: 4 }, { name: 1 }, { name: 2 }, { name: 3 }], mergingList: [{ name: 4, value: 4 }, { name: 3, value: 3 }] },
    threeWay: { '$setElementOrder/mergingList': [{ name: 4 }, { name: 1 }, { name: 2 }, { name: 3 }], mergingList: [{ name: 4, value: 4 }, { name: 3, value: 3 }] },
    result: { mergingList: [{ name: 4, value: 4 }, { name: 1, other: 'a' }, { name: 2, value: 2, other: 'b' }, { name: 3, value: 3 }] },
  },
  {
    name: 'add an item that already exists in current object in merging list',
    original: { mergingList: [{ name: 1, value: 'a' }, { name: 2 }] },
    modified: { mergingList: [{ name: 1, value: 'a' }, { name: 2 }, { name: 3 }] },
    current: { mergingList: [{ name: 1, value: 'a', other: 'x' }, { name: 2 }, { name: 3 }] },
    twoWay: { '$setElementOrder/mergingList': [{ name: 1 }, { name: 2 }, { name: 3 }], mergingList: [{ name: 3 }] },
    threeWay: {},
    result: { mergingList: [{ name: 1, value: 'a', other: 'x' }, { name: 2 }, { name: 3 }] },
  },
  {
    name: 'delete map from merging list',
    original: { mergingList: [{ name: 1 }, { name: 2 }] },
    modified: { mergingList: [{ name: 2 }] },
    current: { mergingList: [{ name: 1 }, { name: 2, other: 'b' }] },
    twoWay: { '$setElementOrder/mergingList': [{ name: 2 }], mergingList: [{ name: 1, $patch: 'delete' }] },
    threeWay: { '$setElementOrder/mergingList': [{ name: 2 }], mergingList: [{ name: 1, $patch: 'delete' }] },
    result: { mergingList: [{ name: 2, other: 'b' }] },
  },
  {
    name: 'delete missing map from merging list',
    original: { mergingList: [{ name: 1 }, { name: 2 }] },
    modified: { mergingList: [{ name: 2 }] },
    current: { mergingList: [{ name: 2, other: 'b' }] },
    twoWay: { '$setElementOrder/mergingList': [{ name: 2 }], mergingList: [{ name: 1, $patch: 'delete' }] },
    threeWay: { '$setElementOrder/mergingList': [{ name: 2 }], mergingList: [{ name: 1, $patch: 'delete' }] },
    result: { mergingList: [{ name: 2, other: 'b' }] },
  },
  {
    name: 'add map and delete map from merging list',
    original: { mergingList: [{ name: 1 }, { name: 2 }] },
    modified: { mergingList: [{ name: 2 }, { name: 3 }] },
    current: { mergingList: [{ name: 1 }, { name: 2, other: 'b' }, { name: 4, other: 'c' }] },
    twoWay: { '$setElementOrder/mergingList': [{ name: 2 }, { name: 3 }], mergingList: [{ name: 3 }, { name: 1, $patch: 'delete' }] },
    threeWay: { '$setElementOrder/mergingList': [{ name: 2 }, { name: 3 }], mergingList: [{ name: 3 }, { name: 1, $patch: 'delete' }] },
    result: { mergingList: [{ name: 2, other: 'b' }, { name: 4, other: 'c' }, { name: 3 }] },
  },
  {
    name: 'add map and delete map from merging list with conflict',
    original: { mergingList: [{ name: 1 }, { name: 2 }] },
    modified: { mergingList: [{ name: 2 }, { name: 3 }] },
    current: { mergingList: [{ name: 1, other: 'a' }, { name: 4, other: 'c' }] },
    twoWay: { '$setElementOrder/mergingList': [{ name: 2 }, { name: 3 }], mergingList: [{ name: 3 }, { name: 1, $patch: 'delete' }] },
    threeWay: { '$setElementOrder/mergingList': [{ name: 2 }, { name: 3 }], mergingList: [{ name: 2 }, { name: 3 }, { name: 1, $patch: 'delete' }] },
    result: { mergingList: [{ name: 4, other: 'c' }, { name: 2 }, { name: 3 }] },
  },
  {
    name: 'delete field from map in merging list',
    original: { mergingList: [{ name: 1, value: 1 }, { name: 2, value: 2 }] },
    modified: { mergingList: [{ name: 1 }, { name: 2, value: 2 }] },
    current: { mergingList: [{ name: 1, value: 1, other: 'a' }, { name: 2, value: 2, other: 'b' }] },
    twoWay: { '$setElementOrder/mergingList': [{ name: 1 }, { name: 2 }], mergingList: [{ name: 1, value: null }] },
    threeWay: { '$setElementOrder/mergingList': [{ name: 1 }, { name: 2 }], mergingList: [{ name: 1, value: null }] },
    result: { mergingList: [{ name: 1, other: 'a' }, { name: 2, value: 2, other: 'b' }] },
  },
  {
    name: 'replace non merging list nested in merging list',
    original: { mergingList: [{ name: 1, nonMergingList: [{ name: 1 }, { name: 2, value: 2 }] }, { name: 2 }] },
    modified: { mergingList: [{ name: 1, nonMergingList: [{ name: 1, value: 1 }] }, { name: 2 }] },
    current: { mergingList: [{ name: 1, other: 'a', nonMergingList: [{ name: 1 }, { name: 2, value: 2 }] }, { name: 2, other: 'b' }] },
    twoWay: { '$setElementOrder/mergingList': [{ name: 1 }, { name: 2 }], mergingList: [{ name: 1, nonMergingList: [{ name: 1, value: 1 }] }] },
    threeWay: { '$setElementOrder/mergingList': [{ name: 1 }, { name: 2 }], mergingList: [{ name: 1, nonMergingList: [{ name: 1, value: 1 }] }] },
    result: { mergingList: [{ name: 1, other: 'a', nonMergingList: [{ name: 1, value: 1 }] }, { name: 2, other: 'b' }] },
  },
  {
    name: 'add field to map in merging list nested in merging list',
    original: { mergingList: [{ name: 1, mergingList: [{ name: 1 }, { name: 2, value: 2 }] }, { name: 2 }] },
    modified: { mergingList: [{ name: 1, mergingList: [{ name: 1, value: 1 }, { name: 2, value: 2 }] }, { name: 2 }] },
    current: { mergingList: [{ name: 1, other: 'a', mergingList: [{ name: 1 }, { name: 2, value: 2 }] }, { name: 2, other: 'b' }] },
    twoWay: { '$setElementOrder/mergingList': [{ name: 1 }, { name: 2 }], mergingList: [{ '$setElementOrder/mergingList': [{ name: 1 }, { name: 2 }], name: 1, mergingList: [{ name: 1, value: 1 }] }] },
    threeWay: { '$setElementOrder/mergingList': [{ name: 1 }, { name: 2 }], mergingList: [{ '$setElementOrder/mergingList': [{ name: 1 }, { name: 2 }], name: 1, mergingList: [{ name: 1, value: 1 }] }] },
    result: { mergingList: [{ name: 1, other: 'a', mergingList: [{ name: 1, value: 1 }, { name: 2, value: 2 }] }, { name: 2, other: 'b' }] },
  },
  {
    name: 'add duplicate field to map in merging int list',
    original: { mergingIntList: [1, 2] },
    modified: { mergingIntList: [1, 2, 3] },
    current: { mergingIntList: [1, 2, 3] },
    twoWay: { '$setElementOrder/mergingIntList': [1, 2, 3], mergingIntList: [3] },
    threeWay: {},
    result: { mergingIntList: [1, 2, 3] },
  },
  {
    name: 'add an item in a list of primitives and preserve order',
    original: { mergingIntList: [1, 2] },
    modified: { mergingIntList: [3, 1, 2] },
    current: { mergingIntList: [1, 4, 2] },
    twoWay: { '$setElementOrder/mergingIntList': [3, 1, 2], mergingIntList: [3] },
    threeWay: { '$setElementOrder/mergingIntList': [3, 1, 2], mergingIntList: [3] },
    result: { mergingIntList: [3, 1, 4, 2] },
  },
  {
    name: 'delete an item in a list of primitives and preserve order',
    original: { mergingIntList: [1, 2, 3] },
    modified: { mergingIntList: [2, 1] },
    current: { mergingIntList: [1, 2, 3] },
    twoWay: { '$setElementOrder/mergingIntList': [2, 1], '$deleteFromPrimitiveList/mergingIntList': [3] },
    threeWay: { '$setElementOrder/mergingIntList': [2, 1], '$deleteFromPrimitiveList/mergingIntList': [3] },
    result: { mergingIntList: [2, 1] },
  },
  {
    name: 'add an item in a list and preserve order',
    original: { mergingList: [{ name: 1 }, { name: 2, value: 2 }] },
    modified: { mergingList: [{ name: 3, value: 3 }, { name: 1 }, { name: 2, value: 2 }] },
    current: { mergingList: [{ name: 1, other: 'a' }, { name: 2, value: 2, other: 'b' }] },
    twoWay: { '$setElementOrder/mergingList': [{ name: 3 }, { name: 1 }, { name: 2 }], mergingList: [{ name: 3, value: 3 }] },
    threeWay: { '$setElementOrder/mergingList': [{ name: 3 }, { name: 1 }, { name: 2 }], mergingList: [{ name: 3, value: 3 }] },
    result: { mergingList: [{ name: 3, value: 3 }, { name: 1, other: 'a' }, { name: 2, value: 2, other: 'b' }] },
  },
  {
    name: 'add multiple items in a list and preserve order',
    original: { mergingList: [{ name: 1 }, { name: 2, value: 2 }] },
    modified: { mergingList: [{ name: 1 }, { name: 4, value: 4 }, { name: 2, value: 2 }, { name: 3, value: 3 }] },
    current: { mergingList: [{ name: 1, other: 'a' }, { name: 2, value: 2, other: 'b' }] },
    twoWay: { '$setElementOrder/mergingList': [{ name: 1 }, { name: 4 }, { name: 2 }, { name: 3 }], mergingList: [{ name: 4, value: 4 }, { name: 3, value: 3 }] },
    threeWay: { '$setElementOrder/mergingList': [{ name: 1 }, { name: 4 }, { name: 2 }, { name: 3 }], mergingList: [{ name: 4, value: 4 }, { name: 3, value: 3 }] },
    result: { mergingList: [{ name: 1, other: 'a' }, { name: 4, value: 4 }, { name: 2, value: 2, other: 'b' }, { name: 3, value: 3 }] },
  },
  {
    name: 'delete an item in a list and preserve order',
    original: { mergingList: [{ name: 1 }, { name: 3, value: 3 }, { name: 2, value: 2 }] },
    modified: { mergingList: [{ name: 2, value: 2 }, { name: 1 }] },
    current: { mergingList: [{ name: 1, other: 'a' }, { name: 2, value: 2, other: 'b' }, { name: 3, value: 3 }] },
    twoWay: { '$setElementOrder/mergingList': [{ name: 2 }, { name: 1 }], mergingList: [{ name: 3, $patch: 'delete' }] },
    threeWay: { '$setElementOrder/mergingList': [{ name: 2 }, { name: 1 }], mergingList: [{ name: 3, $patch: 'delete' }] },
    result: { mergingList: [{ name: 2, value: 2, other: 'b' }, { name: 1, other: 'a' }] },
  },
  {
    name: 'add and delete an item in a list and preserve order',
    original: { mergingList: [{ name: 1 }, { name: 3, value: 3 }, { name: 2, value: 2 }] },
    modified: { mergingList: [{ name: 4, value: 4 }, { name: 2, value: 2 }, { name: 1 }] },
    current: { mergingList: [{ name: 1, other: 'a' }, { name: 2, value: 2, other: 'b' }, { name: 3, value: 3 }] },
    twoWay: { '$setElementOrder/mergingList': [{ name: 4 }, { name: 2 }, { name: 1 }], mergingList: [{ name: 4, value: 4 }, { name: 3, $patch: 'delete' }] },
    threeWay: { '$setElementOrder/mergingList': [{ name: 4 }, { name: 2 }, { name: 1 }], mergingList: [{ name: 4, value: 4 }, { name: 3, $patch: 'delete' }] },
    result: { mergingList: [{ name: 4, value: 4 }, { name: 2, value: 2, other: 'b' }, { name: 1, other: 'a' }] },
  },
  {
    name: 'set elements order in a list',
    original: { mergingList: [{ name: 1 }, { name: 3, value: 3 }, { name: 4, value: 4 }, { name: 2, value: 2 }] },
    modified: { mergingList: [{ name: 4, value: 4 }, { name: 2, value: 2 }, { name: 3, value: 3 }, { name: 1 }] },
    current: { mergingList: [{ name: 1, other: 'a' }, { name: 3, value: 3 }, { name: 4, value: 4 }, { name: 2, value: 2 }] },
    twoWay: { '$setElementOrder/mergingList': [{ name: 4 }, { name: 2 }, { name: 3 }, { name: 1 }] },
    threeWay: { '$setElementOrder/mergingList': [{ name: 4 }, { name: 2 }, { name: 3 }, { name: 1 }] },
    result: { mergingList: [{ name: 4, value: 4 }, { name: 2, value: 2 }, { name: 3, value: 3 }, { name: 1, other: 'a' }] },
  },
  {
    name: 'set elements order in a list with server-only items',
    original: { mergingList: [{ name: 1 }, { name: 3, value: 3 }, { name: 4, value: 4 }, { name: 2, value: 2 }] },
    modified: { mergingList: [{ name: 4, value: 4 }, { name: 2, value: 2 }, { name: 3, value: 3 }, { name: 1 }] },
    current: { mergingList: [{ name: 1, other: 'a' }, { name: 3, value: 3 }, { name: 4, value: 4 }, { name: 2, value: 2 }, { name: 9 }] },
    twoWay: { '$setElementOrder/mergingList': [{ name: 4 }, { name: 2 }, { name: 3 }, { name: 1 }] },
    threeWay: { '$setElementOrder/mergingList': [{ name: 4 }, { name: 2 }, { name: 3 }, { name: 1 }] },
    result: { mergingList: [{ name: 4, value: 4 }, { name: 2, value: 2 }, { name: 3, value: 3 }, { name: 1, other: 'a' }, { name: 9 }] },
  },
  {
    name: 'set elements order in a list with server-only items 2',
    original: { mergingList: [{ name: 1 }, { name: 2, value: 2 }, { name: 3, value: 3 }, { name: 4, value: 4 }] },
    modified: { mergingList: [{ name: 2, value: 2 }, { name: 1 }, { name: 4, value: 4 }, { name: 3, value: 3 }] },
    current: { mergingList: [{ name: 1, other: 'a' }, { name: 2, value: 2 }, { name: 9 }, { name: 3, value: 3 }, { name: 4, value: 4 }] },
    twoWay: { '$setElementOrder/mergingList': [{ name: 2 }, { name: 1 }, { name: 4 }, { name: 3 }] },
    threeWay: { '$setElementOrder/mergingList': [{ name: 2 }, { name: 1 }, { name: 4 }, { name: 3 }] },
    result: { mergingList: [{ name: 2, value: 2 }, { name: 1, other: 'a' }, { name: 9 }, { name: 4, value: 4 }, { name: 3, value: 3 }] },
  },
  {
    name: 'set elements order in a list with server-only items 3',
    original: { mergingList: [{ name: 1 }, { name: 2, value: 2 }, { name: 3, value: 3 }, { name: 4, value: 4 }] },
    modified: { mergingList: [{ name: 2, value: 2 }, { name: 1 }, { name: 4, value: 4 }, { name: 3, value: 3 }] },
    current: { mergingList: [{ name: 1, other: 'a' }, { name: 2, value: 2 }, { name: 7 }, { name: 9 }, { name: 8 }, { name: 3, value: 3 }, { name: 4, value: 4 }] },
    twoWay: { '$setElementOrder/mergingList': [{ name: 2 }, { name: 1 }, { name: 4 }, { name: 3 }] },
    threeWay: { '$setElementOrder/mergingList': [{ name: 2 }, { name: 1 }, { name: 4 }, { name: 3 }] },
    result: { mergingList: [{ name: 2, value: 2 }, { name: 1, other: 'a' }, { name: 7 }, { name: 9 }, { name: 8 }, { name: 4, value: 4 }, { name: 3, value: 3 }] },
  },
  {
    name: 'add and delete an item in a int list and preserve order',
    original: { mergingIntList: [1, 3, 2] },
    modified: { mergingIntList: [4, 2, 1] },
    current: { mergingIntList: [1, 2, 3] },
    twoWay: { '$setElementOrder/mergingIntList': [4, 2, 1], mergingIntList: [4], '$deleteFromPrimitiveList/mergingIntList': [3] },
    threeWay: { '$setElementOrder/mergingIntList': [4, 2, 1], mergingIntList: [4], '$deleteFromPrimitiveList/mergingIntList': [3] },
    result: { mergingIntList: [4, 2, 1] },
  },
  {
    name: 'set elements order in a int list with server-only items',
    original: { mergingIntList: [1, 3, 4, 2] },
    modified: { mergingIntList: [4, 2, 3, 1] },
    current: { mergingIntList: [1, 3, 4, 2, 9] },
    twoWay: { '$setElementOrder/mergingIntList': [4, 2, 3, 1] },
    threeWay: { '$setElementOrder/mergingIntList': [4, 2, 3, 1] },
    result: { mergingIntList: [4, 2, 3, 1, 9] },
  },
  {
    name: 'behavior of set element order for a merging list with duplicate',
    original: { mergingList: [{ name: 1 }, { name: 2, value: 'dup1' }, { name: 3 }, { name: 2, value: 'dup2' }, { name: 4 }] },
    modified: { mergingList: [{ name: 2, value: 'dup1' }, { name: 1 }, { name: 4 }, { name: 3 }, { name: 2, value: 'dup2' }] },
    current: { mergingList: [{ name: 1 }, { name: 2, value: 'dup1' }, { name: 3 }, { name: 2, value: 'dup2' }, { name: 4 }] },
    twoWay: { '$setElementOrder/mergingList': [{ name: 2 }, { name: 1 }, { name: 4 }, { name: 3 }, { name: 2 }] },
    threeWay: { '$setElementOrder/mergingList': [{ name: 2 }, { name: 1 }, { name: 4 }, { name: 3 }, { name: 2 }] },
    twoWayResult: { mergingList: [{ name: 2, value: 'dup1' }, { name: 2, value: 'dup2' }, { name: 1 }, { name: 4 }, { name: 3 }] },
    result: { mergingList: [{ name: 2, value: 'dup1' }, { name: 2, value: 'dup2' }, { name: 1 }, { name: 4 }, { name: 3 }] },
  },
  {
    name: 'behavior of set element order for a merging int list with duplicate',
    original: { mergingIntList: [1, 2, 3, 2, 4] },
    modified: { mergingIntList: [2, 1, 4, 3, 2] },
    current: { mergingIntList: [1, 2, 3, 2, 4] },
    twoWay: { '$setElementOrder/mergingIntList': [2, 1, 4, 3, 2] },
    threeWay: { '$setElementOrder/mergingIntList': [2, 1, 4, 3, 2] },
    twoWayResult: { mergingIntList: [2, 2, 1, 4, 3] },
    result: { mergingIntList: [2, 2, 1, 4, 3] },
  },
  {
    name: 'retainKeys map should clear defaulted field',
    original: {},
    modified: { retainKeysMap: { other: 'bar' } },
    current: { retainKeysMap: { value: 'foo' } },
    twoWay: { retainKeysMap: { other: 'bar' } },
    threeWay: { retainKeysMap: { $retainKeys: ['other'], other: 'bar' } },
    result: { retainKeysMap: { other: 'bar' } },
  },
  {
    name: 'retainKeys map should clear defaulted field with conflict (discriminated union)',
    original: {},
    modified: { retainKeysMap: { name: 'type2', other: 'bar' } },
    current: { retainKeysMap: { name: 'type1', value: 'foo' } },
    twoWay: { retainKeysMap: { name: 'type2', other: 'bar' } },
    threeWay: { retainKeysMap: { $retainKeys: ['name', 'other'], name: 'type2', other: 'bar' } },
    result: { retainKeysMap: { name: 'type2', other: 'bar' } },
  },
  {
    name: 'retainKeys map adds a field and clear a field',
    original: { retainKeysMap: { name: 'foo' } },
    modified: { retainKeysMap: { name: 'foo', value: 'bar' } },
    current: { retainKeysMap: { name: 'foo', other: 'a' } },
    twoWay: { retainKeysMap: { $retainKeys: ['name', 'value'], value: 'bar' } },
    threeWay: { retainKeysMap: { $retainKeys: ['name', 'value'], value: 'bar' } },
    result: { retainKeysMap: { name: 'foo', value: 'bar' } },
  },
  {
    name: 'retainKeys map deletes a field and clears a field',
    original: { retainKeysMap: { name: 'foo', value: 'bar' } },
    modified: { retainKeysMap: { name: 'foo' } },
    current: { retainKeysMap: { name: 'foo', value: 'bar', other: 'a' } },
    twoWay: { retainKeysMap: { $retainKeys: ['name'], value: null } },
    threeWay: { retainKeysMap: { $retainKeys: ['name'], value: null } },
    result: { retainKeysMap: { name: 'foo' } },
  },
  {
    name: 'retainKeys map adds a field in a nested map',
    original: { retainKeysMap: { name: 'foo', value: 'bar', simpleMap: { key1: 'a' } } },
    modified: { retainKeysMap: { name: 'foo', value: 'bar', simpleMap: { key1: 'a', key2: 'b' } } },
    current: { retainKeysMap: { name: 'foo', value: 'bar', simpleMap: { key1: 'a', key3: 'c' } } },
    twoWay: { retainKeysMap: { $retainKeys: ['name', 'simpleMap', 'value'], simpleMap: { key2: 'b' } } },
    threeWay: { retainKeysMap: { $retainKeys: ['name', 'simpleMap', 'value'], simpleMap: { key2: 'b' } } },
    result: { retainKeysMap: { name: 'foo', value: 'bar', simpleMap: { key1: 'a', key2: 'b', key3: 'c' } } },
  },
  {
    name: 'retainKeys map replaces non-merging list',
    original: { retainKeysMap: { name: 'foo', value: 'bar', nonMergingList: [{ name: 'a' }, { name: 'b' }] } },
    modified: { retainKeysMap: { name: 'foo', value: 'bar', nonMergingList: [{ name: 'a' }, { name: 'c' }, { name: 'b' }] } },
    current: { retainKeysMap: { name: 'foo', value: 'bar', nonMergingList: [{ name: 'a' }, { name: 'b' }] } },
    twoWay: { retainKeysMap: { $retainKeys: ['name', 'nonMergingList', 'value'], nonMergingList: [{ name: 'a' }, { name: 'c' }, { name: 'b' }] } },
    threeWay: { retainKeysMap: { $retainKeys: ['name', 'nonMergingList', 'value'], nonMergingList: [{ name: 'a' }, { name: 'c' }, { name: 'b' }] } },
    result: { retainKeysMap: { name: 'foo', value: 'bar', nonMergingList: [{ name: 'a' }, { name: 'c' }, { name: 'b' }] } },
  },
  {
    name: 'retainKeys map adds an item and deletes an item in nested merging int list',
    original: { retainKeysMap: { name: 'foo', mergingIntList: [1, 2, 3] } },
    modified: { retainKeysMap: { name: 'foo', mergingIntList: [1, 3, 5] } },
    current: { retainKeysMap: { name: 'foo', mergingIntList: [1, 2, 3, 4] } },
    twoWay: { retainKeysMap: { $retainKeys: ['mergingIntList', 'name'], mergingIntList: [5], '$deleteFromPrimitiveList/mergingIntList': [2], '$setElementOrder/mergingIntList': [1, 3, 5] } },
    threeWay: { retainKeysMap: { $retainKeys: ['mergingIntList', 'name'], mergingIntList: [5], '$deleteFromPrimitiveList/mergingIntList': [2], '$setElementOrder/mergingIntList': [1, 3, 5] } },
    result: { retainKeysMap: { name: 'foo', mergingIntList: [1, 3, 5, 4] } },
  },
  {
    name: 'retainKeys map deletes an item in nested merging list',
    original: { retainKeysMap: { name: 'foo', mergingList: [{ name: 'a' }, { name: 'b' }] } },
    modified: { retainKeysMap: { name: 'foo', mergingList: [{ name: 'a' }] } },
    current: { retainKeysMap: { name: 'foo', mergingList: [{ name: 'a' }, { name: 'b' }, { name: 'x' }] } },
    twoWay: { retainKeysMap: { $retainKeys: ['mergingList', 'name'], '$setElementOrder/mergingList': [{ name: 'a' }], mergingList: [{ name: 'b', $patch: 'delete' }] } },
    threeWay: { retainKeysMap: { $retainKeys: ['mergingList', 'name'], '$setElementOrder/mergingList': [{ name: 'a' }], mergingList: [{ name: 'b', $patch: 'delete' }] } },
    result: { retainKeysMap: { name: 'foo', mergingList: [{ name: 'a' }, { name: 'x' }] } },
  },
  {
    name: 'retainKeys list of maps changes a field and clear a field',
    original: { retainKeysMergingList: [{ name: 'bar' }, { name: 'foo', value: 'old' }] },
    modified: { retainKeysMergingList: [{ name: 'bar' }, { name: 'foo', value: 'new' }] },
    current: { retainKeysMergingList: [{ name: 'bar' }, { name: 'foo', value: 'old', other: 'x' }] },
    twoWay: { '$setElementOrder/retainKeysMergingList': [{ name: 'bar' }, { name: 'foo' }], retainKeysMergingList: [{ $retainKeys: ['name', 'value'], name: 'foo', value: 'new' }] },
    threeWay: { '$setElementOrder/retainKeysMergingList': [{ name: 'bar' }, { name: 'foo' }], retainKeysMergingList: [{ $retainKeys: ['name', 'value'], name: 'foo', value: 'new' }] },
    result: { retainKeysMergingList: [{ name: 'bar' }, { name: 'foo', value: 'new' }] },
  },
  {
    name: 'retainKeys list of maps adds a field and clear a field',
    original: { retainKeysMergingList: [{ name: 'bar' }, { name: 'foo' }] },
    modified: { retainKeysMergingList: [{ name: 'bar' }, { name: 'foo', value: 'a' }] },
    current: { retainKeysMergingList: [{ name: 'bar' }, { name: 'foo', other: 'x' }] },
    twoWay: { '$setElementOrder/retainKeysMergingList': [{ name: 'bar' }, { name: 'foo' }], retainKeysMergingList: [{ $retainKeys: ['name', 'value'], name: 'foo', value: 'a' }] },
    threeWay: { '$setElementOrder/retainKeysMergingList': [{ name: 'bar' }, { name: 'foo' }], retainKeysMergingList: [{ $retainKeys: ['name', 'value'], name: 'foo', value: 'a' }] },
    result: { retainKeysMergingList: [{ name: 'bar' }, { name: 'foo', value: 'a' }] },
  },
  {
    name: 'delete and reorder in one list, reorder in another',
    original: { mergingList: [{ name: 'a', value: 'a' }, { name: 'b', value: 'b' }], mergeItemPtr: [{ name: 'c', value: 'c' }, { name: 'd', value: 'd' }] },
    modified: { mergingList: [{ name: 'b', value: 'b' }], mergeItemPtr: [{ name: 'd', value: 'd' }, { name: 'c', value: 'c' }] },
    current: { mergingList: [{ name: 'a', value: 'a' }, { name: 'b', value: 'b' }], mergeItemPtr: [{ name: 'c', value: 'c' }, { name: 'd', value: 'd' }] },
    twoWay: { '$setElementOrder/mergingList': [{ name: 'b' }], '$setElementOrder/mergeItemPtr': [{ name: 'd' }, { name: 'c' }], mergingList: [{ $patch: 'delete', name: 'a' }] },
    threeWay: { '$setElementOrder/mergingList': [{ name: 'b' }], '$setElementOrder/mergeItemPtr': [{ name: 'd' }, { name: 'c' }], mergingList: [{ $patch: 'delete', name: 'a' }] },
    result: { mergingList: [{ name: 'b', value: 'b' }], mergeItemPtr: [{ name: 'd', value: 'd' }, { name: 'c', value: 'c' }] },
  },
];

describe('strategic merge patch: Kubernetes test cases', () => {
  describe('applying a patch', () => {
    for (const c of applyCases) {
      it(c.name, () => assert.deepEqual(apply(c.original, c.twoWay), c.modified));
    }
  });

  describe('errors', () => {
    for (const c of errorCases) {
      it(c.name, () => {
        assert.throws(
          () => apply(c.original, c.twoWay),
          (err: unknown) => err instanceof ApiError && err.code === 400 && err.message.includes(c.expectedError),
        );
      });
    }
  });

  describe('two-way and three-way patches', () => {
    for (const c of roundTripCases) {
      it(c.name, () => {
        const twoWay = createTwoWayMergePatch(deepFreeze(c.original), deepFreeze(c.modified), mergeItem);
        assert.deepEqual(twoWay, c.twoWay, 'two-way patch');
        assert.deepEqual(apply(c.original, twoWay), c.twoWayResult ?? c.modified, 'two-way result');
        const threeWay = createThreeWayMergePatch(c.original, c.modified, deepFreeze(c.current), mergeItem);
        assert.deepEqual(threeWay, c.threeWay, 'three-way patch');
        assert.deepEqual(apply(c.current, threeWay), c.result, 'three-way result');
      });
    }
  });
});
