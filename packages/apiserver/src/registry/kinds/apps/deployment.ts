/**
 * Deployment (apps/v1, namespaced, short name deploy): defaults as SetObjectDefaults_Deployment
 * (replicas 1, RollingUpdate with maxSurge and maxUnavailable 25%, revisionHistoryLimit 10,
 * progressDeadlineSeconds 600, and the pod spec defaults in the template); validation as
 * ValidateDeployment with an immutable selector; status and scale subresources.
 */
import { nameIsDNSSubdomain, type KubeObject } from '@setpoint/api';
import { defaultPodTemplateSpec } from '../pod/defaults.js';
import { deploymentSchema } from '../../schemas/workloads.js';
import type { ResourceDef } from '../../types.js';
import { validateDeployment, validateDeploymentStatus, validateSelectorUpdate } from './validation.js';
import { ensureObject, isObject, setDefault } from '../../validation/json-fields.js';
import { deploymentPrinter } from './table.js';

/**
 * SetObjectDefaults_Deployment: spec.replicas 1; strategy.type RollingUpdate, and for RollingUpdate
 * maxUnavailable and maxSurge "25%"; revisionHistoryLimit 10; progressDeadlineSeconds 600; then the
 * template's pod spec defaults.
 */
export function defaultDeployment(deployment: KubeObject): void {
  if (!isObject(deployment['spec'])) deployment['spec'] = {};
  const spec = deployment['spec'] as Record<string, unknown>;
  setDefault(spec, 'replicas', 1);
  const strategy = ensureObject(spec, 'strategy');
  if (strategy !== undefined) {
    setDefault(strategy, 'type', 'RollingUpdate');
    if (strategy['type'] === 'RollingUpdate') {
      const rollingUpdate = ensureObject(strategy, 'rollingUpdate');
      if (rollingUpdate !== undefined) {
        setDefault(rollingUpdate, 'maxUnavailable', '25%');
        setDefault(rollingUpdate, 'maxSurge', '25%');
      }
    }
  }
  setDefault(spec, 'revisionHistoryLimit', 10);
  setDefault(spec, 'progressDeadlineSeconds', 600);
  defaultPodTemplateSpec(spec['template']);
}

/** deployments (apps/v1). */
export const deployments: ResourceDef = {
  group: 'apps',
  version: 'v1',
  resource: 'deployments',
  protobuf: true,
  printer: deploymentPrinter,
  singular: 'deployment',
  kind: 'Deployment',
  listKind: 'DeploymentList',
  namespaced: true,
  shortNames: ['deploy'],
  categories: ['all'],
  subresources: {
    status: true,
    scale: { specReplicasPath: 'spec.replicas', statusReplicasPath: 'status.replicas', labelSelectorPath: 'status.selector' },
  },
  schema: deploymentSchema,
  nameValidator: nameIsDNSSubdomain,
  strategy: {
    defaults: (obj) => defaultDeployment(obj),
    // A new Deployment starts with an empty status, whatever was sent (deploymentStrategy.PrepareForCreate).
    prepareForCreate: (obj) => {
      obj['status'] = {};
    },
    validate: (obj) => validateDeployment(obj),
    validateUpdate: (obj, old) => validateSelectorUpdate(obj, old),
    validateStatusUpdate: (obj, old) => validateDeploymentStatus(obj, old),
  },
};
