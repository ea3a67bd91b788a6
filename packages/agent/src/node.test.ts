/**
 * Registration, the Lease and the node status, in virtual time (FakeClock) against Setpoint's API
 * server in process; the retry backoff against a client that fails on purpose.
 */
import assert from 'node:assert/strict';
import { availableParallelism } from 'node:os';
import { after, before, describe, it } from 'node:test';
import { ApiError, FakeClock, type Lease, type Node } from '@setpoint/api';
import { formatMicroTime, type Client } from '@setpoint/client';
import { startControlPlane, type ControlPlane } from '@setpoint/testing';
import { runAgent } from './agent.js';
import { NodeHeartbeat, machineInfo } from './node.js';
import { eventually } from './testing/helpers.js';

let cp: ControlPlane;
before(async () => {
  cp = await startControlPlane();
});
after(async () => {
  await cp.stop();
});

function start(client: Client, nodeName: string, clock: FakeClock): { stop(): Promise<void> } {
  const abort = new AbortController();
  const done = runAgent({ client, nodeName, runtime: 'simulated', clock, signal: abort.signal });
  return {
    stop: async () => {
      abort.abort();
      await done;
    },
  };
}

const lease = (name: string) => cp.client.leases().get(name, { namespace: 'kube-node-lease' });
const readyOf = (node: Node) => node.status?.conditions?.find((c) => c.type === 'Ready');

describe('node registration and lease', () => {
  it('registers the Node with the machine capacity, labels, addresses, nodeInfo and conditions', async () => {
    const clock = new FakeClock(Date.UTC(2026, 0, 1));
    const agent = start(cp.client, 'reg-node', clock);
    try {
      const node = await eventually('the node to register', () => cp.client.nodes().get('reg-node'));
      const machine = machineInfo();
      assert.deepEqual(node.status?.capacity, { cpu: String(availableParallelism()), memory: machine.memory, pods: '110' });
      assert.match(machine.memory, /^\d+Ki$/);
      assert.deepEqual(node.status?.allocatable, node.status?.capacity);
      assert.equal(node.metadata.labels?.['kubernetes.io/hostname'], 'reg-node');
      assert.equal(node.metadata.labels?.['kubernetes.io/os'], 'linux');
      assert.ok(['amd64', 'arm64'].includes(node.metadata.labels?.['kubernetes.io/arch'] ?? ''), 'Go architecture naming');
      assert.deepEqual(
        node.status?.addresses?.map((a) => a.type),
        ['InternalIP', 'Hostname'],
      );
      const info = node.status?.nodeInfo;
      assert.deepEqual([info?.kubeletVersion, info?.containerRuntimeVersion, info?.operatingSystem, info?.architecture], ['v1.32.0-setpoint', 'setpoint-process://0.1', 'linux', node.metadata.labels?.['kubernetes.io/arch']]);
      assert.deepEqual(
        node.status?.conditions?.map((c) => [c.type, c.status, c.reason, c.lastHeartbeatTime]),
        [
          ['MemoryPressure', 'False', 'KubeletHasSufficientMemory', '2026-01-01T00:00:00Z'],
          ['DiskPressure', 'False', 'KubeletHasNoDiskPressure', '2026-01-01T00:00:00Z'],
          ['PIDPressure', 'False', 'KubeletHasSufficientPID', '2026-01-01T00:00:00Z'],
          ['Ready', 'True', 'KubeletReady', '2026-01-01T00:00:00Z'],
        ],
      );
    } finally {
      await agent.stop();
    }
  });

  it('renews kube-node-lease/<node> every 10 s, owned by the Node', async () => {
    const t0 = Date.UTC(2026, 0, 1);
    const clock = new FakeClock(t0);
    const agent = start(cp.client, 'lease-node', clock);
    try {
      const node = await eventually('the node to register', () => cp.client.nodes().get('lease-node'));
      await eventually('the first renewal', async () => {
        await clock.advance(0);
        return (await lease('lease-node').catch(() => undefined))?.spec?.renewTime === formatMicroTime(t0);
      });
      const first: Lease = await lease('lease-node');
      assert.deepEqual(first.spec, { holderIdentity: 'lease-node', leaseDurationSeconds: 40, renewTime: '2026-01-01T00:00:00.000000Z' });
      assert.deepEqual(first.metadata.ownerReferences, [{ apiVersion: 'v1', kind: 'Node', name: 'lease-node', uid: node.metadata.uid }]);
      for (const step of [1, 2, 3]) {
        await clock.advance(10_000);
        await eventually(`renewal ${step}`, async () => (await lease('lease-node')).spec?.renewTime === formatMicroTime(t0 + step * 10_000));
      }
      await clock.advance(9_999);
      assert.equal((await lease('lease-node')).spec?.renewTime, formatMicroTime(t0 + 30_000), 'not renewed before its interval');
    } finally {
      await agent.stop();
    }
  });

  it('posts the status when it changes, and otherwise only every 5 minutes', async () => {
    const t0 = Date.UTC(2026, 0, 1);
    const clock = new FakeClock(t0);
    const agent = start(cp.client, 'status-node', clock);
    const nodes = cp.client.nodes();
    try {
      const registered = await eventually('the node to register', () => nodes.get('status-node'));
      await eventually('the first renewal', async () => {
        await clock.advance(0);
        return (await lease('status-node').catch(() => undefined))?.spec?.renewTime === formatMicroTime(t0);
      });
      // 10 s later nothing changed: no write.
      await clock.advance(10_000);
      await eventually('the lease renewal at 10 s', async () => (await lease('status-node')).spec?.renewTime === formatMicroTime(t0 + 10_000));
      assert.equal((await nodes.get('status-node')).metadata.resourceVersion, registered.metadata.resourceVersion);

      // Someone (the node lifecycle controller) marks it Unknown: the next check puts it back.
      const unknown = await nodes.get('status-node');
      const conditions = unknown.status?.conditions?.map((c) => (c.type === 'Ready' ? { ...c, status: 'Unknown' as const, reason: 'NodeStatusUnknown' } : c));
      await nodes.updateStatus({ ...unknown, status: { ...unknown.status, conditions } });
      await clock.advance(10_000);
      const fixed = await eventually('Ready to be True again', async () => {
        const n = await nodes.get('status-node');
        return readyOf(n)?.status === 'True' ? n : undefined;
      });
      // Fixed at the check at 10 s or at 20 s (whichever first saw the change), with a new heartbeat.
      const beat = readyOf(fixed)?.lastHeartbeatTime ?? '';
      assert.ok(['2026-01-01T00:00:10Z', '2026-01-01T00:00:20Z'].includes(beat), beat);
      assert.equal(readyOf(fixed)?.lastTransitionTime, beat);
      assert.equal(readyOf(fixed)?.reason, 'KubeletReady');

      // Unchanged for 5 minutes: posted again with a new heartbeat, not before.
      await clock.set(Date.parse(beat) + 290_000);
      assert.equal(readyOf(await nodes.get('status-node'))?.lastHeartbeatTime, beat);
      await clock.set(Date.parse(beat) + 300_000);
      const next = new Date(Date.parse(beat) + 300_000).toISOString().replace('.000Z', 'Z');
      await eventually('the 5-minute heartbeat', async () => readyOf(await nodes.get('status-node'))?.lastHeartbeatTime === next);
    } finally {
      await agent.stop();
    }
  });
});

