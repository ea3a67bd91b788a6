/**
 * Objects seen through their schema, as structured-merge-diff's `typed` package sees them: the
 * field set of a value, the comparison of two values, the merge of an applied configuration into a
 * live object, and the removal of a set of fields from a value. Values are JSON (as JSON.parse
 * returns them); inputs are never modified, results share unchanged parts with the inputs.
 */
import { describePath, fieldElement, keyElement, valueElement } from './elements.js';
import { SELF, insertPath, isEmptySet, isMember, childOf, type FieldSet } from './fieldset.js';
import { UNTYPED, resolveType, valueKind, type ListType, type MapType, type TypeNode } from './types.js';

/** A value that does not fit its schema in a way apply cannot work around (duplicate keys, items without keys). */
export class TypedValueError extends Error {
  override readonly name = 'TypedValueError';
}

type JsonMap = Record<string, unknown>;

function isMap(value: unknown): value is JsonMap {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const hasOwn = Object.prototype.hasOwnProperty;

function own(map: JsonMap, key: string): unknown {
  return hasOwn.call(map, key) ? map[key] : undefined;
}

function isEmptyMap(value: unknown): boolean {
  if (!isMap(value)) return false;
  for (const _ in value) return false;
  return true;
}

function fail(path: readonly string[], message: string): never {
  const where = describePath(path);
  throw new TypedValueError(where === '' ? message : `${where}: ${message}`);
}

/**
 * The path element identifying `item` in an associative list: `k:` with its key fields (a missing
 * key takes its schema default, as Kubernetes does), `v:` with the item itself for sets.
 * Throws TypedValueError for an item that cannot be identified.
 */
export function itemElement(list: ListType, item: unknown, path: readonly string[] = []): string {
  if (list.relation === 'map') {
    if (item === null || item === undefined) fail(path, 'associative list with keys may not have a null element');
    if (!isMap(item)) fail(path, 'associative list with keys may not have non-map elements');
    const fields: Array<[string, unknown]> = [];
    for (const key of list.keys) {
      const value = own(item, key);
      if (value !== undefined) fields.push([key, value]);
      else {
        const fallback = list.keyDefault(key);
        if (fallback !== undefined) fields.push([key, fallback]);
      }
    }
    if (fields.length === 0) {
      fail(path, `associative list with keys has an element that omits all key fields ${JSON.stringify(list.keys)} (and doesn't have default values for any key fields)`);
    }
    return keyElement(fields);
  }
  if (isMap(item)) fail(path, "associative list without keys has an element that's a map type");
  if (Array.isArray(item)) fail(path, 'not supported: associative list with lists as elements');
  if (item === null || item === undefined) fail(path, "associative list without keys has an element that's an explicit null");
  return valueElement(item);
}

// ---------------------------------------------------------------------------------------------
// Field sets

/**
 * The set of fields `value` sets (structured-merge-diff's ToFieldSet): every scalar and atomic
 * value; every item of an associative list (and what it sets); every key of a map that is not a
 * declared field; every field whose value is null or an empty map. Throws TypedValueError.
 */
export function toFieldSet(value: unknown, type: TypeNode): FieldSet {
  return nodeOf(value, type, false, [], false) ?? {};
}

/**
 * What `compare(base, value)` reports as added and modified when `base` holds only empty maps
 * (the fields named in `present`) — the fields a create sets — built in one walk: every path of
 * `value` but the fields of `present`'s maps, each map, list item and struct a member.
 */
export function createdFieldSet(value: unknown, type: TypeNode, present: ReadonlySet<string>): FieldSet {
  const root = resolveType(type, value);
  if (root.kind !== 'map' || root.atomic || !isMap(value)) return toFieldSet(value, type);
  const out: FieldSet = {};
  const path: string[] = [];
  for (const key of Object.keys(value)) {
    const child = value[key];
    if (child === undefined) continue;
    const base = present.has(key);
    if (base && isEmptyMap(child)) continue;
    const element = fieldElement(key);
    path.push(element);
    const n = nodeOf(child, root.field(key) ?? root.element, !(base && isMap(child)), path, true);
    path.pop();
    if (n !== undefined) out[element] = n;
  }
  return out;
}

function node(member: boolean, children: FieldSet): FieldSet | undefined {
  if (isEmptySet(children)) return member ? {} : undefined;
  return member ? { [SELF]: {}, ...children } : children;
}

/** The node of `value`; `all` makes every map a member too (as a comparison reports what it adds). */
function nodeOf(value: unknown, declared: TypeNode, member: boolean, path: string[], all: boolean): FieldSet | undefined {
  const type = resolveType(declared, value);
  if (type.kind === 'list') {
    if (type.relation === 'atomic') return {};
    if (!Array.isArray(value) || value.length === 0) return member || all ? {} : undefined;
    return node(member, itemsOf(value, type, path, all));
  }
  if (type.kind === 'map') {
    if (type.atomic) return {};
    if (!isMap(value)) return member ? {} : undefined;
    const children: FieldSet = {};
    for (const key of Object.keys(value)) {
      const child = value[key];
      if (child === undefined) continue;
      const field = type.field(key);
      const element = fieldElement(key);
      path.push(element);
      const n = nodeOf(child, field ?? type.element, all || child === null || isEmptyMap(child) || field === undefined, path, all);
      path.pop();
      if (n !== undefined) children[element] = n;
    }
    return node(member, children);
  }
  return {};
}

function itemsOf(items: readonly unknown[], list: ListType, path: string[], all: boolean): FieldSet {
  const elements = items.map((item) => itemElement(list, item, path));
  const seen = new Set<string>();
  const duplicates = new Set<string>();
  for (const e of elements) {
    if (seen.has(e)) duplicates.add(e);
    else seen.add(e);
  }
  const children: FieldSet = {};
  for (const [i, e] of elements.entries()) {
    if (duplicates.has(e)) {
      children[e] = {};
      continue;
    }
    path.push(e);
    children[e] = nodeOf(items[i], list.element, true, path, all) ?? {};
    path.pop();
  }
  return children;
}

/**
 * `set` with every declared (struct) field that has members below it made a member itself
 * (structured-merge-diff's EnsureNamedFieldsAreMembers), so that removing the set removes a struct
 * its owner no longer sets at all. Map keys and list items are not touched.
 */
export function ensureNamedFieldsAreMembers(set: FieldSet, type: TypeNode | undefined): FieldSet {
  let out: FieldSet | undefined;
  for (const key in set) {
    // Stryker disable next-line ConditionalExpression: the member marker's node is always empty, and an empty node is kept as it is (next === child) — visiting it changes nothing
    if (key === SELF) continue;
    const child = set[key]!;
    let childType: TypeNode | undefined;
    let named = false;
    const kind = key.charAt(0);
    if (kind === 'f' && type !== undefined && (type.kind === 'map' || type.kind === 'untyped')) {
      const field = type.kind === 'map' ? type.field(key.slice(2)) : undefined;
      named = field !== undefined;
      childType = field ?? (type.kind === 'map' ? type.element : UNTYPED);
    } else if (kind === 'k' && type !== undefined && (type.kind === 'list' || type.kind === 'untyped')) {
      childType = type.kind === 'list' ? type.element : UNTYPED;
    }
    let next = isEmptySet(child) ? child : ensureNamedFieldsAreMembers(child, childType);
    if (named && !isEmptySet(next) && !isMember(next)) next = { [SELF]: {}, ...next };
    if (next === child) continue;
    out ??= { ...set };
    out[key] = next;
  }
  return out ?? set;
}

// ---------------------------------------------------------------------------------------------
// Comparison

/** What changed from one value to another: no path is in more than one set. */
export interface Comparison {
  readonly added: FieldSet;
  readonly modified: FieldSet;
  readonly removed: FieldSet;
}

/** Whether nothing changed. */
export function isSame(c: Comparison): boolean {
  return isEmptySet(c.added) && isEmptySet(c.modified) && isEmptySet(c.removed);
}

/**
 * Compares `lhs` (before) with `rhs` (after), as structured-merge-diff's Compare does: leaves
 * (scalars, atomic values, empty maps and lists) are added, removed or modified; a map, list item
 * or struct that appears or disappears is added or removed along with everything in it.
 * Throws TypedValueError for list items that cannot be identified.
 */
export function compare(lhs: unknown, rhs: unknown, type: TypeNode): Comparison {
  const c = new Comparer();
  c.compare(lhs, rhs, type);
  return { added: c.added, modified: c.modified, removed: c.removed };
}

class Comparer {
  readonly added: FieldSet = {};
  readonly modified: FieldSet = {};
  readonly removed: FieldSet = {};
  readonly path: string[] = [];

  /** `l`/`r` undefined means absent on that side; null is a value. */
  compare(l: unknown, r: unknown, declared: TypeNode): void {
    const tl = l === undefined ? undefined : resolveType(declared, l);
    const tr = r === undefined ? undefined : resolveType(declared, r);
    let inLeaf: boolean;
    if (tr === undefined) inLeaf = this.#handle(tl!, l, r);
    else if (tl === undefined || tl === tr) inLeaf = this.#handle(tr, l, r);
    else {
      this.#handle(tl, l, r);
      inLeaf = this.#handle(tr, l, r);
    }
    if (!inLeaf) {
      if (l === undefined) insertPath(this.added, this.path);
      else if (r === undefined) insertPath(this.removed, this.path);
    }
  }

  /** Compares as `type`; returns whether it compared a leaf. */
  #handle(type: TypeNode, l: unknown, r: unknown): boolean {
    if (type.kind === 'list') {
      const ll = Array.isArray(l) ? l : undefined;
      const rl = Array.isArray(r) ? r : undefined;
      if (type.relation === 'atomic' || ((ll === undefined || ll.length === 0) && (rl === undefined || rl.length === 0))) return this.#leaf(l, r);
      this.#items(type, ll ?? [], rl ?? []);
      return false;
    }
    if (type.kind === 'map') {
      const lm = isMap(l) ? l : undefined;
      const rm = isMap(r) ? r : undefined;
      if (type.atomic || ((lm === undefined || isEmptyMap(lm)) && (rm === undefined || isEmptyMap(rm)))) return this.#leaf(l, r);
      this.#fields(type, lm, rm);
      return false;
    }
    return this.#leaf(l, r);
  }

  #leaf(l: unknown, r: unknown): boolean {
    if (l === undefined) insertPath(this.added, this.path);
    else if (r === undefined) insertPath(this.removed, this.path);
    else if (!jsonEqual(l, r)) insertPath(this.modified, this.path);
    // Stryker disable next-line BooleanLiteral: a leaf that reports false has compare() insert the same added/removed path again, which insertPath ignores
    return true;
  }

  #fields(type: MapType, lm: JsonMap | undefined, rm: JsonMap | undefined): void {
    if (lm !== undefined) for (const key of Object.keys(lm)) this.#field(type, key, lm[key], rm === undefined ? undefined : own(rm, key));
    if (rm !== undefined) for (const key of Object.keys(rm)) if (lm === undefined || own(lm, key) === undefined) this.#field(type, key, undefined, rm[key]);
  }

  #field(type: MapType, key: string, lv: unknown, rv: unknown): void {
    // The same value (or the same shared subtree) has nothing to compare.
    if (lv === rv) return;
    this.path.push(fieldElement(key));
    this.compare(lv, rv, type.field(key) ?? type.element);
    this.path.pop();
  }

  #items(type: ListType, l: readonly unknown[], r: readonly unknown[]): void {
    const left = groupItems(type, l, this.path);
    const right = groupItems(type, r, this.path);
    const order = [...left.keys()];
    for (const e of right.keys()) if (!left.has(e)) order.push(e);
    for (const e of order) {
      const ls = left.get(e) ?? [];
      const rs = right.get(e) ?? [];
      this.path.push(e);
      if (ls.length <= 1 && rs.length <= 1) {
        // Stryker disable next-line ConditionalExpression: a shortcut — the same item compared with itself finds every field the same (field() skips shared values)
        if (ls[0] !== rs[0]) this.compare(ls[0], rs[0], type.element);
      } else if (ls.length >= 2 && rs.length >= 2) {
        // Duplicates on both sides: compared as if atomic.
        if (ls.length !== rs.length || ls.some((v, i) => !jsonEqual(v, rs[i]))) insertPath(this.modified, this.path);
      } else if (ls.length >= 2) {
        if (rs.length !== 0) this.compare(undefined, rs[0], type.element);
        insertPath(this.removed, this.path);
      } else {
        if (ls.length !== 0) this.compare(ls[0], undefined, type.element);
        insertPath(this.added, this.path);
      }
      this.path.pop();
    }
  }
}

