/**
 * Typed decoding of built-in kinds: every field's JSON type checked against the kind's schema, as
 * kube-apiserver's decoding into Go structs (sigs.k8s.io/json) checks it, before anything reads
 * the object (normalization, defaulting, validation, admission, controllers).
 *
 * - A value of the wrong JSON type is refused with Go's UnmarshalTypeError wording, wrapped as
 *   kube-apiserver wraps decoding errors: `Pod in version "v1" cannot be handled as a Pod: json:
 *   cannot unmarshal object into Go struct field PodSpec.spec.nodeName of type string`. The struct
 *   is the innermost Go struct holding the field; the path is the JSON field names from the root
 *   (no list indexes, no map keys), as Go prints them.
 * - Integers: a non-integer, a value outside int32 (or int64) or a non-finite value where an
 *   integer belongs is refused (`cannot unmarshal number 1.5 into ... of type int32`); a float64
 *   (`type: number`) takes any finite value.
 * - null as Go reads it: a null field is absent (the zero value, omitted); a null list element or
 *   map value becomes the element type's zero value ("" for a string, {} for a struct, 0, false).
 * - resource.Quantity takes a string or a finite number; x-kubernetes-int-or-string a string or an
 *   int32; x-kubernetes-preserve-unknown-fields (RawExtension, FieldsV1) any JSON value.
 *
 * The check normalizes the object in place (the nulls); it never adds fields Go would not.
 */
import { ApiError, type Schema } from '@setpoint/api';
import { recordedGoType } from './schemas/gotypes.js';

/** What {@link checkTypes} needs to know of the kind, for its messages. */
export interface TypeCheckTarget {
  readonly kind: string;
  readonly version: string;
  readonly schema: Schema;
}

/** A typed-decoding failure: Go's message for the first field of the wrong type. */
export class TypeDecodingError extends Error {
  constructor(readonly goMessage: string) {
    super(goMessage);
    this.name = 'TypeDecodingError';
  }
}

/**
 * Checks the JSON types of `obj` (a top-level object of `target`'s kind) and replaces nulls by
 * Go's zero values, in place. Throws ApiError BadRequest with kube-apiserver's message.
 */
export function checkTypes(obj: Record<string, unknown>, target: TypeCheckTarget): void {
  const message = typeDecodingError(obj, target);
  if (message !== undefined) {
    throw ApiError.badRequest(`${target.kind} in version "${target.version}" cannot be handled as a ${target.kind}: ${message}`);
  }
}

/**
 * Like {@link checkTypes}, but returns Go's decoding message ("json: cannot unmarshal ...")
 * instead of throwing; undefined when the object decodes. Normalizes nulls in place.
 */
export function typeDecodingError(obj: Record<string, unknown>, target: TypeCheckTarget): string | undefined {
  try {
    walkStruct(obj, target.schema, target.kind, '');
    return undefined;
  } catch (err) {
    if (err instanceof TypeDecodingError) return err.goMessage;
    throw err;
  }
}

type Shape =
  | 'any'
  | 'string'
  | 'int32'
  | 'int64'
  | 'float64'
  | 'bool'
  | 'quantity'
  | 'intOrString'
  | 'array'
  | 'map'
  | 'struct';

function shapeOf(schema: Schema): Shape {
  if (schema.type === undefined && schema.oneOf !== undefined) {
    // resource.Quantity publishes oneOf string/number (with x-kubernetes-int-or-string in pod specs).
    const types = new Set(schema.oneOf.map((s) => s.type));
    if (types.size === 2 && types.has('string') && types.has('number')) return 'quantity';
  }
  if (schema['x-kubernetes-int-or-string'] === true) return 'intOrString';
  if (schema['x-kubernetes-preserve-unknown-fields'] === true && schema.properties === undefined) return 'any';
  if (schema.type === undefined && (schema.oneOf !== undefined || schema.anyOf !== undefined)) return 'any';
  switch (schema.type) {
    case 'string':
      return 'string';
    case 'integer':
      return schema.format === 'int32' ? 'int32' : 'int64';
    case 'number':
      return 'float64';
    case 'boolean':
      return 'bool';
    case 'array':
      return 'array';
    case 'object':
      if (schema.properties !== undefined) return 'struct';
      return 'map';
    default:
      return 'any';
  }
}

const PACKAGELESS = /^[^.[\]]*\./;

/** The name of the Go struct a struct schema decodes into, reached through `field` of `parent`. */
function structName(schema: Schema, field: string, parent: string, parentIsTop: boolean, listed: boolean): string {
  const recorded = recordedGoType(schema);
  if (recorded !== undefined) return recorded.replace(PACKAGELESS, '');
  if (parentIsTop && (field === 'spec' || field === 'status')) return `${parent}${field === 'spec' ? 'Spec' : 'Status'}`;
  let base = field;
  if (listed && base.endsWith('ies')) base = `${base.slice(0, -3)}y`;
  else if (listed && base.endsWith('s') && !base.endsWith('ss')) base = base.slice(0, -1);
  return base.charAt(0).toUpperCase() + base.slice(1);
}

