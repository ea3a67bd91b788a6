/**
 * The scorers: how much a feasible node suits a pod, 0–100 each, weighted and summed as
 * kube-scheduler's default profile does (TaintToleration 3, NodeAffinity 2, PodTopologySpread 2,
 * NodeResourcesFit/LeastAllocated 1, NodeResourcesBalancedAllocation 1). Integer arithmetic
 * truncates, as Go's does.
 *
 * - LeastAllocated: per resource (cpu, memory; weight 1 each) (allocatable − requested) × 100 /
 *   allocatable, with the node's and the pod's non-zero requests; averaged over the resources the
 *   node has.
 * - BalancedAllocation: 100 × (1 − the standard deviation of the cpu and memory fractions
 *   requested, each capped at 1), with actual requests; skipped (0 everywhere) for a pod that
 *   requests nothing.
 * - NodeAffinity: the sum of the weights of the preferred terms the node matches, normalised to
 *   the best node (100).
 * - TaintToleration: the number of PreferNoSchedule taints the pod does not tolerate, normalised
 *   and reversed (fewest: 100).
 * - PodTopologySpread: see spread.ts.
 */
import { termMatches, toleratedBy } from './affinity.js';
import type { NodeInfo, PodInfo } from './nodeinfo.js';
import { normalizeSpreadScores, spreadScore, type SpreadScoreState } from './spread.js';

export const MAX_NODE_SCORE = 100;

export const SCORE_WEIGHTS = Object.freeze({ taintToleration: 3, nodeAffinity: 2, podTopologySpread: 2, leastAllocated: 1, balancedAllocation: 1 });

function leastRequested(requested: number, capacity: number): number {
  if (capacity === 0 || requested > capacity) return 0;
  return Math.trunc(((capacity - requested) * MAX_NODE_SCORE) / capacity);
}

/** LeastAllocated (see the file comment). */
export function leastAllocatedScore(pod: PodInfo, node: NodeInfo): number {
  let sum = 0;
  let weights = 0;
  const a = node.allocatable;
  if (a.milliCPU > 0) {
    sum += leastRequested(node.nonZeroRequested.milliCPU + pod.requests.nonZeroMilliCPU, a.milliCPU);
    weights++;
  }
  if (a.memory > 0) {
    sum += leastRequested(node.nonZeroRequested.memory + pod.requests.nonZeroMemory, a.memory);
    weights++;
  }
  return weights === 0 ? 0 : Math.trunc(sum / weights);
}

/** BalancedAllocation (see the file comment). */
export function balancedAllocationScore(pod: PodInfo, node: NodeInfo): number {
  if (pod.requests.milliCPU === 0 && pod.requests.memory === 0) return 0;
  const fractions: number[] = [];
  const a = node.allocatable;
  if (a.milliCPU > 0) fractions.push(Math.min(1, (node.requested.milliCPU + pod.requests.milliCPU) / a.milliCPU));
  if (a.memory > 0) fractions.push(Math.min(1, (node.requested.memory + pod.requests.memory) / a.memory));
  const std = fractions.length === 2 ? Math.abs((fractions[0]! - fractions[1]!) / 2) : 0;
  return Math.trunc((1 - std) * MAX_NODE_SCORE);
}

/** NodeAffinity's raw score: the summed weights of the preferred terms the node matches. */
export function nodeAffinityScore(pod: PodInfo, node: NodeInfo): number {
  let score = 0;
  for (const p of pod.preferredNodeAffinity) if (termMatches(p.term, node.name, node.labels)) score += p.weight;
  return score;
}

/** TaintToleration's raw score: PreferNoSchedule taints the pod does not tolerate (fewer is better). */
export function taintTolerationScore(pod: PodInfo, node: NodeInfo): number {
  let count = 0;
  if (node.taints.length === 0) return 0;
  const tolerations = (pod.pod.spec?.tolerations ?? []).filter((t) => t.effect === undefined || t.effect === '' || t.effect === 'PreferNoSchedule');
  for (const taint of node.taints) if (taint.effect === 'PreferNoSchedule' && !toleratedBy(tolerations, taint)) count++;
  return count;
}

/** kube-scheduler's DefaultNormalizeScore, in place: scale to the highest (100), reversed on request. */
export function normalizeScores(scores: number[], reverse: boolean): void {
  let max = 0;
  for (const s of scores) if (s > max) max = s;
  if (max === 0) {
    if (reverse) scores.fill(MAX_NODE_SCORE);
    return;
  }
  for (let i = 0; i < scores.length; i++) {
    const s = Math.trunc((MAX_NODE_SCORE * scores[i]!) / max);
    scores[i] = reverse ? MAX_NODE_SCORE - s : s;
  }
}

/** Each scorer's normalised scores for the feasible nodes, and their weighted sum. */
export interface NodeScores {
  readonly total: number[];
  readonly byPlugin: Readonly<Record<keyof typeof SCORE_WEIGHTS, readonly number[]>>;
}

/** Scores every feasible node (see the file comment). `spread` is the PodTopologySpread score state, if any. */
export function scoreNodes(pod: PodInfo, nodes: readonly NodeInfo[], spread: SpreadScoreState | undefined): NodeScores {
  const n = nodes.length;
  const least = new Array<number>(n);
  const balanced = new Array<number>(n);
  const affinity = new Array<number>(n).fill(0);
  const taints = new Array<number>(n);
  const spreads = new Array<number>(n).fill(0);
  const preferred = pod.preferredNodeAffinity.length > 0;
  for (let i = 0; i < n; i++) {
    const node = nodes[i]!;
    least[i] = leastAllocatedScore(pod, node);
    balanced[i] = balancedAllocationScore(pod, node);
    if (preferred) affinity[i] = nodeAffinityScore(pod, node);
    taints[i] = taintTolerationScore(pod, node);
    if (spread !== undefined) spreads[i] = spreadScore(pod, node, spread);
  }
  normalizeScores(affinity, false);
  normalizeScores(taints, true);
  if (spread !== undefined) normalizeSpreadScores(spreads, nodes, spread);
  const w = SCORE_WEIGHTS;
  const total = new Array<number>(n);
  for (let i = 0; i < n; i++) {
    total[i] =
      w.leastAllocated * least[i]! +
      w.balancedAllocation * balanced[i]! +
      w.nodeAffinity * affinity[i]! +
      w.taintToleration * taints[i]! +
      w.podTopologySpread * spreads[i]!;
  }
  return { total, byPlugin: { leastAllocated: least, balancedAllocation: balanced, nodeAffinity: affinity, taintToleration: taints, podTopologySpread: spreads } };
}