/** The items of a list grouped by element, in order of first appearance. */
function groupItems(type: ListType, items: readonly unknown[], path: readonly string[]): Map<string, unknown[]> {
  const out = new Map<string, unknown[]>();
  for (const item of items) {
    const e = itemElement(type, item, path);
    const group = out.get(e);
    if (group === undefined) out.set(e, [item]);
    else group.push(item);
  }
  return out;
}

/** Deep equality of JSON values; numbers compare as numbers, maps regardless of key order. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    return a.every((item, i) => jsonEqual(item, b[i]));
  }
  if (Array.isArray(b)) return false;
  const am = a as JsonMap;
  const bm = b as JsonMap;
  let n = 0;
  for (const key in am) {
    const av = am[key];
    if (av === undefined) continue;
    n++;
    if (!jsonEqual(av, own(bm, key))) return false;
  }
  for (const key in bm) if (bm[key] !== undefined) n--;
  return n === 0;
}

// ---------------------------------------------------------------------------------------------
// Merge

/**
 * Merges an applied configuration into a live object (structured-merge-diff's Merge with the
 * "keep the right-hand side" rule): what the configuration sets wins; maps merge key by key;
 * associative lists merge item by item, in the configuration's order with the live object's
 * other items kept where they were; atomic values are replaced. A field the configuration sets to
 * null is removed. Throws TypedValueError for list items that cannot be identified.
 */
