/**
 * The ownership rules of server-side apply (structured-merge-diff's merge.Updater), over one schema:
 * - an update (any write but apply) gives its manager the fields it added or changed and takes
 *   them from every other manager; removed fields leave every manager;
 * - an apply merges the configuration into the live object and gives its manager exactly the
 *   fields of the configuration; a field another manager owns and the apply changes is a
 *   conflict, unless forced (then the other manager loses it); a field the manager applied before
 *   and no longer applies is removed from the object when no other manager owns it.
 * Every function is pure: the maps and sets passed in are not modified.
 */
import { ApplyConflicts } from './conflict.js';
import { difference, intersection, isEmptySet, union, type FieldSet } from './fieldset.js';
import type { Managed, VersionedSet } from './managed.js';
import { compare, ensureNamedFieldsAreMembers, jsonEqual, merge, removeItems, toFieldSet, type Comparison } from './typed.js';
import type { TypeNode } from './types.js';

/** Which fields a write through one endpoint may own (Kubernetes' reset fields, inverted). */
export type FieldFilter = (set: FieldSet) => FieldSet;

export interface UpdaterOptions {
  /** The type of the objects (from the kind's schema). */
  readonly type: TypeNode;
  /** Drops the fields this endpoint never owns (e.g. `status` on the main resource); default: none. */
  readonly filter?: FieldFilter;
}

function filterComparison(c: Comparison, filter: FieldFilter | undefined): Comparison {
  if (filter === undefined) return c;
  return { added: filter(c.added), modified: filter(c.modified), removed: filter(c.removed) };
}

function withSet(vs: VersionedSet, set: FieldSet): VersionedSet {
  return set === vs.set ? vs : { ...vs, set };
}

/**
 * Compares `before` with `after` and takes what changed away from every manager but `workflow`.
 * Throws ApplyConflicts when `force` is false and another manager owns a changed field.
 */
function takeChanges(options: UpdaterOptions, before: unknown, after: unknown, managers: Managed, workflow: string, force: boolean): { managers: Map<string, VersionedSet>; comparison: Comparison } {
  const comparison = filterComparison(compare(before, after, options.type), options.filter);
  const changed = union(comparison.modified, comparison.added);
  const conflicts = new Map<string, FieldSet>();
  if (!isEmptySet(changed)) {
    for (const [manager, vs] of managers) {
      if (manager === workflow) continue;
      const clash = intersection(vs.set, changed);
      if (!isEmptySet(clash)) conflicts.set(manager, clash);
    }
  }
  if (!force && conflicts.size > 0) throw ApplyConflicts.fromSets(conflicts);
  const out = new Map<string, VersionedSet>();
  for (const [manager, vs] of managers) {
    let set = vs.set;
    if (manager !== workflow) {
      const clash = conflicts.get(manager);
      if (clash !== undefined) set = difference(set, clash);
      set = difference(set, comparison.removed);
    }
    if (!isEmptySet(set)) out.set(manager, withSet(vs, set));
  }
  return { managers: out, comparison };
}

/**
 * Records a non-apply write of `after` over `before` by `manager` (structured-merge-diff's
 * Updater.Update): the manager's set becomes what it had, minus what was removed, plus what was
 * added or modified. Throws TypedValueError for objects that cannot be typed.
 */
export function recordUpdate(options: UpdaterOptions, before: unknown, after: unknown, apiVersion: string, managers: Managed, manager: string): { managers: Map<string, VersionedSet>; comparison: Comparison } {
  const { managers: out, comparison } = takeChanges(options, before, after, managers, manager, true);
  const previous = out.get(manager)?.set ?? {};
  let set = union(union(difference(previous, comparison.removed), comparison.modified), comparison.added);
  if (options.filter !== undefined) set = options.filter(set);
  if (isEmptySet(set)) out.delete(manager);
  else out.set(manager, { set, apiVersion, applied: false });
  return { managers: out, comparison };
}

/** The outcome of an apply: the new object (undefined when it is unchanged) and the new ownership. */
export interface ApplyResult {
  readonly object: unknown;
  readonly managers: Map<string, VersionedSet>;
}

/**
 * Applies `config` to `live` for `manager` (structured-merge-diff's Updater.Apply). Throws
 * ApplyConflicts (unless `force`) and TypedValueError.
 */
export function recordApply(options: UpdaterOptions, live: unknown, config: unknown, apiVersion: string, managers: Managed, manager: string, force: boolean): ApplyResult {
  let object = merge(live, config, options.type);
  const last = managers.get(manager);
  let set = toFieldSet(config, options.type);
  if (options.filter !== undefined) set = options.filter(set);
  const withApplier = new Map(managers);
  withApplier.set(manager, { set, apiVersion, applied: true });
  object = prune(options, object, withApplier, last);
  const { managers: out } = takeChanges(options, live, object, withApplier, manager, force);
  return { object: jsonEqual(live, object) ? undefined : object, managers: out };
}

/**
 * Removes what `applier` applied last time (`last`) and no longer applies, unless another manager
 * (or the applier's new configuration) owns it: structured-merge-diff's prune, with its two passes
 * (add back owned items, add back dangling items).
 */
function prune(options: UpdaterOptions, merged: unknown, managers: Managed, last: VersionedSet | undefined): unknown {
  if (last === undefined || isEmptySet(last.set)) return merged;
  const { type } = options;
  const ensure = (s: FieldSet) => ensureNamedFieldsAreMembers(s, type);
  const lastSet = ensure(last.set);
  let pruned = removeItems(merged, lastSet, type);
  // Add back what someone owns.
  let managed: FieldSet = {};
  for (const vs of managers.values()) managed = union(managed, vs.set);
  const mergedSet = ensure(toFieldSet(merged, type));
  const prunedSet = ensure(toFieldSet(pruned, type));
  pruned = removeItems(merged, difference(mergedSet, union(prunedSet, ensure(managed))), type);
  // Add back what the applier did not own (only its own former fields go).
  const stillThere = ensure(toFieldSet(pruned, type));
  const result = removeItems(merged, intersection(difference(mergedSet, stillThere), lastSet), type);
  // Everything went: the object is left empty (removeItems drops a map it empties).
  return result === undefined ? {} : result;
}
