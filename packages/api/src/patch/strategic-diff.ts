/**
 * Computing strategic merge patches, as kubectl does (k8s.io/apimachinery/pkg/util/strategicpatch,
 * diffMaps and friends): the patch from one document to another, with the deletions and additions
 * of each side optionally left out — the building block of the two-way and three-way patches.
 * Internal to patch/; strategic.ts is the public face.
 *
 * The documents are only read; every value placed in a patch is a copy.
 */
import type { Schema } from '../schema.js';
import {
  DELETE_FROM_PRIMITIVE_LIST_PREFIX,
  DIRECTIVE_MARKER,
  MSG_LIST_OF_LISTS,
  RETAIN_KEYS_DIRECTIVE,
  SET_ELEMENT_ORDER_PREFIX,
  badPatch,
  childPath,
  errNoMergeKey,
  lookupField,
  lookupList,
} from './patch-meta.js';
import { ListIndex, dedupe } from './list-index.js';
import { cloneJson, hasKey, isJsonObject, jsonEqual, kindOf, setKey, type JsonObject } from './value.js';

/** What a diff records. */
export interface DiffOptions {
  /** Emit `$setElementOrder/<field>` for merged lists whose content or order changed. */
  readonly setElementOrder: boolean;
  /** Leave out fields and elements added or changed in `modified` (keep only deletions). */
  readonly ignoreChangesAndAdditions: boolean;
  /** Leave out fields and elements missing from `modified` (keep only additions and changes). */
  readonly ignoreDeletions: boolean;
  /** Emit `$retainKeys` (set by the field's `retainKeys` strategy, not by callers). */
  readonly buildRetainKeys: boolean;
}

/**
 * The strategic merge patch from `original` to `modified` (Kubernetes' diffMaps): added and
 * changed fields with their new values; removed fields as `null`; merged lists of maps as the
 * changed elements (keyed by their merge key) plus `{<key>: v, $patch: delete}` for removed ones;
 * merged lists of primitives as the added values plus `$deleteFromPrimitiveList/<field>`;
 * `$setElementOrder/<field>` and `$retainKeys` where asked; other lists whole.
 */
export function diffMaps(original: JsonObject, modified: JsonObject, schema: Schema | undefined, options: DiffOptions, path: string): JsonObject {
  const patch: JsonObject = {};
  const retainKeys: string[] = [];
  const changes = !options.ignoreChangesAndAdditions;

  for (const [key, modifiedValue] of Object.entries(modified)) {
    if (options.buildRetainKeys && modifiedValue !== null) retainKeys.push(key);
    if (!hasKey(original, key)) {
      if (changes) setKey(patch, key, cloneJson(modifiedValue));
      continue;
    }
    const originalValue = original[key];
    const fieldPath = childPath(path, key);

    if (key === DIRECTIVE_MARKER) {
      if (typeof originalValue !== 'string' || typeof modifiedValue !== 'string') throw badPatch(`invalid value for special key: ${DIRECTIVE_MARKER}`);
      if (originalValue !== modifiedValue) setKey(patch, key, modifiedValue);
      continue;
    }

    const kind = kindOf(originalValue);
    if (kind !== kindOf(modifiedValue) || (kind !== 'map' && kind !== 'list')) {
      if (changes && !jsonEqual(originalValue, modifiedValue)) setKey(patch, key, cloneJson(modifiedValue));
      continue;
    }

    if (kind === 'map') {
      const meta = lookupField(schema, key, fieldPath);
      if (meta.strategy === 'replace') {
        if (changes && !jsonEqual(originalValue, modifiedValue)) setKey(patch, key, cloneJson(modifiedValue));
        continue;
      }
      const sub = diffMaps(originalValue as JsonObject, modifiedValue as JsonObject, meta.schema, { ...options, buildRetainKeys: meta.retainKeys }, fieldPath);
      if (Object.keys(sub).length > 0) setKey(patch, key, sub);
      continue;
    }

    const meta = lookupList(schema, key, fieldPath);
    if (meta.strategy !== 'merge') {
      if (changes && !jsonEqual(originalValue, modifiedValue)) setKey(patch, key, cloneJson(modifiedValue));
      continue;
    }
    const lists = diffLists(originalValue as unknown[], modifiedValue as unknown[], meta.schema, meta.mergeKey, { ...options, buildRetainKeys: meta.retainKeys }, fieldPath);
    if (lists.patch.length > 0) setKey(patch, key, lists.patch);
    if (lists.deletions.length > 0) setKey(patch, `${DELETE_FROM_PRIMITIVE_LIST_PREFIX}/${key}`, lists.deletions);
    if (lists.order.length > 0) setKey(patch, `${SET_ELEMENT_ORDER_PREFIX}/${key}`, lists.order);
  }

  if (!options.ignoreDeletions) {
    for (const key of Object.keys(original)) {
      if (!hasKey(modified, key)) setKey(patch, key, null);
    }
  }

  // $retainKeys goes in when the patch changes something or when it must clear a field.
  if (retainKeys.length > 0 && (Object.keys(patch).length > 0 || hasFieldMissingFrom(original, modified))) {
    setKey(patch, RETAIN_KEYS_DIRECTIVE, retainKeys.sort(compareScalars));
  }
  return patch;
}

