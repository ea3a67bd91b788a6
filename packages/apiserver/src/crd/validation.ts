/**
 * Validation of custom resources against their CRD's openAPIV3Schema, with ajv, worded as
 * Kubernetes words it (kube-openapi's messages turned into field errors as apiextensions does):
 *
 *   spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"
 *   spec.replicas: Invalid value: -1: spec.replicas in body should be greater than or equal to 0
 *   spec.color: Unsupported value: "pink": supported values: "red", "blue"
 *   spec.name: Required value
 *
 * apiVersion, kind and metadata are not validated here (the REST layer validates metadata).
 * x-kubernetes-list-type set and map are checked for duplicates as Kubernetes checks them.
 * `pattern` is compiled and matched with RE2 semantics (./regexp.ts): Go's syntax, linear time.
 */
import { FieldError, type KubeObject, type Schema } from '@setpoint/api';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { FORMATS } from './formats.js';
import { re2Engine } from './regexp.js';

/** A compiled validator for one version of a custom resource. */
export interface ObjectValidator {
  (obj: KubeObject): FieldError[];
}

// `pattern` is RE2 (Go's syntax, linear-time matching), as kube-openapi evaluates it.
const ajv = new Ajv({ allErrors: true, strict: false, validateFormats: true, validateSchema: false, addUsedSchema: false, code: { regExp: re2Engine } });
for (const [name, check] of Object.entries(FORMATS)) ajv.addFormat(name, { type: 'string', validate: check.validate });

/**
 * Compiles a validator for objects of a CRD version's schema. Throws when the schema cannot be
 * compiled (a pattern that is not RE2, a malformed keyword): validateCrd refuses such schemas.
 */
export function compileValidator(schema: Schema): ObjectValidator {
  const root = toJsonSchema(schema, true);
  let validate: ValidateFunction;
  try {
    validate = ajv.compile(root);
  } finally {
    // ajv keeps every schema it compiled, keyed by the object: let it go with its validator.
    ajv.removeSchema(root);
  }
  return (obj) => {
    const body = withoutTypeMeta(obj);
    const errors: FieldError[] = [];
    if (!validate(body)) errors.push(...convertErrors(validate.errors ?? [], body));
    checkListTypes(body, schema, '', errors);
    return errors;
  };
}

function withoutTypeMeta(obj: KubeObject): Record<string, unknown> {
  const { apiVersion: _a, kind: _k, metadata: _m, ...rest } = obj;
  return rest;
}

/**
 * The ajv form of an OpenAPI v3 structural schema: nullable as a "null" type, boolean exclusive
 * bounds as numbers, int-or-string as integer|string, extensions and unknown formats dropped. At
 * the root, apiVersion, kind and metadata are left out.
 */
export function toJsonSchema(schema: Schema, root = false): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const s = schema as Schema & { exclusiveMinimum?: boolean; exclusiveMaximum?: boolean; multipleOf?: number; uniqueItems?: boolean; minProperties?: number; maxProperties?: number; not?: Schema };
  if (s['x-kubernetes-int-or-string'] === true) out.type = s.nullable ? ['integer', 'string', 'null'] : ['integer', 'string'];
  else if (s.type !== undefined) out.type = s.nullable ? [s.type, 'null'] : s.type;
  if (s.format !== undefined && Object.hasOwn(FORMATS, s.format)) out.format = s.format;
  for (const key of ['enum', 'pattern', 'minLength', 'maxLength', 'minItems', 'maxItems', 'uniqueItems', 'multipleOf', 'minProperties', 'maxProperties'] as const) {
    if (s[key] !== undefined) out[key] = s[key];
  }
  if (s.enum !== undefined && s.nullable) out.enum = [...s.enum, null];
  if (s.minimum !== undefined) out[s.exclusiveMinimum === true ? 'exclusiveMinimum' : 'minimum'] = s.minimum;
  if (s.maximum !== undefined) out[s.exclusiveMaximum === true ? 'exclusiveMaximum' : 'maximum'] = s.maximum;
  if (s.required !== undefined) out.required = root ? s.required.filter((r) => !['apiVersion', 'kind', 'metadata'].includes(r)) : s.required;
  if (s.properties !== undefined) {
    const props: Record<string, unknown> = {};
    for (const [name, child] of Object.entries(s.properties)) {
      if (root && (name === 'apiVersion' || name === 'kind' || name === 'metadata')) continue;
      props[name] = toJsonSchema(child);
    }
    out.properties = props;
  }
  if (typeof s.additionalProperties === 'object') out.additionalProperties = toJsonSchema(s.additionalProperties);
  if (s.items !== undefined) out.items = toJsonSchema(s.items);
  for (const key of ['allOf', 'anyOf', 'oneOf'] as const) {
    if (s[key] !== undefined) out[key] = s[key].map((c) => toJsonSchema(c));
  }
  if (s.not !== undefined) out.not = toJsonSchema(s.not);
  return out;
}

/** A JSON pointer ("/spec/items/0/name") as Kubernetes prints field paths ("spec.items[0].name"). */
function fieldPath(pointer: string, data: unknown): string {
  let path = '';
  let cur: unknown = data;
  for (const raw of pointer.split('/').slice(1)) {
    const part = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(cur)) {
      path += `[${part}]`;
      cur = cur[Number(part)];
    } else {
      path += path === '' ? part : `.${part}`;
      cur = typeof cur === 'object' && cur !== null ? (cur as Record<string, unknown>)[part] : undefined;
    }
  }
  return path;
}

function valueAt(pointer: string, data: unknown): unknown {
  let cur: unknown = data;
  for (const raw of pointer.split('/').slice(1)) {
    const part = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    cur = typeof cur === 'object' && cur !== null ? (cur as Record<string, unknown>)[part] : undefined;
  }
  return cur;
}

