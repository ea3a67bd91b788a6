/**
 * The Deployment controller: rolls a Deployment's pod template out through ReplicaSets named
 * `<deployment>-<pod-template-hash>`, by RollingUpdate (within maxSurge / maxUnavailable) or
 * Recreate, keeps revisionHistoryLimit old revisions for `kubectl rollout undo`, and reports
 * progress in status (Available, Progressing with progressDeadlineSeconds). It behaves as
 * Kubernetes' pkg/controller/deployment and is written against @setpoint/client's public API only.
 *
 * It needs a ReplicaSet controller (which makes the pods) to make progress.
 */
import { isApiError, jsonClone, labelSelectorAsSelector, type Deployment, type LabelSelector, type LabelsSelector, type Pod, type ReplicaSet } from '@setpoint/api';
import { builtin, controllerOf, type Controller, type Manager, type Request, checkDeployment } from '@setpoint/client';
import { clientCluster } from './clientcluster.js';
import { reconcileDeployment } from './reconcile.js';

export { computePodTemplateHash } from './hash.js';
export {
  CHANGE_CAUSE_ANNOTATION,
  DESIRED_REPLICAS_ANNOTATION,
  MAX_REPLICAS_ANNOTATION,
  POD_TEMPLATE_HASH_LABEL,
  REVISION_ANNOTATION,
  REVISION_HISTORY_ANNOTATION,
} from './replicasets.js';

export interface DeploymentControllerOptions {
  /** The controller's name (queue, metrics, logs). Default "deployment". */
  readonly name?: string;
  /** Deployments synced at once (kube-controller-manager's --concurrent-deployment-syncs). Default 5. */
  readonly concurrency?: number;
  /** The component Events are recorded as. Default "deployment-controller". */
  readonly component?: string;
}

/**
 * Registers the Deployment controller on `manager` (it runs when the manager starts). It watches
 * Deployments, the ReplicaSets they control (and orphans their selectors match, to adopt them),
 * and the pods of Recreate Deployments (a Recreate rollout waits for the old pods to be gone).
 * Returns the controller.
 */
export function registerDeploymentController(manager: Manager, options: DeploymentControllerOptions = {}): Controller {
  const deployments = manager.reader<Deployment>(builtin.deployments);
  const replicaSets = manager.reader<ReplicaSet>(builtin.replicaSets);
  const pods = manager.reader<Pod>(builtin.pods);
  const cluster = clientCluster(manager, { replicaSets, pods, events: manager.eventRecorder(options.component ?? 'deployment-controller') });

  /** The Deployment controlling `rs`, if it is in the cache with that uid. */
  const owner = (namespace: string, ref: { kind: string; name: string; uid: string } | undefined): Deployment | undefined => {
    if (ref?.kind !== 'Deployment') return undefined;
    const d = deployments.get(namespace, ref.name) as Deployment | undefined;
    return d?.metadata.uid === ref.uid ? d : undefined;
  };
  const keyOf = (d: Deployment): Request => ({ namespace: d.metadata.namespace ?? '', name: d.metadata.name ?? '' });

  /** An orphan ReplicaSet: every Deployment of its namespace whose selector matches it (one may adopt it). */
  const adopters = (rs: ReplicaSet): Request[] => {
    if (controllerOf(rs) !== undefined || Object.keys(rs.metadata.labels ?? {}).length === 0) return [];
    return (deployments.list({ namespace: rs.metadata.namespace ?? '' }) as Deployment[])
      .filter((d) => {
        const selector = selectorOf(d.spec?.selector);
        return selector !== undefined && !selector.isEmpty() && selector.matches(rs.metadata.labels ?? {});
      })
      .map(keyOf);
  };

  /** A pod of a Recreate Deployment's ReplicaSet: that Deployment (it may now create its new ReplicaSet). */
  const recreateOwner = (pod: Pod): Request[] => {
    const namespace = pod.metadata.namespace ?? '';
    const rsRef = controllerOf(pod);
    if (rsRef?.kind !== 'ReplicaSet') return [];
    const rs = replicaSets.get(namespace, rsRef.name);
    if (rs === undefined || rs.metadata.uid !== rsRef.uid) return [];
    const d = owner(namespace, controllerOf(rs as ReplicaSet));
    return d !== undefined && d.spec?.strategy?.type === 'Recreate' ? [keyOf(d)] : [];
  };

  return manager
    .controller(options.name ?? 'deployment')
    .for(builtin.deployments)
    .owns(builtin.replicaSets)
    .watches<ReplicaSet>(builtin.replicaSets, adopters)
    .watches<Pod>(builtin.pods, recreateOwner)
    .withConcurrency(options.concurrency ?? 5)
    .reconcile(async ({ namespace, name }, { logger }) => {
      const cached = deployments.get(namespace, name);
      if (cached === undefined) return undefined; // deleted: its ReplicaSets go with the garbage collector
      checkDeployment(cached);
      try {
        return await reconcileDeployment(cluster, jsonClone(cached) as Deployment);
      } catch (err) {
        // The cache had not caught up with a write yet (often our own): expected; look again soon.
        if (!isApiError(err, 'Conflict')) throw err;
        logger.debug({ err, deployment: `${namespace}/${name}` }, 'conflict writing from a stale read; requeued');
        return { requeue: true };
      }
    });
}

/** A selector, or undefined when it is invalid (such a Deployment adopts nothing). */
function selectorOf(selector: LabelSelector | undefined): LabelsSelector | undefined {
  try {
    return labelSelectorAsSelector(selector);
  } catch {
    return undefined; // reported by that Deployment's own sync
  }
}
