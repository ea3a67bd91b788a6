import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Pod } from '@setpoint/api';
import { ClusterCache } from './cache.js';
import { assignedPodChangedForScheduling, nodeChangedForScheduling, podChangedForScheduling, responsibleFor } from './changes.js';
import { makeNode, makePod } from './fixtures.test-support.js';
import { podInfoOf } from './nodeinfo.js';

const bound = (pod: Pod, nodeName: string): Pod => ({ ...pod, spec: { ...pod.spec!, nodeName } });

describe('ClusterCache (the assume cache)', () => {
  it('an assumed pod counts on its node at once; the informer confirming it keeps it; forget then does nothing', () => {
    const cache = new ClusterCache();
    cache.setNode(makeNode('n'));
    const pod = makePod('p', { cpu: '1' });
    cache.assume(podInfoOf(pod), 'n');
    assert.equal(cache.node('n')!.requested.milliCPU, 1000);
    assert.equal(cache.isAssumed('default/p'), true);
    cache.setPod(podInfoOf(bound(pod, 'n')));
    assert.equal(cache.isAssumed('default/p'), false);
    assert.equal(cache.forget('default/p'), false, 'a confirmed binding is not forgotten');
    assert.equal(cache.node('n')!.requested.milliCPU, 1000);
  });

  it('forget undoes an assumption', () => {
    const cache = new ClusterCache();
    cache.setNode(makeNode('n'));
    cache.assume(podInfoOf(makePod('p', { cpu: '1', hostPorts: [{ port: 80 }] })), 'n');
    assert.equal(cache.forget('default/p'), true);
    assert.equal(cache.node('n')!.requested.milliCPU, 0);
    assert.equal(cache.node('n')!.pods.size, 0);
    assert.equal(cache.node('n')!.portFree({ ip: '0.0.0.0', protocol: 'TCP', port: 80 }), true);
  });

  it('a pod bound elsewhere than assumed moves; a terminal pod leaves its node', () => {
    const cache = new ClusterCache();
    cache.setNode(makeNode('a'));
    cache.setNode(makeNode('b'));
    const pod = makePod('p', { cpu: '1' });
    cache.assume(podInfoOf(pod), 'a');
    cache.setPod(podInfoOf(bound(pod, 'b')));
    assert.deepEqual([cache.node('a')!.pods.size, cache.node('b')!.pods.size], [0, 1]);
    cache.setPod(podInfoOf({ ...bound(pod, 'b'), status: { phase: 'Succeeded' } }));
    assert.equal(cache.node('b')!.pods.size, 0);
  });

  it('pods of a node not seen yet count once it appears; a deleted node keeps no list entry', () => {
    const cache = new ClusterCache();
    cache.setPod(podInfoOf(makePod('p', { nodeName: 'later', cpu: '1' })));
    assert.equal(cache.nodes().length, 0);
    cache.setNode(makeNode('later'));
    assert.equal(cache.node('later')!.requested.milliCPU, 1000);
    cache.removeNode('later');
    assert.equal(cache.nodes().length, 0);
    cache.removePod('default/p');
    cache.setNode(makeNode('later'));
    assert.equal(cache.node('later')!.requested.milliCPU, 0);
  });
});

describe('which changes matter', () => {
  it('a node heartbeat does not; allocatable, labels, taints, cordon and condition status do', () => {
    const n = makeNode('n');
    const beat = { ...n, status: { ...n.status, conditions: [{ type: 'Ready', status: 'True' as const, lastHeartbeatTime: '2026-01-01T00:00:10Z' }] } };
    assert.equal(nodeChangedForScheduling(n, beat), false);
    assert.equal(nodeChangedForScheduling(n, makeNode('n', { cpu: '8' })), true);
    assert.equal(nodeChangedForScheduling(n, makeNode('n', { labels: { zone: 'a' } })), true);
    assert.equal(nodeChangedForScheduling(n, makeNode('n', { taints: [{ key: 'k', effect: 'NoSchedule' }] })), true);
    assert.equal(nodeChangedForScheduling(n, makeNode('n', { unschedulable: true })), true);
    assert.equal(nodeChangedForScheduling(n, makeNode('n', { ready: false })), true);
  });

  it('a pending pod: our status write does not; its spec and labels do', () => {
    const p = makePod('p', { cpu: '1' });
    const withStatus = { ...p, metadata: { ...p.metadata, resourceVersion: '9' }, status: { conditions: [{ type: 'PodScheduled', status: 'False' as const, reason: 'Unschedulable' }] } };
    assert.equal(podChangedForScheduling(p, withStatus), false);
    assert.equal(podChangedForScheduling(p, makePod('p', { cpu: '500m' })), true);
    assert.equal(podChangedForScheduling(p, makePod('p', { cpu: '1', labels: { a: 'b' } })), true);
  });

  it('an assigned pod frees room when it finishes or shrinks, or matters to others when its labels change', () => {
    const p = podInfoOf(makePod('p', { nodeName: 'n', cpu: '1' }));
    assert.equal(assignedPodChangedForScheduling(p, podInfoOf({ ...makePod('p', { nodeName: 'n', cpu: '1' }), status: { phase: 'Failed' } })), true);
    assert.equal(assignedPodChangedForScheduling(p, podInfoOf(makePod('p', { nodeName: 'n', cpu: '500m' }))), true);
    assert.equal(assignedPodChangedForScheduling(p, podInfoOf(makePod('p', { nodeName: 'n', cpu: '1', labels: { x: 'y' } }))), true);
    assert.equal(assignedPodChangedForScheduling(p, podInfoOf({ ...makePod('p', { nodeName: 'n', cpu: '1' }), status: { phase: 'Running' } })), false);
  });

  it('responsibleFor: our scheduler name (unset is default-scheduler), unbound, not deleting, not gated', () => {
    const base = makePod('p');
    assert.equal(responsibleFor(base, 'default-scheduler'), true);
    assert.equal(responsibleFor({ ...base, spec: { ...base.spec!, schedulerName: 'other' } }, 'default-scheduler'), false);
    assert.equal(responsibleFor({ ...base, spec: { ...base.spec!, schedulerName: 'other' } }, 'other'), true);
    assert.equal(responsibleFor(makePod('p', { nodeName: 'n' }), 'default-scheduler'), false);
    assert.equal(responsibleFor(makePod('p', { deleting: true }), 'default-scheduler'), false);
    assert.equal(responsibleFor({ ...base, spec: { ...base.spec!, schedulingGates: [{ name: 'wait' }] } }, 'default-scheduler'), false);
  });
});