export function merge(live: unknown, config: unknown, type: TypeNode): unknown {
  return mergeValue(live, config, type, []);
}

function mergeValue(l: unknown, r: unknown, declared: TypeNode, path: string[]): unknown {
  if (r === undefined) return l;
  // Stryker disable next-line ConditionalExpression,LogicalOperator: a shortcut — an absent or null side resolves to the declared type, and every branch below returns r when either side is not a list or map
  if (l === undefined || l === null || r === null) return r;
  const tl = resolveType(declared, l);
  const tr = resolveType(declared, r);
  // Stryker disable next-line ConditionalExpression: a shortcut — a side of another shape fails the list/map checks below, which return r as well
  if (tl !== tr) return r;
  if (tr.kind === 'list') {
    if (tr.relation === 'atomic' || !Array.isArray(l) || !Array.isArray(r) || (l.length === 0 && r.length === 0)) return r;
    return mergeItems(tr, l, r, path);
  }
  if (tr.kind === 'map') {
    if (tr.atomic || !isMap(l) || !isMap(r) || (isEmptyMap(l) && isEmptyMap(r))) return r;
    const out: JsonMap = {};
    for (const key of Object.keys(l)) {
      const rv = own(r, key);
      if (rv === null) continue;
      path.push(fieldElement(key));
      const v = mergeValue(l[key], rv, tr.field(key) ?? tr.element, path);
      path.pop();
      if (v !== undefined) setKey(out, key, v);
    }
    for (const key of Object.keys(r)) {
      const rv = r[key];
      if (rv === null || rv === undefined || own(l, key) !== undefined) continue;
      setKey(out, key, rv);
    }
    return out;
  }
  return r;
}

