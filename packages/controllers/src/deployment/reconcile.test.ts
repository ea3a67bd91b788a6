import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { jsonClone, type ReplicaSet } from '@setpoint/api';
import { AVAILABLE, PROGRESSING, Reasons, getCondition } from './conditions.js';
import { FakeCluster, makeDeployment } from './fakecluster.test-support.js';
import { computePodTemplateHash } from './hash.js';
import { CHANGE_CAUSE_ANNOTATION, DESIRED_REPLICAS_ANNOTATION, MAX_REPLICAS_ANNOTATION, POD_TEMPLATE_HASH_LABEL, REVISION_ANNOTATION, REVISION_HISTORY_ANNOTATION } from './replicasets.js';

/** Settles and syncs until a sync writes nothing. */
async function converge(c: FakeCluster, name = 'web', ready?: Parameters<FakeCluster['settle']>[0]): Promise<void> {
  for (let i = 0; i < 40; i++) {
    const before = c.log.length;
    c.settle(ready);
    await c.sync(name);
    if (c.log.length === before) return;
  }
  throw new Error('did not converge');
}

const setImage = (c: FakeCluster, image: string, name = 'web') => c.editDeployment(name, (d) => (d.spec!.template!.spec!.containers![0]!.image = image));
const byImage = (c: FakeCluster, image: string): ReplicaSet | undefined => c.rsList().find((rs) => rs.spec?.template?.spec?.containers?.[0]?.image === image);

