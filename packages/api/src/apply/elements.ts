/**
 * Path elements of field sets as FieldsV1 writes them (`f:name`, `k:{"name":"x"}`, `v:"a"`,
 * `i:0`), how they print in conflict messages (`.spec.containers[name="x"].image`), and the
 * validation of FieldsV1 trees that clients send.
 *
 * `k:` and `v:` hold JSON as Go's encoding/json writes it (object fields sorted, `<`, `>` and `&`
 * escaped), so that a set read back from a client compares equal to the one the server wrote.
 */
import { SELF, type FieldSet } from './fieldset.js';

/** A field set or path that cannot be read; the message says where. */
export class FieldPathError extends Error {
  override readonly name = 'FieldPathError';
}

/** The element naming field `name` of a map or struct. */
export function fieldElement(name: string): string {
  return `f:${name}`;
}

/** The element of a keyed list item from its key fields (sorted by name, as Kubernetes sorts them). */
export function keyElement(fields: ReadonlyArray<readonly [string, unknown]>): string {
  const sorted = fields.length > 1 ? [...fields].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)) : fields;
  return `k:{${sorted.map(([name, value]) => `${goString(name)}:${goJson(value)}`).join(',')}}`;
}

/** The element of a set item (a scalar in a list of scalars). */
export function valueElement(value: unknown): string {
  return `v:${goJson(value)}`;
}

const HTML_UNSAFE = /[<>&\u2028\u2029]/g;
const ESCAPES: Record<string, string> = { '<': '\\u003c', '>': '\\u003e', '&': '\\u0026', '\u2028': '\\u2028', '\u2029': '\\u2029' };

function goString(s: string): string {
  // Fast path: nothing to escape (the usual name or key).
  // Stryker disable next-line BooleanLiteral: without the fast path every string takes JSON.stringify, which writes a plain string the same way
  let plain = true;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c === 0x22 || c === 0x5c || c === 0x3c || c === 0x3e || c === 0x26 || c >= 0x7f) {
      plain = false;
      break;
    }
  }
  if (plain) return `"${s}"`;
  const json = JSON.stringify(s);
  return json.replace(HTML_UNSAFE, (c) => ESCAPES[c]!);
}

/** JSON as Go's encoding/json writes it: object keys sorted, HTML characters escaped. */
export function goJson(value: unknown): string {
  if (typeof value === 'string') return goString(value);
  if (Array.isArray(value)) return `[${value.map(goJson).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const obj = value as Record<string, unknown>;
    return `{${Object.keys(obj)
      .sort()
      .map((k) => `${goString(k)}:${goJson(obj[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

/** How a path prints in Kubernetes' messages: `.spec.replicas`, `[name="nginx"]`, `[=value]`, `[0]`. */
export function describePath(path: readonly string[]): string {
  return path.map(describeElement).join('');
}

function describeElement(element: string): string {
  const body = element.slice(2);
  switch (element.charAt(0)) {
    case 'f':
      return `.${body}`;
    case 'k': {
      const fields = parseJson(body) as Record<string, unknown>;
      return `[${Object.keys(fields)
        .map((k) => `${k}=${describeValue(fields[k])}`)
        .join(',')}]`;
    }
    case 'v':
      return `[=${describeValue(parseJson(body))}]`;
    case 'i':
      return `[${body}]`;
    default:
      return '{{invalid path element}}';
  }
}

/** A value as Go's value.ToString prints it (strings quoted). */
function describeValue(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'string') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(describeValue).join(',')}]`;
  if (typeof value === 'object') {
    const obj = value as Record<string, unknown>;
    return Object.keys(obj)
      .map((k) => `${k}=${describeValue(obj[k])}`)
      .join('');
  }
  return String(value);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

const canonicalCache = new Map<string, string | null>();

/**
 * The canonical form of one element read from a client's FieldsV1, or null for an element type
 * this server does not know (dropped, as Kubernetes drops them). Throws FieldPathError when it is
 * malformed.
 */
function canonicalElement(key: string): string | null {
  if (key.length < 2 || key.charAt(1) !== ':') throw new FieldPathError(`key must be 2 characters long: ${JSON.stringify(key)}`);
  const type = key.charAt(0);
  if (type === 'f') return key;
  if (type !== 'k' && type !== 'v' && type !== 'i') return null;
  const cached = canonicalCache.get(key);
  if (cached !== undefined) return cached;
  const body = key.slice(2);
  let canonical: string;
  if (type === 'i') {
    if (!/^-?\d+$/.test(body)) throw new FieldPathError(`invalid index path element: ${JSON.stringify(key)}`);
    canonical = `i:${Number(body)}`;
  } else {
    let value: unknown;
    try {
      value = JSON.parse(body) as unknown;
    } catch (err) {
      throw new FieldPathError(`parsing key as path element: ${(err as Error).message}`);
    }
    if (type === 'k') {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new FieldPathError(`key path element is not an object: ${JSON.stringify(key)}`);
      canonical = keyElement(Object.entries(value as Record<string, unknown>));
    } else {
      canonical = valueElement(value);
    }
  }
  // Stryker disable next-line ConditionalExpression,EqualityOperator: the bound only limits the cache's memory: clearing it sooner, later or never gives the same answers
  if (canonicalCache.size > 10_000) canonicalCache.clear();
  canonicalCache.set(key, canonical);
  return canonical;
}

/**
 * Reads a FieldsV1 tree a client sent (or that is stored): checks that it is a tree of objects
 * with well-formed elements, puts `k:`/`v:` elements in canonical form and drops elements of
 * unknown types. Returns `fields` itself when it was already canonical. Throws FieldPathError.
 */
export function readFieldsV1(fields: unknown): FieldSet {
  if (typeof fields !== 'object' || fields === null || Array.isArray(fields)) throw new FieldPathError('fieldsV1 must be an object');
  return readNode(fields as Record<string, unknown>, 0);
}

function readNode(node: Record<string, unknown>, depth: number): FieldSet {
  // Deeper than any object the API server accepts (it refuses bodies nested over 1000 levels), so
  // the entries its own Update records always read back; the bound keeps the recursion finite.
  if (depth > 1100) throw new FieldPathError('fieldsV1 is nested too deeply');
  let out: FieldSet | undefined;
  let changed = false;
  for (const key of Object.keys(node)) {
    const value = node[key];
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new FieldPathError(`fieldsV1: the value of ${JSON.stringify(key)} must be an object`);
    let element: string | null = key;
    let child: FieldSet;
    if (key === SELF) {
      child = Object.keys(value).length === 0 ? (value as FieldSet) : {};
    } else {
      element = canonicalElement(key);
      // An element of an unknown type goes with what is below it, unread (as Kubernetes skips it).
      if (element === null) {
        changed = true;
        continue;
      }
      child = readNode(value as Record<string, unknown>, depth + 1);
    }
    if (element !== key || child !== value) changed = true;
    (out ??= {})[element] = child;
  }
  if (!changed) return node as FieldSet;
  return out ?? {};
}
