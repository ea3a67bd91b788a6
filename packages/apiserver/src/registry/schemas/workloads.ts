/**
 * Top-level OpenAPI v3 schemas of the workload kinds: Pod and Binding (core/v1), ReplicaSet and
 * Deployment (apps/v1), and Scale (autoscaling/v1, the body of the scale subresource). Each carries
 * `x-kubernetes-group-version-kind`; the pod spec, containers and volumes come from
 * schemas/pod-spec.ts, pod-container.ts and pod-volume.ts. Read-only.
 */
import type { Schema } from '@setpoint/api';
import {
  booleanField,
  int32Field,
  int64Field,
  kindSchema,
  labelSelectorSchema,
  mapList,
  objectField,
  stringField,
  timeField,
} from './meta.js';
import { atomicObject, intOrString, requiredString } from './pod-container.js';
import { podSpecSchema, podStatusSchema, podTemplateSpecSchema } from './pod-spec.js';
import { goType } from './gotypes.js';

export { podSpecSchema, podStatusSchema, podTemplateSpecSchema } from './pod-spec.js';

// ---------------------------------------------------------------------------------------------
// Pod and Binding

/** core/v1 Pod. */
export const podSchema: Schema = kindSchema({
  group: '',
  version: 'v1',
  kind: 'Pod',
  description: 'A collection of containers that run together on a node.',
  properties: { spec: podSpecSchema, status: podStatusSchema },
});

/** core/v1 ObjectReference, atomic (Binding.target). */
const objectReferenceSchema: Schema = atomicObject(
  objectField('A reference to an object.', {
    apiVersion: stringField('API version of the referent.'),
    fieldPath: stringField('A path to a piece of the referent.'),
    kind: stringField('Kind of the referent.'),
    name: stringField('Name of the referent.'),
    namespace: stringField('Namespace of the referent.'),
    resourceVersion: stringField('The resourceVersion the reference was made at.'),
    uid: stringField('UID of the referent.'),
  }),
);

/** core/v1 Binding: the body of POST pods/{name}/binding. */
export const bindingSchema: Schema = kindSchema({
  group: '',
  version: 'v1',
  kind: 'Binding',
  description: 'Binds a pod to a node; the scheduler creates these.',
  properties: { target: objectReferenceSchema },
  required: ['target'],
});

// ---------------------------------------------------------------------------------------------
// Shared by ReplicaSet and Deployment

/** A status condition of a ReplicaSet or Deployment (`lastUpdateTime` only for Deployment). */
function workloadConditionSchema(kind: string, withLastUpdate: boolean): Schema {
  const properties: Record<string, Schema> = {
    lastTransitionTime: timeField('When the condition last changed status.'),
    message: stringField('Human-readable details.'),
    reason: stringField('CamelCase reason of the last transition.'),
    status: requiredString('True, False or Unknown.'),
    type: requiredString(`The condition type.`),
  };
  if (withLastUpdate) properties['lastUpdateTime'] = timeField('When the condition was last updated.');
  return objectField(`A condition of a ${kind}.`, properties, ['type', 'status']);
}

// ---------------------------------------------------------------------------------------------
// ReplicaSet

/** apps/v1 ReplicaSetSpec. */
const replicaSetSpecSchema: Schema = objectField(
  'The desired state of a ReplicaSet.',
  {
    minReadySeconds: int32Field('Seconds a new pod must be ready, without crashing, to count as available.'),
    replicas: int32Field('Desired number of pods; 1 by default.'),
    selector: labelSelectorSchema,
    template: podTemplateSpecSchema,
  },
  ['selector'],
);

/** apps/v1 ReplicaSetStatus. */
const replicaSetStatusSchema: Schema = objectField(
  'The observed state of a ReplicaSet.',
  {
    availableReplicas: int32Field('Pods available for at least minReadySeconds.'),
    conditions: mapList('The conditions of the ReplicaSet.', workloadConditionSchema('ReplicaSet', false), 'type'),
    fullyLabeledReplicas: int32Field('Pods whose labels match the template labels.'),
    observedGeneration: int64Field('The generation the controller last acted on.'),
    readyReplicas: int32Field('Pods ready.'),
    replicas: { ...int32Field('Pods currently selected.'), default: 0 },
    terminatingReplicas: int32Field('Pods being deleted.'),
  },
  ['replicas'],
);

