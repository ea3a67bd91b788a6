/**
 * The ReplicaSet controller's decisions, as plain functions of what the cache holds (Kubernetes'
 * pkg/controller/replicaset and the ControllerRefManager): how many pods to create or delete, in
 * which batches, which pods to adopt or release and with which patch, what a new pod looks like,
 * and what the status says. Nothing here talks to the API; sync.ts carries the decisions out.
 */
import { jsonClone, labelSelectorAsSelector, rfc3339, type LabelsSelector, type OwnerReference, type Pod, type ReplicaSet, type ReplicaSetCondition, type ReplicaSetStatus } from '@setpoint/api';
import { controllerOf, findCondition, removeCondition, setCondition, type Request } from '@setpoint/client';
import { isPodActive, isPodAvailable, isPodReady, podAvailableAt } from './pods.js';

/** The condition a ReplicaSet carries while creating or deleting pods fails. */
export const REPLICA_FAILURE = 'ReplicaFailure';
/** Creations or deletions one sync makes at most, by default (Kubernetes' BurstReplicas). */
export const DEFAULT_BURST_REPLICAS = 500;
/** The first slow-start batch (Kubernetes' SlowStartInitialBatchSize). */
export const SLOW_START_INITIAL_BATCH_SIZE = 1;

/** spec.replicas, defaulted to 1 as the API server defaults it. */
export function desiredReplicas(rs: ReplicaSet): number {
  return rs.spec?.replicas ?? 1;
}

/** What a sync does about the number of pods. */
export type ReplicaAction =
  | { readonly kind: 'none' }
  | { readonly kind: 'create'; readonly count: number }
  | { readonly kind: 'delete'; readonly count: number };

/** Create or delete the difference between `desired` and `active` pods, at most `burstReplicas` at once. */
export function replicaAction(desired: number, active: number, burstReplicas: number = DEFAULT_BURST_REPLICAS): ReplicaAction {
  const diff = active - desired;
  const burst = Math.max(1, burstReplicas);
  if (diff < 0) return { kind: 'create', count: Math.min(-diff, burst) };
  if (diff > 0) return { kind: 'delete', count: Math.min(diff, burst) };
  return { kind: 'none' };
}

/** The batch sizes of a slow start of `count` calls: initial, then doubling (1, 2, 4, …), the last one what remains. */
export function slowStartBatches(count: number, initial: number = SLOW_START_INITIAL_BATCH_SIZE): number[] {
  const batches: number[] = [];
  let remaining = count;
  for (let size = Math.min(remaining, initial); size > 0; size = Math.min(2 * size, remaining)) {
    batches.push(size);
    remaining -= size;
  }
  return batches;
}

export interface SlowStartResult {
  /** Calls that resolved. */
  readonly successes: number;
  /** The first error of the first batch that had one (no later batch ran). */
  readonly error?: unknown;
}

/**
 * Runs `fn` `count` times in slow-start batches (see slowStartBatches), each batch's calls at once.
 * Stops after the first batch in which a call failed, so a call that always fails is made once,
 * not `count` times; also stops, before a batch, when `proceed()` says no (the controller stops).
 */
export async function slowStartBatch(count: number, initial: number, fn: () => Promise<void>, proceed: () => boolean = () => true): Promise<SlowStartResult> {
  let successes = 0;
  for (const size of slowStartBatches(count, initial)) {
    if (!proceed()) break;
    const results = await Promise.allSettled(Array.from({ length: size }, () => fn()));
    successes += results.filter((r) => r.status === 'fulfilled').length;
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed !== undefined) return { successes, error: failed.reason };
  }
  return { successes };
}

/** The controller reference a ReplicaSet puts on its pods. */
export function controllerRefOf(rs: ReplicaSet): OwnerReference {
  return { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: rs.metadata.name ?? '', uid: rs.metadata.uid ?? '', controller: true, blockOwnerDeletion: true };
}

/**
 * A new pod of the ReplicaSet (Kubernetes' GetPodFromTemplate): the template's labels,
 * annotations, finalizers and spec; named by the server from `<rs-name>-`; in the ReplicaSet's
 * namespace; controlled by it.
 */
export function podFromTemplate(rs: ReplicaSet): Pod {
  const template = rs.spec?.template ?? {};
  const meta = template.metadata ?? {};
  const pod: Pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      generateName: `${rs.metadata.name ?? ''}-`,
      ...(rs.metadata.namespace !== undefined ? { namespace: rs.metadata.namespace } : {}),
      ...(meta.labels !== undefined ? { labels: { ...meta.labels } } : {}),
      ...(meta.annotations !== undefined ? { annotations: { ...meta.annotations } } : {}),
      ...(meta.finalizers !== undefined ? { finalizers: [...meta.finalizers] } : {}),
      ownerReferences: [controllerRefOf(rs)],
    },
  };
  if (template.spec !== undefined) pod.spec = jsonClone(template.spec);
  return pod;
}

