/**
 * Conversion between protobuf messages of the built-in kinds and the JSON objects the rest of the
 * server works on, field by field through the schema's reflection.
 *
 * To JSON, as Kubernetes' JSON writes the Go object the message decodes into: a field absent on
 * the wire is left out; a scalar at its zero value ("", 0, false) is left out unless the field says
 * `(keep)`; an empty list or map is left out (a list's `items` is `[]`); a message present on the
 * wire is written, `{}` when empty, except an empty Time (Go's zero time, JSON null), which is
 * left out. int64 becomes a number, bytes base64.
 *
 * From JSON, every field present and not null is written, zero or not, so that a pointer field
 * the client sees set stays set. JSON keys the message does not have are dropped, as
 * kube-apiserver drops fields it does not know.
 *
 * Special messages with a JSON form of their own:
 * - meta/v1 Time ⇄ RFC 3339 string, seconds only ("2026-11-29T15:47:44Z"; Go reads no fractions);
 * - meta/v1 MicroTime ⇄ RFC 3339 string with six fractional digits;
 * - resource.Quantity {string} ⇄ "100m" (a JSON number is written as its string);
 * - intstr.IntOrString {type, intVal, strVal} ⇄ 8080 | "http";
 * - meta/v1 FieldsV1 {Raw} and runtime.RawExtension {raw} ⇄ the JSON value their bytes hold;
 * - authorization/v1 and authentication/v1 ExtraValue {items} ⇄ ["a", "b"].
 */
import { rfc3339 } from '@setpoint/api';
import protobuf from 'protobufjs';
import type { MessageType } from './schema.js';

type JsonObject = Record<string, unknown>;
/** The fields of a message: a decoded protobufjs message, or a plain object to encode. */
type Fields = Record<string, unknown>;

type Scalar = 'string' | 'bool' | 'int32' | 'int64' | 'bytes';

/** A message whose JSON form is not an object of its fields. */
interface SpecialCodec {
  /** The JSON value of a decoded message; undefined leaves the field out. */
  toJson(message: Fields): unknown;
  /** The fields of the message for a JSON value (undefined: leave the field out); TypeError if it does not fit. */
  fromJson(value: unknown, at: string): Fields | undefined;
}

type ValueCodec =
  | { readonly kind: 'scalar'; readonly scalar: Scalar }
  | { readonly kind: 'message'; readonly type: MessageType }
  | { readonly kind: 'special'; readonly codec: SpecialCodec };

interface FieldPlan {
  readonly name: string;
  readonly shape: 'single' | 'repeated' | 'map';
  /** The codec of the field's value (of each element, of each map value). */
  readonly value: ValueCodec;
  readonly keep: boolean;
  readonly inline: boolean;
}

/** The JSON object of a decoded message of `type` (see the module comment for the rules). */
export function messageToJson(type: MessageType, message: Fields): JsonObject {
  const out: JsonObject = {};
  writeJson(planOf(type), message, out);
  return out;
}

/**
 * The fields to encode as a message of `type` for a JSON object. Throws TypeError naming the field
 * when a value has the wrong JSON type (a string where the message has a number, …).
 */
export function jsonToMessage(type: MessageType, json: JsonObject, at = ''): Fields {
  const out: Fields = {};
  for (const f of planOf(type)) {
    const path = at === '' ? f.name : `${at}.${f.name}`;
    if (f.inline) {
      if (f.value.kind === 'message') out[f.name] = jsonToMessage(f.value.type, json, at);
      continue;
    }
    const v = json[f.name];
    if (v === undefined || v === null) continue;
    if (f.shape === 'map') {
      if (!isObject(v)) throw wrongType(path, 'an object', v);
      const entries: Fields = {};
      for (const [key, x] of Object.entries(v)) entries[key] = valueFromJson(f.value, x, `${path}[${key}]`) ?? zeroValue(f.value);
      out[f.name] = entries;
    } else if (f.shape === 'repeated') {
      if (!Array.isArray(v)) throw wrongType(path, 'an array', v);
      out[f.name] = v.map((x, i) => valueFromJson(f.value, x, `${path}[${i}]`) ?? zeroValue(f.value));
    } else {
      const value = valueFromJson(f.value, v, path);
      if (value !== undefined) out[f.name] = value;
    }
  }
  return out;
}

