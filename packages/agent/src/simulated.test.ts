/**
 * Simulated nodes, in virtual time: 500 nodes in one process keep their Leases fresh, renewals
 * spread over the interval; their pods become Running and Ready after the delay; deleting a pod
 * completes at once. And one agent on the simulated runtime.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { FakeClock, isApiError, type Pod } from '@setpoint/api';
import { startControlPlane, type ControlPlane } from '@setpoint/testing';
import { runAgent } from './agent.js';
import { runSimulatedNodes, SIMULATED_NODE_LABEL } from './simulated.js';
import { boundPod, eventually } from './testing/helpers.js';

let cp: ControlPlane;
before(async () => {
  cp = await startControlPlane();
});
after(async () => {
  await cp.stop();
});

const parse = (microTime: string | null | undefined) => (typeof microTime === 'string' ? Date.parse(microTime) : NaN);

describe('runSimulatedNodes', () => {
  it('keeps the Leases of 500 nodes fresh, spread evenly over the interval, and runs their pods', async () => {
    const t0 = Date.UTC(2026, 0, 1);
    const clock = new FakeClock(t0);
    const interval = 10_000;
    const tick = 100;
    const abort = new AbortController();
    const done = runSimulatedNodes({ client: cp.client, count: 500, namePrefix: 'sim-', heartbeatIntervalMs: interval, tickMs: tick, readyDelayMs: 2_000, clock, signal: abort.signal });
    try {
      await eventually('500 nodes to register', async () => (await cp.client.nodes().list({ labelSelector: `${SIMULATED_NODE_LABEL}=true` })).items.length === 500, 60_000);
      const leases = () => cp.client.leases().list({ namespace: 'kube-node-lease' }).then((l) => l.items.filter((x) => x.metadata.name?.startsWith('sim-')));

      // Three intervals of virtual time, one second at a time; after each step every lease is fresh.
      for (let step = 1; step <= 30; step++) {
        await clock.advance(1_000);
        const now = clock.now();
        // Node i first renews i × 20 ms after start; after the first interval, every node must have
        // renewed within the last interval (+ one tick of the wheel).
        const due = Math.min(500, Math.floor(((now - t0) * 500) / interval) + 1);
        await eventually(`fresh leases at ${step} s`, async () => {
          const all = await leases();
          return all.length >= due && (now - t0 < interval + tick || all.every((l) => now - parse(l.spec?.renewTime) <= interval + tick));
        }, 30_000);
      }
      const all = await leases();
      assert.ok(all.every((l) => l.spec?.holderIdentity === l.metadata.name && l.spec?.leaseDurationSeconds === 40));
      // Spread: renewals fall on (nearly) every tick of the interval, not in a burst.
      const slots = new Set(all.map((l) => Math.floor((parse(l.spec?.renewTime) - t0) / tick) % (interval / tick)));
      assert.ok(slots.size >= 90, `renewals spread over ${slots.size} of 100 ticks`);

      // A pod on a simulated node: Pending, then Running and Ready after the delay, without starting anything.
      const created = await cp.client.pods().create(boundPod('default', 'sim-pod', 'sim-42', [{ name: 'app', image: 'nginx' }]));
      const pending = await eventually('the pod to be acknowledged', async () => {
        const pod = await cp.client.pods().get('sim-pod', { namespace: 'default' });
        return pod.status?.containerStatuses !== undefined ? pod : undefined;
      });
      assert.equal(pending.status?.phase, 'Pending');
      assert.equal(pending.status?.containerStatuses?.[0]?.state?.waiting?.reason, 'ContainerCreating');
      await clock.advance(2_000);
      const ready: Pod = await eventually('the pod to be Running and Ready', async () => {
        const pod = await cp.client.pods().get('sim-pod', { namespace: 'default' });
        return pod.status?.phase === 'Running' && pod.status.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ? pod : undefined;
      });
      assert.deepEqual(ready.status?.containerStatuses?.map((c) => [c.name, c.ready, c.started, c.state?.running !== undefined]), [['app', true, true, true]]);
      assert.equal(ready.metadata.uid, created.metadata.uid);
      await cp.client.pods().delete('sim-pod', { namespace: 'default' });
      await eventually('the deletion to complete at once', async () => cp.client.pods().get('sim-pod', { namespace: 'default' }).then(() => false, (err: unknown) => isApiError(err, 'NotFound')));
    } finally {
      abort.abort();
      await done;
    }
  });
});

describe('runAgent with the simulated runtime', () => {
  it('registers its node and marks its pods Running and Ready after the delay', async () => {
    const abort = new AbortController();
    const done = runAgent({ client: cp.client, nodeName: 'one-sim', runtime: 'simulated', readyDelayMs: 50, signal: abort.signal });
    try {
      await cp.client.pods().create(boundPod('default', 'one-pod', 'one-sim', [{ name: 'app', image: 'nginx' }], { initContainers: [{ name: 'setup', image: 'busybox' }] }));
      const pod = await eventually('the pod to be Ready', async () => {
        const p = await cp.client.pods().get('one-pod', { namespace: 'default' });
        return p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ? p : undefined;
      });
      assert.equal(pod.status?.initContainerStatuses?.[0]?.state?.terminated?.reason, 'Completed');
      assert.equal((await cp.client.nodes().get('one-sim')).status?.conditions?.find((c) => c.type === 'Ready')?.status, 'True');
    } finally {
      abort.abort();
      await done;
    }
  });
});