function setKey(obj: JsonMap, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(obj, key, { value, enumerable: true, configurable: true, writable: true });
  else obj[key] = value;
}

/** structured-merge-diff's visitListItems: the configuration's order, the live object's other items in place. */
function mergeItems(type: ListType, l: readonly unknown[], r: readonly unknown[], path: string[]): unknown[] {
  const re = r.map((item) => itemElement(type, item, path));
  const le = l.map((item) => itemElement(type, item, path));
  const rightBy = new Map<string, unknown>();
  for (const [i, e] of re.entries()) {
    if (rightBy.has(e)) fail([...path, e], `duplicate entries for key ${describePath([e])}`);
    rightBy.set(e, r[i]);
  }
  // A live item that appears twice is not merged with the configuration: it counts as null.
  const leftBy = new Map<string, unknown>();
  for (const [i, e] of le.entries()) leftBy.set(e, leftBy.has(e) ? null : l[i]);
  const shared = re.filter((e) => leftBy.has(e));
  let nextShared: string | undefined = shared[0];
  let sharedAt = 1;
  const advance = () => {
    nextShared = shared[sharedAt++];
  };
  const merged = new Set<string>();
  const out: unknown[] = [];
  const mergeItem = (e: string, lv: unknown, rv: unknown) => {
    path.push(e);
    const v = mergeValue(lv, rv, type.element, path);
    path.pop();
    // Stryker disable next-line ConditionalExpression: the configuration's item is always defined (itemElement refuses undefined items), so the merge of it is too
    if (v !== undefined) out.push(v);
  };
  let li = 0;
  let ri = 0;
  // Every turn takes an item from one side or both, so the loop ends within l.length + r.length
  // turns; the bound makes a mistake here an error for one request instead of a hung server.
  // Stryker disable next-line UpdateOperator: counting up instead only stops the bound from ever being reached, which no right answer does
  for (let turns = l.length + r.length; li < l.length || ri < r.length; turns--) {
    // Stryker disable next-line ConditionalExpression,BlockStatement,StringLiteral: unreachable while every turn takes an item (a mutant that breaks that fails on it)
    if (turns === 0) throw new Error(`merging ${describePath(path)}: no progress`);
    // Stryker disable next-line ConditionalExpression,LogicalOperator,EqualityOperator: past the end of one side, its element is undefined, which matches no item (they are strings), and nextShared is undefined once the configuration's items are all taken
    if (li < l.length && ri < r.length) {
      const e = le[li]!;
      if (e === re[ri]) {
        merged.add(e);
        mergeItem(e, leftBy.get(e), rightBy.get(e));
        li++;
        ri++;
        advance();
        continue;
      }
      if (rightBy.has(e) && nextShared !== undefined && nextShared !== e) {
        li++; // shared, but not the one due now: it comes in the configuration's order
        continue;
      }
    }
    if (li < l.length) {
      const e = le[li]!;
      if (!rightBy.has(e)) {
        out.push(l[li]);
        li++;
        continue;
      }
      if (merged.has(e)) li++;
    }
    // Stryker disable next-line ConditionalExpression,EqualityOperator: past the configuration's end its element is undefined, whose merge adds nothing
    if (ri < r.length) {
      const e = re[ri]!;
      merged.add(e);
      mergeItem(e, leftBy.get(e), rightBy.get(e));
      ri++;
      // structured-merge-diff advances nextShared here too when e is it; that happens only once the
      // live list is used up (it waits at the item due next, and the configuration's items before that
      // one are not shared), after which nextShared is not read again.
    }
  }
  return out;
}