describe('reconcileDeployment', () => {
  it('creates one ReplicaSet named by the template hash, labelled, owned and annotated, and reports the Deployment Available', async () => {
    const c = new FakeCluster();
    const d = c.putDeployment(makeDeployment('web', { replicas: 3 }));
    await c.sync('web');
    const hash = computePodTemplateHash(d.spec!.template);
    const [rs, ...rest] = c.rsList();
    assert.equal(rest.length, 0);
    assert.equal(rs!.metadata.name, `web-${hash}`);
    assert.deepEqual(rs!.metadata.labels, { app: 'web', [POD_TEMPLATE_HASH_LABEL]: hash });
    assert.deepEqual(rs!.spec!.selector, { matchLabels: { app: 'web', [POD_TEMPLATE_HASH_LABEL]: hash } });
    assert.deepEqual(rs!.spec!.template!.metadata!.labels, { app: 'web', [POD_TEMPLATE_HASH_LABEL]: hash });
    assert.deepEqual(rs!.metadata.ownerReferences, [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: 'uid-web', controller: true, blockOwnerDeletion: true }]);
    assert.equal(rs!.spec!.replicas, 3);
    assert.deepEqual(rs!.metadata.annotations, { [REVISION_ANNOTATION]: '1', [DESIRED_REPLICAS_ANNOTATION]: '3', [MAX_REPLICAS_ANNOTATION]: '4' });
    assert.equal(c.deployment('web').metadata.annotations?.[REVISION_ANNOTATION], '1');
    assert.equal(getCondition(c.deployment('web').status, PROGRESSING)?.reason, Reasons.NewReplicaSetCreated);
    assert.deepEqual(c.events[0], { type: 'Normal', reason: 'ScalingReplicaSet', message: `Scaled up replica set web-${hash} to 3` });

    await converge(c);
    const status = c.deployment('web').status!;
    assert.deepEqual(
      [status.observedGeneration, status.replicas, status.updatedReplicas, status.readyReplicas, status.availableReplicas, status.unavailableReplicas],
      [1, 3, 3, 3, 3, undefined],
    );
    assert.equal(getCondition(status, AVAILABLE)?.reason, Reasons.MinimumReplicasAvailable);
    assert.equal(getCondition(status, PROGRESSING)?.reason, Reasons.NewReplicaSetAvailable);
  });

  it('is idempotent: a settled Deployment syncs without a single write', async () => {
    const c = new FakeCluster();
    c.putDeployment(makeDeployment('web'));
    await converge(c);
    const before = [...c.log];
    for (let i = 0; i < 3; i++) assert.equal(await c.sync('web'), undefined);
    assert.deepEqual(c.log, before);
  });

  it('revisions: max of old + 1 on the new ReplicaSet, the Deployment carries it, change-cause is copied; a rollback re-numbers the old one', async () => {
    const c = new FakeCluster();
    c.putDeployment(makeDeployment('web', { annotations: { [CHANGE_CAUSE_ANNOTATION]: 'v1' } }));
    await converge(c);
    c.editDeployment('web', (d) => {
      d.spec!.template!.spec!.containers![0]!.image = 'nginx:2';
      d.metadata.annotations = { ...d.metadata.annotations, [CHANGE_CAUSE_ANNOTATION]: 'v2' };
    });
    await converge(c);
    const v1 = byImage(c, 'nginx:1')!;
    const v2 = byImage(c, 'nginx:2')!;
    assert.deepEqual([v1.metadata.annotations?.[REVISION_ANNOTATION], v1.metadata.annotations?.[CHANGE_CAUSE_ANNOTATION], v1.spec?.replicas], ['1', 'v1', 0]);
    assert.deepEqual([v2.metadata.annotations?.[REVISION_ANNOTATION], v2.metadata.annotations?.[CHANGE_CAUSE_ANNOTATION], v2.spec?.replicas], ['2', 'v2', 3]);
    assert.equal(c.deployment('web').metadata.annotations?.[REVISION_ANNOTATION], '2');

    setImage(c, 'nginx:1'); // what `kubectl rollout undo` does: the old template back
    await converge(c);
    const back = byImage(c, 'nginx:1')!;
    assert.equal(back.metadata.name, v1.metadata.name, 'the old ReplicaSet is reused, not a new one made');
    assert.equal(back.metadata.annotations?.[REVISION_ANNOTATION], '3');
    assert.equal(back.metadata.annotations?.[REVISION_HISTORY_ANNOTATION], '1');
    assert.equal(back.spec?.replicas, 3);
    assert.equal(c.deployment('web').metadata.annotations?.[REVISION_ANNOTATION], '3');
    assert.equal(c.rsList().length, 2);
  });

  it('revisionHistoryLimit: only that many old ReplicaSets stay, the oldest revisions go first', async () => {
    const c = new FakeCluster();
    c.putDeployment(makeDeployment('web', { revisionHistoryLimit: 2 }));
    await converge(c);
    for (const image of ['v2', 'v3', 'v4', 'v5']) {
      c.clock += 1000;
      setImage(c, image);
      await converge(c);
    }
    const revisions = c
      .rsList()
      .map((rs) => rs.metadata.annotations?.[REVISION_ANNOTATION])
      .sort();
    assert.deepEqual(revisions, ['3', '4', '5']);
    assert.equal(c.log.filter((l) => l.startsWith('delete')).length, 2);
  });

  it('a hash collision bumps collisionCount and the next sync creates the ReplicaSet under the new hash', async () => {
    const c = new FakeCluster();
    const d = c.putDeployment(makeDeployment('web'));
    const hash = computePodTemplateHash(d.spec!.template);
    // Someone else's ReplicaSet already has the name.
    await c.createReplicaSet({ metadata: { name: `web-${hash}`, namespace: 'default', labels: { other: 'x' } }, spec: { replicas: 0, selector: { matchLabels: { other: 'x' } }, template: { metadata: { labels: { other: 'x' } } } } });
    assert.deepEqual(await c.sync('web'), { requeue: true });
    assert.equal(c.deployment('web').status?.collisionCount, 1);
    await c.sync('web');
    const mine = c.rsList().find((rs) => rs.metadata.ownerReferences?.[0]?.name === 'web');
    assert.equal(mine?.metadata.name, `web-${computePodTemplateHash(d.spec!.template, 1)}`);
    await converge(c);
    assert.equal(c.deployment('web').status?.collisionCount, 1);
  });

  it('adopts an orphan ReplicaSet its selector matches, and releases one that no longer matches', async () => {
    const c = new FakeCluster();
    const d = c.putDeployment(makeDeployment('web'));
    const hash = computePodTemplateHash(d.spec!.template);
    const template = jsonClone(d.spec!.template!);
    template.metadata!.labels = { ...template.metadata!.labels, [POD_TEMPLATE_HASH_LABEL]: hash };
    await c.createReplicaSet({ metadata: { name: 'orphan', namespace: 'default', labels: { app: 'web' } }, spec: { replicas: 3, selector: { matchLabels: { app: 'web' } }, template } });
    await c.createReplicaSet({
      metadata: { name: 'stray', namespace: 'default', labels: { app: 'other' }, ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: 'uid-web', controller: true }] },
      spec: { replicas: 0, selector: { matchLabels: { app: 'other' } }, template: { metadata: { labels: { app: 'other' } } } },
    });
    c.settle();
    c.log.length = 0;
    await converge(c);
    assert.ok(c.log.includes('owners orphan [web]'));
    assert.ok(c.log.includes('owners stray []'));
    assert.ok(!c.log.some((l) => l.startsWith('create')), 'the adopted ReplicaSet is the new one: nothing created');
    assert.equal(c.deployment('web').status?.availableReplicas, 3);
  });

  it('paused: no rollout (no new ReplicaSet), but scaling applies; Progressing says DeploymentPaused, then resumes', async () => {
    const c = new FakeCluster();
    c.putDeployment(makeDeployment('web', { replicas: 3 }));
    await converge(c);
    c.editDeployment('web', (d) => (d.spec!.paused = true));
    setImage(c, 'nginx:2');
    c.editDeployment('web', (d) => (d.spec!.replicas = 5));
    await converge(c);
    assert.equal(c.rsList().length, 1, 'no new ReplicaSet while paused');
    assert.equal(c.rsList()[0]!.spec?.replicas, 5);
    assert.equal(getCondition(c.deployment('web').status, PROGRESSING)?.reason, Reasons.DeploymentPaused);
    assert.equal(getCondition(c.deployment('web').status, PROGRESSING)?.status, 'Unknown');
    c.editDeployment('web', (d) => (d.spec!.paused = false));
    await c.sync('web');
    assert.equal(getCondition(c.deployment('web').status, PROGRESSING)?.reason, Reasons.NewReplicaSetCreated);
    await converge(c);
    assert.equal(byImage(c, 'nginx:2')?.spec?.replicas, 5);
    assert.equal(getCondition(c.deployment('web').status, PROGRESSING)?.reason, Reasons.NewReplicaSetAvailable);
  });

  it('progressDeadlineSeconds: pods that never get ready time the rollout out, after asking to be looked at again', async () => {
    const c = new FakeCluster();
    c.putDeployment(makeDeployment('web', { replicas: 2, progressDeadlineSeconds: 10 }));
    await converge(c);
    setImage(c, 'broken');
    const ready = (rs: ReplicaSet) => (rs.spec?.template?.spec?.containers?.[0]?.image === 'broken' ? 0 : (rs.spec?.replicas ?? 0));
    await converge(c, 'web', ready);
    const result = await c.sync('web');
    assert.ok(result !== undefined && 'requeueAfterMs' in result && result.requeueAfterMs > 9000 && result.requeueAfterMs <= 11_000, JSON.stringify(result));
    c.clock += 12_000;
    assert.equal(await c.sync('web'), undefined);
    const condition = getCondition(c.deployment('web').status, PROGRESSING)!;
    assert.equal(condition.reason, Reasons.ProgressDeadlineExceeded);
    assert.equal(condition.status, 'False');
    assert.equal(getCondition(c.deployment('web').status, AVAILABLE)?.status, 'True', 'the old pods keep it available');
  });

  it('Recreate: old ReplicaSets to 0, no new one while old pods run, then the new one at full size', async () => {
    const c = new FakeCluster();
    c.putDeployment(makeDeployment('web', { replicas: 3, strategy: { type: 'Recreate' } }));
    await converge(c);
    setImage(c, 'nginx:2');
    c.log.length = 0;
    await c.sync('web');
    await c.sync('web'); // the old pods are still there: nothing more
    assert.deepEqual(
      c.log.filter((l) => !l.startsWith('status')),
      [`scale ${byImage(c, 'nginx:1')!.metadata.name} 3->0`],
    );
    c.settle();
    await c.sync('web');
    assert.equal(byImage(c, 'nginx:2')?.spec?.replicas, 3);
    await converge(c);
    assert.equal(c.deployment('web').status?.updatedReplicas, 3);
  });

  it('a Deployment being deleted only gets its status', async () => {
    const c = new FakeCluster();
    c.putDeployment(makeDeployment('web'));
    await converge(c);
    setImage(c, 'nginx:2');
    c.editDeployment('web', (d) => (d.metadata.deletionTimestamp = '2025-01-01T00:00:00Z'));
    c.log.length = 0;
    await c.sync('web');
    assert.deepEqual(c.log, ['status web']);
  });
});
