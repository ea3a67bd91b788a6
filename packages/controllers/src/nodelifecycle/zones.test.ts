/** Zone states and eviction rates, table-driven (Kubernetes' ComputeZoneState and handleDisruption). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Node } from '@setpoint/api';
import { computeZoneState, DEFAULT_EVICTION_RATES, planDisruption, zoneKey, zoneRate, type ZoneState } from './zones.js';

const rates = DEFAULT_EVICTION_RATES;
/** `healthy` healthy and `unhealthy` unhealthy nodes. */
const zone = (healthy: number, unhealthy: number): boolean[] => [...Array<boolean>(healthy).fill(true), ...Array<boolean>(unhealthy).fill(false)];

describe('zoneKey', () => {
  const node = (labels: Record<string, string>): Node => ({ metadata: { name: 'n', labels } });
  const cases: Array<[string, Record<string, string>, string]> = [
    ['no labels: the zone without a name', {}, ''],
    ['zone only', { 'topology.kubernetes.io/zone': 'z1' }, 'z1'],
    ['region and zone', { 'topology.kubernetes.io/region': 'r1', 'topology.kubernetes.io/zone': 'z1' }, 'r1/z1'],
    ['the beta labels count too', { 'failure-domain.beta.kubernetes.io/region': 'r1', 'failure-domain.beta.kubernetes.io/zone': 'z2' }, 'r1/z2'],
  ];
  for (const [name, labels, want] of cases) it(name, () => assert.equal(zoneKey(node(labels)), want));
});

describe('computeZoneState', () => {
  const cases: Array<[string, boolean[], ZoneState]> = [
    ['all healthy', zone(10, 0), 'Normal'],
    ['40% unhealthy', zone(6, 4), 'Normal'],
    ['55% unhealthy', zone(9, 11), 'PartialDisruption'],
    ['60% unhealthy', zone(4, 6), 'PartialDisruption'],
    ['2 of 3 unhealthy: not more than 2, so Normal', zone(1, 2), 'Normal'],
    ['3 of 4 unhealthy', zone(1, 3), 'PartialDisruption'],
    ['none healthy', zone(0, 5), 'FullDisruption'],
    ['a single unhealthy node', zone(0, 1), 'FullDisruption'],
    ['empty', zone(0, 0), 'Normal'],
  ];
  for (const [name, healthy, want] of cases) it(name, () => assert.equal(computeZoneState(healthy, rates.unhealthyZoneThreshold), want));
});

describe('zoneRate', () => {
  const cases: Array<[string, ZoneState, number, number]> = [
    ['Normal: the eviction rate', 'Normal', 10, 0.1],
    ['PartialDisruption in a small zone (≤ 50 nodes): stop', 'PartialDisruption', 50, 0],
    ['PartialDisruption in a large zone: the secondary rate', 'PartialDisruption', 51, 0.01],
    ['FullDisruption of one zone: the normal rate', 'FullDisruption', 10, 0.1],
  ];
  for (const [name, state, size, want] of cases) it(name, () => assert.equal(zoneRate(state, size, rates), want));
});

describe('planDisruption', () => {
  type Step = { zones: Record<string, boolean[]>; states: Record<string, ZoneState>; rates: Record<string, number>; enter?: boolean; exit?: boolean };
  const scenarios: Array<{ name: string; steps: Step[] }> = [
    {
      name: 'a zone seen first gets its state and rate; no change, no new rate',
      steps: [
        { zones: { a: zone(10, 0) }, states: { a: 'Normal' }, rates: { a: 0.1 } },
        { zones: { a: zone(9, 1) }, states: { a: 'Normal' }, rates: {} },
      ],
    },
    {
      name: 'a small zone going partially down stops; recovering restores the rate',
      steps: [
        { zones: { a: zone(10, 0), b: zone(5, 0) }, states: { a: 'Normal', b: 'Normal' }, rates: { a: 0.1, b: 0.1 } },
        { zones: { a: zone(4, 6), b: zone(5, 0) }, states: { a: 'PartialDisruption', b: 'Normal' }, rates: { a: 0 } },
        { zones: { a: zone(10, 0), b: zone(5, 0) }, states: { a: 'Normal', b: 'Normal' }, rates: { a: 0.1 } },
      ],
    },
    {
      name: 'a large zone going partially down slows to the secondary rate',
      steps: [
        { zones: { a: zone(60, 0), b: zone(1, 0) }, states: { a: 'Normal', b: 'Normal' }, rates: { a: 0.1, b: 0.1 } },
        { zones: { a: zone(20, 40), b: zone(1, 0) }, states: { a: 'PartialDisruption', b: 'Normal' }, rates: { a: 0.01 } },
      ],
    },
    {
      name: 'one zone fully down while another is up: the normal rate there',
      steps: [
        { zones: { a: zone(3, 0), b: zone(3, 0) }, states: { a: 'Normal', b: 'Normal' }, rates: { a: 0.1, b: 0.1 } },
        { zones: { a: zone(0, 3), b: zone(3, 0) }, states: { a: 'FullDisruption', b: 'Normal' }, rates: { a: 0.1 } },
      ],
    },
    {
      name: 'every zone fully down: master disruption (all stop, taints removed) until a node is back',
      steps: [
        { zones: { a: zone(3, 0), b: zone(3, 0) }, states: { a: 'Normal', b: 'Normal' }, rates: { a: 0.1, b: 0.1 } },
        { zones: { a: zone(0, 3), b: zone(0, 3) }, states: { a: 'FullDisruption', b: 'FullDisruption' }, rates: { a: 0, b: 0 }, enter: true },
        { zones: { a: zone(0, 3), b: zone(0, 3) }, states: { a: 'FullDisruption', b: 'FullDisruption' }, rates: {} },
        { zones: { a: zone(1, 2), b: zone(0, 3) }, states: { a: 'Normal', b: 'FullDisruption' }, rates: { a: 0.1, b: 0.1 }, exit: true },
      ],
    },
    {
      name: 'a single-zone cluster going fully down is a master disruption too',
      steps: [
        { zones: { '': zone(5, 0) }, states: { '': 'Normal' }, rates: { '': 0.1 } },
        { zones: { '': zone(0, 5) }, states: { '': 'FullDisruption' }, rates: { '': 0 }, enter: true },
      ],
    },
    {
      name: 'a zone without nodes is dropped',
      steps: [
        { zones: { a: zone(3, 0), b: zone(3, 0) }, states: { a: 'Normal', b: 'Normal' }, rates: { a: 0.1, b: 0.1 } },
        { zones: { a: zone(3, 0) }, states: { a: 'Normal' }, rates: {} },
      ],
    },
  ];
  for (const scenario of scenarios) {
    it(scenario.name, () => {
      let previous = new Map<string, ZoneState>();
      scenario.steps.forEach((step, i) => {
        const plan = planDisruption(previous, new Map(Object.entries(step.zones)), rates);
        assert.deepEqual(Object.fromEntries(plan.states), step.states, `states after step ${i}`);
        assert.deepEqual(Object.fromEntries(plan.rates), step.rates, `rates after step ${i}`);
        assert.equal(plan.enterMasterDisruption, step.enter ?? false, `enter after step ${i}`);
        assert.equal(plan.exitMasterDisruption, step.exit ?? false, `exit after step ${i}`);
        previous = plan.states;
      });
    });
  }
});
