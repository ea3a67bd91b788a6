/**
 * One sync of one ReplicaSet key (Kubernetes' syncReplicaSet): read the present from the cache,
 * claim the pods (adopt orphans, release what no longer matches), create or delete the
 * difference, then write the status if it changed. The decisions are reconcile.ts's; this file
 * carries them out against the API.
 *
 * Expected flow: ReplicaSet gone → forget its expectations. Otherwise claim; then, only when the
 * expectations of earlier syncs are met (the cache has seen their creates and deletes) and the
 * ReplicaSet is not being deleted, create in slow-start batches or delete the lowest-ranked pods;
 * then compute and write the status.
 *
 * Guarantees: side effects come before the record of them (pods first, status after); status is
 * written only when it differs, with the resourceVersion read (a conflict re-reads and retries);
 * creations and deletions are recorded as expectations before they are sent and lowered for those
 * that fail, so a lagging cache never makes a second round of creates; a failing create stops the
 * slow start, so each sync sends at most one create that fails.
 *
 * Errors: a failed create, delete, adoption or release is thrown after the status is written (the
 * key is retried with backoff). An invalid selector is logged and not retried.
 */
import { isApiError, type Clock, type KubeObject, type LabelsSelector, type Pod, type ReplicaSet, type ReplicaSetStatus } from '@setpoint/api';
import {
  controllerOf,
  requestKey,
  retryOnConflict,
  updateStatusIfChanged,
  type CachedReader,
  type EventRecorder,
  type Expectations,
  type ReconcileContext,
  type ReconcileResult,
  type Request,
  checkPod,
  checkReplicaSet,
  partitionWellFormed,
  throwMalformed,
} from '@setpoint/client';
import { podsToDelete } from './ranking.js';
import {
  activePods,
  adoptionPatch,
  calculateStatus,
  claimDecision,
  desiredReplicas,
  nextAvailableAfterMs,
  podFromTemplate,
  relatedPods,
  releasePatch,
  replicaAction,
  selectorOf,
  SLOW_START_INITIAL_BATCH_SIZE,
  slowStartBatch,
  type JsonPatchOp,
} from './reconcile.js';

/** What a sync writes pods with. */
export interface PodWriter {
  create(pod: Pod, options: { namespace: string }): Promise<Pod>;
  patch(name: string, patch: JsonPatchOp[], options: { type: 'json'; namespace: string }): Promise<Pod>;
  delete(name: string, options: { namespace: string; preconditions: { uid: string } }): Promise<unknown>;
}

/** What a sync reads and writes ReplicaSets with (an uncached get, and the status subresource). */
export interface ReplicaSetWriter {
  get(name: string, options: { namespace: string }): Promise<ReplicaSet>;
  updateStatus(rs: ReplicaSet): Promise<ReplicaSet>;
}

/** Everything a sync uses; one per controller. */
export interface ReplicaSetSyncContext {
  readonly replicaSets: CachedReader<ReplicaSet>;
  readonly pods: CachedReader<Pod>;
  readonly replicaSetApi: ReplicaSetWriter;
  readonly podApi: PodWriter;
  readonly expectations: Expectations;
  readonly events: EventRecorder;
  readonly clock: Clock;
  /** Creations or deletions one sync makes at most. */
  readonly burstReplicas: number;
}

/** Reconciles the ReplicaSet `request` names (see the file comment). */
export async function syncReplicaSet(ctx: ReplicaSetSyncContext, request: Request, context: ReconcileContext): Promise<ReconcileResult> {
  const key = requestKey(request);
  const cached = ctx.replicaSets.get(request.namespace, request.name);
  if (cached === undefined) {
    ctx.expectations.delete(key);
    return undefined;
  }
  const rs = cached as ReplicaSet;
  checkReplicaSet(rs);
  const needsSync = ctx.expectations.satisfied(key);
  let selector: LabelsSelector;
  try {
    selector = selectorOf(rs);
  } catch (err) {
    context.logger.error({ err, key }, 'the ReplicaSet has an invalid selector; not syncing it until it changes');
    return undefined;
  }
  // Malformed pods are left out (as if absent) and reported once the ReplicaSet is synced.
  const { good: inNamespace, malformed } = partitionWellFormed(ctx.pods.list({ namespace: request.namespace }) as Pod[], checkPod);
  const pods = await claimPods(ctx, rs, selector, activePods(inNamespace));
  let manageError: unknown;
  if (needsSync && rs.metadata.deletionTimestamp === undefined) manageError = await manageReplicas(ctx, key, rs, pods, inNamespace, context);
  const now = ctx.clock.now();
  await writeStatus(ctx, rs, calculateStatus(rs, pods, manageError, now));
  if (manageError !== undefined) throw manageError;
  throwMalformed(malformed.filter((err) => concerns(rs, selector, err.object)));
  const after = nextAvailableAfterMs(pods, rs.spec?.minReadySeconds ?? 0, now);
  return after === undefined ? undefined : { requeueAfterMs: after };
}

