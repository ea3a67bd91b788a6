/**
 * Liveness is a leased protocol: when a node's agent stops, its Lease goes stale, the node lifecycle
 * controller marks the node Unknown and taints it, the pods there are evicted, and the ReplicaSet's
 * replacements are scheduled onto the node that still renews its Lease. Short grace periods, real time.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Node, Pod } from '@setpoint/api';
import { runAgent } from '@setpoint/agent';
import { Manager } from '@setpoint/client';
import { startControlPlane } from '@setpoint/testing';
import { registerNodeLifecycleController, registerReplicaSetController, registerScheduler } from '@setpoint/controllers';

async function waitFor<T>(what: string, check: () => Promise<T | undefined | false>, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('node failure', () => {
  it("stopping an agent makes its node Unknown and tainted, and the ReplicaSet's pods come back on the other node", { timeout: 90_000 }, async () => {
    await using cp = await startControlPlane();
    const client = cp.client;
    const manager = new Manager({ client });
    registerReplicaSetController(manager);
    registerScheduler(manager);
    registerNodeLifecycleController(manager, { nodeMonitorGracePeriodMs: 2000 });
    const stopAll = new AbortController();
    const stopA = new AbortController();
    const running: Promise<void>[] = [manager.start(stopAll.signal)];
    const agent = (nodeName: string, signal: AbortSignal) =>
      runAgent({ client, nodeName, runtime: 'simulated', readyDelayMs: 100, leaseRenewIntervalMs: 300, statusCheckIntervalMs: 300, signal });
    try {
      running.push(agent('node-a', AbortSignal.any([stopAll.signal, stopA.signal])));
      await waitFor('node-a to be Ready', async () => {
        const node = await client.nodes().get('node-a').catch(() => undefined);
        return node?.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True');
      });
      await client.replicaSets().create({
        metadata: { name: 'web', namespace: 'default' },
        spec: {
          replicas: 2,
          selector: { matchLabels: { app: 'web' } },
          template: {
            metadata: { labels: { app: 'web' } },
            spec: {
              containers: [{ name: 'web', image: 'example/web:1' }],
              // Evicted one second after the node becomes unreachable (the default would be 300 s).
              tolerations: [{ key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 1 }],
            },
          },
        },
      });
      const running2 = (pods: Pod[], node: string) =>
        pods.filter((p) => p.metadata.deletionTimestamp === undefined && p.spec?.nodeName === node && p.status?.phase === 'Running');
      await waitFor('two pods Running on node-a', async () => running2((await client.pods().list({ namespace: 'default' })).items, 'node-a').length === 2);

      running.push(agent('node-b', stopAll.signal));
      await waitFor('node-b to be Ready', async () => {
        const node = await client.nodes().get('node-b').catch(() => undefined);
        return node?.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True');
      });

      stopA.abort(); // the agent of node-a stops: its Lease is no longer renewed
      const tainted: Node = await waitFor('node-a to be tainted unreachable', async () => {
        const node = await client.nodes().get('node-a');
        return node.spec?.taints?.some((t) => t.key === 'node.kubernetes.io/unreachable' && t.effect === 'NoExecute') ? node : undefined;
      });
      assert.equal(tainted.status?.conditions?.find((c) => c.type === 'Ready')?.status, 'Unknown');
      const replaced = await waitFor('two pods Running on node-b', async () => {
        const pods = (await client.pods().list({ namespace: 'default' })).items;
        return running2(pods, 'node-b').length === 2 ? pods : undefined;
      });
      const active = replaced.filter((p) => p.metadata.deletionTimestamp === undefined);
      assert.equal(active.length, 2, 'no more active pods than replicas');
      assert.ok(
        replaced.filter((p) => p.spec?.nodeName === 'node-a').every((p) => p.metadata.deletionTimestamp !== undefined),
        "node-a's pods were evicted",
      );
    } finally {
      stopAll.abort();
      await Promise.allSettled(running);
    }
  });
});
