/**
 * ReplicaSet (apps/v1, namespaced, short name rs): replicas default to 1 and the pod template gets
 * the pod spec defaults (SetObjectDefaults_ReplicaSet); validation as ValidateReplicaSet with an
 * immutable selector; status and scale subresources (the scale's selector is status.selector, as
 * the ReplicaSet controller publishes it).
 */
import { nameIsDNSSubdomain, type KubeObject } from '@setpoint/api';
import { defaultPodTemplateSpec } from '../pod/defaults.js';
import { replicaSetSchema } from '../../schemas/workloads.js';
import type { ResourceDef } from '../../types.js';
import { validateReplicaSet, validateReplicaSetStatus, validateSelectorUpdate } from './validation.js';
import { isObject, setDefault } from '../../validation/json-fields.js';
import { replicaSetPrinter } from './table.js';

/** SetObjectDefaults_ReplicaSet: spec.replicas 1, then the template's pod spec defaults. */
export function defaultReplicaSet(rs: KubeObject): void {
  if (!isObject(rs['spec'])) rs['spec'] = {};
  const spec = rs['spec'] as Record<string, unknown>;
  setDefault(spec, 'replicas', 1);
  defaultPodTemplateSpec(spec['template']);
}

/** replicasets (apps/v1). */
export const replicasets: ResourceDef = {
  group: 'apps',
  version: 'v1',
  resource: 'replicasets',
  protobuf: true,
  printer: replicaSetPrinter,
  singular: 'replicaset',
  kind: 'ReplicaSet',
  listKind: 'ReplicaSetList',
  namespaced: true,
  shortNames: ['rs'],
  categories: ['all'],
  subresources: {
    status: true,
    scale: { specReplicasPath: 'spec.replicas', statusReplicasPath: 'status.replicas', labelSelectorPath: 'status.selector' },
  },
  schema: replicaSetSchema,
  nameValidator: nameIsDNSSubdomain,
  strategy: {
    defaults: (obj) => defaultReplicaSet(obj),
    // A new ReplicaSet starts with an empty status, whatever was sent (rsStrategy.PrepareForCreate).
    prepareForCreate: (obj) => {
      obj['status'] = {};
    },
    validate: (obj) => validateReplicaSet(obj),
    validateUpdate: (obj, old) => validateSelectorUpdate(obj, old),
    validateStatusUpdate: (obj) => validateReplicaSetStatus(obj),
  },
};
