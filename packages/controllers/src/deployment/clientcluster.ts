/**
 * The DeploymentCluster a running controller uses: reads from the manager's shared caches (never
 * the API, except the one fresh read adoption requires), writes through the API with the
 * resourceVersion read as precondition, Events through the manager's recorder.
 */
import { isApiError, jsonClone, type Deployment, type DeploymentStatus, type OwnerReference, type Pod, type ReplicaSet } from '@setpoint/api';
import type { CachedReader, EventRecorder, Manager } from '@setpoint/client';
import type { DeploymentCluster } from './cluster.js';
import { REVISION_ANNOTATION } from './replicasets.js';

export interface ClientClusterSources {
  readonly replicaSets: CachedReader<ReplicaSet>;
  readonly pods: CachedReader<Pod>;
  readonly events: EventRecorder;
}

/** A DeploymentCluster on `manager`'s client and clock and the given caches. */
export function clientCluster(manager: Manager, sources: ClientClusterSources): DeploymentCluster {
  const client = manager.client;
  const rsClient = () => client.replicaSets();
  return {
    now: () => manager.clock.now(),
    listReplicaSets: (namespace) => sources.replicaSets.list({ namespace }).map((rs) => jsonClone(rs) as ReplicaSet),
    getReplicaSet: (namespace, name) => {
      const rs = sources.replicaSets.get(namespace, name);
      return rs === undefined ? undefined : (jsonClone(rs) as ReplicaSet);
    },
    listPods: (namespace, selector) => sources.pods.list({ namespace, labelSelector: selector }).map((pod) => jsonClone(pod) as Pod),
    listPodsFresh: async (namespace, selector) => (await client.pods().listAll({ namespace, labelSelector: selector.toString() })).items,
    getDeploymentFresh: async (namespace, name) => {
      try {
        return await client.deployments().get(name, { namespace });
      } catch (err) {
        if (isApiError(err, 'NotFound')) return undefined;
        throw err;
      }
    },
    createReplicaSet: (rs) => rsClient().create(rs),
    updateReplicaSet: (rs) => rsClient().update(rs),
    setReplicaSetOwners: (rs: ReplicaSet, ownerReferences: OwnerReference[]) =>
      rsClient().patch(
        rs.metadata.name!,
        // The resourceVersion in a merge patch is its precondition: a stale read gets a 409.
        { metadata: { resourceVersion: rs.metadata.resourceVersion, ownerReferences: ownerReferences.length > 0 ? ownerReferences : null } },
        { type: 'merge', namespace: rs.metadata.namespace ?? '' },
      ),
    deleteReplicaSet: async (rs) => {
      try {
        await rsClient().delete(rs.metadata.name!, { namespace: rs.metadata.namespace ?? '', ...(rs.metadata.uid ? { preconditions: { uid: rs.metadata.uid } } : {}) });
      } catch (err) {
        if (!isApiError(err, 'NotFound')) throw err;
      }
    },
    updateDeploymentStatus: (d: Deployment, status: DeploymentStatus) => client.deployments().updateStatus({ ...d, status }),
    setDeploymentRevision: async (d, revision) => {
      await client.deployments().patch(d.metadata.name!, { metadata: { annotations: { [REVISION_ANNOTATION]: revision } } }, { type: 'merge', namespace: d.metadata.namespace ?? '' });
    },
    event: (d, type, reason, message) => sources.events.event(d, type, reason, message),
  };
}
