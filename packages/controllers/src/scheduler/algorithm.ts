/**
 * One scheduling decision (kube-scheduler's schedulePod): pre-filter, filter nodes until enough
 * feasible ones are found, score them, pick the best — ties broken at random — or explain why no
 * node fits. Synchronous and side-effect free but for the round-robin start index it keeps, so a
 * decision always sees the cache exactly as the previous decision (and its assumption) left it.
 *
 * Filtering starts where the previous decision stopped and stops once it has found
 * numFeasibleNodesToFind(percentage, nodes) feasible nodes; when none fits, every node was
 * evaluated and the message counts every node's reasons.
 */
import type { Labels } from '@setpoint/api';
import { runFilters, type FilterState } from './filters.js';
import { interPodState, type InterPodView } from './interpod.js';
import type { NodeInfo, PodInfo } from './nodeinfo.js';
import { scoreNodes } from './scores.js';
import { spreadFilterState, spreadScoreState } from './spread.js';

/** kube-scheduler's minFeasibleNodesToFind. */
export const MIN_FEASIBLE_NODES_TO_FIND = 100;
/** kube-scheduler's minFeasibleNodesPercentageToFind. */
export const MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND = 5;
/** The message when there is no node at all (kube-scheduler's ErrNoNodesAvailable). */
export const NO_NODES_AVAILABLE = 'no nodes available to schedule pods';

/**
 * How many feasible nodes to look for among `numAllNodes`: all of them below 100 nodes or at
 * 100 %; else `percentage` % (0: adaptive, 50 − nodes/125, at least 5) and at least 100.
 */
export function numFeasibleNodesToFind(percentage: number, numAllNodes: number): number {
  if (numAllNodes < MIN_FEASIBLE_NODES_TO_FIND || percentage >= 100) return numAllNodes;
  let p = percentage;
  if (p <= 0) p = Math.max(MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND, 50 - Math.trunc(numAllNodes / 125));
  return Math.max(MIN_FEASIBLE_NODES_TO_FIND, Math.trunc((numAllNodes * p) / 100));
}

/**
 * kube-scheduler's FitError message: `0/N nodes are available: ` then each distinct reason with
 * how many nodes gave it ("3 Insufficient cpu"), the strings sorted, joined by ", ", ending ".".
 */
export function fitErrorMessage(numAllNodes: number, reasons: ReadonlyMap<string, number>): string {
  if (numAllNodes === 0) return NO_NODES_AVAILABLE;
  const parts = [...reasons].map(([reason, count]) => `${count} ${reason}`).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return `0/${numAllNodes} nodes are available: ${parts.join(', ')}.`;
}

/** What a decision reads: the nodes (with their pods) and the namespaces' labels. */
export interface SchedulingView extends InterPodView {
  nodes(): readonly NodeInfo[];
  namespaceLabels(name: string): Labels | undefined;
}

export type SchedulingDecision =
  | { readonly kind: 'scheduled'; readonly node: string; readonly evaluated: number; readonly feasible: number }
  | { readonly kind: 'unschedulable'; readonly message: string; readonly reasons: ReadonlyMap<string, number>; readonly numAllNodes: number };

export interface SchedulingAlgorithmOptions {
  /** A number in [0, 1): breaks ties between the best nodes. Default Math.random. */
  readonly random?: () => number;
  /** kube-scheduler's percentageOfNodesToScore (0: adaptive). Default 0. */
  readonly percentageOfNodesToScore?: number;
}

/** The decision procedure, holding only the round-robin start index between decisions. */
export class SchedulingAlgorithm {
  readonly #random: () => number;
  readonly #percentage: number;
  #nextStart = 0;

  constructor(options: SchedulingAlgorithmOptions = {}) {
    this.#random = options.random ?? Math.random;
    this.#percentage = options.percentageOfNodesToScore ?? 0;
  }

  /** Decides where `pod` goes in `view` (see the file comment). */
  schedule(pod: PodInfo, view: SchedulingView): SchedulingDecision {
    const nodes = view.nodes();
    const total = nodes.length;
    if (total === 0) return { kind: 'unschedulable', message: NO_NODES_AVAILABLE, reasons: new Map(), numAllNodes: 0 };
    const state: FilterState = { spread: spreadFilterState(pod, nodes), interPod: interPodState(pod, view), view };
    const want = numFeasibleNodesToFind(this.#percentage, total);
    const feasible: NodeInfo[] = [];
    const reasons = new Map<string, number>();
    let evaluated = 0;
    const start = this.#nextStart % total;
    for (; evaluated < total && feasible.length < want; evaluated++) {
      const node = nodes[(start + evaluated) % total]!;
      const failed = runFilters(pod, node, state);
      if (failed.length === 0) feasible.push(node);
      else for (const r of failed) reasons.set(r, (reasons.get(r) ?? 0) + 1);
    }
    this.#nextStart = (start + evaluated) % total;
    if (feasible.length === 0) return { kind: 'unschedulable', message: fitErrorMessage(total, reasons), reasons, numAllNodes: total };
    if (feasible.length === 1) return { kind: 'scheduled', node: feasible[0]!.name, evaluated, feasible: 1 };
    const scores = scoreNodes(pod, feasible, spreadScoreState(pod, feasible, nodes)).total;
    return { kind: 'scheduled', node: selectHost(feasible, scores, this.#random), evaluated, feasible: feasible.length };
  }
}

/** The node with the highest score; among equals, each is picked with equal probability (reservoir sampling). */
export function selectHost(nodes: readonly NodeInfo[], scores: readonly number[], random: () => number): string {
  let best = -Infinity;
  let chosen = '';
  let ties = 0;
  for (let i = 0; i < nodes.length; i++) {
    const s = scores[i]!;
    if (s > best) {
      best = s;
      chosen = nodes[i]!.name;
      ties = 1;
    } else if (s === best) {
      ties++;
      if (Math.floor(random() * ties) === 0) chosen = nodes[i]!.name;
    }
  }
  return chosen;
}
