/**
 * Patch metadata: how strategic merge patch treats one field, read from the kind's OpenAPI schema
 * (`x-kubernetes-patch-strategy`, `x-kubernetes-patch-merge-key`), and the directive keys the
 * patch format uses. Internal to patch/.
 *
 * The schema is an inline tree: a field of an object is found under `properties`, else under
 * `additionalProperties` (maps such as labels); the elements of a list under `items`. A schema
 * that is a single `allOf` entry (how OpenAPI wraps a `$ref` next to a description) is looked
 * through. `$ref` is not followed: a field whose schema cannot be found has no metadata, and is
 * patched like a JSON merge patch (maps merge, lists are replaced).
 */
import type { Schema } from '../schema.js';
import { ApiError } from '../meta/errors.js';
import { describeJson } from './value.js';

/** `$patch`: the directive marker inside a map (`replace`, `delete`, `merge`). */
export const DIRECTIVE_MARKER = '$patch';
/** `$retainKeys`: the only keys a map may keep (fields with the `retainKeys` strategy). */
export const RETAIN_KEYS_DIRECTIVE = '$retainKeys';
/** `$deleteFromPrimitiveList/<field>`: values to remove from a list of primitives. */
export const DELETE_FROM_PRIMITIVE_LIST_PREFIX = '$deleteFromPrimitiveList';
/** `$setElementOrder/<field>`: the final order of a merged list. */
export const SET_ELEMENT_ORDER_PREFIX = '$setElementOrder';

/** How a patch treats one field. */
export interface FieldPatchMeta {
  /** The schema of the field's value; for a list, of its elements. Undefined when not known. */
  readonly schema: Schema | undefined;
  /** The patch strategy besides `retainKeys`: 'merge', 'replace', or '' (the default). */
  readonly strategy: string;
  /** Whether the strategy includes `retainKeys`. */
  readonly retainKeys: boolean;
  /** The merge key of a merged list of maps, or ''. */
  readonly mergeKey: string;
}

const NO_META: FieldPatchMeta = Object.freeze({ schema: undefined, strategy: '', retainKeys: false, mergeKey: '' });

/** Looks through a schema that only wraps another in `allOf` (OpenAPI's `allOf: [{$ref}]`). */
function resolve(schema: Schema | undefined): Schema | undefined {
  let s = schema;
  for (let depth = 0; s !== undefined && depth < 8; depth++) {
    const wrapped = s.properties === undefined && s.items === undefined && s.additionalProperties === undefined;
    const inner = s.allOf?.[0];
    if (!wrapped || inner === undefined) break;
    s = inner;
  }
  return s;
}

/** The schema of member `key` of an object described by `schema`, or undefined. */
function memberSchema(schema: Schema | undefined, key: string): Schema | undefined {
  const s = resolve(schema);
  if (s === undefined) return undefined;
  const props = s.properties;
  if (props !== undefined && Object.prototype.hasOwnProperty.call(props, key)) return props[key];
  return typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined;
}

function extension(field: Schema, name: 'x-kubernetes-patch-strategy' | 'x-kubernetes-patch-merge-key'): string {
  const own = field[name];
  if (typeof own === 'string') return own;
  const inner = resolve(field)?.[name];
  return typeof inner === 'string' ? inner : '';
}

/**
 * Splits `x-kubernetes-patch-strategy` ("merge", "retainKeys", "merge,retainKeys", "replace").
 * Throws ApiError InternalError for a value Kubernetes would reject (a fault of the schema, not
 * of the request).
 */
function parseStrategy(value: string, path: string): { strategy: string; retainKeys: boolean } {
  const parts = value === '' ? [] : value.split(',');
  const first = parts[0] ?? '';
  const second = parts[1] ?? '';
  if (parts.length === 0) return { strategy: '', retainKeys: false };
  if (parts.length === 1) return first === 'retainKeys' ? { strategy: '', retainKeys: true } : { strategy: first, retainKeys: false };
  if (parts.length === 2 && first === 'retainKeys') return { strategy: second, retainKeys: true };
  if (parts.length === 2 && second === 'retainKeys') return { strategy: first, retainKeys: true };
  throw ApiError.internal(new Error(`unexpected patch strategy: [${parts.join(' ')}] for field ${path}`));
}

function metaOf(field: Schema | undefined, valueSchema: Schema | undefined, path: string): FieldPatchMeta {
  if (field === undefined) return NO_META;
  const { strategy, retainKeys } = parseStrategy(extension(field, 'x-kubernetes-patch-strategy'), path);
  return { schema: valueSchema, strategy, retainKeys, mergeKey: extension(field, 'x-kubernetes-patch-merge-key') };
}

/** Patch metadata of member `key` of an object (its value's schema is the member's schema). */
export function lookupField(schema: Schema | undefined, key: string, path: string): FieldPatchMeta {
  const field = memberSchema(schema, key);
  return metaOf(field, resolve(field), path);
}

/** Patch metadata of list member `key` of an object (its schema is the schema of the elements). */
export function lookupList(schema: Schema | undefined, key: string, path: string): FieldPatchMeta {
  const field = memberSchema(schema, key);
  return metaOf(field, resolve(resolve(field)?.items), path);
}

/** `a.b` from a parent path and a key, for messages. */
export function childPath(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`;
}

/** The field a `$setElementOrder/x` or `$deleteFromPrimitiveList/x` key is about, or undefined. */
export function directiveField(key: string, prefix: string): string | undefined {
  const slash = key.indexOf('/');
  if (slash < 0 || key.slice(0, slash) !== prefix) return undefined;
  return key.slice(slash + 1);
}

// ---------------------------------------------------------------------------------------------
// Errors, in Kubernetes' words (k8s.io/apimachinery/pkg/util/mergepatch/errors.go) where it has them.

/** A patch the server cannot apply: ApiError BadRequest. */
export function badPatch(message: string): ApiError {
  return ApiError.badRequest(message);
}

export function errNoMergeKey(map: unknown, mergeKey: string): ApiError {
  return badPatch(`map: ${describeJson(map)} does not contain declared merge key: ${mergeKey}`);
}

export function errBadPatchType(directive: unknown, map: unknown): ApiError {
  return badPatch(`unknown patch type: ${describeJson(directive)} in map: ${describeJson(map)}`);
}

export const MSG_PRIMITIVE_LIST = 'invalid patch format of primitive list';
export const MSG_RETAIN_KEYS = 'invalid patch format of retainKeys';
export const MSG_SET_ELEMENT_ORDER = 'invalid patch format of setElementOrder list';
export const MSG_LIST_OF_LISTS = 'lists of lists are not supported';
export const MSG_MERGE_DIRECTIVE_IN_LIST = 'merging lists cannot yet be specified in the patch';
