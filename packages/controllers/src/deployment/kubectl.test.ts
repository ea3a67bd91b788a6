/**
 * `kubectl rollout status | history | undo | restart` (and `kubectl scale`) against the control
 * plane, with the Deployment and ReplicaSet controllers running: they must work as against
 * Kubernetes. kubectl runs asynchronously (the API server is in this process).
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { startControlPlane, type ControlPlane } from '@setpoint/testing';
import { runFakeNode } from '../testing/node.js';
import { deployment, eventually, startHarness, waitRolledOut, type Harness } from './harness.test-support.js';
import { CHANGE_CAUSE_ANNOTATION, REVISION_ANNOTATION } from './replicasets.js';

const run = promisify(execFile);

let cp: ControlPlane;
let kubeconfig: string;
before(async () => {
  cp = await startControlPlane();
  kubeconfig = await cp.kubeconfig();
});
after(async () => {
  await cp.stop();
});

async function kubectl(h: Harness, ...args: string[]): Promise<string> {
  const { stdout } = await run('kubectl', ['--kubeconfig', kubeconfig, '-n', h.namespace, ...args], { timeout: 30_000 });
  return stdout;
}

const imageOf = async (h: Harness, name: string) => (await h.client.deployments().get(name, { namespace: h.namespace })).spec?.template?.spec?.containers?.[0]?.image;

/** Sets the image with a change-cause, as `kubectl set image` + `kubectl annotate` would. */
async function release(h: Harness, image: string, cause: string): Promise<void> {
  await kubectl(h, 'set', 'image', 'deployment/web', `main=${image}`);
  await kubectl(h, 'annotate', '--overwrite', 'deployment/web', `${CHANGE_CAUSE_ANNOTATION}=${cause}`);
  await waitRolledOut(h, 'web');
}

describe('kubectl rollout against the control plane', () => {
  it('rollout status waits for the rollout and reports success', async () => {
    await using h = await startHarness(cp.client, 'status', runFakeNode);
    await h.client.deployments().create(deployment(h.namespace, 'web', 3));
    const out = await kubectl(h, 'rollout', 'status', 'deployment/web', '--timeout=30s');
    assert.match(out, /deployment "web" successfully rolled out/);
    await kubectl(h, 'scale', 'deployment/web', '--replicas=5');
    assert.match(await kubectl(h, 'rollout', 'status', 'deployment/web', '--timeout=30s'), /successfully rolled out/);
    assert.equal((await h.client.deployments().get('web', { namespace: h.namespace })).status?.availableReplicas, 5);
  });

  it('rollout history lists the revisions with their change-cause; undo goes back; restart rolls the pods', async () => {
    await using h = await startHarness(cp.client, 'history', runFakeNode);
    await h.client.deployments().create({ ...deployment(h.namespace, 'web', 2), metadata: { name: 'web', namespace: h.namespace, annotations: { [CHANGE_CAUSE_ANNOTATION]: 'first' } } });
    await waitRolledOut(h, 'web');
    await release(h, 'nginx:2', 'second');
    await release(h, 'nginx:3', 'third');

    const history = await kubectl(h, 'rollout', 'history', 'deployment/web');
    assert.match(history, /REVISION\s+CHANGE-CAUSE/);
    assert.match(history, /^1\s+first$/m);
    assert.match(history, /^2\s+second$/m);
    assert.match(history, /^3\s+third$/m);
    assert.match(await kubectl(h, 'rollout', 'history', 'deployment/web', '--revision=2'), /Image:\s+nginx:2/);

    assert.match(await kubectl(h, 'rollout', 'undo', 'deployment/web'), /rolled back/);
    await eventually('the image of revision 2 back', async () => (await imageOf(h, 'web')) === 'nginx:2');
    await kubectl(h, 'rollout', 'status', 'deployment/web', '--timeout=30s');
    const afterUndo = await h.client.deployments().get('web', { namespace: h.namespace });
    assert.equal(afterUndo.metadata.annotations?.[REVISION_ANNOTATION], '4', 'revision 2 became revision 4');
    assert.match(await kubectl(h, 'rollout', 'history', 'deployment/web'), /^4\s+second$/m);

    await kubectl(h, 'rollout', 'undo', 'deployment/web', '--to-revision=1');
    await eventually('the image of revision 1 back', async () => (await imageOf(h, 'web')) === 'nginx:1');
    await kubectl(h, 'rollout', 'status', 'deployment/web', '--timeout=30s');

    const before = (await h.client.pods().list({ namespace: h.namespace })).items.map((p) => p.metadata.uid);
    assert.match(await kubectl(h, 'rollout', 'restart', 'deployment/web'), /restarted/);
    await eventually('a restart revision', async () => {
      const d = await h.client.deployments().get('web', { namespace: h.namespace });
      return d.spec?.template?.metadata?.annotations?.['kubectl.kubernetes.io/restartedAt'] !== undefined;
    });
    await kubectl(h, 'rollout', 'status', 'deployment/web', '--timeout=30s');
    const pods = await eventually('2 new pods', async () => {
      const pods = (await h.client.pods().list({ namespace: h.namespace })).items.filter((p) => p.metadata.deletionTimestamp === undefined);
      return pods.length === 2 && pods.every((p) => !before.includes(p.metadata.uid)) ? pods : undefined;
    });
    assert.ok(pods.every((p) => p.metadata.annotations?.['kubectl.kubernetes.io/restartedAt'] !== undefined));
  });
});
