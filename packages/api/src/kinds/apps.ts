/**
 * apps/v1 ReplicaSet and Deployment, and autoscaling/v1 Scale (the shapes Kubernetes publishes; every
 * spec and status field optional as there, unknown fields kept through the index signatures).
 */
import type { Condition, KubeObject } from '../meta/types.js';
import type { LabelSelector } from '../selectors/index.js';
import type { IntOrString, PodTemplateSpec } from './workloads.js';

// ---------------------------------------------------------------------------------------------
// ReplicaSet

/** The desired state of a ReplicaSet; `selector` is required and immutable. */
export interface ReplicaSetSpec {
  replicas?: number;
  minReadySeconds?: number;
  selector?: LabelSelector;
  template?: PodTemplateSpec;
  [field: string]: unknown;
}

/** A ReplicaSet condition, e.g. ReplicaFailure. */
export interface ReplicaSetCondition {
  type: string;
  status: Condition['status'];
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

/** What the ReplicaSet controller last observed. */
export interface ReplicaSetStatus {
  replicas?: number;
  fullyLabeledReplicas?: number;
  readyReplicas?: number;
  availableReplicas?: number;
  terminatingReplicas?: number;
  observedGeneration?: number;
  conditions?: ReplicaSetCondition[];
  [field: string]: unknown;
}

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
export interface RollingUpdateDeployment {
  maxUnavailable?: IntOrString;
  maxSurge?: IntOrString;
}

/** How a Deployment replaces old pods: Recreate, or RollingUpdate (the default). */
export interface DeploymentStrategy {
  type?: 'Recreate' | 'RollingUpdate';
  rollingUpdate?: RollingUpdateDeployment;
}

/** The desired state of a Deployment; `selector` and `template` are required, the selector immutable. */
export interface DeploymentSpec {
  replicas?: number;
  selector?: LabelSelector;
  template?: PodTemplateSpec;
  strategy?: DeploymentStrategy;
  minReadySeconds?: number;
  revisionHistoryLimit?: number;
  paused?: boolean;
  progressDeadlineSeconds?: number;
  [field: string]: unknown;
}

/** A Deployment condition: Available, Progressing or ReplicaFailure. */
export interface DeploymentCondition {
  type: string;
  status: Condition['status'];
  lastUpdateTime?: string;
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

/** What the Deployment controller last observed. */
export interface DeploymentStatus {
  observedGeneration?: number;
  replicas?: number;
  updatedReplicas?: number;
  readyReplicas?: number;
  availableReplicas?: number;
  unavailableReplicas?: number;
  terminatingReplicas?: number;
  conditions?: DeploymentCondition[];
  collisionCount?: number;
  [field: string]: unknown;
}

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