/** The label selector of a ReplicaSet; throws ApiError BadRequest for an invalid one. */
export function selectorOf(rs: ReplicaSet): LabelsSelector {
  return labelSelectorAsSelector(rs.spec?.selector);
}

/**
 * What a ReplicaSet does with one active pod of its namespace (ControllerRefManager.ClaimObject):
 * - 'owned': it controls the pod and its selector matches: the pod is one of its replicas;
 * - 'release': it controls the pod but the selector no longer matches (and it is not being deleted);
 * - 'adopt': an orphan its selector matches (neither is being deleted);
 * - 'ignore': someone else's, or not matching, or nothing to do while being deleted.
 */
export type ClaimDecision = 'owned' | 'adopt' | 'release' | 'ignore';

export function claimDecision(rs: ReplicaSet, selector: LabelsSelector, pod: Pod): ClaimDecision {
  const matches = selector.matches(pod.metadata.labels ?? {});
  const rsDeleting = rs.metadata.deletionTimestamp !== undefined;
  const ref = controllerOf(pod);
  if (ref !== undefined) {
    if (ref.uid !== rs.metadata.uid) return 'ignore';
    if (matches) return 'owned';
    return rsDeleting ? 'ignore' : 'release';
  }
  if (rsDeleting || !matches || pod.metadata.deletionTimestamp !== undefined) return 'ignore';
  if ((pod.metadata.namespace ?? '') !== (rs.metadata.namespace ?? '')) return 'ignore';
  return 'adopt';
}

/** A JSON patch operation (RFC 6902). */
export type JsonPatchOp =
  | { readonly op: 'test' | 'add' | 'replace'; readonly path: string; readonly value: unknown }
  | { readonly op: 'remove'; readonly path: string };

/**
 * The patch that adopts an orphan: adds the controller reference, on the preconditions (JSON
 * patch `test`s) that the pod is the same one (uid) in the same version (resourceVersion) that was
 * read. A pod that changed meanwhile makes the patch fail (422) instead of adding a second controller.
 */
export function adoptionPatch(rs: ReplicaSet, pod: Pod): JsonPatchOp[] {
  const ref = controllerRefOf(rs);
  return [
    { op: 'test', path: '/metadata/uid', value: pod.metadata.uid },
    { op: 'test', path: '/metadata/resourceVersion', value: pod.metadata.resourceVersion },
    pod.metadata.ownerReferences === undefined
      ? { op: 'add', path: '/metadata/ownerReferences', value: [ref] }
      : { op: 'add', path: '/metadata/ownerReferences/-', value: ref },
  ];
}

/**
 * The patch that releases a pod: removes the ReplicaSet's reference, on the preconditions that the
 * pod is the same one (uid) and the reference is still where it was read. Undefined when the pod
 * holds no reference to the ReplicaSet.
 */
export function releasePatch(rs: ReplicaSet, pod: Pod): JsonPatchOp[] | undefined {
  const index = (pod.metadata.ownerReferences ?? []).findIndex((r) => r.uid === rs.metadata.uid);
  if (index < 0) return undefined;
  return [
    { op: 'test', path: '/metadata/uid', value: pod.metadata.uid },
    { op: 'test', path: `/metadata/ownerReferences/${index}/uid`, value: rs.metadata.uid },
    { op: 'remove', path: `/metadata/ownerReferences/${index}` },
  ];
}

/**
 * The ReplicaSets (of `replicaSets`) whose selector matches an orphan pod: the keys its changes
 * should wake (Kubernetes' getPodReplicaSets). A pod with a controller wakes none here (its owner
 * hears of it through the owner reference); empty and invalid selectors match nothing.
 */
export function replicaSetsForOrphan(pod: Pod, replicaSets: readonly ReplicaSet[]): Request[] {
  if (controllerOf(pod) !== undefined) return [];
  const namespace = pod.metadata.namespace ?? '';
  const out: Request[] = [];
  for (const rs of replicaSets) {
    if ((rs.metadata.namespace ?? '') !== namespace) continue;
    let selector: LabelsSelector;
    try {
      selector = selectorOf(rs);
    } catch {
      continue; // An invalid selector selects nothing (the API server rejects them anyway).
    }
    if (selector.isEmpty() || !selector.matches(pod.metadata.labels ?? {})) continue;
    out.push({ namespace, name: rs.metadata.name ?? '' });
  }
  return out;
}

