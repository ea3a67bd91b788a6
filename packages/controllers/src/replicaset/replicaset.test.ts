/**
 * The ReplicaSet controller against Setpoint's API server (in process), with the manager running
 * it and, where readiness matters, the fake node binding pods and marking them Running and Ready.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Pod, ReplicaSet } from '@setpoint/api';
import { Manager, type Client } from '@setpoint/client';
import { startControlPlane, type ControlPlane } from '@setpoint/testing';
import { runFakeNode, type FakeNodeOptions } from '../testing/node.js';
import { registerReplicaSetController } from './index.js';
import { isPodActive, isPodReady } from './pods.js';

let cp: ControlPlane;
let client: Client;
before(async () => {
  cp = await startControlPlane();
  client = cp.client;
});
after(async () => {
  await cp.stop();
});

async function eventually<T>(what: string, check: () => Promise<T | undefined | false> | T | undefined | false, ms = 15_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

interface Running extends AsyncDisposable {
  readonly manager: Manager;
  stop(): Promise<void>;
}

/** A manager running the controller for one namespace, on `api` (default: the control plane's client). */
function runController(namespace: string, api: Client = client): Running {
  const manager = new Manager({ client: api, namespace });
  registerReplicaSetController(manager);
  const abort = new AbortController();
  const done = manager.start(abort.signal);
  const stop = async () => {
    abort.abort();
    await done;
  };
  return { manager, stop, [Symbol.asyncDispose]: stop };
}

function runNode(namespace: string, options: FakeNodeOptions = {}): AsyncDisposable {
  const abort = new AbortController();
  const done = runFakeNode(client, abort.signal, { namespace, ...options });
  return {
    [Symbol.asyncDispose]: async () => {
      abort.abort();
      await done;
    },
  };
}

async function namespace(name: string): Promise<string> {
  await client.namespaces().create({ metadata: { name } });
  return name;
}

function replicaSet(ns: string, name: string, replicas: number, options: { minReadySeconds?: number; image?: string; finalizers?: string[] } = {}): ReplicaSet {
  return {
    metadata: { name, namespace: ns, ...(options.finalizers ? { finalizers: options.finalizers } : {}) },
    spec: {
      replicas,
      ...(options.minReadySeconds !== undefined ? { minReadySeconds: options.minReadySeconds } : {}),
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name, tier: 'web' } }, spec: { containers: [{ name: 'main', image: options.image ?? 'nginx' }] } },
    },
  };
}

const getRs = (rs: ReplicaSet) => client.replicaSets().get(rs.metadata.name!, { namespace: rs.metadata.namespace! });
const scale = (rs: ReplicaSet, replicas: number) => client.replicaSets().patch(rs.metadata.name!, { spec: { replicas } }, { type: 'merge', namespace: rs.metadata.namespace! });
const allPods = async (ns: string) => (await client.pods().list({ namespace: ns })).items;
const ownedBy = (rs: ReplicaSet) => (pod: Pod) => pod.metadata.ownerReferences?.some((r) => r.uid === rs.metadata.uid && r.controller === true) ?? false;
const activeOf = async (rs: ReplicaSet) => (await allPods(rs.metadata.namespace!)).filter(ownedBy(rs)).filter(isPodActive);
const exactly = (n: number, pred: (p: Pod) => boolean = () => true) => (pods: Pod[]) => (pods.length === n && pods.every(pred) ? pods : undefined);
/** Reasons of the Events the controller recorded about `name`. */
const eventReasons = async (ns: string, name: string) =>
  (await client.events().list({ namespace: ns, fieldSelector: `involvedObject.name=${name}` })).items
    .filter((e) => e.source?.component === 'replicaset-controller' && e.involvedObject.kind === 'ReplicaSet')
    .map((e) => e.reason ?? '');

