import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Affinity, Node, Pod, PodAffinityTerm } from '@setpoint/api';
import { clusterOf, makeNode, makePod } from './fixtures.test-support.js';
import { ERR_AFFINITY, ERR_ANTI_AFFINITY, ERR_EXISTING_ANTI_AFFINITY, filterInterPodAffinity, interPodState } from './interpod.js';
import { podInfoOf } from './nodeinfo.js';

const HOST = 'kubernetes.io/hostname';
const ZONE = 'topology.kubernetes.io/zone';
const term = (app: string, topologyKey: string, extra: Partial<PodAffinityTerm> = {}): PodAffinityTerm => ({ labelSelector: { matchLabels: { app } }, topologyKey, ...extra });
const anti = (...terms: PodAffinityTerm[]): Affinity => ({ podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: terms } });
const near = (...terms: PodAffinityTerm[]): Affinity => ({ podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: terms } });

const nodes: Node[] = [
  makeNode('a1', { labels: { [ZONE]: 'a' } }),
  makeNode('a2', { labels: { [ZONE]: 'a' } }),
  makeNode('b1', { labels: { [ZONE]: 'b' } }),
  makeNode('nozone'),
];

/** Runs the filter for `pod` on every node; returns node → reasons (only failing nodes). */
function verdicts(pod: Pod, existing: Pod[], namespaces: Record<string, Record<string, string>> = {}): Record<string, string> {
  const cache = clusterOf(nodes, existing, namespaces);
  const info = podInfoOf(pod);
  const state = interPodState(info, cache);
  const out: Record<string, string> = {};
  for (const node of cache.nodes()) {
    const r = filterInterPodAffinity(info, node, state, cache);
    if (r.length > 0) out[node.name] = r.join('; ');
  }
  return out;
}

describe('required inter-pod anti-affinity', () => {
  const web = (name: string, nodeName: string, namespace = 'default') => makePod(name, { nodeName, namespace, labels: { app: 'web' } });
  const cases: Array<{ name: string; pod: Pod; existing: Pod[]; namespaces?: Record<string, Record<string, string>>; want: Record<string, string> }> = [
    { name: 'hostname: only the node holding a selected pod is closed', pod: makePod('p', { affinity: anti(term('web', HOST)) }), existing: [web('w', 'a1')], want: { a1: ERR_ANTI_AFFINITY } },
    { name: 'zone: every node of the zone is closed', pod: makePod('p', { affinity: anti(term('web', ZONE)) }), existing: [web('w', 'a1')], want: { a1: ERR_ANTI_AFFINITY, a2: ERR_ANTI_AFFINITY } },
    { name: 'pods of other namespaces do not count by default', pod: makePod('p', { affinity: anti(term('web', HOST)) }), existing: [web('w', 'a1', 'other')], want: {} },
    { name: 'listed namespaces count', pod: makePod('p', { affinity: anti(term('web', HOST, { namespaces: ['other'] })) }), existing: [web('w', 'a1', 'other')], want: { a1: ERR_ANTI_AFFINITY } },
    {
      name: 'a namespaceSelector selects namespaces by label',
      pod: makePod('p', { affinity: anti(term('web', HOST, { namespaceSelector: { matchLabels: { team: 'x' } } })) }),
      existing: [web('w1', 'a1', 'tx'), web('w2', 'b1', 'ty')],
      namespaces: { tx: { team: 'x' }, ty: { team: 'y' } },
      want: { a1: ERR_ANTI_AFFINITY },
    },
    { name: 'an empty namespaceSelector is every namespace', pod: makePod('p', { affinity: anti(term('web', HOST, { namespaceSelector: {} })) }), existing: [web('w', 'b1', 'zz')], want: { b1: ERR_ANTI_AFFINITY } },
    { name: 'unselected pods do not count', pod: makePod('p', { affinity: anti(term('db', HOST)) }), existing: [web('w', 'a1')], want: {} },
    {
      name: "an existing pod's anti-affinity keeps the incoming pod out of its domain",
      pod: makePod('p', { labels: { app: 'web' } }),
      existing: [makePod('guard', { nodeName: 'b1', labels: { app: 'guard' }, affinity: anti(term('web', ZONE)) })],
      want: { b1: ERR_EXISTING_ANTI_AFFINITY },
    },
  ];
  for (const t of cases) it(t.name, () => assert.deepEqual(verdicts(t.pod, t.existing, t.namespaces), t.want));

  it('the pod alone (no terms, no anti-affinity anywhere) needs no state', () => {
    assert.equal(interPodState(podInfoOf(makePod('p')), clusterOf(nodes, [makePod('x', { nodeName: 'a1' })])), undefined);
  });
});

describe('required inter-pod affinity', () => {
  const cache = (pod: Pod) => ({ pod, want: {} as Record<string, string> });
  it('only domains holding a selected pod pass; nodes without the key fail', () => {
    const pod = makePod('p', { labels: { app: 'api' }, affinity: near(term('db', ZONE)) });
    assert.deepEqual(verdicts(pod, [makePod('db', { nodeName: 'a2', labels: { app: 'db' } })]), { b1: ERR_AFFINITY, nozone: ERR_AFFINITY });
  });
  it('the first pod of a self-affine group goes anywhere with the key', () => {
    const { pod } = cache(makePod('p', { labels: { app: 'db' }, affinity: near(term('db', ZONE)) }));
    assert.deepEqual(verdicts(pod, []), { nozone: ERR_AFFINITY });
  });
  it('but not when it does not select itself', () => {
    const pod = makePod('p', { labels: { app: 'api' }, affinity: near(term('db', ZONE)) });
    assert.deepEqual(verdicts(pod, []), { a1: ERR_AFFINITY, a2: ERR_AFFINITY, b1: ERR_AFFINITY, nozone: ERR_AFFINITY });
  });
  it('affinity is checked before anti-affinity', () => {
    const pod = makePod('p', { labels: { app: 'x' }, affinity: { ...near(term('db', ZONE)), ...anti(term('web', HOST)) } });
    const existing = [makePod('db', { nodeName: 'a1', labels: { app: 'db' } }), makePod('w', { nodeName: 'a1', labels: { app: 'web' } }), makePod('w2', { nodeName: 'b1', labels: { app: 'web' } })];
    assert.deepEqual(verdicts(pod, existing), { a1: ERR_ANTI_AFFINITY, b1: ERR_AFFINITY, nozone: ERR_AFFINITY });
  });
});