/** The JSON type name kube-openapi reports for a value of the wrong type. */
function typeName(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return 'number';
  return typeof v;
}

function convertErrors(errors: readonly ErrorObject[], data: unknown): FieldError[] {
  // Errors inside anyOf/oneOf branches explain the branch, not the object: keep the summary.
  const kept = errors.filter((e) => !/\/(anyOf|oneOf|not)\/\d*/.test(e.schemaPath.replace(/\/(anyOf|oneOf|not)$/, '')));
  const out: FieldError[] = [];
  const seen = new Set<string>();
  for (const e of kept) {
    const field = convertError(e, data);
    if (field === undefined) continue;
    const key = field.toString();
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(field);
  }
  return out;
}

function convertError(e: ErrorObject, data: unknown): FieldError | undefined {
  const path = fieldPath(e.instancePath, data);
  const value = valueAt(e.instancePath, data);
  const p = e.params as Record<string, unknown>;
  const name = path === '' ? '<root>' : path;
  switch (e.keyword) {
    case 'required': {
      const missing = String(p.missingProperty);
      return FieldError.required(path === '' ? missing : `${path}.${missing}`);
    }
    case 'type': {
      const wanted = String(p.type).split(',').filter((t) => t !== 'null').join(',');
      const actual = typeName(value);
      return FieldError.typeInvalid(path, actual, `${name} in body must be of type ${wanted}: "${actual}"`);
    }
    case 'format':
      return FieldError.typeInvalid(path, value, `${name} in body must be of type ${String(p.format)}: ${JSON.stringify(String(value))}`);
    case 'enum':
      return FieldError.notSupported(path, value, (p.allowedValues as unknown[]).filter((v) => v !== null).map((v) => (typeof v === 'string' ? v : JSON.stringify(v))));
    case 'maxLength':
      return FieldError.tooLong(path, Number(p.limit));
    case 'maxItems':
      return new FieldError('FieldValueTooMany', path, Array.isArray(value) ? value.length : -1, `must have at most ${Number(p.limit)} items`);
    case 'maxProperties':
      return new FieldError('FieldValueTooMany', path, typeof value === 'object' && value !== null ? Object.keys(value).length : -1, `must have at most ${Number(p.limit)} items`);
    case 'minLength':
      return FieldError.invalid(path, value, `${name} in body should be at least ${Number(p.limit)} chars long`);
    case 'minItems':
      return FieldError.invalid(path, value, `${name} in body should have at least ${Number(p.limit)} items`);
    case 'minProperties':
      return FieldError.invalid(path, value, `${name} in body should have at least ${Number(p.limit)} properties`);
    case 'pattern':
      return FieldError.invalid(path, value, `${name} in body should match '${String(p.pattern)}'`);
    case 'minimum':
      return FieldError.invalid(path, value, `${name} in body should be greater than or equal to ${String(p.limit)}`);
    case 'exclusiveMinimum':
      return FieldError.invalid(path, value, `${name} in body should be greater than ${String(p.limit)}`);
    case 'maximum':
      return FieldError.invalid(path, value, `${name} in body should be less than or equal to ${String(p.limit)}`);
    case 'exclusiveMaximum':
      return FieldError.invalid(path, value, `${name} in body should be less than ${String(p.limit)}`);
    case 'multipleOf':
      return FieldError.invalid(path, value, `${name} in body should be a multiple of ${String(p.multipleOf)}`);
    case 'uniqueItems':
      return FieldError.invalid(path, value, `${name} in body shouldn't contain duplicates`);
    case 'anyOf':
      return FieldError.invalid(path, value, `${name} in body must validate at least one schema (anyOf)`);
    case 'oneOf':
      return FieldError.invalid(path, value, `${name} in body must validate one and only one schema (oneOf)`);
    case 'not':
      return FieldError.invalid(path, value, `${name} in body must not validate the schema (not)`);
    default:
      return FieldError.invalid(path, value, `${name} in body ${e.message ?? 'is invalid'}`);
  }
}

/** x-kubernetes-list-type set (no duplicate values) and map (no duplicate keys), everywhere below `value`. */
function checkListTypes(value: unknown, schema: Schema | undefined, path: string, out: FieldError[]): void {
  if (schema === undefined || value === null || typeof value !== 'object') return;
  if (Array.isArray(value)) {
    const type = schema['x-kubernetes-list-type'];
    if (type === 'set') {
      const seen = new Set<string>();
      value.forEach((item, i) => {
        const key = JSON.stringify(item);
        if (seen.has(key)) out.push(FieldError.duplicate(`${path}[${i}]`, item));
        seen.add(key);
      });
    } else if (type === 'map') {
      const keys = schema['x-kubernetes-list-map-keys'] ?? [];
      const seen = new Set<string>();
      value.forEach((item, i) => {
        if (typeof item !== 'object' || item === null) return;
        const id: Record<string, unknown> = {};
        for (const k of keys) if ((item as Record<string, unknown>)[k] !== undefined) id[k] = (item as Record<string, unknown>)[k];
        const key = JSON.stringify(id);
        if (seen.has(key)) out.push(FieldError.duplicate(`${path}[${i}]`, id));
        seen.add(key);
      });
    }
    value.forEach((item, i) => checkListTypes(item, schema.items, `${path}[${i}]`, out));
    return;
  }
  for (const [key, child] of Object.entries(value)) {
    const childSchema = schema.properties?.[key] ?? (typeof schema.additionalProperties === 'object' ? schema.additionalProperties : undefined);
    checkListTypes(child, childSchema, path === '' ? key : `${path}.${key}`, out);
  }
}
