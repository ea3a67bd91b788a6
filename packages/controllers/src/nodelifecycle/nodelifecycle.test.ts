/**
 * The node lifecycle controllers against a real API server (startControlPlane), in virtual time:
 * the test plays the node agents (Nodes, their Leases in kube-node-lease, renewTime updates, pods
 * bound through pods/binding) and moves a FakeClock shared by the manager and the controllers.
 * Waits poll in real time with a deadline, stepping virtual time by 10 ms a poll unless a step of 0
 * is asked for (where a timing is asserted); managers and servers are always stopped.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FakeClock, isApiError, type Event, type Node, type Pod, type Taint, type Toleration } from '@setpoint/api';
import { Manager, type Client } from '@setpoint/client';
import { startControlPlane, type ControlPlane } from '@setpoint/testing';
import { formatTime } from './health.js';
import { registerNodeLifecycleController, TAINT_UNREACHABLE, type NodeLifecycle, type NodeLifecycleOptions } from './index.js';

const NS = 'default';
const micro = (ms: number) => new Date(ms).toISOString().replace('Z', '000Z');

interface Cluster extends AsyncDisposable {
  readonly cp: ControlPlane;
  readonly client: Client;
  readonly clock: FakeClock;
  readonly lc: NodeLifecycle;
  /** Polls `check` until true (10 s real deadline), advancing virtual time `stepMs` per poll. */
  waitFor(what: string, check: () => boolean | Promise<boolean>, stepMs?: number): Promise<void>;
  /** Creates a Ready node in `zone`, with a Lease unless `lease` is false. */
  addNode(name: string, zone: string, lease?: boolean): Promise<void>;
  /** Renews the Leases of `names` at the current virtual time and waits until the controller has seen it. */
  renew(...names: string[]): Promise<void>;
  /** Creates a pod bound to `node`. */
  addPod(name: string, node: string, tolerations?: Toleration[]): Promise<void>;
  getNode(name: string): Promise<Node>;
  getPod(name: string): Promise<Pod | undefined>;
}

