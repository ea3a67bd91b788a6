/**
 * Pod topology spread constraints (kube-scheduler's PodTopologySpread) on any node label key
 * (kubernetes.io/hostname, topology.kubernetes.io/zone, …).
 *
 * Filter (whenUnsatisfiable DoNotSchedule): a domain is a value of the constraint's key among the
 * eligible nodes — those with every constraint's key that pass the node inclusion policies
 * (nodeAffinityPolicy Honor, the default: the pod's nodeSelector and required node affinity;
 * nodeTaintsPolicy Honor, not the default: its tolerations). A domain's count is the number of
 * pods there in the pod's namespace, not being deleted, that the constraint's selector (plus
 * matchLabelKeys) selects. A node passes when it has every key and, for each constraint,
 * count(its domain) + (1 if the pod selects itself) − min(count over domains) ≤ maxSkew, where the
 * minimum is 0 while there are fewer domains than minDomains.
 *
 * Score (ScheduleAnyway): a feasible node scores, per constraint, count(its domain) × log(domains
 * + 2) + maxSkew − 1; fewer matching pods is better, so the normalised score is
 * 100 × (max + min − score) / max (100 for every node when max is 0; 0 for nodes missing a key).
 */
import { labelRequirement, labelSelectorAsSelector, LabelsSelector } from '@setpoint/api';
import { findUntoleratedTaint, matchesRequiredNodeAffinity } from './affinity.js';
import type { NodeInfo, PodInfo } from './nodeinfo.js';

export const ERR_SPREAD = "node(s) didn't match pod topology spread constraints";
export const ERR_SPREAD_MISSING_LABEL = "node(s) didn't match pod topology spread constraints (missing required label)";
export const HOSTNAME_LABEL = 'kubernetes.io/hostname';

const MAX_INT32 = 2 ** 31 - 1;

/** A constraint, compiled. */
export interface SpreadConstraint {
  readonly maxSkew: number;
  readonly topologyKey: string;
  readonly selector: LabelsSelector;
  readonly minDomains: number;
  readonly honorNodeAffinity: boolean;
  readonly honorTaints: boolean;
}

/** The pod's constraints with this whenUnsatisfiable, compiled. An invalid selector selects nothing. */
export function spreadConstraintsOf(pod: PodInfo, when: 'DoNotSchedule' | 'ScheduleAnyway'): SpreadConstraint[] {
  return pod.spreadConstraints
    .filter((c) => (c.whenUnsatisfiable ?? 'DoNotSchedule') === when)
    .map((c) => {
      let selector: LabelsSelector;
      try {
        selector = labelSelectorAsSelector(c.labelSelector);
        const keys = (c.matchLabelKeys ?? []).filter((k) => Object.hasOwn(pod.labels, k));
        if (keys.length > 0) selector = selector.add(...keys.map((k) => labelRequirement(k, 'in', [pod.labels[k]!])));
      } catch {
        selector = LabelsSelector.nothing();
      }
      return {
        maxSkew: c.maxSkew,
        topologyKey: c.topologyKey,
        selector,
        minDomains: c.minDomains ?? 1,
        honorNodeAffinity: (c.nodeAffinityPolicy ?? 'Honor') === 'Honor',
        honorTaints: c.nodeTaintsPolicy === 'Honor',
      };
    });
}

function hasAllKeys(node: NodeInfo, constraints: readonly SpreadConstraint[]): boolean {
  for (const c of constraints) if (node.labels[c.topologyKey] === undefined) return false;
  return true;
}

function included(pod: PodInfo, node: NodeInfo, c: SpreadConstraint): boolean {
  if (c.honorNodeAffinity && !matchesRequiredNodeAffinity(pod.requiredNodeAffinity, node.name, node.labels)) return false;
  if (c.honorTaints && findUntoleratedTaint(node.taints, pod.pod.spec?.tolerations ?? [], (e) => e === 'NoSchedule' || e === 'NoExecute') !== undefined) return false;
  return true;
}

/** How many pods on `node` in `namespace`, not being deleted, the selector selects. */
export function countMatching(node: NodeInfo, selector: LabelsSelector, namespace: string): number {
  let n = 0;
  for (const p of node.pods.values()) if (!p.terminating && p.namespace === namespace && selector.matches(p.labels)) n++;
  return n;
}

/** What the spread filter reads: per constraint, the count of each domain and the minimum. */
export interface SpreadFilterState {
  readonly constraints: readonly SpreadConstraint[];
  readonly counts: ReadonlyArray<ReadonlyMap<string, number>>;
  readonly minMatch: readonly number[];
}

