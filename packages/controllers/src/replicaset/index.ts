/**
 * The ReplicaSet controller: keeps spec.replicas active pods matching a ReplicaSet's selector,
 * created from its template (Kubernetes' pkg/controller/replicaset), written with the public
 * controller runtime of @setpoint/client only.
 *
 *   registerReplicaSetController(manager, { concurrency: 5 });
 *   await manager.start(signal);
 *
 * Watches: ReplicaSets (their own key); Pods, through their controller reference (owner's key);
 * orphan Pods, mapped to the ReplicaSets whose selector matches them (so they get adopted). The
 * pod informer also lowers the controller's expectations: a pod added with a controller reference
 * is one expected creation seen; a pod deleted, or updated with a deletionTimestamp, is one expected
 * deletion seen. That handler is added before the controller's own, so a key woken by a pod event
 * already sees that event counted.
 *
 * What each sync does is in sync.ts; the decisions are in reconcile.ts and ranking.ts.
 */
import type { Pod, ReplicaSet } from '@setpoint/api';
import {
  builtin,
  controllerOf,
  deletedObject,
  Expectations,
  groupOf,
  requestKey,
  type CachedReader,
  type Controller,
  type DeletedFinalStateUnknown,
  type DeepReadonly,
  type Manager,
  type ResourceEventHandler,
} from '@setpoint/client';
import { DEFAULT_BURST_REPLICAS, replicaSetsForOrphan } from './reconcile.js';
import { syncReplicaSet, type ReplicaSetSyncContext } from './sync.js';

export { DEFAULT_BURST_REPLICAS, REPLICA_FAILURE } from './reconcile.js';

/** The controller's name (work queue, metrics, logs). */
export const REPLICASET_CONTROLLER = 'replicaset';
/** The component its Events are reported by. */
export const REPLICASET_EVENT_COMPONENT = 'replicaset-controller';

export interface ReplicaSetControllerOptions {
  /** ReplicaSets synced at once. Default 5 (kube-controller-manager's --concurrent-replicaset-syncs). */
  readonly concurrency?: number;
  /** Pods one sync creates or deletes at most. Default 500 (Kubernetes' BurstReplicas). */
  readonly burstReplicas?: number;
}

/**
 * Adds the ReplicaSet controller to `manager` and returns it (it runs when the manager starts,
 * and only while the manager leads, under leader election). Call it once per manager.
 */
export function registerReplicaSetController(manager: Manager, options: ReplicaSetControllerOptions = {}): Controller {
  const replicaSets = manager.reader<ReplicaSet>(builtin.replicaSets);
  const pods = manager.reader<Pod>(builtin.pods);
  const expectations = new Expectations({ clock: manager.clock });
  // Before the controller's handlers (added by reconcile() below): informers call handlers in order.
  pods.informer.addEventHandler(expectationsHandler(replicaSets, expectations));
  replicaSets.informer.addEventHandler({
    onDelete: (obj) => {
      const rs = deletedObject(obj);
      expectations.delete(requestKey({ namespace: rs.metadata.namespace ?? '', name: rs.metadata.name ?? '' }));
    },
  });
  const ctx: ReplicaSetSyncContext = {
    replicaSets,
    pods,
    replicaSetApi: manager.client.replicaSets(),
    podApi: manager.client.pods(),
    expectations,
    events: manager.eventRecorder(REPLICASET_EVENT_COMPONENT),
    clock: manager.clock,
    burstReplicas: options.burstReplicas ?? DEFAULT_BURST_REPLICAS,
  };
  return manager
    .controller(REPLICASET_CONTROLLER)
    .for(builtin.replicaSets)
    .owns(builtin.pods)
    .watches<Pod>(builtin.pods, (pod) => replicaSetsForOrphan(pod, replicaSets.list({ namespace: pod.metadata.namespace ?? '' }) as ReplicaSet[]))
    .withConcurrency(options.concurrency ?? 5)
    .reconcile((request, context) => syncReplicaSet(ctx, request, context));
}

/**
 * Lowers expectations from pod events (Kubernetes' addPod/updatePod/deletePod bookkeeping). The
 * key is that of the pod's controller, when it is a ReplicaSet the cache holds with that uid.
 */
function expectationsHandler(replicaSets: CachedReader<ReplicaSet>, expectations: Expectations): ResourceEventHandler<Pod> {
  const ownerKey = (pod: DeepReadonly<Pod>): string | undefined => {
    const ref = controllerOf(pod as Pod);
    if (ref === undefined || ref.kind !== 'ReplicaSet' || groupOf(ref) !== 'apps') return undefined;
    const namespace = pod.metadata.namespace ?? '';
    if (replicaSets.get(namespace, ref.name)?.metadata.uid !== ref.uid) return undefined;
    return requestKey({ namespace, name: ref.name });
  };
  const deleted = (pod: DeepReadonly<Pod>) => {
    const key = ownerKey(pod);
    if (key !== undefined) expectations.deletionObserved(key, pod.metadata.uid ?? '');
  };
  return {
    onAdd: (pod) => {
      // A pod that shows up already being deleted (a relist) is a deletion seen, not a creation.
      if (pod.metadata.deletionTimestamp !== undefined) return deleted(pod);
      const key = ownerKey(pod);
      if (key !== undefined) expectations.creationObserved(key);
    },
    onUpdate: (oldPod, pod) => {
      if (pod.metadata.deletionTimestamp === undefined) return;
      // Graceful deletion: the pod stays (terminating) until its node lets it go; it no longer counts.
      deleted(pod);
      if (controllerOf(oldPod as Pod)?.uid !== controllerOf(pod as Pod)?.uid) deleted(oldPod);
    },
    onDelete: (obj: DeepReadonly<Pod> | DeletedFinalStateUnknown<Pod>) => deleted(deletedObject(obj)),
  };
}