describe('ReplicaSet controller', () => {
  it('scales up and down; pods come from the template, owned by the ReplicaSet; the unready pod goes first', async () => {
    const ns = await namespace('scale');
    await using _node = runNode(ns, { ready: (pod) => pod.metadata.labels?.['unready'] !== 'true' });
    await using _ctrl = runController(ns);
    const rs = await client.replicaSets().create(replicaSet(ns, 'web', 3));
    const pods = await eventually('3 ready pods', async () => exactly(3, isPodReady)(await activeOf(rs)));
    for (const pod of pods) {
      assert.equal(pod.metadata.generateName, 'web-');
      assert.match(pod.metadata.name!, /^web-[a-z0-9]{5}$/);
      assert.deepEqual(pod.metadata.labels, { app: 'web', tier: 'web' });
      assert.deepEqual(pod.metadata.ownerReferences, [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web', uid: rs.metadata.uid, controller: true, blockOwnerDeletion: true }]);
      assert.equal(pod.spec?.containers?.[0]?.image, 'nginx');
    }
    await eventually('status of 3 ready pods', async () => {
      const s = (await getRs(rs)).status;
      return s?.replicas === 3 && s.fullyLabeledReplicas === 3 && s.readyReplicas === 3 && s.availableReplicas === 3 && s.observedGeneration === 1;
    });

    await scale(rs, 5);
    await eventually('5 ready pods', async () => exactly(5, isPodReady)(await activeOf(rs)));
    await eventually('status of 5 at generation 2', async () => {
      const s = (await getRs(rs)).status;
      return s?.replicas === 5 && s.readyReplicas === 5 && s.observedGeneration === 2;
    });

    const victim = pods[1]!;
    await client.pods().patch(victim.metadata.name!, { metadata: { labels: { unready: 'true' } } }, { type: 'merge', namespace: ns });
    await eventually('the victim unready, counted so', async () => (await getRs(rs)).status?.readyReplicas === 4);
    await scale(rs, 4);
    const left = await eventually('4 pods, all ready', async () => exactly(4, isPodReady)(await activeOf(rs)));
    assert.ok(!left.some((p) => p.metadata.uid === victim.metadata.uid), 'the unready pod was the one deleted');

    await scale(rs, 1);
    await eventually('1 pod', async () => exactly(1)(await activeOf(rs)));
    await eventually('SuccessfulCreate and SuccessfulDelete events', async () => {
      const reasons = await eventReasons(ns, 'web');
      return reasons.includes('SuccessfulCreate') && reasons.includes('SuccessfulDelete');
    });
  });

  it('replaces a deleted pod, and releases and replaces a pod whose labels stop matching', async () => {
    const ns = await namespace('replace');
    await using _ctrl = runController(ns);
    const rs = await client.replicaSets().create(replicaSet(ns, 'app', 2));
    const [first, second] = await eventually('2 pods', async () => exactly(2)(await activeOf(rs)));

    await client.pods().delete(first!.metadata.name!, { namespace: ns });
    const replaced = await eventually('a replacement', async () => exactly(2)(await activeOf(rs)));
    assert.ok(!replaced.some((p) => p.metadata.uid === first!.metadata.uid));

    await client.pods().patch(second!.metadata.name!, { metadata: { labels: { app: 'elsewhere' } } }, { type: 'merge', namespace: ns });
    await eventually('the pod released', async () => {
      const pod = await client.pods().get(second!.metadata.name!, { namespace: ns });
      return (pod.metadata.ownerReferences ?? []).length === 0;
    });
    const now = await eventually('2 matching pods again', async () => exactly(2)(await activeOf(rs)));
    assert.ok(!now.some((p) => p.metadata.uid === second!.metadata.uid));
    assert.equal((await allPods(ns)).length, 3, 'the released pod is left alone, not deleted');
  });

  it('adopts a matching orphan instead of creating a pod, but not while the ReplicaSet is being deleted', async () => {
    const ns = await namespace('adopt');
    await using _ctrl = runController(ns);
    const orphan = await client.pods().create({ metadata: { name: 'orphan', namespace: ns, labels: { app: 'kept' } }, spec: { containers: [{ name: 'main', image: 'nginx' }] } });
    const rs = await client.replicaSets().create(replicaSet(ns, 'kept', 2));
    const pods = await eventually('2 pods, one adopted', async () => exactly(2)(await activeOf(rs)));
    const adopted = pods.find((p) => p.metadata.uid === orphan.metadata.uid);
    assert.ok(adopted, 'the orphan is one of them');
    assert.deepEqual(adopted.metadata.ownerReferences, [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'kept', uid: rs.metadata.uid, controller: true, blockOwnerDeletion: true }]);
    await eventually('status: 2 replicas, 1 with every template label', async () => {
      const s = (await getRs(rs)).status;
      return s?.replicas === 2 && s.fullyLabeledReplicas === 1;
    });

    const held = await client.replicaSets().create(replicaSet(ns, 'held', 0, { finalizers: ['test.setpoint.dev/hold'] }));
    await client.replicaSets().delete('held', { namespace: ns });
    await client.pods().create({ metadata: { name: 'stray', namespace: ns, labels: { app: 'held' } }, spec: { containers: [{ name: 'main', image: 'nginx' }] } });
    // A pod it does own: once the status counts it, the controller has seen the stray pod too.
    const ref = { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'held', uid: held.metadata.uid!, controller: true };
    await client.pods().create({ metadata: { name: 'owned', namespace: ns, labels: { app: 'held' }, ownerReferences: [ref] }, spec: { containers: [{ name: 'main', image: 'nginx' }] } });
    await eventually('the deleting ReplicaSet counts its own pod', async () => (await getRs(held)).status?.replicas === 1);
    const stray = await client.pods().get('stray', { namespace: ns });
    assert.equal(stray.metadata.ownerReferences, undefined, 'not adopted by a ReplicaSet being deleted');
    assert.equal((await client.pods().get('owned', { namespace: ns })).metadata.deletionTimestamp, undefined, 'nor is anything deleted');
    await client.replicaSets().patch('held', [{ op: 'remove', path: '/metadata/finalizers' }], { type: 'json', namespace: ns });
  });

  it('does not count terminating pods, nor Succeeded or Failed ones', async () => {
    const ns = await namespace('terminating');
    await using _ctrl = runController(ns);
    const hold = 'test.setpoint.dev/hold';
    await client.pods().create({ metadata: { name: 'lingering', namespace: ns, labels: { app: 'db' }, finalizers: [hold] }, spec: { containers: [{ name: 'main', image: 'nginx' }] } });
    const rs = await client.replicaSets().create(replicaSet(ns, 'db', 2));
    await eventually('2 pods (one adopted)', async () => exactly(2)(await activeOf(rs)));

    await client.pods().delete('lingering', { namespace: ns });
    const pods = await eventually('a replacement for the terminating pod', async () => exactly(2)(await activeOf(rs)));
    assert.ok((await client.pods().get('lingering', { namespace: ns })).metadata.deletionTimestamp, 'still there, terminating');
    await eventually('status without it', async () => (await getRs(rs)).status?.replicas === 2);

    const done = pods[0]!;
    await client.pods().updateStatus({ ...done, status: { ...done.status, phase: 'Failed' } });
    const after = await eventually('a replacement for the failed pod', async () => exactly(2)(await activeOf(rs)));
    assert.ok(!after.some((p) => p.metadata.uid === done.metadata.uid));
    const owned = (await allPods(ns)).filter(ownedBy(rs));
    assert.equal(owned.length, 4, 'the terminating and the failed pod are still there, not counted');
    await client.pods().patch('lingering', [{ op: 'remove', path: '/metadata/finalizers' }], { type: 'json', namespace: ns });
  });

  it('reports availability after minReadySeconds without another event, and writes an unchanged status never', async () => {
    const ns = await namespace('status');
    await using _node = runNode(ns);
    await using ctrl = runController(ns);
    const rs = await client.replicaSets().create(replicaSet(ns, 'slow', 2, { minReadySeconds: 1 }));
    const ready = await eventually('2 ready', async () => {
      const s = (await getRs(rs)).status;
      return s?.readyReplicas === 2 ? s : undefined;
    });
    const pods = await activeOf(rs);
    const readySince = Math.max(...pods.map((p) => Date.parse(p.status?.conditions?.find((c) => c.type === 'Ready')?.lastTransitionTime ?? '')));
    if (Date.now() < readySince + 1000) assert.notEqual(ready.availableReplicas, 2, 'not available before minReadySeconds');
    const available = await eventually('2 available', async () => {
      const current = await getRs(rs);
      return current.status?.availableReplicas === 2 ? current : undefined;
    });
    assert.ok(Date.now() > readySince + 1000, 'available only once ready for longer than minReadySeconds');

    // Touch a pod: the ReplicaSet is reconciled again, its status is the same, so it is not written.
    const reconciles = async () =>
      (await ctrl.manager.metrics.registry.metrics())
        .split('\n')
        .filter((l) => l.startsWith('controller_runtime_reconcile_total{') && l.includes('controller="replicaset"'))
        .reduce((sum, l) => sum + Number(l.split(' ').at(-1)), 0);
    const before = await reconciles();
    await client.pods().patch(pods[0]!.metadata.name!, { metadata: { annotations: { touched: 'yes' } } }, { type: 'merge', namespace: ns });
    await eventually('another reconcile', async () => (await reconciles()) > before);
    assert.equal((await getRs(rs)).metadata.resourceVersion, available.metadata.resourceVersion, 'no status write when nothing changed');
  });
});
