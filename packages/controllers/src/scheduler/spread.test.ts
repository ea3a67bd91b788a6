import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Node, Pod, TopologySpreadConstraint } from '@setpoint/api';
import { clusterOf, makeNode, makePod } from './fixtures.test-support.js';
import { podInfoOf } from './nodeinfo.js';
import { ERR_SPREAD, ERR_SPREAD_MISSING_LABEL, filterSpread, normalizeSpreadScores, spreadFilterState, spreadScore, spreadScoreState } from './spread.js';

const HOST = 'kubernetes.io/hostname';
const ZONE = 'topology.kubernetes.io/zone';
const spread = (topologyKey: string, maxSkew: number, extra: Partial<TopologySpreadConstraint> = {}): TopologySpreadConstraint => ({
  maxSkew,
  topologyKey,
  whenUnsatisfiable: 'DoNotSchedule',
  labelSelector: { matchLabels: { app: 'web' } },
  ...extra,
});
const web = (name: string, nodeName: string, extra: { namespace?: string; deleting?: boolean } = {}) => makePod(name, { nodeName, labels: { app: 'web' }, ...extra });

const zones: Node[] = [
  makeNode('a1', { labels: { [ZONE]: 'a' } }),
  makeNode('a2', { labels: { [ZONE]: 'a' } }),
  makeNode('b1', { labels: { [ZONE]: 'b' } }),
  makeNode('c1', { labels: { [ZONE]: 'c', pool: 'gpu' } }),
];

function failing(pod: Pod, nodes: Node[], existing: Pod[]): Record<string, string> {
  const cache = clusterOf(nodes, existing);
  const info = podInfoOf(pod);
  const state = spreadFilterState(info, cache.nodes());
  const out: Record<string, string> = {};
  for (const node of cache.nodes()) {
    const r = filterSpread(info, node, state);
    if (r.length > 0) out[node.name] = r.join('; ');
  }
  return out;
}

describe('topology spread filter (DoNotSchedule)', () => {
  const pod = (c: TopologySpreadConstraint[], extra: Parameters<typeof makePod>[1] = {}) => makePod('p', { labels: { app: 'web' }, spread: c, ...extra });
  const cases: Array<{ name: string; pod: Pod; nodes?: Node[]; existing: Pod[]; want: Record<string, string> }> = [
    { name: 'zones 2/1/0, maxSkew 1: only the empty zone', pod: pod([spread(ZONE, 1)]), existing: [web('w1', 'a1'), web('w2', 'a2'), web('w3', 'b1')], want: { a1: ERR_SPREAD, a2: ERR_SPREAD, b1: ERR_SPREAD } },
    { name: 'zones 2/1/0, maxSkew 2: all but the fullest', pod: pod([spread(ZONE, 2)]), existing: [web('w1', 'a1'), web('w2', 'a2'), web('w3', 'b1')], want: { a1: ERR_SPREAD, a2: ERR_SPREAD } },
    { name: 'hostname, maxSkew 1: nodes already holding one are closed', pod: pod([spread(HOST, 1)]), existing: [web('w1', 'a1'), web('w2', 'b1')], want: { a1: ERR_SPREAD, b1: ERR_SPREAD } },
    {
      name: 'a node without the key fails with (missing required label)',
      pod: pod([spread(ZONE, 1)]),
      nodes: [...zones, makeNode('bare')],
      existing: [],
      want: { bare: ERR_SPREAD_MISSING_LABEL },
    },
    {
      name: 'a pod that does not select itself adds 0 to the skew (1/1/0 with maxSkew 1: all pass)',
      pod: makePod('p', { labels: { app: 'other' }, spread: [spread(ZONE, 1)] }),
      existing: [web('w1', 'a1'), web('w3', 'b1')],
      want: {},
    },
    {
      name: 'the same spread for a pod that selects itself closes the non-empty zones',
      pod: pod([spread(ZONE, 1)]),
      existing: [web('w1', 'a1'), web('w3', 'b1')],
      want: { a1: ERR_SPREAD, a2: ERR_SPREAD, b1: ERR_SPREAD },
    },
    { name: 'pods of other namespaces and pods being deleted do not count', pod: pod([spread(ZONE, 1)]), existing: [web('w1', 'a1', { namespace: 'x' }), web('w2', 'b1', { deleting: true })], want: {} },
    {
      name: 'nodeAffinityPolicy Honor: the empty zone outside the pod’s node selector does not set the minimum',
      pod: pod([spread(ZONE, 1)], { nodeSelector: { [ZONE]: 'a' } }),
      nodes: zones.slice(0, 3),
      existing: [web('w1', 'a1')],
      want: {},
    },
    {
      name: 'nodeAffinityPolicy Ignore: every domain counts',
      pod: pod([spread(ZONE, 1, { nodeAffinityPolicy: 'Ignore' })], { nodeSelector: { [ZONE]: 'a' } }),
      nodes: zones.slice(0, 3),
      existing: [web('w1', 'a1')],
      want: { a1: ERR_SPREAD, a2: ERR_SPREAD },
    },
    {
      name: 'minDomains above the domain count makes the global minimum 0',
      pod: pod([spread(ZONE, 1, { minDomains: 5 })]),
      existing: [web('w1', 'a1'), web('w2', 'b1'), web('w3', 'c1')],
      want: { a1: ERR_SPREAD, a2: ERR_SPREAD, b1: ERR_SPREAD, c1: ERR_SPREAD },
    },
    {
      name: 'matchLabelKeys narrow the selector to the pod’s own value',
      pod: makePod('p', { labels: { app: 'web', rev: '2' }, spread: [spread(ZONE, 1, { matchLabelKeys: ['rev'] })] }),
      existing: [makePod('old', { nodeName: 'a1', labels: { app: 'web', rev: '1' } }), makePod('new', { nodeName: 'b1', labels: { app: 'web', rev: '2' } })],
      want: { b1: ERR_SPREAD },
    },
    { name: 'ScheduleAnyway constraints do not filter', pod: pod([spread(ZONE, 1, { whenUnsatisfiable: 'ScheduleAnyway' })]), existing: [web('w1', 'a1'), web('w2', 'a1')], want: {} },
  ];
  for (const t of cases) it(t.name, () => assert.deepEqual(failing(t.pod, t.nodes ?? zones, t.existing), t.want));
});

