/**
 * Whether a CRD version's openAPIV3Schema can be compiled into a validator, field by field: every
 * keyword Setpoint evaluates has the JSON type Kubernetes' JSONSchemaProps gives it, `type` is one
 * of the OpenAPI types, and every `pattern` is a valid RE2 expression, worded as kube-apiserver
 * words it:
 *
 *   spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[x].pattern: Invalid value:
 *   "(a)\1": must be a valid regular expression, but isn't: error parsing regexp: invalid escape sequence: `\1`
 *
 * Paths are Kubernetes' (properties[name], items, additionalProperties, allOf[0], not).
 */
import { FieldError } from '@setpoint/api';
import { patternError } from './regexp.js';

const TYPES = ['array', 'boolean', 'integer', 'number', 'object', 'string'];
const INTEGER_KEYWORDS = ['minLength', 'maxLength', 'minItems', 'maxItems', 'minProperties', 'maxProperties'] as const;
const NUMBER_KEYWORDS = ['minimum', 'maximum', 'multipleOf'] as const;
const BOOLEAN_KEYWORDS = ['exclusiveMinimum', 'exclusiveMaximum', 'uniqueItems', 'nullable', 'x-kubernetes-int-or-string', 'x-kubernetes-preserve-unknown-fields', 'x-kubernetes-embedded-resource'] as const;
const STRING_KEYWORDS = ['type', 'format', 'pattern', 'description', 'title', 'x-kubernetes-list-type', 'x-kubernetes-map-type'] as const;
const STRING_LIST_KEYWORDS = ['required', 'x-kubernetes-list-map-keys'] as const;
const SCHEMA_LIST_KEYWORDS = ['allOf', 'anyOf', 'oneOf'] as const;

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Field errors that would keep `schema` (at `path`) from compiling; [] when it compiles. */
export function schemaCompileErrors(schema: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  walk(schema, path, errs);
  return errs;
}

function walk(schema: unknown, path: string, errs: FieldError[]): void {
  if (!isObject(schema)) {
    errs.push(FieldError.typeInvalid(path, schema, 'must be of type object'));
    return;
  }
  for (const key of STRING_KEYWORDS) {
    const v = schema[key];
    if (v !== undefined && typeof v !== 'string') errs.push(FieldError.typeInvalid(`${path}.${key}`, v, 'must be of type string'));
  }
  for (const key of BOOLEAN_KEYWORDS) {
    const v = schema[key];
    if (v !== undefined && typeof v !== 'boolean') errs.push(FieldError.typeInvalid(`${path}.${key}`, v, 'must be of type boolean'));
  }
  for (const key of INTEGER_KEYWORDS) {
    const v = schema[key];
    if (v !== undefined && !(typeof v === 'number' && Number.isSafeInteger(v))) errs.push(FieldError.typeInvalid(`${path}.${key}`, v, 'must be of type integer'));
  }
  for (const key of NUMBER_KEYWORDS) {
    const v = schema[key];
    if (v !== undefined && !(typeof v === 'number' && Number.isFinite(v))) errs.push(FieldError.typeInvalid(`${path}.${key}`, v, 'must be of type number'));
  }
  for (const key of STRING_LIST_KEYWORDS) {
    const v = schema[key];
    if (v !== undefined && !(Array.isArray(v) && v.every((s) => typeof s === 'string'))) errs.push(FieldError.typeInvalid(`${path}.${key}`, v, 'must be a list of strings'));
  }
  if (schema.enum !== undefined && !Array.isArray(schema.enum)) errs.push(FieldError.typeInvalid(`${path}.enum`, schema.enum, 'must be a list'));
  if (typeof schema.type === 'string' && schema.type !== '' && !TYPES.includes(schema.type)) errs.push(FieldError.notSupported(`${path}.type`, schema.type, TYPES));
  if (typeof schema.pattern === 'string' && schema.pattern !== '') {
    const err = patternError(schema.pattern);
    if (err !== undefined) errs.push(FieldError.invalid(`${path}.pattern`, schema.pattern, `must be a valid regular expression, but isn't: ${err}`));
  }

  if (schema.properties !== undefined) {
    if (!isObject(schema.properties)) errs.push(FieldError.typeInvalid(`${path}.properties`, schema.properties, 'must be of type object'));
    else for (const [name, child] of Object.entries(schema.properties)) walk(child, `${path}.properties[${name}]`, errs);
  }
  const extra = schema.additionalProperties;
  if (extra !== undefined && typeof extra !== 'boolean') walk(extra, `${path}.additionalProperties`, errs);
  if (schema.items !== undefined) {
    if (Array.isArray(schema.items)) errs.push(FieldError.forbidden(`${path}.items`, 'items must be a schema object and not an array'));
    else walk(schema.items, `${path}.items`, errs);
  }
  for (const key of SCHEMA_LIST_KEYWORDS) {
    const list = schema[key];
    if (list === undefined) continue;
    if (!Array.isArray(list)) errs.push(FieldError.typeInvalid(`${path}.${key}`, list, 'must be a list of schemas'));
    else list.forEach((child, i) => walk(child, `${path}.${key}[${i}]`, errs));
  }
  if (schema.not !== undefined) walk(schema.not, `${path}.not`, errs);
}
