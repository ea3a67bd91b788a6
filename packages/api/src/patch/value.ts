/**
 * JSON values as the patch algorithms see them: objects (maps), arrays (lists) and scalars
 * (strings, numbers, booleans, null). Helpers to tell them apart, copy them and compare them.
 * Internal to patch/: not exported from the package.
 */

/** A JSON object with an own-property key set (a map in Kubernetes' words). */
export type JsonObject = { [key: string]: unknown };

/** True for a plain JSON object: not null, not an array. */
export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** True when `key` is an own property of `obj` (never an inherited one such as `constructor`). */
export function hasKey(obj: JsonObject, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(obj, key);
}

/**
 * Sets `obj[key]`, also for the key `__proto__` (which plain assignment would treat as the
 * prototype), so that keys arriving in a request body stay data.
 */
export function setKey(obj: JsonObject, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(obj, key, { value, enumerable: true, configurable: true, writable: true });
  else obj[key] = value;
}

/** A deep copy of a JSON value: fresh objects and arrays all the way down, scalars as they are. */
export function cloneJson<T>(value: T): T {
  if (Array.isArray(value)) return value.map((v: unknown) => cloneJson(v)) as T;
  if (isJsonObject(value)) {
    const out: JsonObject = {};
    for (const [k, v] of Object.entries(value)) setKey(out, k, cloneJson(v));
    return out as T;
  }
  return value;
}

export { jsonEqual } from '../util/json.js';

/** What kind of JSON value this is: 'map', 'list', 'null' or 'scalar'. */
export function kindOf(value: unknown): 'map' | 'list' | 'null' | 'scalar' {
  if (value === null || value === undefined) return 'null';
  if (Array.isArray(value)) return 'list';
  if (typeof value === 'object') return 'map';
  return 'scalar';
}

/** A short JSON rendering of a value for error messages (long values are cut). */
export function describeJson(value: unknown, max = 200): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
