/**
 * Which pods the scheduler owns, and which changes can make an unschedulable pod fit (what
 * kube-scheduler's event handlers and queueing hints decide). Plain predicates over objects.
 */
import { jsonEqual, type Node, type Pod } from '@setpoint/api';
import type { PodInfo } from './nodeinfo.js';
import type { QueueAttributes } from './queue.js';

/** The scheduler name pods without spec.schedulerName belong to. */
export const DEFAULT_SCHEDULER_NAME = 'default-scheduler';

/**
 * Whether `schedulerName` should place `pod`: it names this scheduler (unset means
 * default-scheduler), has no node, is not being deleted, has not finished, and has no
 * scheduling gates.
 */
export function responsibleFor(pod: Readonly<Pod>, schedulerName: string): boolean {
  const spec = pod.spec;
  const name = spec?.schedulerName === undefined || spec.schedulerName === '' ? DEFAULT_SCHEDULER_NAME : spec.schedulerName;
  if (name !== schedulerName) return false;
  if ((spec?.nodeName ?? '') !== '') return false;
  if (pod.metadata.deletionTimestamp !== undefined) return false;
  if (pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed') return false;
  return (spec?.schedulingGates ?? []).length === 0;
}

/** Whether a pod is assigned to a node (spec.nodeName set). */
export function isAssigned(pod: Readonly<Pod>): boolean {
  return (pod.spec?.nodeName ?? '') !== '';
}

/** How the queue orders a pod, and whether changes to other pods can help it. */
export function queueAttributes(p: PodInfo): QueueAttributes {
  return {
    priority: p.priority,
    creationMs: p.creationMs,
    dependsOnPods: p.requiredAffinity.length > 0 || p.requiredAntiAffinity.length > 0 || p.spreadConstraints.length > 0,
  };
}

/**
 * Whether a pending pod changed in a way that may change the decision: anything but its status
 * and bookkeeping metadata (resourceVersion, managedFields, generation). Our own status writes
 * (the Unschedulable condition) therefore do not wake it.
 */
export function podChangedForScheduling(oldPod: Readonly<Pod>, newPod: Readonly<Pod>): boolean {
  if (!jsonEqual(oldPod.spec, newPod.spec)) return true;
  const a = oldPod.metadata;
  const b = newPod.metadata;
  return !jsonEqual(a.labels ?? {}, b.labels ?? {}) || !jsonEqual(a.annotations ?? {}, b.annotations ?? {}) || a.deletionTimestamp !== b.deletionTimestamp;
}

function conditionStatuses(node: Readonly<Node>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const c of node.status?.conditions ?? []) out[c.type] = c.status;
  return out;
}

/**
 * Whether a node changed in a way that may let pods fit (kube-scheduler's
 * nodeSchedulingPropertiesChange): spec.unschedulable, allocatable, labels, taints, or the status
 * of a condition. Heartbeats (condition times) alone are not.
 */
export function nodeChangedForScheduling(oldNode: Readonly<Node>, newNode: Readonly<Node>): boolean {
  return (
    (oldNode.spec?.unschedulable ?? false) !== (newNode.spec?.unschedulable ?? false) ||
    !jsonEqual(oldNode.status?.allocatable ?? {}, newNode.status?.allocatable ?? {}) ||
    !jsonEqual(oldNode.metadata.labels ?? {}, newNode.metadata.labels ?? {}) ||
    !jsonEqual(oldNode.spec?.taints ?? [], newNode.spec?.taints ?? []) ||
    !jsonEqual(conditionStatuses(oldNode), conditionStatuses(newNode))
  );
}

/**
 * Whether an assigned pod's change may let others fit: it finished (frees its node), or its
 * labels changed (affinity and spreading read them), or its requests shrank.
 */
export function assignedPodChangedForScheduling(oldInfo: PodInfo, newInfo: PodInfo): boolean {
  if (!oldInfo.terminal && newInfo.terminal) return true;
  if (!jsonEqual(oldInfo.labels, newInfo.labels)) return true;
  return newInfo.requests.milliCPU < oldInfo.requests.milliCPU || newInfo.requests.memory < oldInfo.requests.memory;
}
