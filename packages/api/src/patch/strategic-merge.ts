/**
 * The merge at the heart of strategic merge patch (k8s.io/apimachinery/pkg/util/strategicpatch,
 * mergeMap and friends): merges a patch map into an original map, field by field, as the patch
 * metadata of each field says. Internal to patch/; strategic.ts is the public face.
 *
 * Two modes:
 * - 'apply' (the server applying a patch to an object): directives are carried out and never
 *   left in the result, `null` deletes, nulls inside added values are dropped;
 * - 'combine' (kubectl's three-way patch: adding the changes patch onto the deletions patch):
 *   nulls and parallel lists (`$deleteFromPrimitiveList`, `$setElementOrder`, `$retainKeys`) are
 *   kept, since the result is itself a patch.
 *
 * Every function here works on values it owns: callers pass deep copies, and the functions
 * modify them in place.
 */
import type { Schema } from '../schema.js';
import {
  DELETE_FROM_PRIMITIVE_LIST_PREFIX,
  DIRECTIVE_MARKER,
  MSG_LIST_OF_LISTS,
  MSG_MERGE_DIRECTIVE_IN_LIST,
  MSG_PRIMITIVE_LIST,
  MSG_RETAIN_KEYS,
  MSG_SET_ELEMENT_ORDER,
  RETAIN_KEYS_DIRECTIVE,
  SET_ELEMENT_ORDER_PREFIX,
  badPatch,
  childPath,
  directiveField,
  errBadPatchType,
  errNoMergeKey,
  lookupField,
  lookupList,
  type FieldPatchMeta,
} from './patch-meta.js';
import { ListIndex, dedupe } from './list-index.js';
import { describeJson, hasKey, isJsonObject, jsonEqual, kindOf, setKey, type JsonObject } from './value.js';

export type MergeMode = 'apply' | 'combine';

/** What mergeMap returns for a map carrying `$patch: delete`: the map is to be removed. */
export const DELETED: unique symbol = Symbol('deleted');

/** What `materialize` returns for a value that is to be left out (a `$patch: delete` map). */
const DROP: unique symbol = Symbol('drop');

/**
 * Merges `patch` into `original` (both owned; `original` is modified and returned). Returns
 * DELETED when the patch is `{$patch: delete}`.
 */
export function mergeMap(original: JsonObject, patch: JsonObject, schema: Schema | undefined, path: string, mode: MergeMode): JsonObject | typeof DELETED {
  if (hasKey(patch, DIRECTIVE_MARKER)) {
    const directive = patch[DIRECTIVE_MARKER];
    if (directive === 'replace') {
      delete patch[DIRECTIVE_MARKER];
      return mode === 'apply' ? materializeMap(patch, path) : patch;
    }
    if (directive === 'delete') return DELETED;
    // `$patch: merge` on a map asks for what maps get anyway (Kubernetes itself rejects it).
    if (directive !== 'merge') throw errBadPatchType(directive, patch);
    delete patch[DIRECTIVE_MARKER];
  }

  applyRetainKeys(original, patch, path, mode);
  applySetElementOrder(original, patch, schema, path, mode);

  for (const key of Object.keys(patch)) {
    const patchValue = patch[key];
    let field = key;
    let isDeleteList = false;
    if (key.startsWith(DELETE_FROM_PRIMITIVE_LIST_PREFIX)) {
      if (mode === 'combine') {
        setKey(original, key, patchValue);
        continue;
      }
      const target = directiveField(key, DELETE_FROM_PRIMITIVE_LIST_PREFIX);
      if (target === undefined) throw badPatch(`${MSG_PRIMITIVE_LIST}: ${key} is not of the form ${DELETE_FROM_PRIMITIVE_LIST_PREFIX}/<field>`);
      if (!Array.isArray(patchValue)) throw badPatch(`${MSG_PRIMITIVE_LIST}: the value of ${key} must be a list`);
      field = target;
      isDeleteList = true;
    }
    const fieldPath = childPath(path, field);

    if (patchValue === null) {
      delete original[field];
      if (mode === 'combine') setKey(original, field, null);
      continue;
    }

    const originalValue = hasKey(original, field) ? original[field] : undefined;
    // Stryker disable next-line StringLiteral: 'absent' only has to differ from the kinds kindOf returns
    const originalKind = hasKey(original, field) ? kindOf(originalValue) : 'absent';
    const patchKind = kindOf(patchValue);
    if (originalKind !== patchKind || patchKind === 'scalar') {
      if (isDeleteList) continue; // nothing to delete from
      const value = added(patchValue, fieldPath, mode);
      if (value === DROP) delete original[field];
      else setKey(original, field, value);
      continue;
    }

    if (patchKind === 'map') {
      const meta = lookupField(schema, field, fieldPath);
      const merged =
        meta.strategy === 'replace'
          ? replaced(patchValue, fieldPath, mode)
          : mergeMap(originalValue as JsonObject, patchValue as JsonObject, meta.schema, fieldPath, mode);
      if (merged === DELETED || merged === DROP) delete original[field];
      else setKey(original, field, merged);
    } else {
      const meta = lookupList(schema, field, fieldPath);
      setKey(original, field, mergeListField(originalValue as unknown[], patchValue as unknown[], meta, isDeleteList, fieldPath, mode).merged);
    }
  }
  return original;
}

