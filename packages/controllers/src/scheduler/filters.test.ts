import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Node, NodeSelectorRequirement, Pod } from '@setpoint/api';
import {
  ERR_INSUFFICIENT_CPU,
  ERR_INSUFFICIENT_MEMORY,
  ERR_NODE_AFFINITY,
  ERR_NOT_READY,
  ERR_PORTS,
  ERR_TOO_MANY_PODS,
  ERR_UNSCHEDULABLE,
  filterNodeAffinity,
  filterNodePorts,
  filterNodeReady,
  filterNodeResourcesFit,
  filterNodeUnschedulable,
  filterTaintToleration,
  runFilters,
  type FilterState,
} from './filters.js';
import { makeNode, makePod } from './fixtures.test-support.js';
import { nodeInfoOf, podInfoOf, type NodeInfo, type PodInfo } from './nodeinfo.js';

interface Case {
  readonly name: string;
  readonly pod: Pod;
  readonly node: Node;
  readonly onNode?: Pod[];
  readonly want: string[];
}

function table(filter: (pod: PodInfo, node: NodeInfo) => readonly string[], cases: Case[]): void {
  for (const t of cases) {
    it(t.name, () => assert.deepEqual([...filter(podInfoOf(t.pod), nodeInfoOf(t.node, t.onNode ?? []))], t.want));
  }
}

const affinity = (...terms: Array<{ matchExpressions?: NodeSelectorRequirement[]; matchFields?: NodeSelectorRequirement[] }>) => ({
  nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: terms } },
});

describe('filterNodeReady', () => {
  table(filterNodeReady, [
    { name: 'Ready=True passes', pod: makePod('p'), node: makeNode('n'), want: [] },
    { name: 'Ready=False fails', pod: makePod('p'), node: makeNode('n', { ready: false }), want: [ERR_NOT_READY] },
    { name: 'no conditions at all fails', pod: makePod('p'), node: { metadata: { name: 'n' } }, want: [ERR_NOT_READY] },
  ]);
});