/**
 * Checks an applied configuration the way Kubernetes types it: associative list items must be
 * identifiable and unique. Throws TypedValueError.
 */
export function validateConfiguration(value: unknown, type: TypeNode): void {
  validate(value, type, []);
}

function validate(value: unknown, declared: TypeNode, path: string[]): void {
  // structured-merge-diff refuses a value of another shape than its schema's (null is any shape).
  if (value !== null && value !== undefined) {
    if (declared.kind === 'map' && !isMap(value)) fail(path, `expected map, got ${goValue(value)}`);
    if (declared.kind === 'list' && !Array.isArray(value)) fail(path, `expected list, got ${goValue(value)}`);
  }
  const type = resolveType(declared, value);
  if (type.kind === 'list' && type.relation !== 'atomic' && Array.isArray(value)) {
    const seen = new Set<string>();
    for (const item of value) {
      const e = itemElement(type, item, path);
      if (seen.has(e)) fail(path, `duplicate entries for key ${describePath([e])}`);
      seen.add(e);
      path.push(e);
      validate(item, type.element, path);
      path.pop();
    }
  } else if (type.kind === 'map' && !type.atomic && isMap(value)) {
    for (const key of Object.keys(value)) {
      path.push(fieldElement(key));
      validate(value[key], type.field(key) ?? type.element, path);
      path.pop();
    }
  }
}

