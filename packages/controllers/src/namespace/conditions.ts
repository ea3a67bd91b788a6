/**
 * The status conditions a terminating namespace carries, with Kubernetes' types, reasons and
 * messages (pkg/controller/namespace/deletion/status_condition_utils.go). Pure functions.
 *
 * Each pass reports all five types: a failing one with status True and what blocks, the others
 * with status False and their "ok" reason and message. mergeNamespaceConditions keeps
 * lastTransitionTime unless the status flips, and says whether anything changed, so the status is
 * written only when it did.
 */
import type { NamespaceCondition } from '@setpoint/api';

export const NamespaceDeletionDiscoveryFailure = 'NamespaceDeletionDiscoveryFailure';
export const NamespaceDeletionGroupVersionParsingFailure = 'NamespaceDeletionGroupVersionParsingFailure';
export const NamespaceDeletionContentFailure = 'NamespaceDeletionContentFailure';
export const NamespaceContentRemaining = 'NamespaceContentRemaining';
export const NamespaceFinalizersRemaining = 'NamespaceFinalizersRemaining';

/** The condition types the namespace controller owns, in the order Kubernetes adds them. */
export const namespaceConditionTypes = [
  NamespaceDeletionDiscoveryFailure,
  NamespaceDeletionGroupVersionParsingFailure,
  NamespaceDeletionContentFailure,
  NamespaceContentRemaining,
  NamespaceFinalizersRemaining,
] as const;

const okReasons: Record<string, string> = {
  [NamespaceDeletionDiscoveryFailure]: 'ResourcesDiscovered',
  [NamespaceDeletionGroupVersionParsingFailure]: 'ParsedGroupVersions',
  [NamespaceDeletionContentFailure]: 'ContentDeleted',
  [NamespaceContentRemaining]: 'ContentRemoved',
  [NamespaceFinalizersRemaining]: 'ContentRemoved',
};

const okMessages: Record<string, string> = {
  [NamespaceDeletionDiscoveryFailure]: 'All resources successfully discovered',
  [NamespaceDeletionGroupVersionParsingFailure]: 'All legacy kube types successfully parsed',
  [NamespaceDeletionContentFailure]: 'All content successfully deleted, may be waiting on finalization',
  [NamespaceContentRemaining]: 'All content successfully removed',
  [NamespaceFinalizersRemaining]: 'All content successfully removed',
};

/** What one content-deletion pass found. */
export interface ContentObservation {
  /** Discovery failed (wholly, or for some group versions): the condition's message. */
  readonly discoveryFailure?: string;
  /** A group version string did not parse: the error's message. */
  readonly groupVersionFailure?: string;
  /** Messages of the resources whose content could not be deleted. */
  readonly contentFailures: readonly string[];
  /** Objects left, by group-resource ("configmaps" in group "" → { resource: 'configmaps', group: '' }). */
  readonly remaining: readonly { readonly resource: string; readonly group: string; readonly count: number }[];
  /** Objects left holding each finalizer. */
  readonly finalizers: ReadonlyMap<string, number>;
}

/** A condition without its transition time (set when merged). */
export type ConditionObservation = Omit<NamespaceCondition, 'lastTransitionTime'>;

/** The message of NamespaceDeletionDiscoveryFailure when some group versions failed (client-go's ErrGroupDiscoveryFailed). */
export function groupDiscoveryFailureMessage(failed: ReadonlyMap<string, Error>): string {
  const groups = [...failed].map(([gv, err]) => `${gv}: ${err.message}`).sort();
  return `Discovery failed for some groups, ${failed.size} failing: unable to retrieve the complete list of server APIs: ${groups.join(', ')}`;
}

/** The failing conditions an observation calls for (types absent from the result are ok). */
export function failingConditions(obs: ContentObservation): ConditionObservation[] {
  const out: ConditionObservation[] = [];
  if (obs.discoveryFailure !== undefined) {
    out.push({ type: NamespaceDeletionDiscoveryFailure, status: 'True', reason: 'DiscoveryFailed', message: obs.discoveryFailure });
  }
  if (obs.groupVersionFailure !== undefined) {
    out.push({ type: NamespaceDeletionGroupVersionParsingFailure, status: 'True', reason: 'GroupVersionParsingFailed', message: obs.groupVersionFailure });
  }
  if (obs.contentFailures.length > 0) {
    const messages = [...obs.contentFailures].sort();
    out.push({
      type: NamespaceDeletionContentFailure,
      status: 'True',
      reason: 'ContentDeletionFailed',
      message: `Failed to delete all resource types, ${messages.length} remaining: ${messages.join(', ')}`,
    });
  }
  const remaining = obs.remaining.filter((r) => r.count > 0).map((r) => `${r.resource}.${r.group} has ${r.count} resource instances`);
  if (remaining.length > 0) {
    out.push({ type: NamespaceContentRemaining, status: 'True', reason: 'SomeResourcesRemain', message: `Some resources are remaining: ${remaining.sort().join(', ')}` });
  }
  const finalizers = [...obs.finalizers].filter(([, n]) => n > 0).map(([f, n]) => `${f} in ${n} resource instances`);
  if (finalizers.length > 0) {
    out.push({ type: NamespaceFinalizersRemaining, status: 'True', reason: 'SomeFinalizerRemain', message: `Some finalizers are remaining: ${finalizers.sort().join(', ')}` });
  }
  return out;
}

/**
 * `existing` with every owned type set from `failing` (or its ok variant): a missing condition is
 * appended with lastTransitionTime `now`; a present one takes the new status, reason and message,
 * and `now` only when its status flips. Conditions of other types are kept as they are.
 */
export function mergeNamespaceConditions(
  existing: readonly NamespaceCondition[] | undefined,
  failing: readonly ConditionObservation[],
  now: string,
): { conditions: NamespaceCondition[]; changed: boolean } {
  const conditions = (existing ?? []).map((c) => ({ ...c }));
  let changed = false;
  for (const type of namespaceConditionTypes) {
    const next = failing.find((c) => c.type === type) ?? { type, status: 'False' as const, reason: okReasons[type], message: okMessages[type] };
    const old = conditions.find((c) => c.type === type);
    if (old === undefined) {
      conditions.push({ type, status: next.status, lastTransitionTime: now, ...(next.reason === undefined ? {} : { reason: next.reason }), ...(next.message === undefined ? {} : { message: next.message }) });
      changed = true;
    } else if (old.status !== next.status || old.reason !== next.reason || old.message !== next.message) {
      if (old.status !== next.status) old.lastTransitionTime = now;
      old.status = next.status;
      if (next.reason !== undefined) old.reason = next.reason;
      if (next.message !== undefined) old.message = next.message;
      changed = true;
    }
  }
  return { conditions, changed };
}
