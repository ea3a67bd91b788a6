/**
 * Required inter-pod affinity and anti-affinity (kube-scheduler's InterPodAffinity filter) on any
 * topology key (kubernetes.io/hostname, topology.kubernetes.io/zone, …): the pre-filter counts,
 * once per decision, the pods in each topology domain (key=value of a node label) that the
 * incoming pod's terms select, and the domains that existing pods' anti-affinity terms close to
 * it; the filter then reads a node's domains.
 *
 * A node passes when (1) for every required affinity term it has the term's topology key and a
 * selected pod lives in its domain — or no pod anywhere matches all the terms and the pod matches
 * them itself (the first pod of a group that wants to be together); (2) no required anti-affinity
 * term of the pod selects a pod in its domain; (3) no existing pod's required anti-affinity term
 * selects the incoming pod from a domain the node is in.
 */
import type { Labels } from '@setpoint/api';
import { affinityTermMatches, type AffinityTerm } from './affinity.js';
import type { NodeInfo, PodInfo } from './nodeinfo.js';

export const ERR_AFFINITY = "node(s) didn't match pod affinity rules";
export const ERR_ANTI_AFFINITY = "node(s) didn't match pod anti-affinity rules";
export const ERR_EXISTING_ANTI_AFFINITY = "node(s) didn't satisfy existing pods anti-affinity rules";

/** What the filter reads: pod counts per topology pair ("key\0value"). */
export interface InterPodState {
  readonly affinityCounts: ReadonlyMap<string, number>;
  readonly antiAffinityCounts: ReadonlyMap<string, number>;
  readonly existingAntiAffinityCounts: ReadonlyMap<string, number>;
}

/** What the pre-filter needs besides the pod: the nodes, the namespaces' labels, the pods with anti-affinity. */
export interface InterPodView {
  nodes(): readonly NodeInfo[];
  node(name: string): NodeInfo | undefined;
  namespaceLabels(name: string): Labels | undefined;
  podsWithRequiredAntiAffinity(): Iterable<PodInfo>;
}

const pair = (key: string, value: string) => `${key}\u0000${value}`;

function bump(counts: Map<string, number>, key: string): void {
  counts.set(key, (counts.get(key) ?? 0) + 1);
}

function matchesAll(terms: readonly AffinityTerm[], p: PodInfo, nsLabels: Labels | undefined): boolean {
  for (const t of terms) if (!affinityTermMatches(t, p.namespace, p.labels, nsLabels)) return false;
  return true;
}

/**
 * The pre-filter state for `pod`, or undefined when no pod in the view has a say (the pod has no
 * required terms and no placed pod has anti-affinity): the filter then passes every node.
 */
export function interPodState(pod: PodInfo, view: InterPodView): InterPodState | undefined {
  const affinity = pod.requiredAffinity;
  const anti = pod.requiredAntiAffinity;
  const existingAntiAffinityCounts = new Map<string, number>();
  const podNsLabels = view.namespaceLabels(pod.namespace);
  for (const existing of view.podsWithRequiredAntiAffinity()) {
    const node = view.node(existing.nodeName);
    if (node === undefined || existing.key === pod.key) continue;
    for (const term of existing.requiredAntiAffinity) {
      const value = node.labels[term.topologyKey];
      if (value !== undefined && affinityTermMatches(term, pod.namespace, pod.labels, podNsLabels)) bump(existingAntiAffinityCounts, pair(term.topologyKey, value));
    }
  }
  if (affinity.length === 0 && anti.length === 0 && existingAntiAffinityCounts.size === 0) return undefined;
  const affinityCounts = new Map<string, number>();
  const antiAffinityCounts = new Map<string, number>();
  if (affinity.length > 0 || anti.length > 0) {
    for (const node of view.nodes()) {
      for (const existing of node.pods.values()) {
        if (existing.key === pod.key) continue;
        const nsLabels = view.namespaceLabels(existing.namespace);
        if (affinity.length > 0 && matchesAll(affinity, existing, nsLabels)) {
          for (const term of affinity) {
            const value = node.labels[term.topologyKey];
            if (value !== undefined) bump(affinityCounts, pair(term.topologyKey, value));
          }
        }
        for (const term of anti) {
          const value = node.labels[term.topologyKey];
          if (value !== undefined && affinityTermMatches(term, existing.namespace, existing.labels, nsLabels)) bump(antiAffinityCounts, pair(term.topologyKey, value));
        }
      }
    }
  }
  return { affinityCounts, antiAffinityCounts, existingAntiAffinityCounts };
}

const PASS: readonly string[] = Object.freeze([]);

/** The InterPodAffinity filter: [] when the node passes, else the one reason it fails. */
export function filterInterPodAffinity(pod: PodInfo, node: NodeInfo, state: InterPodState | undefined, view: Pick<InterPodView, 'namespaceLabels'>): readonly string[] {
  if (state === undefined) return PASS;
  if (pod.requiredAffinity.length > 0) {
    let podsExist = true;
    for (const term of pod.requiredAffinity) {
      const value = node.labels[term.topologyKey];
      if (value === undefined) return [ERR_AFFINITY];
      if ((state.affinityCounts.get(pair(term.topologyKey, value)) ?? 0) <= 0) podsExist = false;
    }
    if (!podsExist) {
      const selfMatch = state.affinityCounts.size === 0 && matchesAll(pod.requiredAffinity, pod, view.namespaceLabels(pod.namespace));
      if (!selfMatch) return [ERR_AFFINITY];
    }
  }
  for (const term of pod.requiredAntiAffinity) {
    const value = node.labels[term.topologyKey];
    if (value !== undefined && (state.antiAffinityCounts.get(pair(term.topologyKey, value)) ?? 0) > 0) return [ERR_ANTI_AFFINITY];
  }
  if (state.existingAntiAffinityCounts.size > 0) {
    for (const [key, value] of Object.entries(node.labels)) {
      if ((state.existingAntiAffinityCounts.get(pair(key, value)) ?? 0) > 0) return [ERR_EXISTING_ANTI_AFFINITY];
    }
  }
  return PASS;
}