function writeJson(plan: readonly FieldPlan[], message: Fields, out: JsonObject): void {
  for (const f of plan) {
    const v = message[f.name];
    if (f.shape === 'map') {
      const entries = v as Fields | undefined;
      if (entries === undefined || entries === null) continue;
      const keys = Object.keys(entries);
      if (keys.length === 0) continue;
      const json: JsonObject = {};
      for (const key of keys) json[key] = valueToJson(f.value, entries[key]);
      out[f.name] = json;
    } else if (f.shape === 'repeated') {
      const items = v as unknown[] | undefined;
      if (items === undefined || items === null || items.length === 0) {
        if (f.keep) out[f.name] = [];
        continue;
      }
      out[f.name] = items.map((x) => valueToJson(f.value, x));
    } else {
      // A decoded message owns exactly the fields that were on the wire.
      if (v === undefined || v === null || !Object.hasOwn(message, f.name)) continue;
      if (f.inline) {
        if (f.value.kind === 'message') writeJson(planOf(f.value.type), v as Fields, out);
        continue;
      }
      const json = valueToJson(f.value, v);
      if (json === undefined) continue;
      if (!f.keep && f.value.kind === 'scalar' && (json === '' || json === 0 || json === false)) continue;
      out[f.name] = json;
    }
  }
}

function valueToJson(codec: ValueCodec, v: unknown): unknown {
  switch (codec.kind) {
    case 'message':
      return messageToJson(codec.type, v as Fields);
    case 'special':
      return codec.codec.toJson(v as Fields);
    case 'scalar':
      switch (codec.scalar) {
        case 'int64':
          return toNumber(v);
        case 'bytes':
          return bytesOf(v).toString('base64');
        default:
          return v;
      }
  }
}

function valueFromJson(codec: ValueCodec, v: unknown, at: string): unknown {
  if (v === null || v === undefined) return undefined;
  switch (codec.kind) {
    case 'message':
      if (!isObject(v)) throw wrongType(at, 'an object', v);
      return jsonToMessage(codec.type, v, at);
    case 'special':
      return codec.codec.fromJson(v, at);
    case 'scalar':
      switch (codec.scalar) {
        case 'string':
          if (typeof v !== 'string') throw wrongType(at, 'a string', v);
          return v;
        case 'bool':
          if (typeof v !== 'boolean') throw wrongType(at, 'a boolean', v);
          return v;
        case 'int32':
        case 'int64':
          if (typeof v !== 'number' || !Number.isInteger(v)) throw wrongType(at, 'an integer', v);
          return v;
        case 'bytes':
          if (typeof v !== 'string') throw wrongType(at, 'a base64 string', v);
          return Buffer.from(v, 'base64');
      }
  }
}

/** What Go's JSON decoder makes of a null list element or map value: the zero value. */
function zeroValue(codec: ValueCodec): unknown {
  if (codec.kind !== 'scalar') return {};
  switch (codec.scalar) {
    case 'string':
      return '';
    case 'bool':
      return false;
    case 'bytes':
      return Buffer.alloc(0);
    default:
      return 0;
  }
}

const plans = new WeakMap<MessageType, readonly FieldPlan[]>();

function planOf(type: MessageType): readonly FieldPlan[] {
  let plan = plans.get(type);
  if (plan === undefined) {
    plan = type.fieldsArray.map((field) => ({
      name: field.name,
      shape: field.map ? 'map' : field.repeated ? 'repeated' : 'single',
      value: valueCodec(field),
      keep: field.options?.['(keep)'] === true,
      inline: field.options?.['(inline)'] === true,
    }));
    plans.set(type, plan);
  }
  return plan;
}

function valueCodec(field: protobuf.Field): ValueCodec {
  const resolved = field.resolvedType;
  if (resolved instanceof protobuf.Type) {
    const special = specialCodecs[resolved.fullName];
    return special ? { kind: 'special', codec: special } : { kind: 'message', type: resolved };
  }
  switch (field.type) {
    case 'string':
    case 'bool':
    case 'int32':
    case 'int64':
    case 'bytes':
      return { kind: 'scalar', scalar: field.type };
  }
  throw new Error(`protobuf field ${field.fullName} has type ${field.type}, which the JSON conversion does not handle`);
}

// --- special messages ----------------------------------------------------------------------------

const RFC3339 = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})$/i;

/** Seconds since the epoch and nanoseconds of an RFC 3339 time; TypeError when it is not one. */
function parseTime(v: unknown, at: string): { seconds: number; nanos: number } {
  if (typeof v !== 'string') throw wrongType(at, 'an RFC 3339 time', v);
  const m = RFC3339.exec(v);
  const ms = m ? Date.parse(`${m[1]!.toUpperCase()}${m[3]!.toUpperCase()}`) : NaN;
  if (Number.isNaN(ms)) throw new TypeError(`${at}: ${JSON.stringify(v)} is not an RFC 3339 time`);
  return { seconds: ms / 1000, nanos: m![2] ? Number(m![2].padEnd(9, '0')) : 0 };
}

