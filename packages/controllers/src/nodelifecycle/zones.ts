/**
 * Zone-aware eviction limits (Kubernetes' ComputeZoneState, handleDisruption and setLimiterInZone):
 * nodes are grouped by zone (labels topology.kubernetes.io/region and /zone, or their beta
 * failure-domain forms), and each zone's NoExecute tainting — which is what evicts pods — runs at
 * a rate that depends on how much of the zone is unhealthy:
 *
 * | zone state        | when                                                    | nodes tainted per second          |
 * | ----------------- | ------------------------------------------------------- | --------------------------------- |
 * | Normal            | otherwise                                               | evictionRate (0.1)                |
 * | PartialDisruption | more than 2 unhealthy and ≥ unhealthyZoneThreshold (55%) | secondaryEvictionRate (0.01) when the zone has more than largeClusterThreshold (50) nodes, else 0 |
 * | FullDisruption    | no healthy node                                          | evictionRate                      |
 *
 * unless every zone is in FullDisruption: then the control plane is probably the one cut off, so
 * tainting stops everywhere (rate 0) and the NoExecute taints already set are removed; when some
 * node is healthy again every node gets a fresh grace period and the rates return.
 * Nodes labelled node.kubernetes.io/exclude-disruption do not count. Every function here is pure.
 */
import type { Node } from '@setpoint/api';

export type ZoneState = 'Initial' | 'Normal' | 'PartialDisruption' | 'FullDisruption';

export const LABEL_ZONE = 'topology.kubernetes.io/zone';
export const LABEL_REGION = 'topology.kubernetes.io/region';
const LABEL_ZONE_BETA = 'failure-domain.beta.kubernetes.io/zone';
const LABEL_REGION_BETA = 'failure-domain.beta.kubernetes.io/region';
/** A node with this label (any value) is left out of zone states. */
export const LABEL_EXCLUDE_DISRUPTION = 'node.kubernetes.io/exclude-disruption';

/** The rates and thresholds of the eviction limits (kube-controller-manager's flags). */
export interface EvictionRates {
  /** Nodes per second (--node-eviction-rate). */
  readonly evictionRate: number;
  /** Nodes per second in a partially disrupted large zone (--secondary-node-eviction-rate). */
  readonly secondaryEvictionRate: number;
  /** The unhealthy fraction at which a zone is partially disrupted (--unhealthy-zone-threshold). */
  readonly unhealthyZoneThreshold: number;
  /** Zones with at most this many nodes stop evicting when partially disrupted (--large-cluster-size-threshold). */
  readonly largeClusterThreshold: number;
}

export const DEFAULT_EVICTION_RATES: EvictionRates = Object.freeze({
  evictionRate: 0.1,
  secondaryEvictionRate: 0.01,
  unhealthyZoneThreshold: 0.55,
  largeClusterThreshold: 50,
});

/** The zone key of a node: "region/zone", "zone" without a region, '' without either. */
export function zoneKey(node: Node): string {
  const labels = node.metadata.labels ?? {};
  const region = labels[LABEL_REGION] ?? labels[LABEL_REGION_BETA] ?? '';
  const zone = labels[LABEL_ZONE] ?? labels[LABEL_ZONE_BETA] ?? '';
  return region === '' ? zone : `${region}/${zone}`;
}

/** Whether the node is left out of zone states. */
export function isExcludedFromDisruption(node: Node): boolean {
  return node.metadata.labels?.[LABEL_EXCLUDE_DISRUPTION] !== undefined;
}

/** The state of a zone whose nodes are healthy or not (see the table in the file comment). */
export function computeZoneState(healthy: readonly boolean[], unhealthyZoneThreshold: number): ZoneState {
  const ready = healthy.filter((h) => h).length;
  const notReady = healthy.length - ready;
  if (ready === 0 && notReady > 0) return 'FullDisruption';
  if (notReady > 2 && notReady / healthy.length >= unhealthyZoneThreshold) return 'PartialDisruption';
  return 'Normal';
}

/** The tainting rate (nodes per second) of a zone of `size` nodes in `state`. */
export function zoneRate(state: ZoneState, size: number, rates: EvictionRates): number {
  if (state === 'PartialDisruption') return size > rates.largeClusterThreshold ? rates.secondaryEvictionRate : 0;
  return rates.evictionRate;
}

/** What handleDisruption decides. */
export interface DisruptionPlan {
  /** Every zone's state afterwards. */
  readonly states: Map<string, ZoneState>;
  /** The zones whose rate changes, with the new rate. */
  readonly rates: Map<string, number>;
  /** Every zone just became fully disrupted: remove every NoExecute taint of this controller. */
  readonly enterMasterDisruption: boolean;
  /** Some zone just stopped being fully disrupted after all were: give every node a fresh grace period. */
  readonly exitMasterDisruption: boolean;
}

/**
 * The next zone states and rates, from the `previous` states and each zone's node health (only
 * zones with counted nodes). Zones seen for the first time start Initial (so they get a rate);
 * zones without counted nodes are dropped.
 */
export function planDisruption(previous: ReadonlyMap<string, ZoneState>, zones: ReadonlyMap<string, readonly boolean[]>, rates: EvictionRates): DisruptionPlan {
  const observed = new Map<string, ZoneState>();
  let allAreFullyDisrupted = true;
  for (const [zone, healthy] of zones) {
    const state = computeZoneState(healthy, rates.unhealthyZoneThreshold);
    observed.set(zone, state);
    if (state !== 'FullDisruption') allAreFullyDisrupted = false;
  }
  const states = new Map<string, ZoneState>();
  for (const [zone, state] of previous) if (zones.has(zone)) states.set(zone, state);
  for (const zone of zones.keys()) if (!states.has(zone)) states.set(zone, 'Initial');
  const allWereFullyDisrupted = [...states.values()].every((s) => s === 'FullDisruption');
  const changed = new Map<string, number>();
  const plan = (enter: boolean, exit: boolean): DisruptionPlan => ({ states, rates: changed, enterMasterDisruption: enter, exitMasterDisruption: exit });
  if (allAreFullyDisrupted && allWereFullyDisrupted) return plan(false, false);
  if (allAreFullyDisrupted) {
    for (const zone of states.keys()) {
      states.set(zone, 'FullDisruption');
      changed.set(zone, 0);
    }
    return plan(true, false);
  }
  const size = (zone: string) => zones.get(zone)?.length ?? 0;
  if (allWereFullyDisrupted) {
    for (const [zone, state] of observed) {
      states.set(zone, state);
      changed.set(zone, zoneRate(state, size(zone), rates));
    }
    return plan(false, true);
  }
  for (const [zone, state] of observed) {
    if (states.get(zone) === state) continue;
    states.set(zone, state);
    changed.set(zone, zoneRate(state, size(zone), rates));
  }
  return plan(false, false);
}