/** Whether `original` has a non-null field that `modified` lacks. */
function hasFieldMissingFrom(original: JsonObject, modified: JsonObject): boolean {
  return Object.entries(original).some(([k, v]) => v !== null && !hasKey(modified, k));
}

interface ListDiff {
  /** Added and changed elements (for maps, deletions follow as `$patch: delete` elements). */
  readonly patch: unknown[];
  /** Primitive values removed (the `$deleteFromPrimitiveList` list). */
  readonly deletions: unknown[];
  /** The `$setElementOrder` list, or empty. */
  readonly order: unknown[];
}

/** Kubernetes' diffLists: the patch of a merged list. */
function diffLists(original: unknown[], modified: unknown[], schema: Schema | undefined, mergeKey: string, options: DiffOptions, path: string): ListDiff {
  const changes = !options.ignoreChangesAndAdditions;
  const deletions = !options.ignoreDeletions;
  if (original.length === 0) {
    return { patch: modified.length === 0 || !changes ? [] : cloneJson(modified), deletions: [], order: [] };
  }
  const kind = listKind(original, modified, path);

  if (kind === 'map') {
    const { patch, removed } = diffListsOfMaps(original, modified, schema, mergeKey, options, path);
    const sorted = [...sortByOrder(patch, modified, mergeKey), ...removed];
    const orderSame = original.length === modified.length && modified.every((m, i) => jsonEqual(keyOf(original[i], mergeKey), keyOf(m, mergeKey)));
    const wantOrder = options.setElementOrder && ((changes && (sorted.length > 0 || !orderSame)) || (deletions && sorted.length > 0));
    const order = wantOrder ? modified.map((m) => ({ [mergeKey]: cloneJson(keyOf(m, mergeKey)) })) : [];
    return { patch: sorted, deletions: [], order };
  }

  const { added, removed } = diffListsOfScalars(original, modified, options);
  const wantOrder = options.setElementOrder && ((deletions && removed.length > 0) || (changes && !jsonEqual(original, modified)));
  return { patch: sortByOrder(added, modified, ''), deletions: removed, order: wantOrder ? cloneJson(modified) : [] };
}

/** The kind of the lists' elements; lists of lists are refused. */
function listKind(a: unknown[], b: unknown[], path: string): 'map' | 'scalar' {
  let kind: 'map' | 'scalar' | undefined;
  for (const v of [...a, ...b]) {
    const k = kindOf(v);
    if (k === 'list') throw badPatch(`${MSG_LIST_OF_LISTS} (${path})`);
    const simple = k === 'map' ? 'map' : 'scalar';
    if (kind === undefined) kind = simple;
    else if (kind !== simple) throw badPatch(`list element types are not identical: ${path}`);
  }
  return kind ?? 'scalar';
}

