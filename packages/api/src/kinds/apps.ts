/**
 * apps/v1 ReplicaSet and Deployment, and autoscaling/v1 Scale: their specs and statuses are the
 * types generated from Kubernetes 1.32's definitions (generated/apps-v1.ts), kept open to fields
 * they do not name (WithUnknownFields) so that a controller's read-modify-write loses none.
 */
import type * as appsV1 from '../generated/apps-v1.js';
import type { KubeObject } from '../meta/types.js';
import type { WithUnknownFields } from './workloads.js';

// ---------------------------------------------------------------------------------------------
// ReplicaSet

/** The desired state of a ReplicaSet; `selector` is required and immutable. */
export type ReplicaSetSpec = WithUnknownFields<appsV1.ReplicaSetSpec>;

/** A ReplicaSet condition, e.g. ReplicaFailure. */
export type ReplicaSetCondition = appsV1.ReplicaSetCondition;

/** What the ReplicaSet controller last observed. */
export type ReplicaSetStatus = WithUnknownFields<appsV1.ReplicaSetStatus>;

/** Keeps `replicas` pods matching `selector` running, creating them from `template`. */
export interface ReplicaSet extends KubeObject {
  apiVersion?: 'apps/v1';
  kind?: 'ReplicaSet';
  spec?: ReplicaSetSpec;
  status?: ReplicaSetStatus;
}

// ---------------------------------------------------------------------------------------------
// Deployment

/** Bounds of a rolling update: a number of pods or a percentage of replicas ("25%"). */
export type RollingUpdateDeployment = WithUnknownFields<appsV1.RollingUpdateDeployment>;

/** How a Deployment replaces old pods: Recreate, or RollingUpdate (the default). */
export type DeploymentStrategy = WithUnknownFields<appsV1.DeploymentStrategy>;

/** The desired state of a Deployment; `selector` and `template` are required, the selector immutable. */
export type DeploymentSpec = WithUnknownFields<appsV1.DeploymentSpec>;

/** A Deployment condition: Available, Progressing or ReplicaFailure. */
export type DeploymentCondition = appsV1.DeploymentCondition;

/** What the Deployment controller last observed. */
export type DeploymentStatus = WithUnknownFields<appsV1.DeploymentStatus>;

/** Declarative updates of pods through ReplicaSets: rolls `template` out by `strategy`. */
export interface Deployment extends KubeObject {
  apiVersion?: 'apps/v1';
  kind?: 'Deployment';
  spec?: DeploymentSpec;
  status?: DeploymentStatus;
}

// ---------------------------------------------------------------------------------------------
// Scale (autoscaling/v1)

/** The body of the scale subresource: desired replicas in, observed replicas and selector out. */
export interface Scale extends KubeObject {
  apiVersion?: 'autoscaling/v1';
  kind?: 'Scale';
  spec?: { replicas?: number };
  status?: { replicas: number; selector?: string };
}
