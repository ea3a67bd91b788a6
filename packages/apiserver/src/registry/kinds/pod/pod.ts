/**
 * Pod (v1, namespaced, short name po): defaults as Kubernetes' SetObjectDefaults_Pod, a new pod
 * Pending with its QoS class, validation as ValidatePodCreate / ValidatePodUpdate /
 * ValidatePodStatusUpdate, the status, binding and log subresources (logs are read from the
 * pod's node agent: routes/podlog.ts), graceful deletion, and the pod field selectors kubectl and
 * the kubelet use (spec.nodeName, status.phase, ...).
 */
import { ApiError, nameIsDNSSubdomain, type KubeObject } from '@setpoint/api';
import { handlePodLog } from '../../../routes/podlog.js';
import { defaultPod } from './defaults.js';
import { podSchema } from '../../schemas/workloads.js';
import type { ResourceDef, StrategyContext } from '../../types.js';
import { isObject, objectAt, objectsAt, stringAt, type JsonObject } from '../../validation/json-fields.js';
import { validatePod, validatePodStatusUpdate, validatePodUpdate } from './validation.js';
import { computePodQOS } from './qos.js';
import { podPrinter } from './table.js';

export { computePodQOS, type PodQOSClass } from './qos.js';
export { validateBinding } from './validation.js';

/** Priorities of the built-in PriorityClasses (scheduling/v1). */
export const SYSTEM_PRIORITY_CLASSES: Readonly<Record<string, number>> = Object.freeze({
  'system-node-critical': 2000001000,
  'system-cluster-critical': 2000000000,
});

function specOf(obj: KubeObject): JsonObject {
  if (!isObject(obj['spec'])) obj['spec'] = {};
  return obj['spec'] as JsonObject;
}

/**
 * What a new pod gets before validation (Kubernetes' podStrategy.PrepareForCreate and the Priority
 * admission plugin): status `{ phase: Pending, qosClass }` (any status sent is dropped), a
 * PodScheduled=False condition with reason SchedulingGated when it has scheduling gates, and a
 * priority: 0 without a priorityClassName, the built-in value for system-node-critical and
 * system-cluster-critical; preemptionPolicy PreemptLowerPriority unless set.
 */
export function preparePodForCreate(pod: KubeObject): void {
  const spec = specOf(pod);
  const status: JsonObject = { phase: 'Pending', qosClass: computePodQOS(spec) };
  if (objectsAt(spec, 'schedulingGates').length > 0) {
    status['conditions'] = [
      {
        type: 'PodScheduled',
        status: 'False',
        lastProbeTime: null,
        lastTransitionTime: null,
        reason: 'SchedulingGated',
        message: 'Scheduling is blocked due to non-empty scheduling gates',
      },
    ];
  }
  pod['status'] = status;
  const className = stringAt(spec, 'priorityClassName');
  if (className === '') spec['priority'] ??= 0;
  else if (className in SYSTEM_PRIORITY_CLASSES) spec['priority'] = SYSTEM_PRIORITY_CLASSES[className];
  spec['preemptionPolicy'] ??= 'PreemptLowerPriority';
}

/**
 * Assigns a pod to a node, as POST pods/{name}/binding does (BindingREST.setPodHostAndAnnotations):
 * sets spec.nodeName to `binding.target.name`, merges the binding's annotations into the pod's, and
 * sets condition PodScheduled=True (lastTransitionTime `ctx.now`, unless it was already True).
 * Mutates and returns `pod`. Assumes the binding was validated ({@link validateBinding}).
 * Throws ApiError Conflict on pods/binding when the pod is being deleted
 * (`pod x is being deleted, cannot be assigned to a host`) or already bound
 * (`pod x is already assigned to node "n1"`): spec.nodeName is set once.
 */