/** A JSON value as Go's `%v` prints structured-merge-diff's value of it (`&{x}`, `&{[1 2]}`, `&{map[a:1]}`). */
function goValue(value: unknown): string {
  const plain = (v: unknown): string => {
    if (Array.isArray(v)) return `[${v.map(plain).join(' ')}]`;
    if (isMap(v)) return `map[${Object.keys(v).sort().map((k) => `${k}:${plain(v[k])}`).join(' ')}]`;
    if (v === null) return '<nil>';
    return String(v);
  };
  return `&{${plain(value)}}`;
}

// ---------------------------------------------------------------------------------------------
// Removal

/**
 * `value` without the fields in `set` (structured-merge-diff's RemoveItems): a member path goes
 * with everything below it; a map or list left empty by the removal goes too (undefined).
 * Atomic values are never entered.
 */
export function removeItems(value: unknown, set: FieldSet, type: TypeNode): unknown {
  // Stryker disable next-line ConditionalExpression: a shortcut — removing the empty set finds no child anywhere and returns the value itself
  if (isEmptySet(set)) return value;
  return removeFrom(value, set, type);
}

function removeFrom(value: unknown, set: FieldSet, declared: TypeNode): unknown {
  const type = resolveType(declared, value);
  if (type.kind === 'list') {
    if (type.relation === 'atomic' || !Array.isArray(value) || value.length === 0) return value;
    const out: unknown[] = [];
    let changed = false;
    for (const item of value) {
      const e = itemElement(type, item);
      const sub = childOf(set, e);
      if (sub === undefined) {
        out.push(item);
        continue;
      }
      changed = true;
      if (isMember(sub)) continue;
      const kept = removeFrom(item, sub, type.element);
      if (kept !== undefined) out.push(kept);
    }
    if (!changed) return value;
    return out.length > 0 ? out : undefined;
  }
  if (type.kind === 'map') {
    if (type.atomic || !isMap(value) || isEmptyMap(value)) return value;
    const out: JsonMap = {};
    let changed = false;
    for (const key of Object.keys(value)) {
      const sub = childOf(set, fieldElement(key));
      if (sub === undefined) {
        setKey(out, key, value[key]);
        continue;
      }
      changed = true;
      if (isMember(sub)) continue;
      const kept = removeFrom(value[key], sub, type.field(key) ?? type.element);
      if (kept !== undefined) setKey(out, key, kept);
    }
    if (!changed) return value;
    return isEmptyMap(out) ? undefined : out;
  }
  return value;
}

export { valueKind };