/** apps/v1 ReplicaSet. */
export const replicaSetSchema: Schema = kindSchema({
  group: 'apps',
  version: 'v1',
  kind: 'ReplicaSet',
  description: 'Keeps a number of identical pods running.',
  properties: { spec: replicaSetSpecSchema, status: replicaSetStatusSchema },
});

// ---------------------------------------------------------------------------------------------
// Deployment

/** apps/v1 DeploymentStrategy: retainKeys, so switching to Recreate drops rollingUpdate. */
const deploymentStrategySchema: Schema = {
  ...objectField('How old pods are replaced by new ones.', {
    rollingUpdate: objectField('Bounds of a rolling update.', {
      maxSurge: intOrString('Pods allowed above the desired count during the update: a number or a percentage; 25% by default.'),
      maxUnavailable: intOrString('Pods allowed to be unavailable during the update: a number or a percentage; 25% by default.'),
    }),
    type: stringField('Recreate or RollingUpdate; RollingUpdate by default.'),
  }),
  'x-kubernetes-patch-strategy': 'retainKeys',
};

/** apps/v1 DeploymentSpec. */
const deploymentSpecSchema: Schema = objectField(
  'The desired state of a Deployment.',
  {
    minReadySeconds: int32Field('Seconds a new pod must be ready, without crashing, to count as available.'),
    paused: booleanField('Stop rolling out changes of the template.'),
    progressDeadlineSeconds: int32Field('Seconds a rollout may make no progress before it is reported failed; 600 by default.'),
    replicas: int32Field('Desired number of pods; 1 by default.'),
    revisionHistoryLimit: int32Field('Old ReplicaSets kept for rollback; 10 by default.'),
    selector: labelSelectorSchema,
    strategy: deploymentStrategySchema,
    template: podTemplateSpecSchema,
  },
  ['selector', 'template'],
);

/** apps/v1 DeploymentStatus. */
const deploymentStatusSchema: Schema = objectField('The observed state of a Deployment.', {
  availableReplicas: int32Field('Pods available for at least minReadySeconds.'),
  collisionCount: int32Field('Hash collisions of the template, used to name new ReplicaSets.'),
  conditions: mapList('The conditions of the Deployment.', workloadConditionSchema('Deployment', true), 'type'),
  observedGeneration: int64Field('The generation the controller last acted on.'),
  readyReplicas: int32Field('Pods ready.'),
  replicas: int32Field('Pods of all its ReplicaSets, not terminating.'),
  terminatingReplicas: int32Field('Pods being deleted.'),
  unavailableReplicas: int32Field('Pods still needed for the Deployment to be fully available.'),
  updatedReplicas: int32Field('Pods with the current template.'),
});

/** apps/v1 Deployment. */
export const deploymentSchema: Schema = kindSchema({
  group: 'apps',
  version: 'v1',
  kind: 'Deployment',
  description: 'Declarative updates of pods through ReplicaSets.',
  properties: { spec: deploymentSpecSchema, status: deploymentStatusSchema },
});

// ---------------------------------------------------------------------------------------------
// Scale

/** autoscaling/v1 Scale: the body of the scale subresource. */
export const scaleSchema: Schema = kindSchema({
  group: 'autoscaling',
  version: 'v1',
  kind: 'Scale',
  description: 'The scale of a resource: desired and observed replicas.',
  properties: {
    spec: objectField('The desired scale.', { replicas: int32Field('Desired number of instances.') }),
    status: objectField(
      'The observed scale.',
      {
        replicas: { ...int32Field('Observed number of instances.'), default: 0 },
        selector: stringField('The label selector of the pods, in string form.'),
      },
      ['replicas'],
    ),
  },
});

// Go type names, for typed decoding's messages (registry/typecheck.ts).
goType('v1.ObjectReference', objectReferenceSchema);
goType('v1.ReplicaSetSpec', replicaSetSpecSchema);
goType('v1.ReplicaSetStatus', replicaSetStatusSchema);
goType('v1.DeploymentStrategy', deploymentStrategySchema);
goType('v1.DeploymentSpec', deploymentSpecSchema);
goType('v1.DeploymentStatus', deploymentStatusSchema);
