import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Pod } from '@setpoint/api';
import type { DeepReadonly } from '@setpoint/client';
import type { ContainerObservation, PodObservation } from './runtime.js';
import { podPhase, podStatus } from './status.js';

const running = (name: string, ready = true): ContainerObservation => ({ name, state: { running: { startedAt: 't0' } }, lastState: {}, ready, started: true, restartCount: 0 });
const exited = (name: string, exitCode: number): ContainerObservation => ({
  name,
  state: { terminated: { exitCode, reason: exitCode === 0 ? 'Completed' : 'Error' } },
  lastState: {},
  ready: false,
  started: false,
  restartCount: 0,
});
const backingOff = (name: string): ContainerObservation => ({
  name,
  state: { waiting: { reason: 'CrashLoopBackOff' } },
  lastState: { terminated: { exitCode: 1 } },
  ready: false,
  started: false,
  restartCount: 2,
});
const creating = (name: string): ContainerObservation => ({ name, state: { waiting: { reason: 'ContainerCreating' } }, lastState: {}, ready: false, started: false, restartCount: 0 });
const ro = (pod: Pod) => pod as unknown as DeepReadonly<Pod>;
const obs = (containers: ContainerObservation[], initContainers: ContainerObservation[] = []): PodObservation => ({ containers, initContainers, startTime: '2026-01-01T00:00:00Z' });

describe('podPhase (the kubelet getPhase)', () => {
  it('is Pending while initializing or creating, Running while anything runs or restarts', () => {
    assert.equal(podPhase('Always', obs([creating('a')])), 'Pending');
    assert.equal(podPhase('Always', obs([creating('a')], [running('init')])), 'Pending');
    assert.equal(podPhase('Always', obs([running('a'), creating('b')])), 'Pending');
    assert.equal(podPhase('Always', obs([running('a'), exited('b', 0)])), 'Running');
    assert.equal(podPhase('Always', obs([backingOff('a')])), 'Running');
    assert.equal(podPhase('Always', obs([exited('a', 0)])), 'Running');
    assert.equal(podPhase('OnFailure', obs([backingOff('a')])), 'Running');
  });

  it('is Succeeded or Failed only when nothing will run again', () => {
    assert.equal(podPhase('Never', obs([exited('a', 0), exited('b', 0)])), 'Succeeded');
    assert.equal(podPhase('OnFailure', obs([exited('a', 0)])), 'Succeeded');
    assert.equal(podPhase('Never', obs([exited('a', 0), exited('b', 2)])), 'Failed');
    assert.equal(podPhase('Never', obs([creating('a')], [exited('init', 1)])), 'Failed');
    assert.equal(podPhase('OnFailure', obs([creating('a')], [exited('init', 1)])), 'Pending');
  });
});

describe('podStatus', () => {
  const pod: Pod = {
    metadata: { name: 'p', namespace: 'ns', uid: 'u1' },
    spec: { nodeName: 'n1', containers: [{ name: 'a', image: 'img:1' }], initContainers: [{ name: 'init', image: 'img:0' }] },
    status: { phase: 'Pending', qosClass: 'BestEffort' },
  };

  it('reports conditions, container statuses, IPs and startTime as Kubernetes does', () => {
    const status = podStatus(ro(pod), obs([running('a', false)], [exited('init', 0)]), 'T1', { hostIP: '127.0.0.1', podIP: '127.0.0.1' });
    assert.equal(status.phase, 'Running');
    assert.equal(status.qosClass, 'BestEffort', 'fields the node does not own are kept');
    assert.deepEqual(
      status.conditions?.map((c) => [c.type, c.status, c.reason ?? '']),
      [
        ['PodScheduled', 'True', ''],
        ['Initialized', 'True', ''],
        ['ContainersReady', 'False', 'ContainersNotReady'],
        ['Ready', 'False', 'ContainersNotReady'],
      ],
    );
    assert.equal(status.conditions?.[3]?.message, 'containers with unready status: [a]');
    assert.deepEqual(status.containerStatuses?.[0], { name: 'a', state: { running: { startedAt: 't0' } }, lastState: {}, ready: false, restartCount: 0, image: 'img:1', imageID: '', started: true });
    assert.equal(status.initContainerStatuses?.[0]?.ready, true, 'a completed init container counts as ready');
    assert.deepEqual([status.hostIP, status.podIP, status.podIPs, status.startTime], ['127.0.0.1', '127.0.0.1', [{ ip: '127.0.0.1' }], '2026-01-01T00:00:00Z']);
  });

  it('moves lastTransitionTime only when a condition changes status, so an unchanged pod writes nothing', () => {
    const first = podStatus(ro(pod), obs([running('a', false)], [exited('init', 0)]), 'T1', { hostIP: 'h', podIP: 'p' });
    const again = podStatus(ro({ ...pod, status: first }), obs([running('a', false)], [exited('init', 0)]), 'T2', { hostIP: 'h', podIP: 'p' });
    assert.deepEqual(again, first);
    const ready = podStatus(ro({ ...pod, status: first }), obs([running('a', true)], [exited('init', 0)]), 'T3', { hostIP: 'h', podIP: 'p' });
    const time = (type: string) => ready.conditions?.find((c) => c.type === type)?.lastTransitionTime;
    assert.deepEqual([time('Initialized'), time('ContainersReady'), time('Ready')], ['T1', 'T3', 'T3']);
  });

  it('reports a completed pod as not ready with reason PodCompleted', () => {
    const status = podStatus(ro({ ...pod, spec: { ...pod.spec!, restartPolicy: 'Never' } }), obs([exited('a', 0)], [exited('init', 0)]), 'T1', { hostIP: 'h', podIP: 'p' });
    assert.equal(status.phase, 'Succeeded');
    assert.equal(status.conditions?.find((c) => c.type === 'Ready')?.reason, 'PodCompleted');
  });
});