// ---------------------------------------------------------------------------------------------
// $retainKeys and $setElementOrder

/**
 * `$retainKeys`: in 'apply' mode, clears every key of `original` not listed, after checking that
 * every key the patch sets is listed. In 'combine' mode the directive moves to the result.
 */
function applyRetainKeys(original: JsonObject, patch: JsonObject, path: string, mode: MergeMode): void {
  if (!hasKey(patch, RETAIN_KEYS_DIRECTIVE)) return;
  const retain = patch[RETAIN_KEYS_DIRECTIVE];
  delete patch[RETAIN_KEYS_DIRECTIVE];
  if (mode === 'combine') {
    if (!hasKey(original, RETAIN_KEYS_DIRECTIVE)) setKey(original, RETAIN_KEYS_DIRECTIVE, retain);
    else if (!jsonEqual(original[RETAIN_KEYS_DIRECTIVE], retain)) {
      throw badPatch(`${MSG_RETAIN_KEYS}: ${describeJson(original[RETAIN_KEYS_DIRECTIVE])} and ${describeJson(retain)} differ at ${path || 'the root'}`);
    }
    return;
  }
  if (!Array.isArray(retain)) throw badPatch(`${MSG_RETAIN_KEYS}: ${RETAIN_KEYS_DIRECTIVE} must be a list of field names`);
  const keep = new Set<unknown>(retain);
  for (const [key, value] of Object.entries(patch)) {
    if (value === null || key.startsWith(DELETE_FROM_PRIMITIVE_LIST_PREFIX) || key.startsWith(SET_ELEMENT_ORDER_PREFIX)) continue;
    if (!keep.has(key)) throw badPatch(`${MSG_RETAIN_KEYS}: the patch sets ${JSON.stringify(childPath(path, key))}, which is not in ${RETAIN_KEYS_DIRECTIVE}`);
  }
  for (const key of Object.keys(original)) {
    if (!keep.has(key)) delete original[key];
  }
}

/**
 * `$setElementOrder/<field>`: merges the patch's list for that field into the original (as the
 * main loop would) and then orders the result: elements named in the directive in its order,
 * elements only in the original kept at their relative positions (Kubernetes'
 * mergePatchIntoOriginal). The list is then taken out of `patch`, so the main loop skips it.
 */