describe('filterNodeUnschedulable', () => {
  table(filterNodeUnschedulable, [
    { name: 'a schedulable node passes', pod: makePod('p'), node: makeNode('n'), want: [] },
    { name: 'a cordoned node fails', pod: makePod('p'), node: makeNode('n', { unschedulable: true }), want: [ERR_UNSCHEDULABLE] },
    {
      name: 'a pod tolerating node.kubernetes.io/unschedulable passes a cordoned node',
      pod: makePod('p', { tolerations: [{ key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' }] }),
      node: makeNode('n', { unschedulable: true }),
      want: [],
    },
  ]);
});

describe('filterTaintToleration', () => {
  const gpu = { key: 'gpu', value: 'true', effect: 'NoSchedule' as const };
  table(filterTaintToleration, [
    { name: 'an untainted node passes', pod: makePod('p'), node: makeNode('n'), want: [] },
    { name: 'NoSchedule untolerated fails with {key: value}', pod: makePod('p'), node: makeNode('n', { taints: [gpu] }), want: ['node(s) had untolerated taint {gpu: true}'] },
    {
      name: 'NoExecute untolerated fails; a valueless taint prints an empty value',
      pod: makePod('p'),
      node: makeNode('n', { taints: [{ key: 'node.kubernetes.io/not-ready', effect: 'NoExecute' }] }),
      want: ['node(s) had untolerated taint {node.kubernetes.io/not-ready: }'],
    },
    { name: 'PreferNoSchedule does not filter', pod: makePod('p'), node: makeNode('n', { taints: [{ key: 'a', effect: 'PreferNoSchedule' }] }), want: [] },
    { name: 'Equal toleration with the same value passes', pod: makePod('p', { tolerations: [{ key: 'gpu', value: 'true', effect: 'NoSchedule' }] }), node: makeNode('n', { taints: [gpu] }), want: [] },
    { name: 'Equal toleration with another value fails', pod: makePod('p', { tolerations: [{ key: 'gpu', operator: 'Equal', value: 'false' }] }), node: makeNode('n', { taints: [gpu] }), want: ['node(s) had untolerated taint {gpu: true}'] },
    { name: 'Exists with no key tolerates everything', pod: makePod('p', { tolerations: [{ operator: 'Exists' }] }), node: makeNode('n', { taints: [gpu] }), want: [] },
    { name: 'a toleration for another effect does not help', pod: makePod('p', { tolerations: [{ key: 'gpu', operator: 'Exists', effect: 'NoExecute' }] }), node: makeNode('n', { taints: [gpu] }), want: ['node(s) had untolerated taint {gpu: true}'] },
    {
      name: 'the first untolerated taint is reported',
      pod: makePod('p', { tolerations: [{ key: 'gpu', operator: 'Exists' }] }),
      node: makeNode('n', { taints: [gpu, { key: 'b', value: 'x', effect: 'NoSchedule' }, { key: 'c', effect: 'NoSchedule' }] }),
      want: ['node(s) had untolerated taint {b: x}'],
    },
  ]);
});

describe('filterNodeAffinity (nodeSelector and required node affinity)', () => {
  const node = makeNode('n1', { labels: { zone: 'a', disk: 'ssd', cores: '8' } });
  table(filterNodeAffinity, [
    { name: 'no constraint passes', pod: makePod('p'), node, want: [] },
    { name: 'nodeSelector matching passes', pod: makePod('p', { nodeSelector: { zone: 'a', disk: 'ssd' } }), node, want: [] },
    { name: 'nodeSelector with one label off fails', pod: makePod('p', { nodeSelector: { zone: 'a', disk: 'hdd' } }), node, want: [ERR_NODE_AFFINITY] },
    { name: 'In', pod: makePod('p', { affinity: affinity({ matchExpressions: [{ key: 'zone', operator: 'In', values: ['a', 'b'] }] }) }), node, want: [] },
    { name: 'In without the value', pod: makePod('p', { affinity: affinity({ matchExpressions: [{ key: 'zone', operator: 'In', values: ['b'] }] }) }), node, want: [ERR_NODE_AFFINITY] },
    { name: 'NotIn', pod: makePod('p', { affinity: affinity({ matchExpressions: [{ key: 'zone', operator: 'NotIn', values: ['b'] }] }) }), node, want: [] },
    { name: 'NotIn on an absent key passes', pod: makePod('p', { affinity: affinity({ matchExpressions: [{ key: 'gpu', operator: 'NotIn', values: ['x'] }] }) }), node, want: [] },
    { name: 'Exists', pod: makePod('p', { affinity: affinity({ matchExpressions: [{ key: 'disk', operator: 'Exists' }] }) }), node, want: [] },
    { name: 'DoesNotExist on a present key', pod: makePod('p', { affinity: affinity({ matchExpressions: [{ key: 'disk', operator: 'DoesNotExist' }] }) }), node, want: [ERR_NODE_AFFINITY] },
    { name: 'Gt', pod: makePod('p', { affinity: affinity({ matchExpressions: [{ key: 'cores', operator: 'Gt', values: ['4'] }] }) }), node, want: [] },
    { name: 'Lt', pod: makePod('p', { affinity: affinity({ matchExpressions: [{ key: 'cores', operator: 'Lt', values: ['4'] }] }) }), node, want: [ERR_NODE_AFFINITY] },
    { name: 'Gt on a non-integer label fails', pod: makePod('p', { affinity: affinity({ matchExpressions: [{ key: 'zone', operator: 'Gt', values: ['4'] }] }) }), node, want: [ERR_NODE_AFFINITY] },
    { name: 'matchFields metadata.name In', pod: makePod('p', { affinity: affinity({ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['n1'] }] }) }), node, want: [] },
    { name: 'matchFields metadata.name NotIn', pod: makePod('p', { affinity: affinity({ matchFields: [{ key: 'metadata.name', operator: 'NotIn', values: ['n1'] }] }) }), node, want: [ERR_NODE_AFFINITY] },
    {
      name: 'terms are ORed',
      pod: makePod('p', { affinity: affinity({ matchExpressions: [{ key: 'zone', operator: 'In', values: ['z'] }] }, { matchExpressions: [{ key: 'disk', operator: 'In', values: ['ssd'] }] }) }),
      node,
      want: [],
    },
    {
      name: 'expressions within a term are ANDed',
      pod: makePod('p', { affinity: affinity({ matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }, { key: 'disk', operator: 'In', values: ['hdd'] }] }) }),
      node,
      want: [ERR_NODE_AFFINITY],
    },
    { name: 'an empty term matches no node', pod: makePod('p', { affinity: affinity({}) }), node, want: [ERR_NODE_AFFINITY] },
    { name: 'no terms at all match no node', pod: makePod('p', { affinity: affinity() }), node, want: [ERR_NODE_AFFINITY] },
    {
      name: 'nodeSelector and affinity must both hold',
      pod: makePod('p', { nodeSelector: { zone: 'b' }, affinity: affinity({ matchExpressions: [{ key: 'zone', operator: 'Exists' }] }) }),
      node,
      want: [ERR_NODE_AFFINITY],
    },
  ]);
});