/** meta/v1 Time (`micro` false: seconds only) or MicroTime (microseconds). */
function timeCodec(micro: boolean): SpecialCodec {
  return {
    toJson(m) {
      // An empty message is Go's zero time (JSON null): leave it out.
      if (!Object.hasOwn(m, 'seconds') && !Object.hasOwn(m, 'nanos')) return undefined;
      const ms = toNumber(m.seconds ?? 0) * 1000;
      if (!micro) return rfc3339(ms);
      const micros = Math.floor(Number(m.nanos ?? 0) / 1000);
      return `${rfc3339(ms).slice(0, -1)}.${String(micros).padStart(6, '0')}Z`;
    },
    fromJson(v, at) {
      if (v === '') return undefined;
      const { seconds, nanos } = parseTime(v, at);
      return micro ? { seconds, nanos: nanos - (nanos % 1000) } : { seconds };
    },
  };
}

const quantity: SpecialCodec = {
  toJson: (m) => (typeof m.string === 'string' && m.string !== '' ? m.string : '0'),
  fromJson(v, at) {
    if (typeof v === 'string') return { string: v };
    if (typeof v === 'number' && Number.isFinite(v)) return { string: String(v) };
    throw wrongType(at, 'a quantity', v);
  },
};

const intOrString: SpecialCodec = {
  toJson: (m) => (toNumber(m.type ?? 0) === 1 ? (m.strVal ?? '') : (m.intVal ?? 0)),
  fromJson(v, at) {
    if (typeof v === 'number' && Number.isInteger(v)) return { type: 0, intVal: v };
    if (typeof v === 'string') return { type: 1, strVal: v };
    throw wrongType(at, 'an integer or a string', v);
  },
};

/** A message holding JSON text in one bytes field (`field`). */
function rawJsonCodec(field: string): SpecialCodec {
  return {
    toJson(m) {
      const raw = m[field];
      if (raw === undefined || raw === null || bytesOf(raw).length === 0) return undefined;
      return JSON.parse(bytesOf(raw).toString('utf8')) as unknown;
    },
    fromJson: (v) => ({ [field]: Buffer.from(JSON.stringify(v), 'utf8') }),
  };
}

/** authorization/v1 and authentication/v1 ExtraValue {items}: in JSON, the list of strings itself. */
const extraValue: SpecialCodec = {
  toJson: (m) => (Array.isArray(m.items) ? [...(m.items as string[])] : []),
  fromJson(v, at) {
    if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) throw wrongType(at, 'a list of strings', v);
    return { items: v };
  },
};

const specialCodecs: Readonly<Record<string, SpecialCodec>> = {
  '.k8s.io.apimachinery.pkg.apis.meta.v1.Time': timeCodec(false),
  '.k8s.io.apimachinery.pkg.apis.meta.v1.MicroTime': timeCodec(true),
  '.k8s.io.apimachinery.pkg.api.resource.Quantity': quantity,
  '.k8s.io.apimachinery.pkg.util.intstr.IntOrString': intOrString,
  '.k8s.io.apimachinery.pkg.apis.meta.v1.FieldsV1': rawJsonCodec('Raw'),
  '.k8s.io.apimachinery.pkg.runtime.RawExtension': rawJsonCodec('raw'),
  '.k8s.io.api.authorization.v1.ExtraValue': extraValue,
  '.k8s.io.api.authentication.v1.ExtraValue': extraValue,
};

// --- helpers -------------------------------------------------------------------------------------

/** An int64 as decoded (a number, or a Long when the `long` package is present) as a number. */
function toNumber(v: unknown): number {
  if (typeof v === 'number') return v;
  return protobuf.util.LongBits.from(v as protobuf.Long).toNumber(false);
}

function bytesOf(v: unknown): Buffer {
  if (Buffer.isBuffer(v)) return v;
  const u8 = v as Uint8Array;
  return Buffer.from(u8.buffer, u8.byteOffset, u8.byteLength);
}

function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function wrongType(at: string, wanted: string, v: unknown): TypeError {
  const got = v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v;
  return new TypeError(`${at}: expected ${wanted}, got ${got} ${JSON.stringify(v)?.slice(0, 80) ?? ''}`.trimEnd());
}
