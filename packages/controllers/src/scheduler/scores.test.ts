import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Node, Pod, Taint } from '@setpoint/api';
import { selectHost } from './algorithm.js';
import { clusterOf, makeNode, makePod, seededRandom } from './fixtures.test-support.js';
import { nodeInfoOf, podInfoOf } from './nodeinfo.js';
import { balancedAllocationScore, leastAllocatedScore, nodeAffinityScore, normalizeScores, scoreNodes, taintTolerationScore } from './scores.js';

const node = makeNode('n', { cpu: '4', memory: '8Gi' });

describe('LeastAllocated and BalancedAllocation', () => {
  const cases: Array<{ name: string; pod: Pod; onNode: Pod[]; least: number; balanced: number }> = [
    { name: 'half of cpu and memory in use', pod: makePod('p', { cpu: '1', memory: '2Gi' }), onNode: [makePod('a', { nodeName: 'n', cpu: '1', memory: '2Gi' })], least: 50, balanced: 100 },
    { name: 'cpu 50 %, memory 12.5 % (truncated like Go)', pod: makePod('p', { cpu: '2', memory: '1Gi' }), onNode: [], least: 68, balanced: 81 },
    { name: 'a pod without requests: least counts 100m / 200Mi, balanced is skipped', pod: makePod('p'), onNode: [], least: 97, balanced: 0 },
    { name: 'over capacity scores 0 for that resource, fractions cap at 1', pod: makePod('p', { cpu: '8', memory: '4Gi' }), onNode: [], least: 25, balanced: 75 },
  ];
  for (const t of cases) {
    it(t.name, () => {
      const p = podInfoOf(t.pod);
      const n = nodeInfoOf(node, t.onNode);
      assert.equal(leastAllocatedScore(p, n), t.least);
      assert.equal(balancedAllocationScore(p, n), t.balanced);
    });
  }
});

describe('preferred node affinity', () => {
  it('sums the weights of matching terms; normalised to the best node', () => {
    const pod = podInfoOf(
      makePod('p', {
        affinity: {
          nodeAffinity: {
            preferredDuringSchedulingIgnoredDuringExecution: [
              { weight: 10, preference: { matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }] } },
              { weight: 5, preference: { matchExpressions: [{ key: 'disk', operator: 'In', values: ['ssd'] }] } },
              { weight: 50, preference: {} },
            ],
          },
        },
      }),
    );
    const nodes = [makeNode('n1', { labels: { zone: 'a', disk: 'ssd' } }), makeNode('n2', { labels: { zone: 'a' } }), makeNode('n3')].map((n) => nodeInfoOf(n));
    const raw = nodes.map((n) => nodeAffinityScore(pod, n));
    assert.deepEqual(raw, [15, 10, 0], 'an empty preference matches nothing');
    normalizeScores(raw, false);
    assert.deepEqual(raw, [100, 66, 0]);
  });
});

describe('taint toleration score', () => {
  it('counts untolerated PreferNoSchedule taints; fewer is better (normalised, reversed)', () => {
    const prefer = (key: string): Taint => ({ key, effect: 'PreferNoSchedule' });
    const nodes: Node[] = [makeNode('n1', { taints: [prefer('a'), prefer('b'), prefer('c')] }), makeNode('n2', { taints: [prefer('a'), prefer('b')] }), makeNode('n3', { taints: [{ key: 'x', effect: 'NoSchedule' }] })];
    const pod = podInfoOf(makePod('p', { tolerations: [{ key: 'c', operator: 'Exists', effect: 'PreferNoSchedule' }, { key: 'b', operator: 'Exists', effect: 'NoSchedule' }] }));
    const raw = nodes.map((n) => taintTolerationScore(pod, nodeInfoOf(n)));
    assert.deepEqual(raw, [2, 2, 0], 'a NoSchedule toleration does not tolerate a PreferNoSchedule taint; NoSchedule taints are not counted');
    normalizeScores(raw, true);
    assert.deepEqual(raw, [0, 0, 100]);
  });
});

describe('normalizeScores (DefaultNormalizeScore)', () => {
  const cases: Array<{ scores: number[]; reverse: boolean; want: number[] }> = [
    { scores: [1, 3, 2], reverse: false, want: [33, 100, 66] },
    { scores: [1, 3, 2], reverse: true, want: [67, 0, 34] },
    { scores: [0, 0], reverse: false, want: [0, 0] },
    { scores: [0, 0], reverse: true, want: [100, 100] },
  ];
  for (const t of cases) {
    it(`${JSON.stringify(t.scores)} reverse=${t.reverse} → ${JSON.stringify(t.want)}`, () => {
      const s = [...t.scores];
      normalizeScores(s, t.reverse);
      assert.deepEqual(s, t.want);
    });
  }
});

describe('scoreNodes', () => {
  it('weights: taint toleration 3, node affinity 2, spread 2, least allocated 1, balanced 1', () => {
    const cache = clusterOf([makeNode('busy', { labels: { zone: 'a' } }), makeNode('idle', { taints: [{ key: 'slow', effect: 'PreferNoSchedule' }] })], [makePod('x', { nodeName: 'busy', cpu: '2', memory: '4Gi' })]);
    const pod = podInfoOf(
      makePod('p', { cpu: '1', memory: '2Gi', affinity: { nodeAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 1, preference: { matchExpressions: [{ key: 'zone', operator: 'Exists' }] } }] } } }),
    );
    const { total, byPlugin } = scoreNodes(pod, cache.nodes(), undefined);
    assert.deepEqual(byPlugin.leastAllocated, [25, 75]);
    assert.deepEqual(byPlugin.balancedAllocation, [100, 100]);
    assert.deepEqual(byPlugin.nodeAffinity, [100, 0]);
    assert.deepEqual(byPlugin.taintToleration, [100, 0]);
    assert.deepEqual(total, [25 + 100 + 2 * 100 + 3 * 100, 75 + 100]);
  });
});

describe('selectHost', () => {
  const nodes = ['a', 'b', 'c', 'd'].map((n) => nodeInfoOf(makeNode(n)));
  it('takes the highest score', () => assert.equal(selectHost(nodes, [1, 9, 3, 2], () => 0), 'b'));
  it('breaks ties at random, evenly, never picking a lower score; a seed repeats its choices', () => {
    const random = seededRandom(42);
    const counts: Record<string, number> = { a: 0, b: 0, c: 0, d: 0 };
    for (let i = 0; i < 3000; i++) counts[selectHost(nodes, [5, 7, 7, 7], random)]!++;
    assert.equal(counts['a'], 0);
    for (const n of ['b', 'c', 'd']) assert.ok(counts[n]! > 900 && counts[n]! < 1100, `${n}: ${counts[n]}`);
    const again = (seed: number) => {
      const r = seededRandom(seed);
      return Array.from({ length: 20 }, () => selectHost(nodes, [7, 7, 7, 7], r));
    };
    assert.deepEqual(again(7), again(7));
  });
});