describe('topology spread score (ScheduleAnyway)', () => {
  it('fewer matching pods in the domain scores higher; nodes without the key score 0', () => {
    const nodes = [...zones.slice(0, 3), makeNode('bare')];
    const cache = clusterOf(nodes, [web('w1', 'a1'), web('w2', 'a2'), web('w3', 'b1')]);
    const info = podInfoOf(makePod('p', { labels: { app: 'web' }, spread: [spread(ZONE, 1, { whenUnsatisfiable: 'ScheduleAnyway' })] }));
    const feasible = cache.nodes();
    const state = spreadScoreState(info, feasible, cache.nodes())!;
    // Two domains among feasible nodes: weight ln(4). Raw: a = round(2·ln4) = 3, b = round(1·ln4) = 1.
    const raw = feasible.map((n) => spreadScore(info, n, state));
    assert.deepEqual(raw, [3, 3, 1, 0]);
    normalizeSpreadScores(raw, feasible, state);
    // 100·(max + min − s)/max with max 3, min 1: a → 33, b → 100; bare is ignored (0).
    assert.deepEqual(raw, [33, 33, 100, 0]);
  });

  it('hostname counts per node, and every node scores 100 when none holds a match', () => {
    const cache = clusterOf(zones.slice(0, 2), []);
    const info = podInfoOf(makePod('p', { labels: { app: 'web' }, spread: [spread(HOST, 2, { whenUnsatisfiable: 'ScheduleAnyway' })] }));
    const state = spreadScoreState(info, cache.nodes(), cache.nodes())!;
    const raw = cache.nodes().map((n) => spreadScore(info, n, state));
    assert.deepEqual(raw, [1, 1], 'maxSkew − 1 is added to every score');
    normalizeSpreadScores(raw, cache.nodes(), state);
    assert.deepEqual(raw, [100, 100]);
    assert.equal(spreadScoreState(podInfoOf(makePod('q')), cache.nodes(), cache.nodes()), undefined);
  });
});