/**
 * The pods related to `rs` for the deletion ranking (Kubernetes' getIndirectlyRelatedPods): those
 * selected by any ReplicaSet with the same controller (a Deployment's), each once. None when `rs`
 * has no controller.
 */
export function relatedPods(rs: ReplicaSet, replicaSets: readonly ReplicaSet[], pods: readonly Pod[]): Pod[] {
  const owner = controllerOf(rs);
  if (owner === undefined) return [];
  const seen = new Set<string>();
  const out: Pod[] = [];
  for (const other of replicaSets) {
    if (other.metadata.namespace !== rs.metadata.namespace || controllerOf(other)?.uid !== owner.uid) continue;
    let selector: LabelsSelector;
    try {
      selector = selectorOf(other);
    } catch {
      continue;
    }
    for (const pod of pods) {
      const uid = pod.metadata.uid ?? '';
      if (seen.has(uid) || !selector.matches(pod.metadata.labels ?? {})) continue;
      seen.add(uid);
      out.push(pod);
    }
  }
  return out;
}

export { rfc3339 };

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Whether every label of the template is on the pod with the same value. */
function fullyLabeled(pod: Pod, templateLabels: Readonly<Record<string, string>>): boolean {
  const labels = pod.metadata.labels ?? {};
  return Object.entries(templateLabels).every(([k, v]) => labels[k] === v);
}

/**
 * The status a ReplicaSet should have (Kubernetes' calculateStatus), from its active pods:
 * replicas, fullyLabeledReplicas (pods with every template label), readyReplicas,
 * availableReplicas (ready for more than minReadySeconds at `now`), observedGeneration; the
 * ReplicaFailure condition added (reason FailedCreate or FailedDelete, the error's message) when
 * `manageError` is set and it is absent, removed when there is no error. Zero counts other than
 * replicas are left out, as Kubernetes' JSON leaves them out. Other status fields are kept.
 */
export function calculateStatus(rs: ReplicaSet, activePods: readonly Pod[], manageError: unknown, now: number): ReplicaSetStatus {
  const templateLabels = rs.spec?.template?.metadata?.labels ?? {};
  const minReadySeconds = rs.spec?.minReadySeconds ?? 0;
  let labeled = 0;
  let ready = 0;
  let available = 0;
  for (const pod of activePods) {
    if (fullyLabeled(pod, templateLabels)) labeled++;
    if (isPodReady(pod)) {
      ready++;
      if (isPodAvailable(pod, minReadySeconds, now)) available++;
    }
  }
  let conditions: ReplicaSetCondition[] = [...(rs.status?.conditions ?? [])];
  const failure = findCondition(conditions, REPLICA_FAILURE);
  if (manageError !== undefined && failure === undefined) {
    const diff = activePods.length - desiredReplicas(rs);
    const reason = diff < 0 ? 'FailedCreate' : diff > 0 ? 'FailedDelete' : '';
    conditions = setCondition(conditions, { type: REPLICA_FAILURE, status: 'True', reason, message: errorMessage(manageError) }, rfc3339(now));
  } else if (manageError === undefined && failure !== undefined) {
    conditions = removeCondition(conditions, REPLICA_FAILURE);
  }
  const status: ReplicaSetStatus = { ...rs.status, replicas: activePods.length };
  const counts = { fullyLabeledReplicas: labeled, readyReplicas: ready, availableReplicas: available, observedGeneration: rs.metadata.generation ?? 0 };
  for (const [field, value] of Object.entries(counts)) {
    if (value > 0) status[field] = value;
    else delete status[field];
  }
  if (conditions.length > 0) status.conditions = conditions;
  else delete status.conditions;
  return status;
}

/**
 * How long until the next ready pod of `pods` becomes available (ms, at least 1), or undefined
 * when none is waiting for its minReadySeconds. A sync asks to run again then, so that
 * availableReplicas moves without any other event.
 */
export function nextAvailableAfterMs(pods: readonly Pod[], minReadySeconds: number, now: number): number | undefined {
  if (minReadySeconds <= 0) return undefined;
  let next: number | undefined;
  for (const pod of pods) {
    const at = podAvailableAt(pod, minReadySeconds);
    if (at === undefined || at < now) continue;
    next = next === undefined ? at : Math.min(next, at);
  }
  // Available means ready since strictly more than minReadySeconds: look 1 ms after the boundary.
  return next === undefined ? undefined : Math.max(1, next - now + 1);
}

/** The active pods of a list (not finished, not being deleted): the only ones that count as replicas. */
export function activePods(pods: readonly Pod[]): Pod[] {
  return pods.filter(isPodActive);
}