/** Go's name of the type `schema` decodes into ("int32", "[]v1.Container", "map[string]string"). */
function goTypeName(schema: Schema, field: string, parent: string, parentIsTop: boolean, listed = false): string {
  const recorded = recordedGoType(schema);
  if (recorded !== undefined) return recorded;
  switch (shapeOf(schema)) {
    case 'string':
      return schema.format === 'byte' ? '[]uint8' : 'string';
    case 'int32':
      return 'int32';
    case 'int64':
      return 'int64';
    case 'float64':
      return 'float64';
    case 'bool':
      return 'bool';
    case 'quantity':
      return 'resource.Quantity';
    case 'intOrString':
      return 'intstr.IntOrString';
    case 'array':
      return `[]${schema.items === undefined ? 'interface {}' : goTypeName(schema.items, field, parent, parentIsTop, true)}`;
    case 'map': {
      const extra = schema.additionalProperties;
      return `map[string]${typeof extra === 'object' ? goTypeName(extra, field, parent, parentIsTop) : 'interface {}'}`;
    }
    case 'struct':
      return `v1.${structName(schema, field, parent, parentIsTop, listed)}`;
    default:
      return 'interface {}';
  }
}

/** Go's description of a JSON value in an UnmarshalTypeError ("object", "number 1.5"). */
function jsonKind(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'boolean') return 'bool';
  return typeof value; // string, number, object
}

/** A JSON number as Go quotes it when it does not fit an integer ("number 1.5"); "number" when not finite. */
function numberText(n: number): string {
  if (!Number.isFinite(n)) return 'number';
  if (Number.isInteger(n) && Math.abs(n) < 1e21) return `number ${BigInt(n).toString()}`;
  return `number ${String(n)}`;
}

const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;
const INT64_LIMIT = 2 ** 63; // the first double outside int64 (int64's max rounds up to it)

function fitsInteger(n: number, bits: 32 | 64): boolean {
  if (!Number.isInteger(n)) return false; // also NaN and ±Infinity
  return bits === 32 ? n >= INT32_MIN && n <= INT32_MAX : n >= -INT64_LIMIT && n < INT64_LIMIT;
}

/** Go's zero value of an element of `schema`'s type (what a null list element or map value becomes). */
function zeroValue(schema: Schema): unknown {
  switch (shapeOf(schema)) {
    case 'string':
      return '';
    case 'int32':
    case 'int64':
    case 'float64':
    case 'intOrString':
      return 0;
    case 'bool':
      return false;
    case 'quantity':
      return '0';
    case 'array':
      return [];
    case 'map':
    case 'struct':
      return {};
    default:
      return null;
  }
}

/**
 * Checks `value` (not null) against `schema`, replacing nulls inside it; `struct` is the innermost
 * Go struct and `path` the field path (for messages), `field` the last field name.
 */
function walkValue(value: unknown, schema: Schema, struct: string, path: string, field: string, parentIsTop: boolean, listed: boolean): void {
  const shape = shapeOf(schema);
  const refuse = (what: string): never => {
    throw new TypeDecodingError(`json: cannot unmarshal ${what} into Go struct field ${struct}.${path} of type ${goTypeName(schema, field, struct, parentIsTop, listed)}`);
  };
  switch (shape) {
    case 'any':
      return;
    case 'string':
      if (typeof value !== 'string') refuse(jsonKind(value));
      return;
    case 'int32':
    case 'int64':
      if (typeof value !== 'number') refuse(jsonKind(value));
      if (!fitsInteger(value as number, shape === 'int32' ? 32 : 64)) refuse(numberText(value as number));
      return;
    case 'float64':
      if (typeof value !== 'number') refuse(jsonKind(value));
      if (!Number.isFinite(value)) refuse(numberText(value as number));
      return;
    case 'bool':
      if (typeof value !== 'boolean') refuse(jsonKind(value));
      return;
    case 'quantity':
      if (typeof value === 'string') return;
      if (typeof value !== 'number') refuse(jsonKind(value));
      if (!Number.isFinite(value)) refuse(numberText(value as number));
      return;
    case 'intOrString':
      if (typeof value === 'string') return;
      if (typeof value !== 'number') refuse(jsonKind(value));
      if (!fitsInteger(value as number, 32)) refuse(numberText(value as number));
      return;
    case 'array': {
      if (!Array.isArray(value)) refuse(jsonKind(value));
      const items = schema.items;
      if (items === undefined) return;
      const list = value as unknown[];
      for (let i = 0; i < list.length; i++) {
        if (list[i] === null) {
          const zero = zeroValue(items);
          if (zero !== null) list[i] = zero;
          continue;
        }
        walkValue(list[i], items, struct, path, field, parentIsTop, true);
      }
      return;
    }
    case 'map': {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) refuse(jsonKind(value));
      const extra = schema.additionalProperties;
      if (typeof extra !== 'object') return;
      const map = value as Record<string, unknown>;
      for (const key of Object.keys(map)) {
        if (map[key] === null) {
          const zero = zeroValue(extra);
          if (zero !== null) map[key] = zero;
          continue;
        }
        walkValue(map[key], extra, struct, path, field, parentIsTop, false);
      }
      return;
    }
    case 'struct': {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) refuse(jsonKind(value));
      walkStruct(value as Record<string, unknown>, schema, structName(schema, field, struct, parentIsTop, listed), path);
      return;
    }
  }
}

/** The fields of a struct named `struct` at `path` ('' at the top). */
function walkStruct(obj: Record<string, unknown>, schema: Schema, struct: string, path: string): void {
  const props = schema.properties ?? {};
  const top = path === '';
  for (const key of Object.keys(obj)) {
    const child = Object.hasOwn(props, key) ? props[key] : undefined;
    if (child === undefined) continue; // unknown fields: field validation's business
    const value = obj[key];
    if (value === null) {
      // Go leaves a null field at its zero value: absent once encoded (omitempty) — but raw JSON keeps it.
      if (shapeOf(child) !== 'any') delete obj[key];
      continue;
    }
    if (value === undefined) continue;
    walkValue(value, child, struct, top ? key : `${path}.${key}`, key, top, false);
  }
}