function applySetElementOrder(original: JsonObject, patch: JsonObject, schema: Schema | undefined, path: string, mode: MergeMode): void {
  for (const key of Object.keys(patch)) {
    if (!key.startsWith(SET_ELEMENT_ORDER_PREFIX)) continue;
    const order = patch[key];
    if (mode === 'combine') {
      if (!hasKey(original, key)) setKey(original, key, order);
      else if (!jsonEqual(original[key], order)) throw badPatch(`${MSG_SET_ELEMENT_ORDER}: two different ${key} lists`);
    }
    delete patch[key];

    const field = directiveField(key, SET_ELEMENT_ORDER_PREFIX);
    if (field === undefined) throw badPatch(`${MSG_SET_ELEMENT_ORDER}: ${key} is not of the form ${SET_ELEMENT_ORDER_PREFIX}/<field>`);
    if (!Array.isArray(order)) throw badPatch(`${MSG_SET_ELEMENT_ORDER}: the value of ${key} must be a list`);
    const fieldPath = childPath(path, field);

    const originalList = hasKey(original, field) && Array.isArray(original[field]) ? (original[field] as unknown[]) : undefined;
    if (hasKey(patch, field) && patch[field] === null) continue; // the list is deleted: nothing to order
    if (hasKey(patch, field) && !Array.isArray(patch[field])) throw badPatch(`${MSG_SET_ELEMENT_ORDER}: ${fieldPath} in the patch is not a list`);
    const patchList = hasKey(patch, field) ? (patch[field] as unknown[]) : undefined;

    const meta = lookupList(schema, field, fieldPath);
    validateAgainstOrder(patchList ?? [], order, meta.mergeKey, key);

    let merged: unknown[];
    // Stryker disable next-line ArrayDeclaration: with no original list, serverOrder holds nothing to find (Stryker's placeholder would only be found in a list holding that very string)
    let serverOrder = originalList ?? [];
    if (originalList !== undefined && patchList !== undefined) {
      ({ merged, serverOrder } = mergeListField(originalList, patchList, meta, false, fieldPath, mode));
    } else if (originalList !== undefined) merged = originalList;
    else if (patchList !== undefined) merged = added(patchList, fieldPath, mode) as unknown[];
    else continue;

    const kind = elementKind([originalList ?? [], patchList ?? []], fieldPath);
    if (kind !== 'map' || meta.mergeKey !== '') {
      const by = kind === 'map' ? meta.mergeKey : '';
      if (by !== '') {
        for (const o of order) if (!isJsonObject(o) || !hasKey(o, by)) throw errNoMergeKey(o, by);
      }
      const [listed, serverOnly] = partition(merged, order, by);
      merged = normalizeElementOrder(listed, serverOnly, order, serverOrder, by);
    }
    setKey(original, field, merged);
    delete patch[field];
  }
}

/**
 * Checks that the patch list names its elements in the relative order of the `$setElementOrder`
 * list (deletions and directive elements aside), as Kubernetes' validatePatchWithSetOrderList.
 */
function validateAgainstOrder(patchList: unknown[], order: unknown[], mergeKey: string, key: string): void {
  if (order.length === 0 || patchList.length === 0) return;
  const items = patchList.filter((item) => !(isJsonObject(item) && hasKey(item, DIRECTIVE_MARKER)));
  let p = 0;
  let o = 0;
  while (p < items.length && o < order.length) {
    if (mergeKeyValueEqual(items[p], order[o], mergeKey)) p++;
    o++;
  }
  if (p < items.length) {
    throw badPatch(`The order in patch list:\n${describeJson(patchList)}\n doesn't match ${key} list:\n${describeJson(order)}\n`);
  }
}

function mergeKeyValueEqual(left: unknown, right: unknown, mergeKey: string): boolean {
  if (mergeKey === '') return jsonEqual(left, right);
  if (!isJsonObject(left) || !hasKey(left, mergeKey)) throw errNoMergeKey(left, mergeKey);
  if (!isJsonObject(right) || !hasKey(right, mergeKey)) throw errNoMergeKey(right, mergeKey);
  return jsonEqual(left[mergeKey], right[mergeKey]);
}

// ---------------------------------------------------------------------------------------------
// Lists

/** A merged list, and the server's order that `$setElementOrder` places unlisted elements by. */
interface MergedList {
  readonly merged: unknown[];
  /**
   * The original list as Kubernetes' merge leaves it in place (its mergeSlice works on the
   * original's backing array): elements removed by `$patch: delete` close up, and the slots they
   * free at the end are refilled by the elements the patch appends. An element appended this way
   * counts as coming after the original elements it follows, which decides where unlisted
   * elements go relative to it (kube-apiserver's observable order, kept for compatibility).
   */
  readonly serverOrder: unknown[];
}

/**
 * Merges a list field: element-wise for the `merge` strategy (and for `$deleteFromPrimitiveList`
 * whatever the strategy), otherwise the patch's list replaces the original.
 */
