/**
 * The structure server-side apply sees in a kind's OpenAPI schema (what Kubernetes' schemaconv
 * makes of it for structured-merge-diff):
 * - an object is a map: its `properties` are named fields, any other key has the type of
 *   `additionalProperties` (or is untyped); `x-kubernetes-map-type: atomic` makes it one value;
 * - an array is a list: `x-kubernetes-list-type` decides (`atomic`; `set`: items are their own
 *   identity; `map`: items are identified by `x-kubernetes-list-map-keys`); without it, patch
 *   strategy `merge` makes it keyed by `x-kubernetes-patch-merge-key` (built-in kinds) or a set
 *   (lists of scalars); anything else is atomic;
 * - strings, numbers, booleans and int-or-string values are scalars;
 * - a value without a schema (unknown fields, `x-kubernetes-preserve-unknown-fields`) is typed
 *   by what it is: maps are granular, lists atomic, scalars scalars.
 * Types are built lazily and cached per schema object: schemas are shared and read-only.
 */
import type { Schema } from '../schema.js';

export interface ScalarType {
  readonly kind: 'scalar';
}

/** No schema: typed by the value at hand. */
export interface UntypedType {
  readonly kind: 'untyped';
}

export interface ListType {
  readonly kind: 'list';
  /** atomic: replaced whole; set: items are scalars identified by value; map: items keyed by `keys`. */
  readonly relation: 'atomic' | 'set' | 'map';
  readonly keys: readonly string[];
  readonly element: TypeNode;
  /** The schema default of a key field, used when an item omits it (Kubernetes' associative key defaults). */
  keyDefault(field: string): unknown;
}

export interface MapType {
  readonly kind: 'map';
  readonly atomic: boolean;
  /** The type of a declared field (a `properties` entry), or undefined. */
  field(name: string): TypeNode | undefined;
  /** The type of a key that is not a declared field. */
  readonly element: TypeNode;
}

export type TypeNode = ScalarType | UntypedType | ListType | MapType;

export const SCALAR: ScalarType = Object.freeze({ kind: 'scalar' });
export const UNTYPED: UntypedType = Object.freeze({ kind: 'untyped' });

/** A map whose keys are all untyped (what an untyped object value is). */
export const DEDUCED_MAP: MapType = Object.freeze({ kind: 'map', atomic: false, field: () => undefined, element: UNTYPED });

/** An atomic list of untyped items (what an untyped array value is). */
export const DEDUCED_LIST: ListType = Object.freeze({ kind: 'list', relation: 'atomic', keys: [], element: UNTYPED, keyDefault: () => undefined });

const cache = new WeakMap<Schema, TypeNode>();

/** The type a schema describes (cached per schema object). An absent schema is untyped. */
export function typeOf(schema: Schema | undefined): TypeNode {
  if (schema === undefined) return UNTYPED;
  let type = cache.get(schema);
  if (type === undefined) {
    type = build(schema);
    cache.set(schema, type);
  }
  return type;
}

/** Looks through a schema that only wraps another in `allOf` (OpenAPI's `allOf: [{$ref}]`). */
function unwrap(schema: Schema): Schema {
  let s = schema;
  for (let depth = 0; depth < 8; depth++) {
    const inner = s.allOf?.length === 1 ? s.allOf[0] : undefined;
    if (inner === undefined || s.properties !== undefined || s.items !== undefined || s.additionalProperties !== undefined) break;
    s = { ...inner, ...pickExtensions(s) };
  }
  return s;
}

/** The x-kubernetes-* markers of the wrapper, which apply to what it wraps. */
function pickExtensions(s: Schema): Schema {
  const out: Schema = {};
  for (const key of Object.keys(s)) if (key.startsWith('x-kubernetes-')) (out as Record<string, unknown>)[key] = (s as Record<string, unknown>)[key];
  return out;
}

const SCALAR_TYPES = new Set(['string', 'integer', 'number', 'boolean']);