/** The filter's pre-computed state over every node, or undefined when the pod has no DoNotSchedule constraint. */
export function spreadFilterState(pod: PodInfo, nodes: readonly NodeInfo[]): SpreadFilterState | undefined {
  const constraints = spreadConstraintsOf(pod, 'DoNotSchedule');
  if (constraints.length === 0) return undefined;
  const counts = constraints.map(() => new Map<string, number>());
  for (const node of nodes) {
    if (!hasAllKeys(node, constraints)) continue;
    constraints.forEach((c, i) => {
      if (!included(pod, node, c)) return;
      const value = node.labels[c.topologyKey]!;
      const domain = counts[i]!;
      domain.set(value, (domain.get(value) ?? 0) + (node.pods.size === 0 ? 0 : countMatching(node, c.selector, pod.namespace)));
    });
  }
  const minMatch = constraints.map((c, i) => {
    const domain = counts[i]!;
    if (domain.size < c.minDomains) return 0;
    let min = MAX_INT32;
    for (const n of domain.values()) min = Math.min(min, n);
    return min;
  });
  return { constraints, counts, minMatch };
}

const PASS: readonly string[] = Object.freeze([]);

/** The PodTopologySpread filter: [] when the node passes, else the one reason it fails. */
export function filterSpread(pod: PodInfo, node: NodeInfo, state: SpreadFilterState | undefined): readonly string[] {
  if (state === undefined) return PASS;
  for (let i = 0; i < state.constraints.length; i++) {
    const c = state.constraints[i]!;
    const value = node.labels[c.topologyKey];
    if (value === undefined) return [ERR_SPREAD_MISSING_LABEL];
    const self = c.selector.matches(pod.labels) ? 1 : 0;
    const skew = (state.counts[i]!.get(value) ?? 0) + self - state.minMatch[i]!;
    if (skew > c.maxSkew) return [ERR_SPREAD];
  }
  return PASS;
}

/** What the spread score reads. */
export interface SpreadScoreState {
  readonly constraints: readonly SpreadConstraint[];
  /** Feasible nodes missing a constraint's key: scored 0. */
  readonly ignored: ReadonlySet<string>;
  /** Per constraint (not hostname): count of each domain that holds a feasible node. */
  readonly counts: ReadonlyArray<ReadonlyMap<string, number>>;
  readonly weights: readonly number[];
}

/** The score's state, or undefined when the pod has no ScheduleAnyway constraint. */
export function spreadScoreState(pod: PodInfo, feasible: readonly NodeInfo[], allNodes: readonly NodeInfo[]): SpreadScoreState | undefined {
  const constraints = spreadConstraintsOf(pod, 'ScheduleAnyway');
  if (constraints.length === 0) return undefined;
  const ignored = new Set<string>();
  const counts = constraints.map(() => new Map<string, number>());
  for (const node of feasible) {
    if (!hasAllKeys(node, constraints)) {
      ignored.add(node.name);
      continue;
    }
    constraints.forEach((c, i) => {
      if (c.topologyKey !== HOSTNAME_LABEL) counts[i]!.set(node.labels[c.topologyKey]!, 0);
    });
  }
  const weights = constraints.map((c, i) => Math.log((c.topologyKey === HOSTNAME_LABEL ? feasible.length - ignored.size : counts[i]!.size) + 2));
  for (const node of allNodes) {
    if (node.pods.size === 0 || !hasAllKeys(node, constraints)) continue; // an empty node adds 0
    constraints.forEach((c, i) => {
      if (c.topologyKey === HOSTNAME_LABEL || !included(pod, node, c)) return;
      const value = node.labels[c.topologyKey]!;
      const domain = counts[i]!;
      const n = domain.get(value);
      if (n !== undefined) domain.set(value, n + countMatching(node, c.selector, pod.namespace));
    });
  }
  return { constraints, ignored, counts, weights };
}

/** A feasible node's raw spread score (lower is better; see the file comment). */
export function spreadScore(pod: PodInfo, node: NodeInfo, state: SpreadScoreState): number {
  if (state.ignored.has(node.name)) return 0;
  let score = 0;
  state.constraints.forEach((c, i) => {
    const value = node.labels[c.topologyKey];
    if (value === undefined) return;
    const count = c.topologyKey === HOSTNAME_LABEL ? countMatching(node, c.selector, pod.namespace) : (state.counts[i]!.get(value) ?? 0);
    score += count * state.weights[i]! + (c.maxSkew - 1);
  });
  return Math.round(score);
}

/** Normalises raw spread scores in place to 0–100 (see the file comment). */
export function normalizeSpreadScores(scores: number[], nodes: readonly NodeInfo[], state: SpreadScoreState): void {
  let min = Number.MAX_SAFE_INTEGER;
  let max = 0;
  nodes.forEach((node, i) => {
    if (state.ignored.has(node.name)) return;
    min = Math.min(min, scores[i]!);
    max = Math.max(max, scores[i]!);
  });
  nodes.forEach((node, i) => {
    if (state.ignored.has(node.name)) scores[i] = 0;
    else if (max === 0) scores[i] = 100;
    else scores[i] = Math.trunc((100 * (max + min - scores[i]!)) / max);
  });
}