function mergeListField(original: unknown[], patch: unknown[], meta: FieldPatchMeta, isDeleteList: boolean, path: string, mode: MergeMode): MergedList {
  if (isDeleteList) {
    if (patch.some((v) => kindOf(v) === 'map' || kindOf(v) === 'list')) throw badPatch(`${MSG_PRIMITIVE_LIST}: ${path} may only list primitive values to delete`);
    const doomed = new ListIndex(patch, '');
    return { merged: original.filter((v) => !doomed.has(v)), serverOrder: original };
  }
  if (meta.strategy !== 'merge') return { merged: replaced(patch, path, mode) as unknown[], serverOrder: original };
  if (original.length === 0 && patch.length === 0) return { merged: original, serverOrder: original };

  const kind = elementKind([original, patch], path);
  if (kind !== 'map') {
    // A list of primitives with the merge strategy is a set: union, without duplicates.
    const merged = dedupe([...original, ...patch]);
    const [inPatch, serverOnly] = partition(merged, patch, '');
    return { merged: normalizeElementOrder(inPatch, serverOnly, patch, original, ''), serverOrder: original };
  }

  const by = meta.mergeKey;
  if (by === '') throw badPatch(`cannot merge lists without merge key for ${path}`);
  const { kept, rest, slots } = applyListDirectives(original, patch, by, path, mode);
  const { merged, appended } = mergeByKey(kept, rest, by, meta.schema, path, mode);
  for (let i = 0; i < appended.length && kept.length + i < slots.length; i++) slots[kept.length + i] = appended[i];
  const [inPatch, serverOnly] = partition(merged, rest, by);
  return { merged: normalizeElementOrder(inPatch, serverOnly, rest, kept, by), serverOrder: slots };
}

/**
 * Carries out the directive elements of a merged list of maps: `{<key>: v, $patch: delete}`
 * removes every element whose merge key is v; `{$patch: replace}` makes the list's other
 * elements the whole result. Returns what is left of the original (or the replacement), the
 * patch elements still to merge, and `slots`: the original's elements after the deletions closed
 * up, its length unchanged (see MergedList.serverOrder).
 */
function applyListDirectives(
  original: unknown[],
  patch: unknown[],
  mergeKey: string,
  path: string,
  mode: MergeMode,
): { kept: unknown[]; rest: unknown[]; slots: unknown[] } {
  // Deleting one element closes the gap and leaves the freed slot at the end holding the last
  // element; deleting the c elements with one key therefore leaves c copies of the last element
  // still there before the deletion.
  // Stryker disable next-line ArrayDeclaration: a non-map entry has no merge key value, and a delete directive always has one
  const index = new ListIndex([], mergeKey);
  original.forEach((v, i) => {
    if (isJsonObject(v) && hasKey(v, mergeKey)) index.add(v, i);
  });
  const removed = new Set<number>();
  const fills: unknown[] = []; // one per deleted element; later deletions fill lower slots
  // Stryker disable next-line ArithmeticOperator: the values of the freed slots are never looked up (see below)
  let last = original.length - 1;
  const rest: unknown[] = [];
  let replace = false;
  for (const item of patch) {
    const element = item as JsonObject;
    if (!hasKey(element, DIRECTIVE_MARKER)) {
      rest.push(element);
      continue;
    }
    const directive = element[DIRECTIVE_MARKER];
    if (directive === 'delete') {
      if (!hasKey(element, mergeKey)) throw errNoMergeKey(element, mergeKey);
      // Stryker disable next-line MethodExpression: freeing more slots changes nothing: only whether the first appended element gets one matters
      const doomed = index.positionsOf(element).filter((i) => !removed.has(i));
      if (doomed.length === 0) continue;
      // Stryker disable next-line UpdateOperator: the values of the freed slots are never looked up (see below)
      while (removed.has(last)) last--;
      for (let c = 0; c < doomed.length; c++) fills.push(original[last]);
      for (const i of doomed) removed.add(i);
    } else if (directive === 'replace') {
      replace = true;
    } else if (directive === 'merge') {
      throw badPatch(`${MSG_MERGE_DIRECTIVE_IN_LIST} (${path})`);
    } else {
      throw errBadPatchType(directive, element);
    }
  }
  const kept = original.filter((_, i) => !removed.has(i));
  // Stryker disable next-line MethodExpression: the values of the freed slots are never looked up: an appended element overwrites them from the lowest, so no later lookup reaches one
  const slots = [...kept, ...fills.reverse()];
  if (replace) return { kept: replaced(rest, path, mode) as unknown[], rest: [], slots };
  return { kept, rest, slots };
}

