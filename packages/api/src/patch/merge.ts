/**
 * JSON merge patch (RFC 7386, `application/merge-patch+json`): what `kubectl label`, `kubectl
 * annotate` and `kubectl patch --type=merge` send, and the only patch besides JSON patch that
 * custom resources accept. Objects merge key by key, `null` deletes a key, and anything that is
 * not an object (arrays included) replaces what was there.
 */
import { cloneJson, hasKey, isJsonObject, jsonEqual, setKey, type JsonObject } from './value.js';

/**
 * Applies a JSON merge patch to `target` (RFC 7386 §2, MergePatch(Target, Patch)).
 *
 * Guarantees: pure — neither input is modified, and the result shares no object or array with
 * either input (it is a fresh tree the caller may mutate). A patch that is an object merges into
 * `target` (a `target` that is not an object counts as `{}`); a `null` member deletes that key;
 * `null` members nested in values that are added are dropped, as the RFC specifies. A patch that
 * is not an object (array, string, number, boolean, null) is the result, copied.
 * Assumes: both inputs are JSON values (as `JSON.parse` returns them). Throws nothing.
 */
export function applyMergePatch(target: unknown, patch: unknown): unknown {
  if (!isJsonObject(patch)) return cloneJson(patch);
  const result: JsonObject = isJsonObject(target) ? cloneJson(target) : {};
  mergeInto(result, patch);
  return result;
}

/** Merges `patch` into `result`, which is owned (already a copy) and may be modified. */
function mergeInto(result: JsonObject, patch: JsonObject): void {
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) {
      delete result[key];
    } else if (isJsonObject(value)) {
      const current = hasKey(result, key) ? result[key] : undefined;
      const child: JsonObject = isJsonObject(current) ? current : {};
      mergeInto(child, value);
      setKey(result, key, child);
    } else {
      setKey(result, key, cloneJson(value));
    }
  }
}

/**
 * The smallest JSON merge patch that turns `original` into `modified`: keys of `original` missing
 * from `modified` become `null`, added or changed keys carry their new value, and objects on both
 * sides are compared recursively; equal objects give `{}`. When either side is not an object the
 * patch is `modified` itself (a non-object patch replaces the target).
 *
 * Guarantees: pure; `applyMergePatch(original, createMergePatch(original, modified))` equals
 * `modified` whenever `modified` holds no `null` inside objects (a merge patch cannot set a member
 * to null: null means delete). The result shares nothing with the inputs. Throws nothing.
 */
export function createMergePatch(original: unknown, modified: unknown): unknown {
  if (!isJsonObject(original) || !isJsonObject(modified)) return cloneJson(modified);
  return diffObjects(original, modified);
}

function diffObjects(original: JsonObject, modified: JsonObject): JsonObject {
  const patch: JsonObject = {};
  for (const key of Object.keys(original)) {
    if (!hasKey(modified, key)) setKey(patch, key, null);
  }
  for (const [key, value] of Object.entries(modified)) {
    if (!hasKey(original, key)) {
      setKey(patch, key, cloneJson(value));
      continue;
    }
    const before = original[key];
    if (isJsonObject(before) && isJsonObject(value)) {
      const sub = diffObjects(before, value);
      if (Object.keys(sub).length > 0) setKey(patch, key, sub);
    } else if (!jsonEqual(before, value)) {
      setKey(patch, key, cloneJson(value));
    }
  }
  return patch;
}