export function bindPod(pod: KubeObject, binding: KubeObject, ctx: Pick<StrategyContext, 'now'>): KubeObject {
  const name = pod.metadata.name ?? '';
  const gr = { group: '', resource: 'pods/binding' };
  if (pod.metadata.deletionTimestamp !== undefined) throw ApiError.conflict(gr, name, `pod ${name} is being deleted, cannot be assigned to a host`);
  const spec = specOf(pod);
  const current = stringAt(spec, 'nodeName');
  if (current !== '') throw ApiError.conflict(gr, name, `pod ${name} is already assigned to node ${JSON.stringify(current)}`);
  spec['nodeName'] = stringAt(objectAt(binding, 'target'), 'name');
  const annotations = binding.metadata.annotations ?? {};
  if (Object.keys(annotations).length > 0) pod.metadata.annotations = { ...(pod.metadata.annotations ?? {}), ...annotations };
  if (!isObject(pod['status'])) pod['status'] = {};
  const status = pod['status'] as JsonObject;
  const conditions = Array.isArray(status['conditions']) ? (status['conditions'] as unknown[]) : [];
  const i = conditions.findIndex((c) => stringAt(c, 'type') === 'PodScheduled');
  const previous = i >= 0 ? conditions[i] : undefined;
  const keptTime = isObject(previous) && previous['status'] === 'True' ? previous['lastTransitionTime'] : undefined;
  const condition: JsonObject = { type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: keptTime ?? ctx.now };
  if (i >= 0) conditions[i] = condition;
  else conditions.push(condition);
  status['conditions'] = conditions;
  return pod;
}

/** The value of a pod field selector label (missing reads as ''). */
function podField(read: (pod: KubeObject) => unknown): (pod: KubeObject) => string {
  return (pod) => {
    const v = read(pod);
    return typeof v === 'string' ? v : '';
  };
}

const spec = (pod: KubeObject) => objectAt(pod, 'spec');
const status = (pod: KubeObject) => objectAt(pod, 'status');

/** pods (v1). */
export const pods: ResourceDef = {
  group: '',
  version: 'v1',
  resource: 'pods',
  protobuf: true,
  printer: podPrinter,
  singular: 'pod',
  kind: 'Pod',
  listKind: 'PodList',
  namespaced: true,
  shortNames: ['po'],
  categories: ['all'],
  subresources: {
    status: true,
    binding: true,
    more: {
      log: {
        verbs: ['get'],
        handler: ({ req, reply, info, storage, services }) =>
          handlePodLog(req, reply, info, { pods: storage, nodes: services.storageFor('', 'v1', 'nodes'), kubelet: services.kubelet, stopping: services.stopping, logger: services.logger, clock: storage.clock }),
      },
    },
  },
  fieldSelectors: {
    'spec.nodeName': podField((p) => spec(p)?.['nodeName']),
    'spec.restartPolicy': podField((p) => spec(p)?.['restartPolicy']),
    'spec.schedulerName': podField((p) => spec(p)?.['schedulerName']),
    'spec.serviceAccountName': podField((p) => spec(p)?.['serviceAccountName']),
    // Kubernetes formats the boolean: "true" or "false", never empty.
    'spec.hostNetwork': (p) => String(spec(p)?.['hostNetwork'] === true),
    'status.phase': podField((p) => status(p)?.['phase']),
    // Kubernetes reads the first of status.podIPs.
    'status.podIP': podField((p) => objectsAt(status(p), 'podIPs')[0]?.[0]['ip'] ?? status(p)?.['podIP']),
    'status.nominatedNodeName': podField((p) => status(p)?.['nominatedNodeName']),
  },
  schema: podSchema,
  nameValidator: nameIsDNSSubdomain,
  deletion: 'graceful',
  strategy: {
    defaults: (obj) => defaultPod(obj),
    prepareForCreate: (obj) => preparePodForCreate(obj),
    validate: (obj) => validatePod(obj),
    validateUpdate: (obj, old) => validatePodUpdate(obj, old),
    validateStatusUpdate: (obj, old) => validatePodStatusUpdate(obj, old),
  },
};