function build(raw: Schema): TypeNode {
  const s = unwrap(raw);
  if (s['x-kubernetes-int-or-string'] === true) return SCALAR;
  if (s.type === 'object' || s.properties !== undefined || (typeof s.additionalProperties === 'object' && s.type === undefined)) return new SchemaMap(s);
  if (s.type === 'array' || (s.items !== undefined && s.type === undefined)) return listOf(s);
  if (s.type !== undefined && SCALAR_TYPES.has(s.type)) return SCALAR;
  const alternatives = s.oneOf ?? s.anyOf;
  if (alternatives !== undefined && alternatives.length > 0 && alternatives.every((a) => a.type !== undefined && SCALAR_TYPES.has(a.type))) return SCALAR;
  return UNTYPED;
}

class SchemaMap implements MapType {
  readonly kind = 'map';
  readonly atomic: boolean;
  readonly element: TypeNode;
  readonly #properties: Record<string, Schema> | undefined;

  constructor(schema: Schema) {
    this.atomic = schema['x-kubernetes-map-type'] === 'atomic';
    this.#properties = schema.properties;
    const extra = schema.additionalProperties;
    // Unknown keys of a struct are kept as sent by Setpoint; they are typed by their values.
    this.element = typeof extra === 'object' ? typeOf(extra) : UNTYPED;
  }

  field(name: string): TypeNode | undefined {
    const props = this.#properties;
    if (props === undefined || !Object.prototype.hasOwnProperty.call(props, name)) return undefined;
    return typeOf(props[name]);
  }
}

function listOf(s: Schema): ListType {
  const itemSchema = s.items === undefined ? undefined : unwrap(s.items);
  const element = typeOf(s.items);
  const defaults = (field: string): unknown => {
    const props = itemSchema?.properties;
    if (props === undefined || !Object.prototype.hasOwnProperty.call(props, field)) return undefined;
    return unwrap(props[field]!).default;
  };
  const make = (relation: ListType['relation'], keys: readonly string[]): ListType => ({ kind: 'list', relation, keys, element, keyDefault: defaults });
  const listType = s['x-kubernetes-list-type'];
  if (listType === 'atomic') return make('atomic', []);
  if (listType === 'set') return make('set', []);
  if (listType === 'map') {
    const keys = s['x-kubernetes-list-map-keys'];
    if (Array.isArray(keys) && keys.length > 0) return make('map', keys);
    const mergeKey = s['x-kubernetes-patch-merge-key'];
    return typeof mergeKey === 'string' && mergeKey !== '' ? make('map', [mergeKey]) : make('atomic', []);
  }
  const strategy = s['x-kubernetes-patch-strategy'];
  if (typeof strategy === 'string' && strategy.split(',').includes('merge')) {
    const mergeKey = s['x-kubernetes-patch-merge-key'];
    return typeof mergeKey === 'string' && mergeKey !== '' ? make('map', [mergeKey]) : make('set', []);
  }
  return make('atomic', []);
}

/** What a value looks like: a map (plain object), a list, null, or a scalar. */
export type ValueKind = 'map' | 'list' | 'null' | 'scalar';

export function valueKind(value: unknown): ValueKind {
  if (value === null || value === undefined) return 'null';
  if (Array.isArray(value)) return 'list';
  return typeof value === 'object' ? 'map' : 'scalar';
}

/**
 * The type that applies to `value` where `type` is declared: the declared type when the value
 * fits it (null fits anything), else the type deduced from the value, as structured-merge-diff
 * deduces untyped values. (Kubernetes rejects a value of the wrong type; Setpoint's validation does
 * that, so here a mismatch is only typed leniently.)
 */
export function resolveType(type: TypeNode, value: unknown): TypeNode {
  const kind = valueKind(value);
  switch (type.kind) {
    case 'map':
      if (kind === 'map' || kind === 'null') return type;
      break;
    case 'list':
      if (kind === 'list' || kind === 'null') return type;
      break;
    case 'scalar':
      if (kind === 'scalar' || kind === 'null') return type;
      break;
    case 'untyped':
      break;
  }
  if (kind === 'map') return DEDUCED_MAP;
  if (kind === 'list') return DEDUCED_LIST;
  return SCALAR;
}