/**
 * Merges each patch element into the first element of `original` with the same merge key, or
 * appends it. Returns the merged list and the elements appended.
 */
function mergeByKey(
  original: unknown[],
  patch: unknown[],
  mergeKey: string,
  schema: Schema | undefined,
  path: string,
  mode: MergeMode,
): { merged: unknown[]; appended: unknown[] } {
  const merged = original.slice();
  // Stryker disable next-line ArrayDeclaration: a non-map entry has no merge key value, and a patch element always has one
  const index = new ListIndex([], mergeKey);
  merged.forEach((v, i) => {
    if (isJsonObject(v) && hasKey(v, mergeKey)) index.add(v, i);
  });
  const appended: unknown[] = [];
  for (const item of patch) {
    const element = item as JsonObject;
    if (!hasKey(element, mergeKey)) throw errNoMergeKey(element, mergeKey);
    const at = index.firstOf(element);
    if (at >= 0) {
      const m = mergeMap(merged[at] as JsonObject, element, schema, path, mode);
      // Never DELETED: elements carrying `$patch` were taken out as directives.
      // Stryker disable next-line all: mergeMap modifies merged[at] in place and returns it; DELETED needs a $patch element, which applyListDirectives took out
      if (m !== DELETED) merged[at] = m;
    } else {
      const a = replaced(element, path, mode);
      if (a !== DROP) {
        index.add(a, merged.length);
        merged.push(a);
        appended.push(a);
      }
    }
  }
  return { merged, appended };
}

/**
 * The kind shared by the elements of the given lists: 'map', 'scalar' (strings, numbers,
 * booleans, null) or 'none' when all are empty. Throws BadRequest for lists of lists and for
 * lists mixing maps and primitives.
 */
function elementKind(lists: unknown[][], path: string): 'map' | 'scalar' | 'none' {
  let kind: 'map' | 'scalar' | 'none' = 'none';
  for (const list of lists) {
    for (const v of list) {
      const k = kindOf(v);
      if (k === 'list') throw badPatch(`${MSG_LIST_OF_LISTS} (${path})`);
      const simple = k === 'map' ? 'map' : 'scalar';
      if (kind === 'none') kind = simple;
      else if (kind !== simple) throw badPatch(`list element types are not identical: ${path}`);
    }
  }
  return kind;
}

/** The position of each element's identity in `list` (its first occurrence), -1 when absent. */
function positions(list: unknown[], by: string): (item: unknown) => number {
  const index = new ListIndex(list, by);
  return (item) => index.firstOf(item);
}

/** Splits `merged` into the elements present in `list` (by identity) and the others. */
function partition(merged: unknown[], list: unknown[], by: string): [unknown[], unknown[]] {
  const position = positions(list, by);
  const present: unknown[] = [];
  const others: unknown[] = [];
  for (const v of merged) {
    if (by !== '' && !(isJsonObject(v) && hasKey(v, by))) throw errNoMergeKey(v, by);
    (position(v) >= 0 ? present : others).push(v);
  }
  return [present, others];
}

/**
 * Kubernetes' normalizeElementOrder: `inPatch` sorted by `patchOrder`, `serverOnly` sorted by
 * `serverOrder`, then interleaved so that a server-only element goes before a patch element
 * exactly when it came before it in the server's list. Relative orders within each part are kept.
 */
function normalizeElementOrder(inPatch: unknown[], serverOnly: unknown[], patchOrder: unknown[], serverOrder: unknown[], by: string): unknown[] {
  const right = sortByPositions(inPatch, patchOrder, by);
  const left = sortByPositions(serverOnly, serverOrder, by);
  const position = positions(serverOrder, by);
  const out: unknown[] = [];
  let i = 0;
  let j = 0;
  while (i < left.length || j < right.length) {
    if (j >= right.length) out.push(left[i++]);
    else if (i >= left.length) out.push(right[j++]);
    else {
      const li = position(left[i]);
      const ri = position(right[j]);
      if (li >= 0 && ri >= 0 && li < ri) out.push(left[i++]);
      else out.push(right[j++]);
    }
  }
  return out;
}

