/**
 * PUT over HTTP: optimistic concurrency, unconditional updates, no-op updates, generation, and the
 * status subresource split (nodes/status, namespaces/status).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { openWatch, startTestServer } from './harness.js';
import { CM, assertStatus, configMap, createConfigMap, node, ok } from './support.js';

const MODIFIED = 'the object has been modified; please apply your changes to the latest version and try again';

describe('update', () => {
  it('refuses a stale metadata.resourceVersion with 409 Conflict in Kubernetes words', async () => {
    await using srv = await startTestServer();
    const created = await createConfigMap(srv, 'a', { v: '1' });
    const updated = ok(await srv.request('PUT', `${CM}/a`, { ...created, data: { v: '2' } }));
    assert.ok(Number(updated.metadata.resourceVersion) > Number(created.metadata.resourceVersion));
    const body = assertStatus(
      await srv.request('PUT', `${CM}/a`, { ...created, data: { v: 'stale' } }),
      409,
      'Conflict',
      `Operation cannot be fulfilled on configmaps "a": ${MODIFIED}`,
    );
    assert.deepEqual({ name: body.details.name, kind: body.details.kind }, { name: 'a', kind: 'configmaps' });
    const got = ok(await srv.request('GET', `${CM}/a`));
    assert.deepEqual(got.data, { v: '2' });
    assert.equal(got.metadata.resourceVersion, updated.metadata.resourceVersion);
  });

  it('treats the body’s uid as a precondition: an object recreated under the same name is a 409', async () => {
    await using srv = await startTestServer();
    const old = await createConfigMap(srv, 'a', { v: '1' });
    ok(await srv.request('DELETE', `${CM}/a`));
    const recreated = await createConfigMap(srv, 'a', { v: 'new' });
    const stale = { ...old, metadata: { ...old.metadata, resourceVersion: '' }, data: { v: 'stale' } };
    assertStatus(
      await srv.request('PUT', `${CM}/a`, stale),
      409,
      'Conflict',
      `Operation cannot be fulfilled on configmaps "a": Precondition failed: UID in precondition: ${old.metadata.uid}, UID in object meta: ${recreated.metadata.uid}`,
    );
    assert.deepEqual(ok(await srv.request('GET', `${CM}/a`)).data, { v: 'new' });
    // The right uid is fine.
    ok(await srv.request('PUT', `${CM}/a`, { ...recreated, data: { v: 'newer' } }));
  });

  it('dryRun=All updates nothing', async () => {
    await using srv = await startTestServer();
    const created = await createConfigMap(srv, 'd', { v: '1' });
    const answered = ok(await srv.request('PUT', `${CM}/d?dryRun=All`, configMap('d', { v: '2' })));
    assert.deepEqual(answered.data, { v: '2' });
    const got = ok(await srv.request('GET', `${CM}/d`));
    assert.deepEqual(got.data, { v: '1' });
    assert.equal(got.metadata.resourceVersion, created.metadata.resourceVersion);
  });

  it('treats an empty or missing resourceVersion as an unconditional update', async () => {
    await using srv = await startTestServer();
    const created = await createConfigMap(srv, 'a', { v: '1' });
    const first = ok(await srv.request('PUT', `${CM}/a`, { metadata: { name: 'a', resourceVersion: '' }, data: { v: '2' } }));
    const second = ok(await srv.request('PUT', `${CM}/a`, { metadata: { name: 'a' }, data: { v: '3' } }));
    assert.deepEqual(second.data, { v: '3' });
    assert.ok(Number(first.metadata.resourceVersion) > Number(created.metadata.resourceVersion));
    assert.ok(Number(second.metadata.resourceVersion) > Number(first.metadata.resourceVersion));
    // uid and creationTimestamp are kept whatever the body says.
    assert.equal(second.metadata.uid, created.metadata.uid);
    assert.equal(second.metadata.creationTimestamp, created.metadata.creationTimestamp);
  });

  it('a no-op update keeps the resourceVersion and sends no watch event', async () => {
    await using srv = await startTestServer();
    const created = await createConfigMap(srv, 'same', { v: '1' }, { l: 'x' });
    const w = openWatch(srv.url, `${CM}?watch=true&resourceVersion=${created.metadata.resourceVersion}`);
    try {
      const again = ok(await srv.request('PUT', `${CM}/same`, created));
      assert.equal(again.metadata.resourceVersion, created.metadata.resourceVersion);
      // Without a resourceVersion, and with the keys in another order: still nothing changed.
      const reordered = ok(await srv.request('PUT', `${CM}/same`, { data: { v: '1' }, metadata: { labels: { l: 'x' }, name: 'same' } }));
      assert.equal(reordered.metadata.resourceVersion, created.metadata.resourceVersion);
      assert.equal(await srv.store.currentRevision(), Number(created.metadata.resourceVersion));
      ok(await srv.request('PUT', `${CM}/same`, configMap('same', { v: '2' }, { l: 'x' })));
      const event = await w.next();
      assert.equal(event.type, 'MODIFIED');
      assert.deepEqual(event.object.data, { v: '2' }, 'the first event is the real change');
    } finally {
      w.close();
    }
  });

  it('increments generation only when something outside metadata and status changes', async () => {
    await using srv = await startTestServer();
    const created = await createConfigMap(srv, 'g', { v: '1' });
    assert.equal(created.metadata.generation, 1);
    const labelled = ok(await srv.request('PUT', `${CM}/g`, configMap('g', { v: '1' }, { new: 'label' })));
    assert.equal(labelled.metadata.generation, 1, 'a label change does not move generation');
    const annotated = ok(await srv.request('PUT', `${CM}/g`, { ...configMap('g', { v: '1' }), metadata: { name: 'g', annotations: { a: 'b' } } }));
    assert.equal(annotated.metadata.generation, 1);
    const changed = ok(await srv.request('PUT', `${CM}/g`, configMap('g', { v: '2' })));
    assert.equal(changed.metadata.generation, 2, 'a data change does');
    const client = ok(await srv.request('PUT', `${CM}/g`, { ...configMap('g', { v: '2' }), metadata: { name: 'g', generation: 40 } }));
    assert.equal(client.metadata.generation, 2, 'the client cannot set generation');
    // Nodes: spec moves generation, status (through /status) does not.
    ok(await srv.request('POST', '/api/v1/nodes', node('n1')), 201);
    const spec = ok(await srv.request('PUT', '/api/v1/nodes/n1', node('n1', { spec: { unschedulable: true } })));
    assert.equal(spec.metadata.generation, 2);
    const status = ok(await srv.request('PUT', '/api/v1/nodes/n1/status', node('n1', { spec: { unschedulable: true }, status: { phase: 'Running' } })));
    assert.equal(status.metadata.generation, 2);
  });

  it('answers 404 for an object that does not exist', async () => {
    await using srv = await startTestServer();
    assertStatus(await srv.request('PUT', `${CM}/nope`, configMap('nope')), 404, 'NotFound', 'configmaps "nope" not found');
    assertStatus(await srv.request('GET', `${CM}/nope`), 404, 'NotFound');
  });

  it('nodes: the main resource ignores status; nodes/status changes only status', async () => {
    await using srv = await startTestServer();
    const created = ok(
      await srv.request('POST', '/api/v1/nodes', node('n1', { metadata: { name: 'n1', labels: { a: '1' } }, status: { capacity: { cpu: '4', pods: '110' } } })),
      201,
    );
    assert.deepEqual(created.status.capacity, { cpu: '4', pods: '110' }, 'status is accepted on create');
    assert.deepEqual(created.status.allocatable, { cpu: '4', pods: '110' }, 'allocatable defaults to capacity');

    const main = ok(
      await srv.request('PUT', '/api/v1/nodes/n1', { ...created, metadata: { ...created.metadata, labels: { a: '2' } }, spec: { unschedulable: true }, status: { capacity: { cpu: '1' } } }),
    );
    assert.equal(main.spec.unschedulable, true);
    assert.equal(main.metadata.labels.a, '2');
    assert.deepEqual(main.status, created.status, 'the main resource ignores status');

    const viaStatus = ok(
      await srv.request('PUT', '/api/v1/nodes/n1/status', {
        ...main,
        metadata: { ...main.metadata, labels: { a: '3' } },
        spec: { unschedulable: false },
        status: { capacity: { cpu: '8' }, allocatable: { cpu: '7' } },
      }),
    );
    assert.deepEqual(viaStatus.status, { capacity: { cpu: '8' }, allocatable: { cpu: '7' } });
    assert.equal(viaStatus.spec.unschedulable, true, '/status leaves spec alone');
    assert.equal(viaStatus.metadata.labels.a, '2', '/status leaves labels alone');
    assert.ok(Number(viaStatus.metadata.resourceVersion) > Number(main.metadata.resourceVersion));

    const got = ok(await srv.request('GET', '/api/v1/nodes/n1/status'));
    assert.equal(got.kind, 'Node');
    assert.deepEqual(got.status, viaStatus.status);
    // The status subresource checks resourceVersion too.
    assertStatus(await srv.request('PUT', '/api/v1/nodes/n1/status', main), 409, 'Conflict', `Operation cannot be fulfilled on nodes "n1": ${MODIFIED}`);
    // A merge patch of /status.
    const patched = ok(await srv.request('PATCH', '/api/v1/nodes/n1/status', { spec: { unschedulable: false }, status: { capacity: { cpu: '16' } } }, { 'content-type': 'application/merge-patch+json' }));
    assert.equal(patched.status.capacity.cpu, '16');
    assert.equal(patched.spec.unschedulable, true);
  });

  it('namespaces: the main resource ignores status; namespaces/status changes it under validation', async () => {
    await using srv = await startTestServer();
    const ns = ok(await srv.request('POST', '/api/v1/namespaces', { metadata: { name: 'team' } }), 201);
    const main = ok(await srv.request('PUT', '/api/v1/namespaces/team', { ...ns, metadata: { ...ns.metadata, labels: { x: 'y' } }, status: { phase: 'Terminating' } }));
    assert.equal(main.status.phase, 'Active');
    assert.equal(main.metadata.labels.x, 'y');
    assert.equal(main.metadata.labels['kubernetes.io/metadata.name'], 'team');
    const body = assertStatus(
      await srv.request('PUT', '/api/v1/namespaces/team/status', { ...main, status: { phase: 'Terminating' } }),
      422,
      'Invalid',
      `Namespace "team" is invalid: status.Phase: Invalid value: "Terminating": may only be 'Active' if \`deletionTimestamp\` is empty`,
    );
    assert.equal(body.details.causes[0].field, 'status.Phase');
    assert.equal(ok(await srv.request('GET', '/api/v1/namespaces/team')).status.phase, 'Active');
    const withConditions = ok(
      await srv.request('PUT', '/api/v1/namespaces/team/status', {
        ...main,
        status: { phase: 'Active', conditions: [{ type: 'NamespaceDeletionDiscoveryFailure', status: 'False', reason: 'ResourcesDiscovered', message: 'ok' }] },
      }),
    );
    assert.equal(withConditions.status.conditions[0].type, 'NamespaceDeletionDiscoveryFailure');
    assert.deepEqual(withConditions.metadata.labels, main.metadata.labels);
  });

  it('refuses verbs a subresource does not take, and subresources a kind does not have', async () => {
    await using srv = await startTestServer();
    await createConfigMap(srv, 'a');
    assertStatus(await srv.request('GET', `${CM}/a/status`), 404, 'NotFound');
    ok(await srv.request('POST', '/api/v1/nodes', node('n1')), 201);
    assertStatus(await srv.request('DELETE', '/api/v1/nodes/n1/status'), 405, 'MethodNotAllowed');
    ok(await srv.request('GET', '/api/v1/nodes/n1'));
  });
});
