import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Pod } from '@setpoint/api';
import { Client, Manager } from '@setpoint/client';
import { startControlPlane } from '@setpoint/testing';
import { addNode, apiPod, eventually, seededRandom } from './fixtures.test-support.js';
import { registerScheduler } from './index.js';
import { podRequests } from './resources.js';

const condition = (pod: Pod) => pod.status?.conditions?.find((c) => c.type === 'PodScheduled');

describe('scheduler under a burst', () => {
  it('200 pods at once onto 10 nodes of exact capacity: no node over-committed, exactly the surplus reported Unschedulable', async () => {
    await using cp = await startControlPlane();
    const client = new Client(cp.config, { qps: 10_000, burst: 10_000 });
    const manager = new Manager({ client });
    const scheduler = registerScheduler(manager, { random: seededRandom(7) });
    const stop = new AbortController();
    const running = manager.start(stop.signal);
    try {
      // Each node fits exactly 18 pods of 100m: 180 places for 200 pods. Memory and pod count are ample.
      const nodes = Array.from({ length: 10 }, (_, i) => `node-${i}`);
      await Promise.all(nodes.map((name) => addNode(client, name, { cpu: '1800m', memory: '64Gi', pods: '110' })));
      await eventually('the scheduler to see every node', () => manager.ready());
      await Promise.all(Array.from({ length: 200 }, (_, i) => client.pods().create(apiPod(`p${String(i).padStart(3, '0')}`, { cpu: '100m', memory: '64Mi' }))));

      let items: Pod[] = [];
      await eventually(
        'every pod bound or reported',
        async () => {
          items = (await client.pods().list({ namespace: 'default' })).items;
          return items.every((p) => p.spec?.nodeName !== undefined || condition(p)?.reason === 'Unschedulable');
        },
        30_000,
      );
      const bound = items.filter((p) => p.spec?.nodeName !== undefined);
      const waiting = items.filter((p) => p.spec?.nodeName === undefined);
      assert.equal(bound.length, 180);
      assert.equal(waiting.length, 20);
      for (const p of waiting) {
        assert.equal(condition(p)?.status, 'False');
        assert.equal(condition(p)?.message, '0/10 nodes are available: 10 Insufficient cpu.');
      }
      const perNode = new Map<string, number>();
      for (const p of bound) perNode.set(p.spec!.nodeName!, (perNode.get(p.spec!.nodeName!) ?? 0) + podRequests(p).milliCPU);
      for (const name of nodes) assert.ok((perNode.get(name) ?? 0) <= 1800, `${name} requests ${perNode.get(name)}m of 1800m`);
      assert.deepEqual([...perNode.values()], nodes.map(() => 1800), 'every node is exactly full');
      assert.equal(scheduler.stats.scheduled, 180);
      assert.equal(scheduler.stats.errors, 0, 'no binding was refused');
    } finally {
      stop.abort();
      await running;
      client.close();
    }
  });
});