function keyOf(element: unknown, mergeKey: string): unknown {
  if (!isJsonObject(element) || !hasKey(element, mergeKey)) throw errNoMergeKey(element, mergeKey);
  return element[mergeKey];
}

/** How Kubernetes orders merge keys and primitives: by their printed form (fmt's %v). */
function printed(v: unknown): string {
  return typeof v === 'string' ? v : isJsonObject(v) || Array.isArray(v) ? JSON.stringify(v) : String(v);
}

function compareScalars(a: unknown, b: unknown): number {
  const x = printed(a);
  const y = printed(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

/**
 * Kubernetes' diffListsOfMaps: walks both lists sorted by merge key; elements on both sides are
 * diffed (kept when they differ, with their merge key), elements only in `modified` are added
 * whole, elements only in `original` become `{<key>: v, $patch: delete}`.
 */
function diffListsOfMaps(
  original: unknown[],
  modified: unknown[],
  schema: Schema | undefined,
  mergeKey: string,
  options: DiffOptions,
  path: string,
): { patch: unknown[]; removed: unknown[] } {
  const byKey = (list: unknown[]): Array<{ element: JsonObject; key: unknown; text: string }> =>
    list
      .map((element) => {
        const key = keyOf(element, mergeKey);
        return { element: element as JsonObject, key, text: printed(key) };
      })
      .sort((a, b) => (a.text < b.text ? -1 : a.text > b.text ? 1 : 0));
  const left = byKey(original);
  const right = byKey(modified);
  const patch: unknown[] = [];
  const removed: unknown[] = [];
  let i = 0;
  let j = 0;
  while (i < left.length || j < right.length) {
    const o = left[i];
    const m = right[j];
    if (o !== undefined && m !== undefined && o.text === m.text) {
      const sub = diffMaps(o.element, m.element, schema, options, path);
      if (Object.keys(sub).length > 0) {
        setKey(sub, mergeKey, cloneJson(m.key));
        patch.push(sub);
      }
      i++;
      j++;
    } else if (m !== undefined && (o === undefined || o.text > m.text)) {
      if (!options.ignoreChangesAndAdditions) patch.push(cloneJson(m.element));
      j++;
    } else if (o !== undefined) {
      if (!options.ignoreDeletions) removed.push({ [mergeKey]: cloneJson(o.key), [DIRECTIVE_MARKER]: 'delete' });
      i++;
    }
  }
  return { patch, removed };
}

/** Kubernetes' diffListsOfScalars, on the lists as sets: values added and values removed. */
function diffListsOfScalars(original: unknown[], modified: unknown[], options: DiffOptions): { added: unknown[]; removed: unknown[] } {
  const before = new ListIndex(original, '');
  const after = new ListIndex(modified, '');
  const added = options.ignoreChangesAndAdditions ? [] : dedupe(modified.filter((v) => !before.has(v)));
  const removed = options.ignoreDeletions ? [] : dedupe(original.filter((v) => !after.has(v)));
  return { added: added.sort(compareScalars), removed: removed.sort(compareScalars) };
}

/** A stable sort of `items` by the position of their identity in `order`. */
function sortByOrder(items: unknown[], order: unknown[], mergeKey: string): unknown[] {
  const index = new ListIndex(order, mergeKey);
  const rank = (v: unknown): number => {
    const at = index.firstOf(v);
    return at < 0 ? Number.MAX_SAFE_INTEGER : at;
  };
  return items
    .map((v, i) => ({ v, i, r: rank(v) }))
    .sort((a, b) => a.r - b.r || a.i - b.i)
    .map((e) => cloneJson(e.v));
}