async function startCluster(options: NodeLifecycleOptions = {}): Promise<Cluster> {
  const cp = await startControlPlane();
  const client = cp.client;
  const clock = new FakeClock(Math.floor(Date.now() / 1000) * 1000);
  const manager = new Manager({ client, clock, gracefulShutdownMs: 1_000 });
  const lc = registerNodeLifecycleController(manager, { clock, ...options });
  const stop = new AbortController();
  const running = manager.start(stop.signal);
  const waitFor = async (what: string, check: () => boolean | Promise<boolean>, stepMs = 10) => {
    const deadline = Date.now() + 10_000;
    while (!(await check())) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await clock.advance(stepMs);
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
  };
  return {
    cp,
    client,
    clock,
    lc,
    waitFor,
    async addNode(name, zone, lease = true) {
      await client.nodes().create({ metadata: { name, labels: { 'topology.kubernetes.io/zone': zone } } });
      const node = await client.nodes().get(name);
      const now = formatTime(clock.now());
      await client.nodes().updateStatus({ ...node, status: { conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', lastHeartbeatTime: now, lastTransitionTime: now }] } });
      if (lease) {
        await client.leases().create({ metadata: { name, namespace: 'kube-node-lease' }, spec: { holderIdentity: name, leaseDurationSeconds: 40, renewTime: micro(clock.now()) } });
      }
    },
    async renew(...names) {
      const renewMs = clock.now();
      for (const name of names) {
        const lease = await client.leases().get(name, { namespace: 'kube-node-lease' });
        await client.leases().update({ ...lease, spec: { ...lease.spec, renewTime: micro(renewMs) } });
      }
      await waitFor(`renewals of ${names.join(', ')} to be seen`, () => names.every((n) => lc.monitor.probe(n)?.renewMs === renewMs), 0);
    },
    async addPod(name, node, tolerations) {
      await client.pods().create({ metadata: { name, namespace: NS }, spec: { containers: [{ name: 'main', image: 'busybox' }], ...(tolerations ? { tolerations } : {}) } });
      await client.pods().createSubresource(name, 'binding', { apiVersion: 'v1', kind: 'Binding', metadata: { name, namespace: NS }, target: { kind: 'Node', name: node } }, { namespace: NS });
    },
    getNode: (name) => client.nodes().get(name),
    getPod: (name) => client.pods().get(name, { namespace: NS }).catch((err: unknown) => (isApiError(err, 'NotFound') ? undefined : Promise.reject(err))),
    async [Symbol.asyncDispose]() {
      stop.abort();
      let stopped = false;
      void running.finally(() => (stopped = true));
      // Drive virtual time so that whatever waits on the fake clock (a retry backoff) can finish.
      for (let i = 0; i < 1000 && !stopped; i++) {
        await clock.advance(100);
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
      await running;
      await cp.stop();
    },
  };
}

const ready = (node: Node) => node.status?.conditions?.find((c) => c.type === 'Ready');
const taintsOf = (node: Node, effect: Taint['effect']) => (node.spec?.taints ?? []).filter((t) => t.effect === effect).map((t) => t.key);
const deleted = (pod: Pod | undefined) => pod === undefined || pod.metadata.deletionTimestamp !== undefined;

/** Advances virtual time by `ms` in steps of at most 10 s, renewing the Leases of `healthy` at each. */
async function passTime(c: Cluster, ms: number, healthy: readonly string[]): Promise<void> {
  for (let left = ms; left > 0; left -= 10_000) {
    await c.clock.advance(Math.min(left, 10_000));
    if (healthy.length > 0) await c.renew(...healthy);
  }
}

describe('node lifecycle controller', () => {
  it('a node whose Lease stops being renewed becomes Unknown and tainted; its pods go as they tolerate; a renewal removes the taints', async () => {
    await using c = await startCluster();
    for (const n of ['n1', 'n2', 'n3']) await c.addNode(n, 'z1');
    const tolerate = (seconds?: number): Toleration[] => [{ key: TAINT_UNREACHABLE, operator: 'Exists', effect: 'NoExecute', ...(seconds === undefined ? {} : { tolerationSeconds: seconds }) }];
    await c.addPod('plain', 'n1');
    await c.addPod('two-seconds', 'n1', tolerate(2));
    await c.addPod('forever', 'n1', tolerate());
    await c.addPod('elsewhere', 'n2');
    await c.waitFor('the zone to be seen Normal', () => c.lc.tainter.zoneStates().get('z1') === 'Normal', 0);

    // 40 s: n1 is silent but within its grace period.
    await passTime(c, 40_000, ['n2', 'n3']);
    assert.equal(ready(await c.getNode('n1'))?.status, 'True');
    // Past 50 s: Unknown, with the NoSchedule and (the zone's bucket is full) NoExecute taints.
    await passTime(c, 20_000, ['n2', 'n3']);
    await c.waitFor('n1 to be Unknown and tainted', async () => taintsOf(await c.getNode('n1'), 'NoExecute').includes(TAINT_UNREACHABLE));
    const n1 = await c.getNode('n1');
    const condition = ready(n1);
    assert.deepEqual([condition?.status, condition?.reason, condition?.message], ['Unknown', 'NodeStatusUnknown', 'Kubelet stopped posting node status.']);
    for (const type of ['MemoryPressure', 'DiskPressure', 'PIDPressure']) assert.equal(n1.status?.conditions?.find((x) => x.type === type)?.status, 'Unknown', type);
    assert.deepEqual(taintsOf(n1, 'NoSchedule'), [TAINT_UNREACHABLE]);
    assert.ok(n1.spec?.taints?.find((t) => t.effect === 'NoExecute')?.timeAdded, 'the NoExecute taint has timeAdded');
    assert.equal(ready(await c.getNode('n2'))?.status, 'True', 'renewed nodes stay Ready');

    // Without a toleration: deleted at once. (Once the API server runs DefaultTolerationSeconds on
    // create, every pod tolerates the taint for 300 s: then it goes 300 s later.)
    const admitted = ((await c.getPod('plain'))?.spec?.tolerations ?? []).some((t) => t.key === TAINT_UNREACHABLE && t.tolerationSeconds === 300);
    if (!admitted) await c.waitFor('the untolerating pod to be deleted', async () => deleted(await c.getPod('plain')));

    // tolerationSeconds 2: exactly 2 virtual seconds after the taint manager saw it.
    await c.waitFor('the 2 s eviction to be scheduled', () => c.lc.evictions.pendingSince('n1', NS, 'two-seconds') !== undefined);
    const since = c.lc.evictions.pendingSince('n1', NS, 'two-seconds')!;
    await c.clock.set(since + 1_999);
    assert.equal(deleted(await c.getPod('two-seconds')), false, 'not before 2 s');
    await c.clock.set(since + 2_000);
    await c.waitFor('the 2 s pod to be deleted', async () => deleted(await c.getPod('two-seconds')), 0);

    // Tolerating forever, or on a healthy node: stays. The silent node's status is not rewritten.
    const rv = (await c.getNode('n1')).metadata.resourceVersion;
    await passTime(c, 300_000, ['n2', 'n3']);
    assert.equal(deleted(await c.getPod('forever')), false);
    assert.equal(deleted(await c.getPod('elsewhere')), false);
    assert.equal((await c.getNode('n1')).metadata.resourceVersion, rv, 'nothing written while nothing changes');
    // The evicted pod: a DELETE with its own grace period (so it is terminating), after a DisruptionTarget condition.
    await c.waitFor('the untolerating pod to be deleted', async () => deleted(await c.getPod('plain')));
    const plain = await c.getPod('plain');
    assert.equal(plain?.metadata.deletionGracePeriodSeconds, 30, "the pod's own grace period");
    assert.equal(plain?.status?.conditions?.find((x) => x.type === 'DisruptionTarget')?.reason, 'DeletionByTaintManager');

    // The Lease is renewed: the taints go; the conditions are the agent's to restore.
    await c.renew('n1');
    await c.waitFor('n1 to be untainted', async () => ((await c.getNode('n1')).spec?.taints ?? []).length === 0);
    assert.equal(ready(await c.getNode('n1'))?.status, 'Unknown');

    const events = async () => ((await c.client.events().list({ namespace: NS })).items as Event[]).map((e) => `${e.reason} ${e.involvedObject?.name}: ${e.message}`);
    await c.waitFor('the events', async () => {
      const all = await events();
      return all.includes('NodeNotReady n1: Node n1 status is now: NodeNotReady') && all.includes('TaintManagerEviction plain: Marking for deletion Pod default/plain');
    });
  });

  it('without a Lease, the Ready heartbeat keeps a node alive', async () => {
    await using c = await startCluster();
    for (const n of ['h1', 'h2', 'h3']) await c.addNode(n, 'z1', false);
    await c.waitFor('the zone to be seen', () => c.lc.tainter.zoneStates().get('z1') === 'Normal', 0);
    for (let i = 0; i < 6; i++) {
      await c.clock.advance(10_000);
      const beat = c.clock.now();
      for (const n of ['h1', 'h2']) {
        const node = await c.getNode(n);
        const conditions = (node.status?.conditions ?? []).map((x) => (x.type === 'Ready' ? { ...x, lastHeartbeatTime: formatTime(beat) } : x));
        await c.client.nodes().updateStatus({ ...node, status: { ...node.status, conditions } });
      }
      await c.waitFor('the heartbeats to be seen', () => ['h1', 'h2'].every((n) => c.lc.monitor.probe(n)?.heartbeatMs === beat), 0);
    }
    await c.waitFor('h3 to be Unknown', async () => ready(await c.getNode('h3'))?.status === 'Unknown');
    assert.equal(ready(await c.getNode('h1'))?.status, 'True');
    assert.equal(ready(await c.getNode('h2'))?.status, 'True');
  });

  it('many nodes of a zone going silent at once are tainted, so evicted, at 0.1 nodes/s', async () => {
    await using c = await startCluster();
    const silent = ['s0', 's1', 's2', 's3'];
    const healthy = ['h0', 'h1', 'h2', 'h3', 'h4', 'h5'];
    for (const n of [...healthy, ...silent]) await c.addNode(n, 'z1');
    // Tolerating the taint for 0 s is not tolerating it (and holds whether or not the API server adds default tolerations).
    const zero: Toleration[] = [{ key: TAINT_UNREACHABLE, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 0 }];
    for (const n of silent) for (const i of [0, 1]) await c.addPod(`${n}-p${i}`, n, zero);
    await c.waitFor('the zone to be seen', () => c.lc.tainter.zoneStates().get('z1') === 'Normal', 0);
    await passTime(c, 50_000, healthy);
    const start = c.clock.now();
    const evictedAt = new Map<string, number>(); // pod → virtual second
    let lastRenewal = start;
    while (c.clock.now() - start < 45_000) {
      await c.clock.advance(1_000);
      if (c.clock.now() - lastRenewal >= 10_000) {
        await c.renew(...healthy);
        lastRenewal = c.clock.now();
      }
      // Let the taint manager catch up with the NoExecute taints there are, then count.
      await c.waitFor('evictions to follow the taints', async () => {
        const tainted = (await c.client.nodes().list()).items.filter((n) => taintsOf(n, 'NoExecute').length > 0).length;
        const pods = (await c.client.pods().list({ namespace: NS })).items.filter((p) => p.metadata.deletionTimestamp !== undefined);
        for (const p of pods) if (!evictedAt.has(p.metadata.name!)) evictedAt.set(p.metadata.name!, Math.floor((c.clock.now() - start) / 1000));
        return pods.length === tainted * 2;
      });
    }
    const perSecond = new Map<number, number>();
    for (const second of evictedAt.values()) perSecond.set(second, (perSecond.get(second) ?? 0) + 1);
    for (const [second, count] of perSecond) assert.ok(count <= 2, `virtual second ${second}: ${count} evictions (one node's pods at most)`);
    assert.equal(evictedAt.size, 8, 'every silent node was evicted in the end');
    const added = (await c.client.nodes().list()).items
      .flatMap((n) => (n.spec?.taints ?? []).filter((t) => t.effect === 'NoExecute').map((t) => Date.parse(t.timeAdded!)))
      .sort((a, b) => a - b);
    assert.equal(added.length, 4);
    for (let i = 1; i < added.length; i++) assert.ok(added[i]! - added[i - 1]! >= 10_000, `taints ${i - 1} and ${i} are ${added[i]! - added[i - 1]!} ms apart`);
  });

  const halted: Array<{ name: string; nodes: number; silent: number; state: string }> = [
    { name: 'a small zone partially down (3 of 5) stops evicting', nodes: 5, silent: 3, state: 'PartialDisruption' },
    { name: 'every node down (the control plane is probably the one cut off): no evictions', nodes: 3, silent: 3, state: 'FullDisruption' },
  ];
  for (const scenario of halted) {
    it(scenario.name, async () => {
      await using c = await startCluster();
      const names = Array.from({ length: scenario.nodes }, (_, i) => `n${i}`);
      const silent = names.slice(0, scenario.silent);
      const healthy = names.slice(scenario.silent);
      for (const n of names) await c.addNode(n, 'z1');
      for (const n of silent) await c.addPod(`${n}-pod`, n);
      await c.waitFor('the zone to be seen', () => c.lc.tainter.zoneStates().get('z1') === 'Normal', 0);
      await passTime(c, 60_000, healthy);
      await c.waitFor('the silent nodes to be Unknown and NoSchedule-tainted', async () => {
        const nodes = await Promise.all(silent.map((n) => c.getNode(n)));
        return nodes.every((n) => ready(n)?.status === 'Unknown' && taintsOf(n, 'NoSchedule').includes(TAINT_UNREACHABLE));
      });
      await c.waitFor(`the zone to be ${scenario.state}`, () => c.lc.tainter.zoneStates().get('z1') === scenario.state);
      await passTime(c, 100_000, healthy);
      for (const n of silent) {
        assert.deepEqual(taintsOf(await c.getNode(n), 'NoExecute'), [], `${n} has no NoExecute taint`);
        assert.equal(deleted(await c.getPod(`${n}-pod`)), false, `${n}-pod stays`);
      }
    });
  }

  it('pods bound to nodes that no longer exist are deleted after the quarantine', async () => {
    await using c = await startCluster();
    await c.addNode('gone', 'z1');
    await c.addNode('kept', 'z1');
    await c.addPod('orphan-a', 'gone');
    await c.addPod('orphan-b', 'gone');
    await c.addPod('ghost', 'never-existed');
    await c.addPod('alive', 'kept');
    await c.waitFor('the zone to be seen', () => c.lc.tainter.zoneStates().get('z1') === 'Normal', 0);
    await c.client.nodes().delete('gone');
    const since = (node: string) => c.lc.evictions.orphanedSince(node);
    await c.waitFor('the orphans to be noticed', () => since('gone') !== undefined && since('never-existed') !== undefined, 0);
    assert.equal(since('gone'), since('never-existed'), 'both noticed without virtual time passing');
    const noticed = since('gone')!;
    await c.clock.set(noticed + 39_999);
    await c.renew('kept');
    for (const p of ['orphan-a', 'orphan-b', 'ghost']) assert.equal(deleted(await c.getPod(p)), false, `${p} waits out the quarantine`);
    await c.clock.set(noticed + 40_000);
    await c.waitFor('the orphans to be removed', async () => (await Promise.all(['orphan-a', 'orphan-b', 'ghost'].map((p) => c.getPod(p)))).every((p) => p === undefined));
    assert.equal(deleted(await c.getPod('alive')), false);
  });
});
