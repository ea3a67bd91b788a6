/**
 * The filters: whether a node can take a pod, and if not, why — in kube-scheduler's words, which
 * the unschedulable message counts. Each filter returns [] when the node passes, else its reasons
 * (NodeResourcesFit may give several: every resource that does not fit). runFilters applies them
 * in kube-scheduler's order and stops at the first that fails, so a node contributes the reasons
 * of one filter only: ready (ours: the node's Ready condition must be True), NodeUnschedulable,
 * TaintToleration, NodeAffinity, NodePorts, NodeResourcesFit, PodTopologySpread, InterPodAffinity.
 */
import { findUntoleratedTaint, matchesRequiredNodeAffinity, toleratedBy } from './affinity.js';
import { filterInterPodAffinity, type InterPodState, type InterPodView } from './interpod.js';
import type { NodeInfo, PodInfo } from './nodeinfo.js';
import { filterSpread, type SpreadFilterState } from './spread.js';

export const ERR_NOT_READY = 'node(s) were not ready';
export const ERR_UNSCHEDULABLE = 'node(s) were unschedulable';
export const ERR_NODE_AFFINITY = "node(s) didn't match Pod's node affinity/selector";
export const ERR_PORTS = "node(s) didn't have free ports for the requested pod ports";
export const ERR_TOO_MANY_PODS = 'Too many pods';
export const ERR_INSUFFICIENT_CPU = 'Insufficient cpu';
export const ERR_INSUFFICIENT_MEMORY = 'Insufficient memory';

/** The reason a node's untolerated taint gives: `node(s) had untolerated taint {key: value}`. */
export function untoleratedTaintReason(taint: { readonly key: string; readonly value?: string | undefined }): string {
  return `node(s) had untolerated taint {${taint.key}: ${taint.value ?? ''}}`;
}

/** The taint kubectl cordon stands for: a pod tolerating it ignores spec.unschedulable. */
export const UNSCHEDULABLE_TAINT = { key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' } as const;

const PASS: readonly string[] = Object.freeze([]);
const NOT_READY: readonly string[] = Object.freeze([ERR_NOT_READY]);
const UNSCHEDULABLE: readonly string[] = Object.freeze([ERR_UNSCHEDULABLE]);
const NODE_AFFINITY: readonly string[] = Object.freeze([ERR_NODE_AFFINITY]);
const PORTS: readonly string[] = Object.freeze([ERR_PORTS]);

const noScheduleOrExecute = (effect: string) => effect === 'NoSchedule' || effect === 'NoExecute';

/** The node's Ready condition is True. */
export function filterNodeReady(_pod: PodInfo, node: NodeInfo): readonly string[] {
  return node.ready ? PASS : NOT_READY;
}

/** NodeUnschedulable: a cordoned node takes only pods tolerating node.kubernetes.io/unschedulable:NoSchedule. */
export function filterNodeUnschedulable(pod: PodInfo, node: NodeInfo): readonly string[] {
  if (!node.unschedulable) return PASS;
  return toleratedBy(pod.pod.spec?.tolerations ?? [], UNSCHEDULABLE_TAINT) ? PASS : UNSCHEDULABLE;
}

/** TaintToleration: the first NoSchedule or NoExecute taint the pod does not tolerate fails it. */
export function filterTaintToleration(pod: PodInfo, node: NodeInfo): readonly string[] {
  if (node.taints.length === 0) return PASS;
  const taint = findUntoleratedTaint(node.taints, pod.pod.spec?.tolerations ?? [], noScheduleOrExecute);
  return taint === undefined ? PASS : [untoleratedTaintReason(taint)];
}

/** NodeAffinity: spec.nodeSelector and required node affinity. */
export function filterNodeAffinity(pod: PodInfo, node: NodeInfo): readonly string[] {
  return matchesRequiredNodeAffinity(pod.requiredNodeAffinity, node.name, node.labels) ? PASS : NODE_AFFINITY;
}

/** NodePorts: every host port the pod wants is free on the node. */
export function filterNodePorts(pod: PodInfo, node: NodeInfo): readonly string[] {
  for (const hp of pod.hostPorts) if (!node.portFree(hp)) return PORTS;
  return PASS;
}

/**
 * NodeResourcesFit: one more pod within allocatable pods ("Too many pods"), and each requested
 * cpu and memory within allocatable minus what the node's pods request ("Insufficient cpu",
 * "Insufficient memory"). A resource the pod does not request always fits.
 */
export function filterNodeResourcesFit(pod: PodInfo, node: NodeInfo): readonly string[] {
  const r = pod.requests;
  const pods = node.pods.size + 1 > node.allocatable.pods;
  const cpu = r.milliCPU > 0 && r.milliCPU > node.allocatable.milliCPU - node.requested.milliCPU;
  const memory = r.memory > 0 && r.memory > node.allocatable.memory - node.requested.memory;
  if (!pods && !cpu && !memory) return PASS;
  const reasons: string[] = [];
  if (pods) reasons.push(ERR_TOO_MANY_PODS);
  if (cpu) reasons.push(ERR_INSUFFICIENT_CPU);
  if (memory) reasons.push(ERR_INSUFFICIENT_MEMORY);
  return reasons;
}

/** The per-decision state of the filters that look beyond one node. */
export interface FilterState {
  readonly spread: SpreadFilterState | undefined;
  readonly interPod: InterPodState | undefined;
  readonly view: Pick<InterPodView, 'namespaceLabels'>;
}

/** Every filter in order; the reasons of the first that fails, or [] when the node passes. */
export function runFilters(pod: PodInfo, node: NodeInfo, state: FilterState): readonly string[] {
  let r = filterNodeReady(pod, node);
  if (r.length > 0) return r;
  r = filterNodeUnschedulable(pod, node);
  if (r.length > 0) return r;
  r = filterTaintToleration(pod, node);
  if (r.length > 0) return r;
  r = filterNodeAffinity(pod, node);
  if (r.length > 0) return r;
  r = filterNodePorts(pod, node);
  if (r.length > 0) return r;
  r = filterNodeResourcesFit(pod, node);
  if (r.length > 0) return r;
  r = filterSpread(pod, node, state.spread);
  if (r.length > 0) return r;
  return filterInterPodAffinity(pod, node, state.interPod, state.view);
}