/**
 * A stable sort of `items` by their positions in `order` (elements not found go last); for lists
 * of maps, `$patch: delete` elements go after all others (as in a combined patch).
 */
function sortByPositions(items: unknown[], order: unknown[], by: string): unknown[] {
  const position = positions(order, by);
  const isDelete = (v: unknown): boolean => by !== '' && isJsonObject(v) && v[DIRECTIVE_MARKER] === 'delete';
  const rank = (v: unknown): number => {
    const p = position(v);
    return p < 0 ? Number.MAX_SAFE_INTEGER : p;
  };
  const keep = items.filter((v) => !isDelete(v)).map((v, i) => ({ v, i, r: rank(v) }));
  keep.sort((a, b) => a.r - b.r || a.i - b.i);
  return [...keep.map((e) => e.v), ...items.filter(isDelete)];
}

// ---------------------------------------------------------------------------------------------
// Values that are new to the original

/**
 * A value the patch adds where the original has nothing (or a value of another type). 'apply':
 * materialized. 'combine': without directives, as Kubernetes' removeDirectives leaves it (maps
 * carrying `$patch` go, nulls stay).
 */
function added(value: unknown, path: string, mode: MergeMode): unknown {
  return mode === 'apply' ? materialize(value, path) : stripDirectives(value);
}

/** A value that replaces the original's ('replace' strategy, unmerged lists, appended elements). */
function replaced(value: unknown, path: string, mode: MergeMode): unknown {
  return mode === 'apply' ? materialize(value, path) : value;
}

function stripDirectives(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(stripDirectives).filter((v) => v !== DROP);
  if (!isJsonObject(value)) return value;
  if (hasKey(value, DIRECTIVE_MARKER)) return DROP;
  for (const key of Object.keys(value)) {
    const v = stripDirectives(value[key]);
    if (v === DROP) delete value[key];
    else setKey(value, key, v);
  }
  return value;
}

/**
 * What a patch value becomes when there is nothing to merge it into: `null` members of maps are
 * dropped (nulls in lists stay), a map with `$patch: delete` is dropped, `$patch: replace|merge`
 * markers and the parallel directives (`$retainKeys`, `$setElementOrder/…`,
 * `$deleteFromPrimitiveList/…`) are removed, and directive elements of lists are carried out
 * (there is nothing to delete from, so they simply go).
 */
function materialize(value: unknown, path: string): unknown {
  if (Array.isArray(value)) return materializeList(value, path);
  if (isJsonObject(value)) {
    if (hasKey(value, DIRECTIVE_MARKER)) {
      const directive = value[DIRECTIVE_MARKER];
      if (directive === 'delete') return DROP;
      if (directive !== 'replace' && directive !== 'merge') throw errBadPatchType(directive, value);
      delete value[DIRECTIVE_MARKER];
    }
    return materializeMap(value, path);
  }
  return value;
}

function materializeMap(map: JsonObject, path: string): JsonObject {
  delete map[RETAIN_KEYS_DIRECTIVE];
  for (const key of Object.keys(map)) {
    const v = map[key];
    if (v === null || key.startsWith(SET_ELEMENT_ORDER_PREFIX) || key.startsWith(DELETE_FROM_PRIMITIVE_LIST_PREFIX)) {
      delete map[key];
      continue;
    }
    const m = materialize(v, childPath(path, key));
    if (m === DROP) delete map[key];
    else setKey(map, key, m);
  }
  return map;
}

function materializeList(list: unknown[], path: string): unknown[] {
  const out: unknown[] = [];
  for (const item of list) {
    if (isJsonObject(item) && hasKey(item, DIRECTIVE_MARKER)) {
      const directive = item[DIRECTIVE_MARKER];
      if (directive === 'merge') throw badPatch(`${MSG_MERGE_DIRECTIVE_IN_LIST} (${path})`);
      if (directive !== 'delete' && directive !== 'replace') throw errBadPatchType(directive, item);
      continue;
    }
    out.push(materialize(item, path));
  }
  return out;
}
