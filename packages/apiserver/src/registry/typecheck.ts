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
    walkStruct(obj, { schema: target.schema, field: '', parent: undefined, kind: target.kind }, []);
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

function pascal(name: string): string {
  return name.charAt(0).toUpperCase() + name.slice(1);
}

/**
 * The name of the Go struct a struct schema decodes into: the one recorded beside the schema
 * (every built-in kind's tree records its Go types: schemas/published.ts), else one made from the
 * field's name.
 */
function structName(schema: Schema, field: string): string {
  const recorded = recordedGoType(schema);
  return recorded !== undefined ? recorded.replace(PACKAGELESS, '') : pascal(field);
}

/** Go's name of the type `schema` decodes into ("int32", "[]v1.Container", "map[string]string"). */
function goTypeName(schema: Schema, field: string): string {
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
      return `[]${schema.items === undefined ? 'interface {}' : goTypeName(schema.items, field)}`;
    case 'map': {
      const extra = schema.additionalProperties;
      return `map[string]${typeof extra === 'object' ? goTypeName(extra, field) : 'interface {}'}`;
    }
    case 'struct':
      return `v1.${structName(schema, field)}`;
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
 * The struct a walk is in, and how it got there. Struct names are worked out only for a message,
 * so a walk over a valid object builds no strings.
 */
interface StructFrame {
  readonly schema: Schema;
  /** The field this struct was reached through ('' at the top). */
  readonly field: string;
  readonly parent: StructFrame | undefined;
  /** The kind (the top struct's name). */
  readonly kind: string;
}

function frameName(frame: StructFrame): string {
  if (frame.parent === undefined) return frame.kind;
  return structName(frame.schema, frame.field);
}

/** Throws Go's UnmarshalTypeError for `what` ("object", "number 1.5") found where `schema` belongs. */
function refuseValue(what: string, schema: Schema, frame: StructFrame, fields: readonly string[]): never {
  const struct = frameName(frame);
  const type = goTypeName(schema, fields[fields.length - 1] ?? '');
  throw new TypeDecodingError(`json: cannot unmarshal ${what} into Go struct field ${struct}.${fields.join('.')} of type ${type}`);
}

/**
 * Checks `value` (not null) against `schema`, replacing nulls inside it. `frame` is the innermost
 * struct and `fields` the JSON field names from the root (Go's path: list elements and map values
 * add nothing to it).
 */
function walkValue(value: unknown, schema: Schema, frame: StructFrame, fields: string[]): void {
  const shape = shapeOf(schema);
  switch (shape) {
    case 'any':
      return;
    case 'string':
      if (typeof value !== 'string') refuseValue(jsonKind(value), schema, frame, fields);
      return;
    case 'int32':
    case 'int64':
      if (typeof value !== 'number') refuseValue(jsonKind(value), schema, frame, fields);
      if (!fitsInteger(value as number, shape === 'int32' ? 32 : 64)) refuseValue(numberText(value as number), schema, frame, fields);
      return;
    case 'float64':
      if (typeof value !== 'number') refuseValue(jsonKind(value), schema, frame, fields);
      if (!Number.isFinite(value)) refuseValue(numberText(value as number), schema, frame, fields);
      return;
    case 'bool':
      if (typeof value !== 'boolean') refuseValue(jsonKind(value), schema, frame, fields);
      return;
    case 'quantity':
      if (typeof value === 'string') return;
      if (typeof value !== 'number') refuseValue(jsonKind(value), schema, frame, fields);
      if (!Number.isFinite(value)) refuseValue(numberText(value as number), schema, frame, fields);
      return;
    case 'intOrString':
      if (typeof value === 'string') return;
      if (typeof value !== 'number') refuseValue(jsonKind(value), schema, frame, fields);
      if (!fitsInteger(value as number, 32)) refuseValue(numberText(value as number), schema, frame, fields);
      return;
    case 'array': {
      if (!Array.isArray(value)) refuseValue(jsonKind(value), schema, frame, fields);
      const items = schema.items;
      if (items === undefined) return;
      const list = value as unknown[];
      for (let i = 0; i < list.length; i++) {
        if (list[i] === null) {
          const zero = zeroValue(items);
          if (zero !== null) list[i] = zero;
          continue;
        }
        walkValue(list[i], items, frame, fields);
      }
      return;
    }
    case 'map': {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) refuseValue(jsonKind(value), schema, frame, fields);
      const extra = schema.additionalProperties;
      if (typeof extra !== 'object') return;
      const map = value as Record<string, unknown>;
      for (const key of Object.keys(map)) {
        if (map[key] === null) {
          const zero = zeroValue(extra);
          if (zero !== null) map[key] = zero;
          continue;
        }
        walkValue(map[key], extra, frame, fields);
      }
      return;
    }
    case 'struct': {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) refuseValue(jsonKind(value), schema, frame, fields);
      const inner: StructFrame = { schema, field: fields[fields.length - 1] ?? '', parent: frame, kind: frame.kind };
      walkStruct(value as Record<string, unknown>, inner, fields);
      return;
    }
  }
}

/** The fields of the struct `frame` is about. */
function walkStruct(obj: Record<string, unknown>, frame: StructFrame, fields: string[]): void {
  const props = frame.schema.properties ?? {};
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
    fields.push(key);
    walkValue(value, child, frame, fields);
    fields.pop();
  }
}
