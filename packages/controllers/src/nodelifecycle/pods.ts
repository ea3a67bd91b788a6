/**
 * Pods as the node lifecycle controllers see them: looked up by node through an index on the
 * shared pod informer, and removed the way Kubernetes' taint manager and pod GC remove them — a
 * DisruptionTarget condition first, then a DELETE.
 */
import { isApiError, type Clock, type Logger, type Pod, type PodCondition, type PodStatus } from '@setpoint/api';
import { retryOnConflict, type Client, type SharedInformer } from '@setpoint/client';

/** The pod informer index by spec.nodeName (the name Kubernetes' controllers give it). */
export const POD_NODE_INDEX = 'spec.nodeName';

/**
 * A lookup of the pods bound to a node. Adds the index to the informer unless it has it (it must
 * not have started); once started without it, falls back to a scan of the cache.
 */
export function podsByNode(informer: SharedInformer<Pod>): (node: string) => Pod[] {
  if (!informer.store.indexNames().includes(POD_NODE_INDEX)) {
    try {
      informer.addIndexers({ [POD_NODE_INDEX]: (pod) => [pod.spec?.nodeName || undefined] });
    } catch {
      return (node) => informer.store.list().filter((p) => p.spec?.nodeName === node) as Pod[];
    }
  }
  return (node) => informer.store.byIndex(POD_NODE_INDEX, node) as Pod[];
}

/** Why a pod is removed: the DisruptionTarget condition it gets first. */
export interface Disruption {
  readonly reason: string;
  readonly message: string;
  /** Also set phase Failed (pod GC does; a pod that finished keeps its phase). */
  readonly fail?: boolean;
  /** The DELETE's gracePeriodSeconds; default none, so the pod's own applies. */
  readonly gracePeriodSeconds?: number;
}

/** The status with the DisruptionTarget condition set, or undefined when it already is. */
export function disruptedStatus(status: PodStatus | undefined, disruption: Disruption, now: string): PodStatus | undefined {
  const conditions = [...(status?.conditions ?? [])];
  const i = conditions.findIndex((c) => c.type === 'DisruptionTarget');
  const previous = i >= 0 ? conditions[i] : undefined;
  const finished = status?.phase === 'Succeeded' || status?.phase === 'Failed';
  const phaseChanges = disruption.fail === true && !finished;
  if (previous?.status === 'True' && previous.reason === disruption.reason && previous.message === disruption.message && !phaseChanges) return undefined;
  const next: PodCondition = {
    type: 'DisruptionTarget',
    status: 'True',
    reason: disruption.reason,
    message: disruption.message,
    lastTransitionTime: previous?.status === 'True' ? (previous.lastTransitionTime ?? now) : now,
  };
  if (i >= 0) conditions[i] = next;
  else conditions.push(next);
  return { ...status, ...(phaseChanges ? { phase: 'Failed' as const } : {}), conditions };
}

/**
 * Marks `pod` with the disruption (a status write carrying the resourceVersion read; re-read on a
 * conflict), then deletes it (precondition: its uid). The condition is best effort: when it cannot
 * be written the pod is deleted all the same (logged). A pod already gone is not an error.
 * Throws what the API answers to the DELETE otherwise.
 */
export async function disruptAndDelete(client: Client, pod: Pod, disruption: Disruption, ctx: { readonly clock: Clock; readonly now: string; readonly logger: Logger }): Promise<void> {
  const api = client.pods();
  const name = pod.metadata.name ?? '';
  const namespace = pod.metadata.namespace ?? '';
  let current = pod;
  let first = true;
  try {
    await retryOnConflict(
      async () => {
        if (!first) current = await api.get(name, { namespace });
        first = false;
        if (current.metadata.uid !== pod.metadata.uid) return;
        const status = disruptedStatus(current.status, disruption, ctx.now);
        if (status !== undefined) await api.updateStatus({ ...current, status });
      },
      { clock: ctx.clock },
    );
  } catch (err) {
    if (isApiError(err, 'NotFound')) return;
    ctx.logger.warn({ err, pod: `${namespace}/${name}` }, 'could not set the DisruptionTarget condition; deleting the pod all the same');
  }
  await api
    .delete(name, {
      namespace,
      ...(pod.metadata.uid !== undefined ? { preconditions: { uid: pod.metadata.uid } } : {}),
      ...(disruption.gracePeriodSeconds !== undefined ? { gracePeriodSeconds: disruption.gracePeriodSeconds } : {}),
    })
    .catch((err: unknown) => {
      // NotFound: gone already. Conflict: the uid precondition failed, so this pod is gone and another has its name.
      if (!isApiError(err, 'NotFound') && !isApiError(err, 'Conflict')) throw err;
    });
}
