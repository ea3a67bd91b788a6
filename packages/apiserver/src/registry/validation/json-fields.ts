/**
 * Reading and defaulting fields of untyped JSON objects, as strategies receive them: a request body
 * decoded from JSON or YAML, not yet known to have the right shape. Readers never throw: a field of
 * the wrong type reads as absent (schema validation reports the type; strategies report the rest).
 */

/** A decoded JSON object. */
export type JsonObject = Record<string, unknown>;

/** True for a plain JSON object (not null, not an array). */
export function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** `parent[key]` when it is an object, else undefined. */
export function objectAt(parent: unknown, key: string): JsonObject | undefined {
  if (!isObject(parent)) return undefined;
  const v = parent[key];
  return isObject(v) ? v : undefined;
}

/** `parent[key]` when it is an array, else []. */
export function arrayAt(parent: unknown, key: string): unknown[] {
  if (!isObject(parent)) return [];
  const v = parent[key];
  return Array.isArray(v) ? v : [];
}

/** The object elements of `parent[key]` with their indexes (other elements are skipped). */
export function objectsAt(parent: unknown, key: string): Array<[JsonObject, number]> {
  const out: Array<[JsonObject, number]> = [];
  arrayAt(parent, key).forEach((v, i) => {
    if (isObject(v)) out.push([v, i]);
  });
  return out;
}

/** `parent[key]` when it is a string, else '' (Go's zero value). */
export function stringAt(parent: unknown, key: string): string {
  if (!isObject(parent)) return '';
  const v = parent[key];
  return typeof v === 'string' ? v : '';
}

/** `parent[key]` when it is a number, else undefined. */
export function numberAt(parent: unknown, key: string): number | undefined {
  if (!isObject(parent)) return undefined;
  const v = parent[key];
  return typeof v === 'number' ? v : undefined;
}

/** `parent[key]` when it is a boolean, else undefined. */
export function booleanAt(parent: unknown, key: string): boolean | undefined {
  if (!isObject(parent)) return undefined;
  const v = parent[key];
  return typeof v === 'boolean' ? v : undefined;
}

/** The string entries of the map `parent[key]` (non-string values are skipped). */
export function stringMapAt(parent: unknown, key: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(objectAt(parent, key) ?? {})) if (typeof v === 'string') out[k] = v;
  return out;
}

/** True when `parent` has `key` set to something other than undefined or null. */
export function isSet(parent: unknown, key: string): boolean {
  return isObject(parent) && parent[key] !== undefined && parent[key] !== null;
}

/** Sets `parent[key]` to `value` when it is unset (undefined, null, or '' for strings). */
export function setDefault(parent: JsonObject, key: string, value: unknown): void {
  const v = parent[key];
  if (v === undefined || v === null || (v === '' && typeof value === 'string')) parent[key] = value;
}

/** `parent[key]` as an object, created (as {}) when unset; undefined when it holds a non-object. */
export function ensureObject(parent: JsonObject, key: string): JsonObject | undefined {
  const v = parent[key];
  if (v === undefined || v === null) {
    const created: JsonObject = {};
    parent[key] = created;
    return created;
  }
  return isObject(v) ? v : undefined;
}

/** Joins a field path and a child name ("spec" + "containers" → "spec.containers"). */
export function child(path: string, name: string): string {
  return path === '' ? name : `${path}.${name}`;
}

/** A field path with an index ("spec.containers" + 0 → "spec.containers[0]"). */
export function index(path: string, i: number): string {
  return `${path}[${i}]`;
}

/** A field path with a map key ("spec.resources.limits" + "cpu" → "spec.resources.limits[cpu]"). */
export function key(path: string, k: string): string {
  return `${path}[${k}]`;
}
