/**
 * DeploymentCluster: everything one sync of a Deployment reads from and writes to the cluster. The
 * controller's implementation (clientcluster.ts) reads from the manager's shared caches and writes
 * through the API; unit tests pass an in-memory one and step the rollout by hand.
 *
 * Assumptions: reads may lag behind writes (a cache); every update carries the resourceVersion of
 * the object it is given, so a write from a stale read fails with a 409 Conflict (ApiError).
 */
import type { Deployment, DeploymentStatus, LabelsSelector, OwnerReference, Pod, ReplicaSet } from '@setpoint/api';
import type { EventType } from '@setpoint/client';

export interface DeploymentCluster {
  /** Milliseconds since the Unix epoch. */
  now(): number;
  /** Every ReplicaSet of the namespace, as last observed (copies the caller may change). */
  listReplicaSets(namespace: string): ReplicaSet[];
  /** One ReplicaSet as last observed, or undefined. */
  getReplicaSet(namespace: string, name: string): ReplicaSet | undefined;
  /** The pods of the namespace matching `selector`, as last observed. */
  listPods(namespace: string, selector: LabelsSelector): Pod[];
  /** The same, read from the API itself (before a scale-up: the pods that exist right now). */
  listPodsFresh(namespace: string, selector: LabelsSelector): Promise<Pod[]>;
  /** The Deployment read from the API itself (not a cache); undefined when it is gone. */
  getDeploymentFresh(namespace: string, name: string): Promise<Deployment | undefined>;
  /** Creates a ReplicaSet. Throws ApiError AlreadyExists when the name is taken. */
  createReplicaSet(rs: ReplicaSet): Promise<ReplicaSet>;
  /** Replaces a ReplicaSet (spec and metadata), precondition its resourceVersion. */
  updateReplicaSet(rs: ReplicaSet): Promise<ReplicaSet>;
  /** Sets a ReplicaSet's ownerReferences (adoption, release), precondition its resourceVersion. */
  setReplicaSetOwners(rs: ReplicaSet, ownerReferences: OwnerReference[]): Promise<ReplicaSet>;
  /** Deletes a ReplicaSet (precondition its uid). NotFound is not an error. */
  deleteReplicaSet(rs: ReplicaSet): Promise<void>;
  /** Writes the Deployment's status, precondition its resourceVersion; returns the object written. */
  updateDeploymentStatus(d: Deployment, status: DeploymentStatus): Promise<Deployment>;
  /** Sets the Deployment's revision annotation (a metadata-only patch). */
  setDeploymentRevision(d: Deployment, revision: string): Promise<void>;
  /** Records an Event about the Deployment (never throws). */
  event(d: Deployment, type: EventType, reason: string, message: string): void;
}
