/**
 * Strategic merge patch (`application/strategic-merge-patch+json`): Kubernetes' JSON merge patch
 * that knows, from the kind's schema, which lists to merge element by element. `kubectl patch`,
 * `kubectl edit` and client-side `kubectl apply` send it for built-in kinds. Semantics follow
 * k8s.io/apimachinery/pkg/util/strategicpatch:
 *
 * - maps merge recursively and `null` deletes a key;
 * - a list whose schema has `x-kubernetes-patch-strategy: merge` merges: lists of maps element by
 *   element on `x-kubernetes-patch-merge-key`, lists of primitives as sets (`metadata.finalizers`);
 *   every other list is replaced. The merged list orders elements as kube-apiserver does: the
 *   patch's elements in patch order, each element only the original has placed before the first
 *   patch element it preceded in the original (so new elements come before the original-only
 *   elements that followed no patched element: `[a] + [b]` gives `[b, a]`);
 * - directives: `$patch: replace` (a map, or an element of a list: replace instead of merging),
 *   `$patch: delete` (a map; or an element `{<key>: v, $patch: delete}` removing the elements with
 *   that key), `$patch: merge` (on a map: merge, the default), `$retainKeys` (the keys a map keeps),
 *   `$deleteFromPrimitiveList/<field>` (values to remove from a list of primitives),
 *   `$setElementOrder/<field>` (the final order of a merged list; elements only in the original
 *   keep their relative positions);
 * - where the schema does not describe a field the patch behaves like a JSON merge patch there
 *   (Kubernetes refuses to diff such fields). Only the two patch extensions count:
 *   `x-kubernetes-list-type` and `x-kubernetes-list-map-keys` do not make a list merge.
 *
 * Where Setpoint differs from Kubernetes: `$patch: delete` on a nested map removes the key
 * (Kubernetes leaves `{}`; its documentation says the map is deleted); `$patch: merge` on a map is
 * accepted (Kubernetes rejects it); directives inside values that are added or replaced are carried
 * out rather than copied into the object; a list of primitives with duplicates is diffed as a set.
 */
import type { Schema } from '../schema.js';
import { badPatch } from './patch-meta.js';
import { diffMaps } from './strategic-diff.js';
import { DELETED, mergeMap } from './strategic-merge.js';
import { cloneJson, isJsonObject, kindOf, type JsonObject } from './value.js';

/**
 * Applies a strategic merge patch to `original`, reading patch strategies and merge keys from
 * `schema`, the schema of the object's kind (`undefined`: none known, a JSON merge patch with
 * the directives).
 *
 * Guarantees: pure — neither input is modified, and the result shares no object or array with
 * either input. The result is an object; it never contains directives, and `null` members of
 * values the patch adds are dropped (nulls inside lists are kept). A top-level `$patch: delete`
 * gives `{}`.
 * Assumes: `original` is a JSON object (`null`/`undefined` count as `{}`), `schema` an inline
 * schema tree (no `$ref`).
 * Throws: ApiError BadRequest when `patch` is not a JSON object, when a directive is malformed
 * (`unknown patch type: …`, `invalid patch format of retainKeys`, `… of primitive list`,
 * `… of setElementOrder list`, a `$setElementOrder` list that contradicts the patch's order), when
 * an element of a merged list lacks its merge key (`map: … does not contain declared merge key:
 * name`), or for lists of lists; ApiError InternalError for a schema whose patch strategy is
 * invalid.
 */
export function applyStrategicMergePatch(original: unknown, patch: unknown, schema: Schema | undefined): unknown {
  const target = documentOf(original, 'the object to patch');
  if (!isJsonObject(patch)) throw badPatch(`a strategic merge patch must be a JSON object, not ${describeKind(patch)}`);
  const result = mergeMap(cloneJson(target), cloneJson(patch), schema, '', 'apply');
  return result === DELETED ? {} : result;
}

/**
 * The strategic merge patch that turns `original` into `modified` (Kubernetes'
 * CreateTwoWayMergePatch): added and changed fields, removed fields as `null`, removed elements
 * of merged lists of maps as `{<key>: v, $patch: delete}`, removed primitives as
 * `$deleteFromPrimitiveList/<field>`, `$setElementOrder/<field>` for merged lists whose content or
 * order changed, `$retainKeys` for fields with the `retainKeys` strategy.
 *
 * Guarantees: pure; `applyStrategicMergePatch(original, patch, schema)` equals `modified` (with
 * merged lists in `modified`'s order) for documents free of explicit nulls; an empty object when
 * nothing changed.
 * Assumes: both documents are JSON objects (`null`/`undefined` count as `{}`).
 * Throws: ApiError BadRequest for a document that is not an object, an element of a merged list
 * without its merge key, or lists of lists.
 */
export function createTwoWayMergePatch(original: unknown, modified: unknown, schema: Schema | undefined): JsonObject {
  const from = documentOf(original, 'the original document');
  const to = documentOf(modified, 'the modified document');
  return diffMaps(from, to, schema, { setElementOrder: true, ignoreChangesAndAdditions: false, ignoreDeletions: false, buildRetainKeys: false }, '');
}

/**
 * The patch `kubectl apply` sends (Kubernetes' CreateThreeWayMergePatch with overwrite): the
 * changes from `current` (the live object) to `modified` (the new configuration), leaving alone
 * what only the live object has, plus the deletions from `original` (the last-applied
 * configuration) to `modified`. A field removed from the configuration is removed; a field set by
 * someone else and never in the configuration is kept.
 *
 * Guarantees: pure. Conflicts between the live object and the configuration are not reported:
 * the configuration wins, as with `kubectl apply --overwrite` (its default).
 * Assumes: the documents are JSON objects (`null`/`undefined` count as `{}`, e.g. no last-applied
 * configuration yet).
 * Throws: ApiError BadRequest as createTwoWayMergePatch does.
 */
export function createThreeWayMergePatch(original: unknown, modified: unknown, current: unknown, schema: Schema | undefined): JsonObject {
  const lastApplied = documentOf(original, 'the original (last-applied) document');
  const config = documentOf(modified, 'the modified document');
  const live = documentOf(current, 'the current document');
  // The changes from live to config, without deletions (what others added stays) …
  const delta = diffMaps(live, config, schema, { setElementOrder: true, ignoreChangesAndAdditions: false, ignoreDeletions: true, buildRetainKeys: false }, '');
  // … and the deletions from last-applied to config, without changes.
  const deletions = diffMaps(lastApplied, config, schema, { setElementOrder: true, ignoreChangesAndAdditions: true, ignoreDeletions: false, buildRetainKeys: false }, '');
  const patch = mergeMap(deletions, delta, schema, '', 'combine');
  return patch === DELETED ? {} : patch;
}

/** A document that must be an object (not copied); `null`/`undefined` give `{}`. */
function documentOf(value: unknown, what: string): JsonObject {
  if (value === null || value === undefined) return {};
  if (!isJsonObject(value)) throw badPatch(`${what} must be a JSON object, not ${describeKind(value)}`);
  return value;
}

function describeKind(value: unknown): string {
  const kind = kindOf(value);
  if (kind === 'list') return 'an array';
  if (kind === 'null') return 'null';
  return `a ${typeof value}`;
}
