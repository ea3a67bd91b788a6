/**
 * The Deployment controller against Setpoint's API server (in process), with the ReplicaSet
 * controller making the pods and the fake node making them Running and Ready.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { jsonClone, type Pod, type ReplicaSet } from '@setpoint/api';
import { startControlPlane, type ControlPlane } from '@setpoint/testing';
import { runFakeNode } from '../testing/node.js';
import { AVAILABLE, PROGRESSING, Reasons } from './conditions.js';
import { condition, deployment, eventually, isActive, isPodReady, startHarness, waitRolledOut, watchPods, type Harness } from './harness.test-support.js';
import { computePodTemplateHash } from './hash.js';
import { POD_TEMPLATE_HASH_LABEL, REVISION_ANNOTATION } from './replicasets.js';

let cp: ControlPlane;
before(async () => {
  cp = await startControlPlane();
});
after(async () => {
  await cp.stop();
});

const replicaSets = async (h: Harness): Promise<ReplicaSet[]> => (await h.client.replicaSets().list({ namespace: h.namespace })).items;
const activePods = async (h: Harness): Promise<Pod[]> => (await h.client.pods().list({ namespace: h.namespace })).items.filter(isActive);
const getD = (h: Harness, name: string) => h.client.deployments().get(name, { namespace: h.namespace });
const patchD = (h: Harness, name: string, patch: unknown) => h.client.deployments().patch(name, patch, { type: 'strategic', namespace: h.namespace });
const setImage = (h: Harness, name: string, image: string) => patchD(h, name, { spec: { template: { spec: { containers: [{ name: 'main', image }] } } } });

describe('Deployment controller (with the ReplicaSet controller and a fake node)', () => {
  it('creates one ReplicaSet named by the template hash, all pods ready, and reports the Deployment Available', async () => {
    await using h = await startHarness(cp.client, 'create', runFakeNode);
    const created = await h.client.deployments().create(deployment(h.namespace, 'web', 3));
    const d = await waitRolledOut(h, 'web');
    const [rs, ...others] = await replicaSets(h);
    assert.equal(others.length, 0);
    const hash = computePodTemplateHash(created.spec!.template);
    assert.equal(rs!.metadata.name, `web-${hash}`);
    assert.equal(rs!.spec?.selector?.matchLabels?.[POD_TEMPLATE_HASH_LABEL], hash);
    assert.equal(rs!.metadata.ownerReferences?.[0]?.uid, created.metadata.uid);
    const pods = await eventually('3 ready pods', async () => {
      const pods = await activePods(h);
      return pods.length === 3 && pods.every(isPodReady) ? pods : undefined;
    });
    for (const pod of pods) {
      assert.equal(pod.metadata.labels?.[POD_TEMPLATE_HASH_LABEL], hash);
      assert.equal(pod.metadata.ownerReferences?.[0]?.uid, rs!.metadata.uid);
    }
    assert.equal(condition(d, AVAILABLE)?.status, 'True');
    assert.equal(condition(d, AVAILABLE)?.reason, Reasons.MinimumReplicasAvailable);
    assert.equal(condition(d, PROGRESSING)?.reason, Reasons.NewReplicaSetAvailable);
    assert.equal(d.metadata.annotations?.[REVISION_ANNOTATION], '1');
    assert.deepEqual([d.status?.readyReplicas, d.status?.unavailableReplicas], [3, undefined]);
  });

  it('rolls a new image out step by step: pods ≤ replicas + maxSurge, ready ≥ replicas − maxUnavailable at every moment', async () => {
    await using h = await startHarness(cp.client, 'rolling', runFakeNode);
    const strategy = { type: 'RollingUpdate' as const, rollingUpdate: { maxSurge: 2, maxUnavailable: 1 } };
    await h.client.deployments().create(deployment(h.namespace, 'web', 6, { strategy }));
    await waitRolledOut(h, 'web');
    await eventually('6 ready pods', async () => (await activePods(h)).filter(isPodReady).length === 6);
    const watch = await watchPods(h.client, h.namespace);
    await setImage(h, 'web', 'nginx:2');
    await waitRolledOut(h, 'web');
    await eventually('only the 6 new pods, ready', async () => {
      const pods = await activePods(h);
      return pods.length === 6 && pods.every((p) => p.spec?.containers?.[0]?.image === 'nginx:2' && isPodReady(p));
    });
    const samples = await watch.stop();
    for (const s of samples) {
      assert.ok(s.active <= 8, `${s.active} active pods: more than replicas + maxSurge`);
      assert.ok(s.ready >= 5, `${s.ready} ready pods: fewer than replicas − maxUnavailable`);
    }
    assert.ok(samples.some((s) => s.hashes.length === 2), 'old and new pods ran side by side (a rolling update)');
    assert.ok(Math.max(...samples.map((s) => s.active)) > 6, 'the surge was used');
    const rss = await replicaSets(h);
    assert.deepEqual(rss.map((rs) => rs.spec?.replicas).sort(), [0, 6]);
    assert.equal((await getD(h, 'web')).metadata.annotations?.[REVISION_ANNOTATION], '2');
  });

  it('Recreate: every old pod is gone before the first new one exists', async () => {
    await using h = await startHarness(cp.client, 'recreate', runFakeNode);
    await h.client.deployments().create(deployment(h.namespace, 'web', 3, { strategy: { type: 'Recreate' } }));
    await waitRolledOut(h, 'web');
    const watch = await watchPods(h.client, h.namespace);
    await setImage(h, 'web', 'nginx:2');
    await waitRolledOut(h, 'web');
    await eventually('3 new pods', async () => {
      const pods = await activePods(h);
      return pods.length === 3 && pods.every((p) => p.spec?.containers?.[0]?.image === 'nginx:2');
    });
    const samples = await watch.stop();
    assert.ok(
      samples.every((s) => s.hashes.length <= 1),
      'never old and new pods at once',
    );
    assert.ok(samples.some((s) => s.active === 0), 'went through zero pods');
  });

  it('scales up and down without a new ReplicaSet; replicas annotations follow', async () => {
    await using h = await startHarness(cp.client, 'scale', runFakeNode);
    await h.client.deployments().create(deployment(h.namespace, 'web', 2));
    await waitRolledOut(h, 'web');
    for (const n of [5, 1]) {
      await h.client.deployments().patch('web', { spec: { replicas: n } }, { type: 'merge', namespace: h.namespace, subresource: 'scale' });
      await waitRolledOut(h, 'web');
      await eventually(`${n} pods`, async () => (await activePods(h)).length === n);
      const rss = await replicaSets(h);
      assert.equal(rss.length, 1);
      assert.equal(rss[0]!.metadata.annotations?.['deployment.kubernetes.io/desired-replicas'], String(n));
    }
  });

  it('paused: a template change waits (scaling does not), then resuming rolls it out', async () => {
    await using h = await startHarness(cp.client, 'paused', runFakeNode);
    await h.client.deployments().create(deployment(h.namespace, 'web', 2));
    await waitRolledOut(h, 'web');
    await patchD(h, 'web', { spec: { paused: true } });
    const changed = await setImage(h, 'web', 'nginx:2');
    const paused = await eventually('the change observed, paused', async () => {
      const d = await getD(h, 'web');
      return (d.status?.observedGeneration ?? 0) >= changed.metadata.generation! && condition(d, PROGRESSING)?.reason === Reasons.DeploymentPaused ? d : undefined;
    });
    assert.equal(condition(paused, PROGRESSING)?.status, 'Unknown');
    assert.equal((await replicaSets(h)).length, 1, 'no new ReplicaSet while paused');
    await patchD(h, 'web', { spec: { replicas: 4 } });
    await eventually('scaled to 4 while paused', async () => (await activePods(h)).length === 4 && (await replicaSets(h)).length === 1);
    await patchD(h, 'web', { spec: { paused: false } });
    await waitRolledOut(h, 'web');
    await eventually('4 new pods', async () => {
      const pods = await activePods(h);
      return pods.length === 4 && pods.every((p) => p.spec?.containers?.[0]?.image === 'nginx:2');
    });
  });

  it('revisionHistoryLimit: only that many old ReplicaSets are kept', async () => {
    await using h = await startHarness(cp.client, 'history', runFakeNode);
    await h.client.deployments().create(deployment(h.namespace, 'web', 1, { revisionHistoryLimit: 1 }));
    await waitRolledOut(h, 'web');
    for (const image of ['v2', 'v3', 'v4']) {
      await setImage(h, 'web', image);
      await waitRolledOut(h, 'web');
    }
    const rss = await eventually('2 ReplicaSets left', async () => {
      const rss = await replicaSets(h);
      return rss.length === 2 ? rss : undefined;
    });
    assert.deepEqual(rss.map((rs) => rs.metadata.annotations?.[REVISION_ANNOTATION]).sort(), ['3', '4']);
  });

  it('adopts an orphan ReplicaSet with its template (no new one made) and releases one it no longer selects', async () => {
    await using h = await startHarness(cp.client, 'adopt', runFakeNode);
    const want = deployment(h.namespace, 'web', 2);
    const orphan = await h.client.replicaSets().create({
      metadata: { name: 'legacy', namespace: h.namespace, labels: { app: 'web' } },
      spec: { replicas: 2, selector: { matchLabels: { app: 'web' } }, template: jsonClone(want.spec!.template!) },
    });
    await eventually('the orphan running 2 pods', async () => (await h.client.replicaSets().get('legacy', { namespace: h.namespace })).status?.availableReplicas === 2);
    const d = await h.client.deployments().create(want);
    await waitRolledOut(h, 'web');
    const rss = await replicaSets(h);
    assert.deepEqual(
      rss.map((rs) => rs.metadata.name),
      ['legacy'],
    );
    assert.equal(rss[0]!.metadata.uid, orphan.metadata.uid);
    assert.equal(rss[0]!.metadata.ownerReferences?.[0]?.uid, d.metadata.uid);
    // Its labels stop matching: released (and the Deployment makes a ReplicaSet of its own).
    await h.client.replicaSets().patch('legacy', { metadata: { labels: { app: 'gone' } } }, { type: 'merge', namespace: h.namespace });
    await eventually('released', async () => (await h.client.replicaSets().get('legacy', { namespace: h.namespace })).metadata.ownerReferences === undefined);
    await eventually('a ReplicaSet of its own', async () => (await replicaSets(h)).some((rs) => rs.metadata.name?.startsWith('web-')));
  });

  it('progressDeadlineSeconds: pods that never become ready make Progressing False, ProgressDeadlineExceeded', async () => {
    await using h = await startHarness(cp.client, 'deadline', runFakeNode, { ready: (pod) => pod.spec?.containers?.[0]?.image !== 'broken' });
    await h.client.deployments().create(deployment(h.namespace, 'web', 2, { progressDeadlineSeconds: 1 }));
    await waitRolledOut(h, 'web');
    await setImage(h, 'web', 'broken');
    const d = await eventually(
      'the deadline exceeded',
      async () => {
        const d = await getD(h, 'web');
        return condition(d, PROGRESSING)?.reason === Reasons.ProgressDeadlineExceeded ? d : undefined;
      },
      10_000,
    );
    assert.equal(condition(d, PROGRESSING)?.status, 'False');
    assert.equal(condition(d, AVAILABLE)?.status, 'True', 'the old pods keep it available');
  });
});
