import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Condition, KubeObject } from '@setpoint/api';
import { startControlPlane } from '@setpoint/testing';
import { setCondition } from './conditions.js';
import { updateStatusIfChanged } from './status.js';

describe('updateStatusIfChanged', () => {
  it('writes status only when it differs: an equal status costs no write, no resourceVersion, no event', async () => {
    await using cp = await startControlPlane();
    const nodes = cp.client.nodes();
    let node = await nodes.create({ metadata: { name: 'n1' } });
    const status = { capacity: { cpu: '2' }, conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady' }] };
    const first = await updateStatusIfChanged(nodes, node, status);
    assert.equal(first.updated, true);
    node = first.object;
    const rv = node.metadata.resourceVersion;
    // The same content in another key order is the same status.
    const again = await updateStatusIfChanged(nodes, node, { conditions: [{ reason: 'KubeletReady', status: 'True', type: 'Ready' }], capacity: { cpu: '2' } });
    assert.equal(again.updated, false);
    assert.equal((await nodes.get('n1')).metadata.resourceVersion, rv, 'nothing was written');
    const changed = await updateStatusIfChanged(nodes, node, { ...status, capacity: { cpu: '4' } });
    assert.equal(changed.updated, true);
    assert.notEqual(changed.object.metadata.resourceVersion, rv);
  });

  it('carries the resourceVersion it read: a stale object gets a 409 instead of overwriting', async () => {
    await using cp = await startControlPlane();
    const nodes = cp.client.nodes();
    const stale = await nodes.create({ metadata: { name: 'n1' } });
    await nodes.updateStatus({ ...stale, status: { phase: 'Running' } });
    await assert.rejects(updateStatusIfChanged(nodes, stale as KubeObject, { phase: 'Pending' }), (err: { reason?: string }) => err.reason === 'Conflict');
  });
});

describe('setCondition', () => {
  it('moves lastTransitionTime only when the status changes', () => {
    const t1 = '2026-01-01T00:00:00Z';
    const t2 = '2026-01-01T00:01:00Z';
    let conditions: Condition[] = setCondition(undefined, { type: 'Ready', status: 'False', reason: 'Starting' }, t1);
    assert.equal(conditions[0]!.lastTransitionTime, t1);
    conditions = setCondition(conditions, { type: 'Ready', status: 'False', reason: 'StillStarting', message: 'x' }, t2);
    assert.equal(conditions[0]!.lastTransitionTime, t1, 'same status: the transition time stays');
    assert.equal(conditions[0]!.reason, 'StillStarting');
    conditions = setCondition(conditions, { type: 'Ready', status: 'True', reason: 'Ready' }, t2);
    assert.equal(conditions[0]!.lastTransitionTime, t2);
    assert.equal(conditions.length, 1);
  });
});
