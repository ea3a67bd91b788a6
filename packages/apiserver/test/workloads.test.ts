/**
 * Pods and deployments over HTTP: pods/binding, graceful deletion of a bound pod, the pod status
 * subresource; the deployment scale subresource, status ignored on the main resource, generation.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '@setpoint/api';
import { openWatch, startTestServer, type TestServer } from './harness.js';
import { assertStatus, ok } from './support.js';

const PODS = '/api/v1/namespaces/default/pods';
const DEPLOYS = '/apis/apps/v1/namespaces/default/deployments';
const MERGE = { 'content-type': 'application/merge-patch+json' };

function pod(name: string, extra: Record<string, unknown> = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers: [{ name: 'app', image: 'busybox' }], ...extra } };
}

function deployment(name: string, replicas = 2): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'app', image: 'busybox' }] } },
    },
  };
}

function binding(podName: string, nodeName: string): KubeObject {
  return { apiVersion: 'v1', kind: 'Binding', metadata: { name: podName }, target: { apiVersion: 'v1', kind: 'Node', name: nodeName } };
}

async function createPod(srv: TestServer, name: string, extra: Record<string, unknown> = {}) {
  return ok(await srv.request('POST', PODS, pod(name, extra)), 201);
}

describe('pods', () => {
  it('a new pod is Pending and unbound', async () => {
    await using srv = await startTestServer();
    const created = await createPod(srv, 'p');
    assert.equal(created.status.phase, 'Pending');
    assert.equal(created.spec.nodeName, undefined);
    assert.equal(created.spec.terminationGracePeriodSeconds, 30, 'defaulted');
  });

  it('pods/binding assigns a node once: 201 Success, then 409 Conflict', async () => {
    await using srv = await startTestServer();
    const created = await createPod(srv, 'p');
    const w = openWatch(srv.url, `${PODS}?watch=true&resourceVersion=${created.metadata.resourceVersion}`);
    try {
      const res = await srv.request('POST', `${PODS}/p/binding`, binding('p', 'n1'));
      const status = ok(res, 201);
      assert.equal(status.kind, 'Status');
      assert.equal(status.status, 'Success');
      const bound = ok(await srv.request('GET', `${PODS}/p`));
      assert.equal(bound.spec.nodeName, 'n1');
      const scheduled = bound.status.conditions.find((c: { type: string }) => c.type === 'PodScheduled');
      assert.equal(scheduled.status, 'True');
      const event = await w.next();
      assert.equal(event.type, 'MODIFIED');
      assert.equal(event.object.spec.nodeName, 'n1');
      assertStatus(
        await srv.request('POST', `${PODS}/p/binding`, binding('p', 'n2')),
        409,
        'Conflict',
        'Operation cannot be fulfilled on pods/binding "p": pod p is already assigned to node "n1"',
      );
      assert.equal(ok(await srv.request('GET', `${PODS}/p`)).spec.nodeName, 'n1');
    } finally {
      w.close();
    }
  });

  it('pods/binding validates its target and carries its annotations to the pod', async () => {
    await using srv = await startTestServer();
    await createPod(srv, 'p');
    const invalid = assertStatus(await srv.request('POST', `${PODS}/p/binding`, { metadata: { name: 'p' }, target: { kind: 'Node' } }), 422, 'Invalid');
    assert.equal(invalid.details.causes[0].field, 'target.name');
    assertStatus(await srv.request('POST', `${PODS}/missing/binding`, binding('missing', 'n1')), 404, 'NotFound', 'pods "missing" not found');
    assert.equal(ok(await srv.request('GET', `${PODS}/p`)).spec.nodeName, undefined);
    ok(await srv.request('POST', `${PODS}/p/binding`, { ...binding('p', 'n1'), metadata: { name: 'p', annotations: { 'scheduler.example.com/score': '7' } } }), 201);
    assert.equal(ok(await srv.request('GET', `${PODS}/p`)).metadata.annotations['scheduler.example.com/score'], '7');
  });

  it('deleting a bound pod is graceful: deletionTimestamp and grace period first, removal with gracePeriodSeconds=0', async () => {
    await using srv = await startTestServer();
    await createPod(srv, 'p', { terminationGracePeriodSeconds: 20 });
    ok(await srv.request('POST', `${PODS}/p/binding`, binding('p', 'n1')), 201);
    const bound = ok(await srv.request('GET', `${PODS}/p`));
    const w = openWatch(srv.url, `${PODS}?watch=true&resourceVersion=${bound.metadata.resourceVersion}`);
    try {
      const before = Date.now();
      const pending = ok(await srv.request('DELETE', `${PODS}/p`));
      assert.equal(pending.kind, 'Pod', 'a pod delete answers the pod');
      assert.equal(pending.metadata.deletionGracePeriodSeconds, 20);
      const due = Date.parse(pending.metadata.deletionTimestamp);
      assert.ok(due >= Math.floor(before / 1000) * 1000 + 19_000 && due <= before + 21_000, 'deletionTimestamp is now + the grace period');
      const modified = await w.next();
      assert.equal(modified.type, 'MODIFIED');
      assert.equal(modified.object.metadata.deletionTimestamp, pending.metadata.deletionTimestamp);
      ok(await srv.request('GET', `${PODS}/p`));
      // The node agent confirms with a zero grace period.
      ok(await srv.request('DELETE', `${PODS}/p`, { gracePeriodSeconds: 0 }));
      const deleted = await w.next();
      assert.equal(deleted.type, 'DELETED');
      assertStatus(await srv.request('GET', `${PODS}/p`), 404, 'NotFound');
    } finally {
      w.close();
    }
  });

  it('deleting an unbound pod removes it at once; a shorter grace period wins; a deleting pod cannot be bound', async () => {
    await using srv = await startTestServer();
    await createPod(srv, 'unbound');
    const gone = ok(await srv.request('DELETE', `${PODS}/unbound`));
    assert.equal(gone.metadata.name, 'unbound');
    assertStatus(await srv.request('GET', `${PODS}/unbound`), 404, 'NotFound');
    // A shorter grace period replaces a longer one.
    await createPod(srv, 'b');
    ok(await srv.request('POST', `${PODS}/b/binding`, binding('b', 'n1')), 201);
    const first = ok(await srv.request('DELETE', `${PODS}/b`));
    assert.equal(first.metadata.deletionGracePeriodSeconds, 30);
    const shorter = ok(await srv.request('DELETE', `${PODS}/b?gracePeriodSeconds=5`));
    assert.equal(shorter.metadata.deletionGracePeriodSeconds, 5);
    assert.ok(Date.parse(shorter.metadata.deletionTimestamp) < Date.parse(first.metadata.deletionTimestamp));
    assertStatus(
      await srv.request('POST', `${PODS}/b/binding`, binding('b', 'n2')),
      409,
      'Conflict',
      'Operation cannot be fulfilled on pods/binding "b": pod b is being deleted, cannot be assigned to a host',
    );
  });

  it('pods/status: the main resource ignores status; /status changes only status', async () => {
    await using srv = await startTestServer();
    const created = await createPod(srv, 'p');
    const main = ok(await srv.request('PUT', `${PODS}/p`, { ...created, metadata: { ...created.metadata, labels: { a: 'b' } }, status: { phase: 'Running' } }));
    assert.equal(main.status.phase, 'Pending');
    assert.equal(main.metadata.labels.a, 'b');
    const running = ok(
      await srv.request('PUT', `${PODS}/p/status`, {
        ...main,
        metadata: { ...main.metadata, labels: { a: 'changed' } },
        status: { ...main.status, phase: 'Running', podIP: '10.0.0.5', podIPs: [{ ip: '10.0.0.5' }] },
      }),
    );
    assert.equal(running.status.phase, 'Running');
    assert.equal(running.metadata.labels.a, 'b');
    assert.equal(running.metadata.generation, main.metadata.generation);
    const patched = ok(await srv.request('PATCH', `${PODS}/p/status`, { status: { phase: 'Succeeded' }, spec: { activeDeadlineSeconds: 5 } }, MERGE));
    assert.equal(patched.status.phase, 'Succeeded');
    assert.equal(patched.spec.activeDeadlineSeconds, undefined);
    // Field selectors on status.phase see it.
    const list = ok(await srv.request('GET', `${PODS}?fieldSelector=status.phase%3DSucceeded`));
    assert.deepEqual(
      list.items.map((i: KubeObject) => i.metadata.name),
      ['p'],
    );
  });
});

describe('deployments', () => {
  it('ignores status on the main resource and moves generation only with the spec', async () => {
    await using srv = await startTestServer();
    const created = ok(await srv.request('POST', DEPLOYS, { ...deployment('web'), status: { replicas: 9 } }), 201);
    assert.equal(created.apiVersion, 'apps/v1');
    assert.equal(created.metadata.generation, 1);
    assert.deepEqual(created.status, {}, 'a new deployment starts with an empty status');
    const relabelled = ok(await srv.request('PUT', `${DEPLOYS}/web`, { ...created, metadata: { ...created.metadata, labels: { team: 'a' } }, status: { replicas: 5 } }));
    assert.equal(relabelled.metadata.generation, 1);
    assert.deepEqual(relabelled.status, {});
    const scaled = ok(await srv.request('PATCH', `${DEPLOYS}/web`, { spec: { replicas: 4 } }, MERGE));
    assert.equal(scaled.metadata.generation, 2);
    const viaStatus = ok(await srv.request('PUT', `${DEPLOYS}/web/status`, { ...scaled, spec: { ...scaled.spec, replicas: 1 }, status: { replicas: 4, observedGeneration: 2 } }));
    assert.deepEqual(viaStatus.status, { replicas: 4, observedGeneration: 2 });
    assert.equal(viaStatus.spec.replicas, 4, '/status leaves spec alone');
    assert.equal(viaStatus.metadata.generation, 2, 'a status change does not move generation');
  });

  it('serves the scale subresource: GET, PUT and PATCH of spec.replicas', async () => {
    await using srv = await startTestServer();
    ok(await srv.request('POST', DEPLOYS, deployment('web', 2)), 201);
    const scale = ok(await srv.request('GET', `${DEPLOYS}/web/scale`));
    assert.equal(scale.kind, 'Scale');
    assert.equal(scale.apiVersion, 'autoscaling/v1');
    assert.equal(scale.metadata.name, 'web');
    assert.equal(scale.spec.replicas, 2);
    assert.equal(scale.status.selector, 'app=web');

    const put = ok(await srv.request('PUT', `${DEPLOYS}/web/scale`, { ...scale, spec: { replicas: 5 } }));
    assert.equal(put.spec.replicas, 5);
    const afterPut = ok(await srv.request('GET', `${DEPLOYS}/web`));
    assert.equal(afterPut.spec.replicas, 5);
    assert.equal(afterPut.metadata.generation, 2);
    assert.equal(afterPut.metadata.resourceVersion, put.metadata.resourceVersion);

    const patched = ok(await srv.request('PATCH', `${DEPLOYS}/web/scale`, { spec: { replicas: 3 } }, MERGE));
    assert.equal(patched.spec.replicas, 3);
    assert.equal(ok(await srv.request('GET', `${DEPLOYS}/web`)).spec.replicas, 3);

    // A stale resourceVersion on the Scale: 409; a negative count: 422.
    assertStatus(await srv.request('PUT', `${DEPLOYS}/web/scale`, { ...scale, spec: { replicas: 7 } }), 409, 'Conflict');
    const invalid = assertStatus(await srv.request('PUT', `${DEPLOYS}/web/scale`, { spec: { replicas: -1 } }), 422, 'Invalid');
    assert.equal(invalid.details.causes[0].field, 'spec.replicas');
    assert.equal(ok(await srv.request('GET', `${DEPLOYS}/web`)).spec.replicas, 3);
    assertStatus(await srv.request('GET', `${DEPLOYS}/missing/scale`), 404, 'NotFound', 'deployments.apps "missing" not found');
  });

  it('lists apps/v1 in discovery with the scale subresource', async () => {
    await using srv = await startTestServer();
    const list = ok(await srv.request('GET', '/apis/apps/v1'));
    const byName = new Map<string, { kind: string; group?: string; version?: string }>(list.resources.map((r: { name: string }) => [r.name, r]));
    assert.equal(byName.get('deployments')?.kind, 'Deployment');
    assert.deepEqual([byName.get('deployments/scale')?.kind, byName.get('deployments/scale')?.group, byName.get('deployments/scale')?.version], ['Scale', 'autoscaling', 'v1']);
    assert.equal(byName.get('deployments/status')?.kind, 'Deployment');
    assert.equal(ok(await srv.request('GET', '/api/v1')).resources.find((r: { name: string }) => r.name === 'pods/binding')?.kind, 'Binding');
  });
});
