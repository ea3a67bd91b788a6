/** Heartbeats → health, table-driven: probes, grace periods, the health a node is seen in, Unknown conditions. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Lease, Node, NodeCondition } from '@setpoint/api';
import {
  acknowledgeOwnWrite,
  formatTime,
  isSilent,
  nodeHealth,
  observeHeartbeat,
  unknownConditions,
  type NodeHealth,
  type Probe,
} from './health.js';

const T0 = Date.UTC(2026, 0, 1);
const s = (seconds: number) => T0 + seconds * 1000;
const periods = { monitorMs: 50_000, startupMs: 60_000 };

function node(ready?: Partial<NodeCondition>, uid = 'u1'): Node {
  return {
    metadata: { name: 'n1', uid, creationTimestamp: formatTime(T0) },
    status: ready === undefined ? {} : { conditions: [{ type: 'Ready', status: 'True', ...ready }] },
  };
}
function lease(renewSeconds: number): Lease {
  return { metadata: { name: 'n1', namespace: 'kube-node-lease' }, spec: { renewTime: new Date(s(renewSeconds)).toISOString().replace('Z', '000Z') } };
}

describe('observeHeartbeat', () => {
  const seeded: Probe = { uid: 'u1', heartbeatMs: s(0), renewMs: s(0), probeMs: s(0), changedMs: undefined };
  const cases: Array<{ name: string; prev: Probe | undefined; node: Node; lease?: Lease; now: number; probeMs: number; changedMs: number | undefined }> = [
    { name: 'first sight seeds the probe at now, no change', prev: undefined, node: node({ lastHeartbeatTime: formatTime(s(0)) }), lease: lease(0), now: s(5), probeMs: s(5), changedMs: undefined },
    { name: 'lease renewed later: probe moves to now', prev: seeded, node: node({ lastHeartbeatTime: formatTime(s(0)) }), lease: lease(10), now: s(12), probeMs: s(12), changedMs: s(12) },
    { name: 'same renewTime: nothing moves', prev: seeded, node: node({ lastHeartbeatTime: formatTime(s(0)) }), lease: lease(0), now: s(40), probeMs: s(0), changedMs: undefined },
    { name: 'an older renewTime (stale copy): nothing moves', prev: { ...seeded, renewMs: s(20) }, node: node({ lastHeartbeatTime: formatTime(s(0)) }), lease: lease(10), now: s(40), probeMs: s(0), changedMs: undefined },
    { name: 'no lease, newer Ready heartbeat: probe moves', prev: { ...seeded, renewMs: undefined }, node: node({ lastHeartbeatTime: formatTime(s(30)) }), now: s(31), probeMs: s(31), changedMs: s(31) },
    { name: 'older Ready heartbeat (lagging cache): nothing moves', prev: { ...seeded, heartbeatMs: s(30) }, node: node({ lastHeartbeatTime: formatTime(s(20)) }), lease: lease(0), now: s(31), probeMs: s(0), changedMs: undefined },
    { name: 'a lease seen for the first time counts as a renewal', prev: { ...seeded, renewMs: undefined }, node: node({ lastHeartbeatTime: formatTime(s(0)) }), lease: lease(3), now: s(4), probeMs: s(4), changedMs: s(4) },
    { name: 'a node created again (new uid) starts over', prev: seeded, node: node({ lastHeartbeatTime: formatTime(s(0)) }, 'u2'), lease: lease(0), now: s(70), probeMs: s(70), changedMs: undefined },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const probe = observeHeartbeat(c.prev, c.node, c.lease, c.now);
      assert.equal(probe.probeMs, c.probeMs);
      assert.equal(probe.changedMs, c.changedMs);
    });
  }

  it('our own status write is acknowledged without counting as a heartbeat', () => {
    const probe: Probe = { uid: 'u1', heartbeatMs: undefined, renewMs: undefined, probeMs: s(0), changedMs: undefined };
    const written = node({ status: 'Unknown', lastHeartbeatTime: formatTime(T0) });
    const acked = acknowledgeOwnWrite(probe, written);
    assert.equal(acked.heartbeatMs, T0);
    assert.equal(observeHeartbeat(acked, written, undefined, s(70)), acked, 'seeing our own write again changes nothing');
  });
});

describe('isSilent: the grace period', () => {
  const cases: Array<{ name: string; node: Node; now: number; silent: boolean }> = [
    { name: 'posted Ready: 50 s grace, not yet at 50 s', node: node({}), now: s(50), silent: false },
    { name: 'posted Ready: silent just after 50 s', node: node({}), now: s(50) + 1, silent: true },
    { name: 'never posted Ready: 60 s startup grace, not yet at 55 s', node: node(undefined), now: s(55), silent: false },
    { name: 'never posted Ready: silent after 60 s', node: node(undefined), now: s(60) + 1, silent: true },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const probe: Probe = { uid: 'u1', heartbeatMs: undefined, renewMs: undefined, probeMs: T0, changedMs: undefined };
      assert.equal(isSilent(probe, c.node, periods, c.now), c.silent);
    });
  }
});

describe('nodeHealth', () => {
  const marked = { status: 'Unknown' as const, reason: 'NodeStatusUnknown', lastTransitionTime: formatTime(s(60)) };
  const probe = (changedMs: number | undefined): Probe => ({ uid: 'u1', heartbeatMs: undefined, renewMs: undefined, probeMs: changedMs ?? s(61), changedMs });
  const cases: Array<{ name: string; node: Node; probe: Probe; silent: boolean; want: NodeHealth }> = [
    { name: 'silent is Unreachable whatever Ready says', node: node({}), probe: probe(undefined), silent: true, want: 'Unreachable' },
    { name: 'Ready True', node: node({}), probe: probe(undefined), silent: false, want: 'Ready' },
    { name: 'Ready False (the agent says so)', node: node({ status: 'False', reason: 'KubeletNotReady' }), probe: probe(undefined), silent: false, want: 'NotReady' },
    { name: 'Ready Unknown from the agent itself', node: node({ status: 'Unknown', reason: 'Whatever' }), probe: probe(s(70)), silent: false, want: 'Unreachable' },
    { name: 'marked Unknown by us, heartbeat since: Reachable', node: node(marked), probe: probe(s(70)), silent: false, want: 'Reachable' },
    { name: 'marked Unknown by us, no heartbeat seen since (a restart): Unreachable', node: node(marked), probe: probe(undefined), silent: false, want: 'Unreachable' },
    { name: 'marked Unknown by us, last heartbeat before the mark: Unreachable', node: node(marked), probe: probe(s(5)), silent: false, want: 'Unreachable' },
    { name: 'never posted Ready, within its grace: Unreported', node: node(undefined), probe: probe(undefined), silent: false, want: 'Unreported' },
  ];
  for (const c of cases) it(c.name, () => assert.equal(nodeHealth(c.node, c.probe, c.silent), c.want));
});

describe('unknownConditions', () => {
  const now = formatTime(s(60));
  it('turns the agent-owned conditions Unknown, keeps heartbeats and other conditions, adds missing ones', () => {
    const conditions: NodeCondition[] = [
      { type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'ok', lastHeartbeatTime: formatTime(s(1)), lastTransitionTime: formatTime(s(0)) },
      { type: 'MemoryPressure', status: 'False', lastHeartbeatTime: formatTime(s(1)), lastTransitionTime: formatTime(s(0)) },
      { type: 'NetworkUnavailable', status: 'False', lastTransitionTime: formatTime(s(0)) },
    ];
    const next = unknownConditions(conditions, now, formatTime(T0));
    assert.deepEqual(next, [
      { type: 'Ready', status: 'Unknown', reason: 'NodeStatusUnknown', message: 'Kubelet stopped posting node status.', lastHeartbeatTime: formatTime(s(1)), lastTransitionTime: now },
      { type: 'MemoryPressure', status: 'Unknown', reason: 'NodeStatusUnknown', message: 'Kubelet stopped posting node status.', lastHeartbeatTime: formatTime(s(1)), lastTransitionTime: now },
      { type: 'NetworkUnavailable', status: 'False', lastTransitionTime: formatTime(s(0)) },
      { type: 'DiskPressure', status: 'Unknown', reason: 'NodeStatusNeverUpdated', message: 'Kubelet never posted node status.', lastHeartbeatTime: formatTime(T0), lastTransitionTime: now },
      { type: 'PIDPressure', status: 'Unknown', reason: 'NodeStatusNeverUpdated', message: 'Kubelet never posted node status.', lastHeartbeatTime: formatTime(T0), lastTransitionTime: now },
    ]);
    assert.equal(conditions[0]?.status, 'True', 'the input is not changed');
    assert.deepEqual(unknownConditions(next, formatTime(s(120)), formatTime(T0)), next, 'already Unknown: nothing changes, not even transition times');
  });
});
