/**
 * The garbage collector's decisions, as plain functions of what it read (Kubernetes'
 * attemptToDeleteItem, isDangling and classifyReferences, without the I/O).
 *
 * A dependent's references are classified from live reads of its owners:
 * - dangling: the owner is not found where the reference points, or has another uid. A namespaced
 *   owner is looked up in the dependent's own namespace, so a reference to an owner in another
 *   namespace is dangling too (Kubernetes' rule; the graph reports it with an
 *   OwnerRefInvalidNamespace Warning event). A cluster-scoped owner is valid from any namespace.
 * - waitingForDependentsDeletion: the owner exists, is being deleted, and has the
 *   foregroundDeletion finalizer.
 * - solid: the owner exists otherwise.
 * A cluster-scoped dependent referring to a namespaced owner cannot be decided (Kubernetes skips
 * it without retrying).
 */
import type { KubeObject, OwnerReference } from '@setpoint/api';
import { FOREGROUND_FINALIZER, ORPHAN_FINALIZER } from './graph.js';

export type PropagationPolicy = 'Orphan' | 'Background' | 'Foreground';

/** Where a reference's owner is to be read: a namespace ('' for a cluster-scoped owner), or 'invalid'. */
export function ownerLookupNamespace(dependentNamespace: string, ownerNamespaced: boolean): string | 'invalid' {
  if (ownerNamespaced && dependentNamespace === '') return 'invalid';
  return ownerNamespaced ? dependentNamespace : '';
}

export type ReferenceState = 'solid' | 'dangling' | 'waitingForDependentsDeletion';

/** How one reference stands, given the live owner read where it points (undefined: NotFound). */
export function classifyReference(reference: Pick<OwnerReference, 'uid'>, owner: Pick<KubeObject, 'metadata'> | undefined): ReferenceState {
  if (owner === undefined || owner.metadata.uid !== reference.uid) return 'dangling';
  if (owner.metadata.deletionTimestamp !== undefined && (owner.metadata.finalizers ?? []).includes(FOREGROUND_FINALIZER)) return 'waitingForDependentsDeletion';
  return 'solid';
}

/** A dependent's references, by state. */
export interface ClassifiedReferences {
  readonly solid: readonly Readonly<OwnerReference>[];
  readonly dangling: readonly Readonly<OwnerReference>[];
  readonly waitingForDependentsDeletion: readonly Readonly<OwnerReference>[];
}

/** What the dependent itself looks like to the decision. */
export interface DependentFacts {
  /** Its live finalizers. */
  readonly finalizers: readonly string[];
  /** Whether the graph knows dependents of it. */
  readonly hasDependents: boolean;
  /** Whether one of its dependents is itself waiting for its dependents (a possible cycle). */
  readonly dependentDeletingDependents: boolean;
}

/** What to do with a dependent. */
export type DependentDecision =
  | { readonly action: 'keep' }
  /** Keep it, without the references to absent owners and to owners waiting for their dependents. */
  | { readonly action: 'removeReferences'; readonly uids: readonly string[] }
  /** Delete it; `unblockFirst`: set blockOwnerDeletion false on its references first (cycle guard). */
  | { readonly action: 'delete'; readonly policy: PropagationPolicy; readonly unblockFirst: boolean };

/**
 * The decision for a dependent (Kubernetes' attemptToDeleteItem):
 * - a solid owner keeps it; dangling and waiting references are removed from it;
 * - no solid owner, an owner waiting for its dependents, and dependents of its own: it is deleted
 *   in the foreground (so its owner waits for its whole subtree), unblocking its own references
 *   first when one of its dependents is also deleting dependents;
 * - otherwise it is garbage: deleted with the policy its own finalizers ask for (orphan → Orphan,
 *   foregroundDeletion → Foreground), else Background.
 */
export function decideDependent(refs: ClassifiedReferences, facts: DependentFacts): DependentDecision {
  if (refs.solid.length > 0) {
    if (refs.dangling.length === 0 && refs.waitingForDependentsDeletion.length === 0) return { action: 'keep' };
    return { action: 'removeReferences', uids: [...refs.dangling, ...refs.waitingForDependentsDeletion].map((r) => r.uid) };
  }
  if (refs.waitingForDependentsDeletion.length > 0 && facts.hasDependents) {
    return { action: 'delete', policy: 'Foreground', unblockFirst: facts.dependentDeletingDependents };
  }
  return { action: 'delete', policy: policyOfFinalizers(facts.finalizers), unblockFirst: false };
}

/** The propagation policy an object's own finalizers ask for: orphan, then foregroundDeletion, else Background. */
export function policyOfFinalizers(finalizers: readonly string[]): PropagationPolicy {
  if (finalizers.includes(ORPHAN_FINALIZER)) return 'Orphan';
  if (finalizers.includes(FOREGROUND_FINALIZER)) return 'Foreground';
  return 'Background';
}

/** `refs` without those whose uid is in `uids`. */
export function referencesWithout(refs: readonly Readonly<OwnerReference>[], uids: readonly string[]): OwnerReference[] {
  return refs.filter((r) => !uids.includes(r.uid)).map((r) => ({ ...r }));
}

/** `refs` with blockOwnerDeletion false wherever it was true. */
export function unblockedReferences(refs: readonly Readonly<OwnerReference>[]): OwnerReference[] {
  return refs.map((r) => (r.blockOwnerDeletion === true ? { ...r, blockOwnerDeletion: false } : { ...r }));
}

/** The message of the OwnerRefInvalidNamespace event, worded as Kubernetes words it. */
export function invalidNamespaceMessage(ref: Pick<OwnerReference, 'apiVersion' | 'kind' | 'name' | 'uid'>, namespace: string): string {
  return `ownerRef [${ref.apiVersion}/${ref.kind}, namespace: ${namespace}, name: ${ref.name}, uid: ${ref.uid}] does not exist in namespace ${JSON.stringify(namespace)}`;
}