/** The ReplicaSet as events name it (objects from a cache may lack kind). */
function eventObject(rs: ReplicaSet): ReplicaSet {
  return { ...rs, apiVersion: 'apps/v1', kind: 'ReplicaSet' };
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * The pods `rs` controls after adopting the matching orphans and releasing the owned pods that no
 * longer match (ControllerRefManager.ClaimPods). Adoption first checks, with an uncached read,
 * that the ReplicaSet still exists and is not being deleted. Throws the errors of adoptions and
 * releases that failed, once all were tried (a pod gone meanwhile is not an error).
 */
async function claimPods(ctx: ReplicaSetSyncContext, rs: ReplicaSet, selector: LabelsSelector, active: readonly Pod[]): Promise<Pod[]> {
  const namespace = rs.metadata.namespace ?? '';
  const claimed: Pod[] = [];
  const errors: unknown[] = [];
  let canAdopt: Promise<void> | undefined;
  for (const pod of active) {
    const name = pod.metadata.name ?? '';
    switch (claimDecision(rs, selector, pod)) {
      case 'owned':
        claimed.push(pod);
        break;
      case 'adopt':
        try {
          canAdopt ??= recheckNotDeleted(ctx, rs);
          await canAdopt;
          claimed.push(await ctx.podApi.patch(name, adoptionPatch(rs, pod), { type: 'json', namespace }));
        } catch (err) {
          if (!isApiError(err, 'NotFound')) errors.push(new Error(`cannot adopt pod ${namespace}/${name}: ${messageOf(err)}`, { cause: err }));
        }
        break;
      case 'release': {
        const patch = releasePatch(rs, pod);
        if (patch === undefined) break;
        try {
          await ctx.podApi.patch(name, patch, { type: 'json', namespace });
        } catch (err) {
          // NotFound: the pod is gone; Invalid: a failed test, the reference is already gone or the pod was replaced.
          if (!isApiError(err, 'NotFound') && !isApiError(err, 'Invalid')) errors.push(new Error(`cannot release pod ${namespace}/${name}: ${messageOf(err)}`, { cause: err }));
        }
        break;
      }
      case 'ignore':
        break;
    }
  }
  if (errors.length === 1) throw errors[0];
  if (errors.length > 1) throw new AggregateError(errors, `claiming pods of ReplicaSet ${namespace}/${rs.metadata.name ?? ''} failed ${errors.length} times`);
  return claimed;
}

/** Kubernetes' RecheckDeletionTimestamp: the cache may be behind; ask the API before adopting. */
async function recheckNotDeleted(ctx: ReplicaSetSyncContext, rs: ReplicaSet): Promise<void> {
  const fresh = await ctx.replicaSetApi.get(rs.metadata.name ?? '', { namespace: rs.metadata.namespace ?? '' });
  if (fresh.metadata.uid !== rs.metadata.uid) throw new Error(`original ReplicaSet ${rs.metadata.namespace}/${rs.metadata.name} is gone: got uid ${fresh.metadata.uid}, wanted ${rs.metadata.uid}`);
  if (fresh.metadata.deletionTimestamp !== undefined) throw new Error(`ReplicaSet ${rs.metadata.namespace}/${rs.metadata.name} has just been deleted at ${fresh.metadata.deletionTimestamp}`);
}

/**
 * Creates or deletes pods so that `active` (the claimed pods) becomes spec.replicas (Kubernetes'
 * manageReplicas). Returns the first error, or undefined.
 */
async function manageReplicas(ctx: ReplicaSetSyncContext, key: string, rs: ReplicaSet, active: readonly Pod[], inNamespace: readonly Pod[], context: ReconcileContext): Promise<unknown> {
  const namespace = rs.metadata.namespace ?? '';
  const action = replicaAction(desiredReplicas(rs), active.length, ctx.burstReplicas);
  if (action.kind === 'create') {
    // Expected before sent: the informer may see a create before the call returns.
    ctx.expectations.expectCreations(key, action.count);
    const template = podFromTemplate(rs);
    const result = await slowStartBatch(
      action.count,
      SLOW_START_INITIAL_BATCH_SIZE,
      async () => {
        try {
          const pod = await ctx.podApi.create(template, { namespace });
          ctx.events.event(eventObject(rs), 'Normal', 'SuccessfulCreate', `Created pod: ${pod.metadata.name ?? ''}`);
        } catch (err) {
          ctx.events.event(eventObject(rs), 'Warning', 'FailedCreate', `Error creating: ${messageOf(err)}`);
          throw err;
        }
      },
      () => !context.signal.aborted,
    );
    // The creates not made (failed, or skipped after a failed batch) will never be seen.
    for (let i = result.successes; i < action.count; i++) ctx.expectations.creationObserved(key);
    if (result.error !== undefined) context.logger.warn({ key, err: result.error, created: result.successes, wanted: action.count }, 'creating pods failed');
    return result.error;
  }
  if (action.kind === 'delete') {
    const related = relatedPods(rs, ctx.replicaSets.list({ namespace }) as ReplicaSet[], inNamespace);
    const victims = podsToDelete(active, related, action.count, ctx.clock.now());
    ctx.expectations.expectDeletions(
      key,
      victims.map((p) => p.metadata.uid ?? ''),
    );
    const errors = await Promise.all(victims.map((pod) => deletePod(ctx, key, rs, pod)));
    return errors.find((e) => e !== undefined);
  }
  return undefined;
}

/** Deletes one pod (on the precondition of its uid); returns the error, if it is one. */
async function deletePod(ctx: ReplicaSetSyncContext, key: string, rs: ReplicaSet, pod: Pod): Promise<unknown> {
  const name = pod.metadata.name ?? '';
  const uid = pod.metadata.uid ?? '';
  try {
    await ctx.podApi.delete(name, { namespace: rs.metadata.namespace ?? '', preconditions: { uid } });
    ctx.events.event(eventObject(rs), 'Normal', 'SuccessfulDelete', `Deleted pod: ${name}`);
    return undefined;
  } catch (err) {
    // The informer will not see this deletion happen: stop expecting it.
    ctx.expectations.deletionObserved(key, uid);
    // NotFound, or a Conflict on the uid precondition: that pod is gone already.
    if (isApiError(err, 'NotFound') || isApiError(err, 'Conflict')) return undefined;
    ctx.events.event(eventObject(rs), 'Warning', 'FailedDelete', `Error deleting: ${messageOf(err)}`);
    return err;
  }
}

/**
 * Writes `status` if it differs from what the ReplicaSet holds. The first attempt uses the cached
 * object; after a conflict, a fresh read (the same status is written on the newer object, as
 * Kubernetes' updateReplicaSetStatus does). A ReplicaSet deleted or replaced meanwhile is left alone.
 */
async function writeStatus(ctx: ReplicaSetSyncContext, rs: ReplicaSet, status: ReplicaSetStatus): Promise<void> {
  let attempt = 0;
  await retryOnConflict(async () => {
    let current = rs;
    if (attempt++ > 0) {
      try {
        current = await ctx.replicaSetApi.get(rs.metadata.name ?? '', { namespace: rs.metadata.namespace ?? '' });
      } catch (err) {
        if (isApiError(err, 'NotFound')) return;
        throw err;
      }
      if (current.metadata.uid !== rs.metadata.uid) return;
    }
    try {
      await updateStatusIfChanged(ctx.replicaSetApi, current, status);
    } catch (err) {
      if (!isApiError(err, 'NotFound')) throw err;
    }
  });
}

/** Whether a malformed pod concerns `rs`: controlled by it, or labelled so its selector matches it. */
function concerns(rs: ReplicaSet, selector: LabelsSelector, pod: KubeObject): boolean {
  if (rs.metadata.uid !== undefined && controllerOf(pod)?.uid === rs.metadata.uid) return true;
  const labels: unknown = pod.metadata.labels;
  if (typeof labels !== 'object' || labels === null || Array.isArray(labels)) return false;
  return !selector.isEmpty() && selector.matches(labels as Record<string, string>);
}
