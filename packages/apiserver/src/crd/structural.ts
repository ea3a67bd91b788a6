/**
 * What a CRD's structural schema does to a custom resource before it is validated and stored, as
 * Kubernetes does it: pruning (fields the schema does not declare are dropped, unless
 * x-kubernetes-preserve-unknown-fields keeps them; null values of non-nullable fields are dropped),
 * then defaulting (a `default` fills an absent field, outermost first).
 *
 * At the root, apiVersion and kind are kept and metadata is cut down to ObjectMeta's fields; an
 * x-kubernetes-embedded-resource keeps its apiVersion, kind and metadata the same way.
 */
import { jsonClone, type KubeObject, type Schema } from '@setpoint/api';
import { objectMetaSchema } from '../registry/schemas/meta.js';

const META_FIELDS = new Set(Object.keys(objectMetaSchema.properties ?? {}));
type Json = Record<string, unknown>;

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Drops what `schema` does not keep, in place. */
export function prune(obj: KubeObject, schema: Schema): void {
  pruneObject(obj, schema, true);
}

function pruneObject(obj: Json, schema: Schema, resource: boolean): void {
  const preserve = schema['x-kubernetes-preserve-unknown-fields'] === true;
  const props = schema.properties;
  const extra = typeof schema.additionalProperties === 'object' ? schema.additionalProperties : undefined;
  for (const key of Object.keys(obj)) {
    if (resource && (key === 'apiVersion' || key === 'kind')) continue;
    if (resource && key === 'metadata') {
      if (isObject(obj.metadata)) for (const m of Object.keys(obj.metadata)) if (!META_FIELDS.has(m)) delete obj.metadata[m];
      continue;
    }
    const child = props?.[key] ?? extra;
    if (child === undefined) {
      if (!preserve && schema.additionalProperties !== true) delete obj[key];
      continue;
    }
    const value = obj[key];
    if (value === null && child.nullable !== true) {
      delete obj[key];
      continue;
    }
    pruneValue(value, child);
  }
}

function pruneValue(value: unknown, schema: Schema): void {
  if (Array.isArray(value)) {
    if (schema.items !== undefined) for (const item of value) pruneValue(item, schema.items);
    return;
  }
  if (!isObject(value)) return;
  if (schema['x-kubernetes-int-or-string'] === true) return;
  if (schema.type === undefined && schema.properties === undefined && schema.additionalProperties === undefined) return; // untyped: left alone
  pruneObject(value, schema, schema['x-kubernetes-embedded-resource'] === true);
}

/** Fills absent fields that have a `default`, in place (after pruning). */
export function applyDefaults(obj: KubeObject, schema: Schema): void {
  defaultValue(obj, schema);
}

function defaultValue(value: unknown, schema: Schema): void {
  if (Array.isArray(value)) {
    if (schema.items !== undefined) for (const item of value) defaultValue(item, schema.items);
    return;
  }
  if (!isObject(value)) return;
  if (schema.properties !== undefined) {
    for (const [key, child] of Object.entries(schema.properties)) {
      if (value[key] === undefined && child.default !== undefined) value[key] = jsonClone(child.default);
      if (value[key] !== undefined) defaultValue(value[key], child);
    }
  }
  if (typeof schema.additionalProperties === 'object') {
    for (const [key, child] of Object.entries(value)) if (schema.properties?.[key] === undefined) defaultValue(child, schema.additionalProperties);
  }
}

/** Whether a schema contains x-kubernetes-validations (CEL rules) anywhere; returns their paths. */
export function celRulePaths(schema: Schema, path: string, out: string[] = []): string[] {
  if (schema['x-kubernetes-validations'] !== undefined) out.push(`${path}.x-kubernetes-validations`);
  for (const [name, child] of Object.entries(schema.properties ?? {})) celRulePaths(child, `${path}.properties[${name}]`, out);
  if (typeof schema.additionalProperties === 'object') celRulePaths(schema.additionalProperties, `${path}.additionalProperties`, out);
  if (schema.items !== undefined) celRulePaths(schema.items, `${path}.items`, out);
  for (const key of ['allOf', 'anyOf', 'oneOf'] as const) schema[key]?.forEach((c, i) => celRulePaths(c, `${path}.${key}[${i}]`, out));
  return out;
}
