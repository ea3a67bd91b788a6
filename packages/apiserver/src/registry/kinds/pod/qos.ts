/**
 * A pod's quality-of-service class, computed as Kubernetes' ComputePodQOS
 * (pkg/apis/core/helper/qos) computes it from the cpu and memory requests and limits:
 *
 * - BestEffort: no container (regular or init) requests or limits any cpu or memory;
 * - Guaranteed: every container sets both cpu and memory limits, and the summed requests equal the
 *   summed limits for each of them;
 * - Burstable: anything else.
 *
 * Ephemeral containers do not count. With pod-level resources (spec.resources), only those count.
 * Zero and unparsable quantities count as unset. The pod should be defaulted first (requests copied
 * from limits), as Kubernetes computes the class after defaulting.
 */
import { addQuantities, compareQuantities, tryParseQuantity, type Quantity } from '@setpoint/api';
import { isObject, objectAt, objectsAt, type JsonObject } from '../../validation/json-fields.js';

/** The QoS classes, as status.qosClass spells them. */
export type PodQOSClass = 'Guaranteed' | 'Burstable' | 'BestEffort';

const QOS_RESOURCES = ['cpu', 'memory'] as const;

/** The positive cpu and memory quantities of a resource list. */
function qosQuantities(list: unknown): Map<string, Quantity> {
  const out = new Map<string, Quantity>();
  if (!isObject(list)) return out;
  for (const name of QOS_RESOURCES) {
    const v = list[name];
    const q = typeof v === 'string' ? tryParseQuantity(v) : typeof v === 'number' ? tryParseQuantity(String(v)) : undefined;
    if (q !== undefined && q.nanos > 0n) out.set(name, q);
  }
  return out;
}

function addInto(total: Map<string, Quantity>, more: Map<string, Quantity>): void {
  for (const [name, q] of more) {
    const prev = total.get(name);
    total.set(name, prev === undefined ? q : addQuantities(prev, q));
  }
}

/** The QoS class of a pod spec (see the module comment). */
export function computePodQOS(spec: JsonObject | undefined): PodQOSClass {
  const requests = new Map<string, Quantity>();
  const limits = new Map<string, Quantity>();
  let guaranteed = true;
  const podResources = objectAt(spec, 'resources');
  if (podResources !== undefined && (isObject(podResources['requests']) || isObject(podResources['limits']))) {
    addInto(requests, qosQuantities(podResources['requests']));
    if (isObject(podResources['limits']) && Object.keys(podResources['limits']).length > 0) {
      const found = qosQuantities(podResources['limits']);
      addInto(limits, found);
      if (found.size < QOS_RESOURCES.length) guaranteed = false;
    }
  } else {
    for (const list of ['containers', 'initContainers']) {
      for (const [container] of objectsAt(spec, list)) {
        const resources = objectAt(container, 'resources');
        addInto(requests, qosQuantities(objectAt(resources, 'requests')));
        const found = qosQuantities(objectAt(resources, 'limits'));
        addInto(limits, found);
        if (found.size < QOS_RESOURCES.length) guaranteed = false;
      }
    }
  }
  if (requests.size === 0 && limits.size === 0) return 'BestEffort';
  if (guaranteed) {
    for (const [name, req] of requests) {
      const lim = limits.get(name);
      if (lim === undefined || compareQuantities(lim, req) !== 0) {
        guaranteed = false;
        break;
      }
    }
  }
  return guaranteed && requests.size === limits.size ? 'Guaranteed' : 'Burstable';
}