describe('NodeHeartbeat retries', () => {
  it('retries a failed renewal after 200 ms, doubling up to 7 s, then renews on the interval again', async () => {
    const clock = new FakeClock(0);
    const calls: number[] = [];
    let failures = 7;
    const leases = {
      get: async () => {
        calls.push(clock.now());
        if (failures-- > 0) throw ApiError.internal('etcd is down');
        return { metadata: { name: 'n', namespace: 'kube-node-lease', resourceVersion: '1' }, spec: {} } as Lease;
      },
      update: async (l: Lease) => {
        calls.push(clock.now());
        return l;
      },
      create: async (l: Lease) => l,
    };
    const nodes = { create: async (n: Node) => ({ ...n, metadata: { ...n.metadata, uid: 'u' } }) };
    const client = { leases: () => leases, nodes: () => nodes } as unknown as Client;
    const hb = new NodeHeartbeat({ client, nodeName: 'n', clock, statusCheckIntervalMs: 1e9 });
    const abort = new AbortController();
    const running = hb.run(abort.signal);
    await clock.advance(30_000);
    abort.abort();
    await running;
    const gaps = calls.map((t, i) => t - (calls[i - 1] ?? 0));
    // 7 failed reads (0, +200, +400, ... capped at 7 s), then get + update, then an update every 10 s.
    assert.deepEqual(gaps.slice(0, 9), [0, 200, 400, 800, 1600, 3200, 6400, 7000, 0]);
    assert.deepEqual(gaps.slice(9), [10_000]);
  });

  it('posts the status when the stored heartbeat is null (a zero time, as kube-apiserver sends it)', async () => {
    const clock = new FakeClock(Date.UTC(2026, 0, 1));
    let stored: Node = { metadata: { name: 'n', uid: 'u', resourceVersion: '1' } };
    const written: Node[] = [];
    const nodes = {
      get: async () => stored,
      updateStatus: async (n: Node) => {
        written.push(n);
        return n;
      },
    };
    const client = { nodes: () => nodes } as unknown as Client;
    const hb = new NodeHeartbeat({ client, nodeName: 'n', clock, statusCheckIntervalMs: 1e9 });
    assert.equal(await hb.syncStatus(), true, 'a node without status gets one');
    stored = written[0]!;
    assert.equal(await hb.syncStatus(), false, 'the same status a moment later: nothing to write');
    const conditions = stored.status?.conditions?.map((c) => (c.type === 'Ready' ? { ...c, lastHeartbeatTime: null } : c));
    stored = { ...stored, status: { ...stored.status, conditions } };
    assert.equal(await hb.syncStatus(), true, 'a null heartbeat is due');
    assert.equal(typeof readyOf(written[1]!)?.lastHeartbeatTime, 'string');
  });
});