describe('filterNodePorts', () => {
  const on = (port: number, ip?: string, protocol?: 'TCP' | 'UDP') => makePod(`x${port}${ip ?? ''}${protocol ?? ''}`, { nodeName: 'n', hostPorts: [{ port, ...(ip ? { ip } : {}), ...(protocol ? { protocol } : {}) }] });
  table(filterNodePorts, [
    { name: 'a free port passes', pod: makePod('p', { hostPorts: [{ port: 80 }] }), node: makeNode('n'), onNode: [on(8080)], want: [] },
    { name: 'the same port fails', pod: makePod('p', { hostPorts: [{ port: 80 }] }), node: makeNode('n'), onNode: [on(80)], want: [ERR_PORTS] },
    { name: 'another protocol passes', pod: makePod('p', { hostPorts: [{ port: 53, protocol: 'UDP' }] }), node: makeNode('n'), onNode: [on(53)], want: [] },
    { name: 'distinct ips pass', pod: makePod('p', { hostPorts: [{ port: 80, ip: '10.0.0.1' }] }), node: makeNode('n'), onNode: [on(80, '10.0.0.2')], want: [] },
    { name: '0.0.0.0 on the node conflicts with any ip', pod: makePod('p', { hostPorts: [{ port: 80, ip: '10.0.0.1' }] }), node: makeNode('n'), onNode: [on(80)], want: [ERR_PORTS] },
    { name: 'a pod without host ports passes', pod: makePod('p'), node: makeNode('n'), onNode: [on(80)], want: [] },
  ]);
});

describe('filterNodeResourcesFit', () => {
  const node = makeNode('n', { cpu: '2', memory: '1Gi', pods: '3' });
  const used = (name: string, cpu: string, memory: string) => makePod(name, { nodeName: 'n', cpu, memory });
  table(filterNodeResourcesFit, [
    { name: 'fits exactly', pod: makePod('p', { cpu: '1', memory: '512Mi' }), node, onNode: [used('a', '1', '512Mi')], want: [] },
    { name: 'one milli-cpu too many', pod: makePod('p', { cpu: '1001m' }), node, onNode: [used('a', '1', '0')], want: [ERR_INSUFFICIENT_CPU] },
    { name: 'memory', pod: makePod('p', { memory: '513Mi' }), node, onNode: [used('a', '0', '512Mi')], want: [ERR_INSUFFICIENT_MEMORY] },
    { name: 'every resource that does not fit, in order', pod: makePod('p', { cpu: '3', memory: '2Gi' }), node, want: [ERR_INSUFFICIENT_CPU, ERR_INSUFFICIENT_MEMORY] },
    { name: 'Too many pods', pod: makePod('p'), node, onNode: [used('a', '0', '0'), used('b', '0', '0'), used('c', '0', '0')], want: [ERR_TOO_MANY_PODS] },
    {
      name: 'too many pods and insufficient cpu together',
      pod: makePod('p', { cpu: '100m' }),
      node,
      onNode: [used('a', '1', '0'), used('b', '1', '0'), used('c', '0', '0')],
      want: [ERR_TOO_MANY_PODS, ERR_INSUFFICIENT_CPU],
    },
    { name: 'a pod requesting nothing fits a full node', pod: makePod('p'), node, onNode: [used('a', '2', '1Gi')], want: [] },
    {
      name: 'init containers count by their max',
      pod: makePod('p', { containers: [{ name: 'c', resources: { requests: { cpu: '100m' } } }], initContainers: [{ name: 'i', resources: { requests: { cpu: '1500m' } } }] }),
      node,
      onNode: [used('a', '1', '0')],
      want: [ERR_INSUFFICIENT_CPU],
    },
  ]);
});

describe('runFilters', () => {
  const state: FilterState = { spread: undefined, interPod: undefined, view: { namespaceLabels: () => undefined } };
  it('stops at the first failing filter, in kube-scheduler order', () => {
    const pod = podInfoOf(makePod('p', { cpu: '10', nodeSelector: { zone: 'x' } }));
    assert.deepEqual(runFilters(pod, nodeInfoOf(makeNode('n', { ready: false, unschedulable: true })), state), [ERR_NOT_READY]);
    assert.deepEqual(runFilters(pod, nodeInfoOf(makeNode('n', { unschedulable: true, taints: [{ key: 'k', effect: 'NoSchedule' }] })), state), [ERR_UNSCHEDULABLE]);
    assert.deepEqual(runFilters(pod, nodeInfoOf(makeNode('n', { taints: [{ key: 'k', effect: 'NoSchedule' }] })), state), ['node(s) had untolerated taint {k: }']);
    assert.deepEqual(runFilters(pod, nodeInfoOf(makeNode('n')), state), [ERR_NODE_AFFINITY]);
    assert.deepEqual(runFilters(pod, nodeInfoOf(makeNode('n', { labels: { zone: 'x' } })), state), [ERR_INSUFFICIENT_CPU]);
    assert.deepEqual(runFilters(podInfoOf(makePod('q', { cpu: '1' })), nodeInfoOf(makeNode('n')), state), []);
  });
});
