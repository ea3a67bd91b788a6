import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fitErrorMessage, NO_NODES_AVAILABLE, numFeasibleNodesToFind, SchedulingAlgorithm } from './algorithm.js';
import { clusterOf, makeNode, makePod, seededRandom } from './fixtures.test-support.js';
import { podInfoOf } from './nodeinfo.js';

describe('the unschedulable message (kube-scheduler FitError)', () => {
  it('counts each reason, sorts the strings, joins with ", " and ends with "."', () => {
    const reasons = new Map([
      ["node(s) didn't match Pod's node affinity/selector", 3],
      ['Insufficient cpu', 2],
    ]);
    assert.equal(fitErrorMessage(5, reasons), "0/5 nodes are available: 2 Insufficient cpu, 3 node(s) didn't match Pod's node affinity/selector.");
  });

  it('sorts as strings, as Go sort.Strings does ("10 …" before "2 …")', () => {
    const reasons = new Map([
      ['Too many pods', 2],
      ['Insufficient memory', 10],
    ]);
    assert.equal(fitErrorMessage(12, reasons), '0/12 nodes are available: 10 Insufficient memory, 2 Too many pods.');
  });

  it('a decision over nodes failing for every reason reports each node once, by its first failing filter', () => {
    const cache = clusterOf(
      [
        makeNode('not-ready', { ready: false, unschedulable: true }),
        makeNode('cordoned', { unschedulable: true }),
        makeNode('tainted', { taints: [{ key: 'dedicated', value: 'db', effect: 'NoSchedule' }] }),
        makeNode('tainted-too', { taints: [{ key: 'dedicated', value: 'db', effect: 'NoExecute' }] }),
        makeNode('elsewhere', { labels: { zone: 'b' } }),
        makeNode('port-taken', { labels: { zone: 'a' } }),
        makeNode('small', { labels: { zone: 'a' }, cpu: '1', memory: '1Gi' }),
        makeNode('full', { labels: { zone: 'a' }, pods: '1' }),
        makeNode('web-here', { labels: { zone: 'a' } }),
      ],
      [makePod('taker', { nodeName: 'port-taken', hostPorts: [{ port: 80 }] }), makePod('filler', { nodeName: 'full' }), makePod('w', { nodeName: 'web-here', labels: { app: 'web' } })],
    );
    const pod = makePod('p', {
      cpu: '2',
      memory: '2Gi',
      nodeSelector: { zone: 'a' },
      hostPorts: [{ port: 80 }],
      affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { app: 'web' } }, topologyKey: 'kubernetes.io/hostname' }] } },
    });
    const decision = new SchedulingAlgorithm().schedule(podInfoOf(pod), cache);
    assert.equal(decision.kind, 'unschedulable');
    assert.equal(
      decision.kind === 'unschedulable' ? decision.message : '',
      '0/9 nodes are available: ' +
        [
          '1 Insufficient cpu',
          '1 Insufficient memory',
          '1 Too many pods',
          "1 node(s) didn't have free ports for the requested pod ports",
          "1 node(s) didn't match Pod's node affinity/selector",
          "1 node(s) didn't match pod anti-affinity rules",
          '1 node(s) were not ready',
          '1 node(s) were unschedulable',
          '2 node(s) had untolerated taint {dedicated: db}',
        ].join(', ') +
        '.',
    );
  });

  it('no nodes at all: kube-scheduler’s "no nodes available to schedule pods"', () => {
    const decision = new SchedulingAlgorithm().schedule(podInfoOf(makePod('p')), clusterOf([]));
    assert.deepEqual(decision.kind === 'unschedulable' && decision.message, NO_NODES_AVAILABLE);
  });
});

describe('numFeasibleNodesToFind', () => {
  const cases: Array<[percentage: number, nodes: number, want: number]> = [
    [0, 50, 50],
    [0, 99, 99],
    [0, 100, 100],
    [0, 1000, 420],
    [0, 5000, 500],
    [0, 6000, 300],
    [0, 100_000, 5000],
    [30, 1000, 300],
    [1, 1000, 100],
    [100, 5000, 5000],
  ];
  for (const [p, n, want] of cases) it(`${p} % of ${n} nodes → ${want}`, () => assert.equal(numFeasibleNodesToFind(p, n), want));
});

describe('SchedulingAlgorithm', () => {
  it('stops once it has found enough feasible nodes, and the next decision starts where it stopped', () => {
    const cache = clusterOf(Array.from({ length: 200 }, (_, i) => makeNode(`n${String(i).padStart(3, '0')}`)));
    const algorithm = new SchedulingAlgorithm({ random: () => 0.999 }); // 0.999 never replaces the first of equals
    const first = algorithm.schedule(podInfoOf(makePod('a')), cache);
    const second = algorithm.schedule(podInfoOf(makePod('b')), cache);
    assert.deepEqual(first, { kind: 'scheduled', node: 'n000', evaluated: 100, feasible: 100 });
    assert.deepEqual(second, { kind: 'scheduled', node: 'n100', evaluated: 100, feasible: 100 });
  });

  it('counts assumed pods: the next decision sees the last placement before any informer does', () => {
    const cache = clusterOf([makeNode('a', { cpu: '1' }), makeNode('b', { cpu: '1' })]);
    const algorithm = new SchedulingAlgorithm({ random: seededRandom(1) });
    const placed: string[] = [];
    for (const name of ['p1', 'p2']) {
      const info = podInfoOf(makePod(name, { cpu: '1' }));
      const d = algorithm.schedule(info, cache);
      assert.equal(d.kind, 'scheduled');
      if (d.kind === 'scheduled') {
        cache.assume(info, d.node);
        placed.push(d.node);
      }
    }
    assert.deepEqual(placed.sort(), ['a', 'b']);
    const third = algorithm.schedule(podInfoOf(makePod('p3', { cpu: '1' })), cache);
    assert.deepEqual(third.kind === 'unschedulable' && third.message, '0/2 nodes are available: 2 Insufficient cpu.');
    cache.forget('default/p1');
    assert.equal(algorithm.schedule(podInfoOf(makePod('p3', { cpu: '1' })), cache).kind, 'scheduled', 'a forgotten binding frees its node');
  });

  it('prefers the emptier node, and breaks exact ties with the injected random', () => {
    const cache = clusterOf([makeNode('busy'), makeNode('idle'), makeNode('idle2')], [makePod('x', { nodeName: 'busy', cpu: '2', memory: '4Gi' })]);
    const chosen = new Set<string>();
    const algorithm = new SchedulingAlgorithm({ random: seededRandom(3) });
    for (let i = 0; i < 20; i++) {
      const d = algorithm.schedule(podInfoOf(makePod(`p${i}`, { cpu: '100m', memory: '128Mi' })), cache);
      if (d.kind === 'scheduled') chosen.add(d.node);
    }
    assert.deepEqual([...chosen].sort(), ['idle', 'idle2']);
  });
});
