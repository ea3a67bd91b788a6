/**
 * POST and GET over HTTP: what the server fills in on create, generateName, duplicates, dryRun,
 * field validation, and namespace lifecycle (missing and terminating namespaces).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { startTestServer } from './harness.js';
import { CM, assertStatus, configMap, createConfigMap, names, ok } from './support.js';

describe('create', () => {
  it('answers 201 with uid, creationTimestamp, generation 1, resourceVersion and the namespace from the URL', async () => {
    await using srv = await startTestServer();
    const before = Date.now();
    const res = await srv.request('POST', CM, { metadata: { name: 'plain' }, data: { k: 'v' } });
    const created = ok(res, 201);
    // A body without apiVersion and kind (typed client-node calls) is accepted and typed by the server.
    assert.equal(created.apiVersion, 'v1');
    assert.equal(created.kind, 'ConfigMap');
    assert.equal(created.metadata.namespace, 'default');
    assert.match(created.metadata.uid, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    assert.match(created.metadata.creationTimestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    assert.ok(Date.parse(created.metadata.creationTimestamp) >= Math.floor(before / 1000) * 1000);
    assert.equal(created.metadata.generation, 1);
    assert.match(created.metadata.resourceVersion, /^[1-9]\d*$/);
    assert.deepEqual(created.data, { k: 'v' });

    const got = ok(await srv.request('GET', `${CM}/plain`));
    assert.deepEqual(got, created, 'GET returns the object exactly as the create answered it');
  });

  it('ignores server-owned fields sent by the client', async () => {
    await using srv = await startTestServer();
    const created = ok(
      await srv.request('POST', CM, {
        metadata: { name: 'owned', uid: 'client-uid', resourceVersion: '999', generation: 7, creationTimestamp: '2001-01-01T00:00:00Z', deletionTimestamp: '2001-01-01T00:00:00Z' },
      }),
      201,
    );
    assert.notEqual(created.metadata.uid, 'client-uid');
    assert.notEqual(created.metadata.resourceVersion, '999');
    assert.equal(created.metadata.generation, 1);
    assert.notEqual(created.metadata.creationTimestamp, '2001-01-01T00:00:00Z');
    assert.equal(created.metadata.deletionTimestamp, undefined);
  });

  it('accepts timestamps with fractional seconds in the body', async () => {
    await using srv = await startTestServer();
    ok(await srv.request('POST', CM, { metadata: { name: 'frac', creationTimestamp: '2024-05-01T10:00:09.000Z' } }), 201);
  });

  it('generates a name from generateName', async () => {
    await using srv = await startTestServer();
    const a = ok(await srv.request('POST', CM, { metadata: { generateName: 'gen-' } }), 201);
    const b = ok(await srv.request('POST', CM, { metadata: { generateName: 'gen-' } }), 201);
    assert.match(a.metadata.name, /^gen-[a-z0-9]{5}$/);
    assert.equal(a.metadata.generateName, 'gen-');
    assert.notEqual(a.metadata.name, b.metadata.name);
    ok(await srv.request('GET', `${CM}/${a.metadata.name}`));
  });

  it('refuses a duplicate with 409 AlreadyExists in Kubernetes words', async () => {
    await using srv = await startTestServer();
    const first = await createConfigMap(srv, 'dup', { a: '1' });
    const body = assertStatus(await srv.request('POST', CM, configMap('dup', { a: '2' })), 409, 'AlreadyExists', 'configmaps "dup" already exists');
    assert.equal(body.details.name, 'dup');
    assert.equal(body.details.kind, 'configmaps');
    const got = ok(await srv.request('GET', `${CM}/dup`));
    assert.deepEqual(got.data, { a: '1' });
    assert.equal(got.metadata.resourceVersion, first.metadata.resourceVersion);
  });

  it('persists nothing with dryRun=All', async () => {
    await using srv = await startTestServer();
    const rv = ok(await srv.request('GET', CM)).metadata.resourceVersion;
    const res = await srv.request('POST', `${CM}?dryRun=All`, configMap('dry', { k: 'v' }));
    const answered = ok(res, 201);
    assert.equal(answered.metadata.name, 'dry');
    assert.equal(answered.metadata.generation, 1);
    assertStatus(await srv.request('GET', `${CM}/dry`), 404, 'NotFound', 'configmaps "dry" not found');
    const list = ok(await srv.request('GET', CM));
    assert.deepEqual(list.items, []);
    assert.equal(list.metadata.resourceVersion, rv, 'no revision was written');
    assertStatus(
      await srv.request('POST', `${CM}?dryRun=Some`, configMap('dry')),
      422,
      'Invalid',
      'CreateOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: []string{"Some"}: supported values: "All"',
    );
  });

  it('fieldValidation=Strict refuses an unknown field with a strict decoding error', async () => {
    await using srv = await startTestServer();
    const body = { ...configMap('strict'), spec: { x: 1 } };
    const status = assertStatus(
      await srv.request('POST', `${CM}?fieldValidation=Strict`, body),
      400,
      'BadRequest',
      'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "spec"',
    );
    assert.match(status.message, /strict decoding error: unknown field "spec"/);
    assertStatus(await srv.request('GET', `${CM}/strict`), 404, 'NotFound');
    // Nested unknown fields are named by their path.
    assertStatus(
      await srv.request('POST', `${CM}?fieldValidation=Strict`, { ...configMap('nested'), metadata: { name: 'nested', bogus: 'x' } }),
      400,
      'BadRequest',
      /strict decoding error: unknown field "metadata\.bogus"/,
    );
  });

  it('fieldValidation=Warn creates the object, keeps the field as sent and says so in a Warning header', async () => {
    await using srv = await startTestServer();
    const res = await srv.request('POST', `${CM}?fieldValidation=Warn`, { ...configMap('warn', { k: 'v' }), spec: { x: 1 } });
    const created = ok(res, 201);
    assert.equal(res.headers.warning, '299 - "unknown field \\"spec\\""');
    assert.deepEqual(created.spec, { x: 1 }, 'unknown fields are kept as sent');
    assert.deepEqual(ok(await srv.request('GET', `${CM}/warn`)).spec, { x: 1 });
    // Warn is the default when the client does not say.
    const res2 = await srv.request('POST', CM, { ...configMap('warn2'), spec: { x: 1 } });
    ok(res2, 201);
    assert.equal(res2.headers.warning, '299 - "unknown field \\"spec\\""');
  });

  it('fieldValidation=Ignore creates the object without a warning', async () => {
    await using srv = await startTestServer();
    const res = await srv.request('POST', `${CM}?fieldValidation=Ignore`, { ...configMap('ignore'), spec: { x: 1 } });
    const created = ok(res, 201);
    assert.equal(res.headers.warning, undefined);
    assert.deepEqual(created.spec, { x: 1 }, 'unknown fields are kept as sent');
  });

  it('refuses an unsupported fieldValidation value', async () => {
    await using srv = await startTestServer();
    assertStatus(
      await srv.request('POST', `${CM}?fieldValidation=Loose`, configMap('x')),
      422,
      'Invalid',
      'CreateOptions.meta.k8s.io "" is invalid: fieldValidation: Unsupported value: "Loose": supported values: "", "Ignore", "Strict", "Warn"',
    );
    assertStatus(await srv.request('GET', `${CM}/x`), 404, 'NotFound');
  });

  it('answers 404 for a namespace that does not exist', async () => {
    await using srv = await startTestServer();
    const body = assertStatus(await srv.request('POST', '/api/v1/namespaces/nowhere/configmaps', configMap('c')), 404, 'NotFound', 'namespaces "nowhere" not found');
    assert.equal(body.details.kind, 'namespaces');
    assert.equal(body.details.name, 'nowhere');
    assert.deepEqual(ok(await srv.request('GET', '/api/v1/configmaps')).items, []);
  });

  it('refuses new content in a terminating namespace with 403 Forbidden', async () => {
    await using srv = await startTestServer();
    ok(await srv.request('POST', '/api/v1/namespaces', { metadata: { name: 'doomed' } }), 201);
    await createConfigMap(srv, 'before', {}, undefined, 'doomed');
    const deleting = ok(await srv.request('DELETE', '/api/v1/namespaces/doomed'));
    assert.ok(deleting.metadata.deletionTimestamp, 'the namespace is being deleted');
    assert.equal(deleting.status.phase, 'Terminating');
    // The namespace stays (its "kubernetes" finalizer waits for the namespace controller).
    assert.equal(ok(await srv.request('GET', '/api/v1/namespaces/doomed')).status.phase, 'Terminating');
    const body = assertStatus(
      await srv.request('POST', '/api/v1/namespaces/doomed/configmaps', configMap('after')),
      403,
      'Forbidden',
      'configmaps "after" is forbidden: unable to create new content in namespace doomed because it is being terminated',
    );
    assert.equal(body.details.kind, 'configmaps');
    assert.deepEqual(names(ok(await srv.request('GET', '/api/v1/namespaces/doomed/configmaps'))), ['before']);
    // Updates of existing content are still allowed.
    ok(await srv.request('PUT', '/api/v1/namespaces/doomed/configmaps/before', configMap('before', { k: 'v' })));
  });

  it('starts with default, kube-system, kube-public and kube-node-lease', async () => {
    await using srv = await startTestServer();
    for (const name of ['default', 'kube-system', 'kube-public', 'kube-node-lease']) {
      const ns = ok(await srv.request('GET', `/api/v1/namespaces/${name}`));
      assert.equal(ns.kind, 'Namespace');
      assert.equal(ns.status.phase, 'Active');
      assert.equal(ns.metadata.labels['kubernetes.io/metadata.name'], name);
      assert.deepEqual(ns.spec.finalizers, ['kubernetes']);
    }
  });

  it('creates cluster-scoped objects without a namespace', async () => {
    await using srv = await startTestServer();
    const created = ok(await srv.request('POST', '/api/v1/nodes', { metadata: { name: 'n1', namespace: 'ignored' } }), 201);
    assert.equal(created.metadata.namespace, undefined);
    assert.equal(created.kind, 'Node');
    ok(await srv.request('GET', '/api/v1/nodes/n1'));
    // A namespaced path for a cluster-scoped kind names nothing.
    assertStatus(await srv.request('GET', '/api/v1/namespaces/default/nodes/n1'), 404, 'NotFound');
    assertStatus(await srv.request('POST', '/api/v1/namespaces/default/nodes', { metadata: { name: 'n2' } }), 404, 'NotFound');
  });

  it('serves objects of the coordination.k8s.io group', async () => {
    await using srv = await startTestServer();
    const path = '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases';
    const created = ok(await srv.request('POST', path, { metadata: { name: 'n1' }, spec: { holderIdentity: 'n1', leaseDurationSeconds: 40 } }), 201);
    assert.equal(created.apiVersion, 'coordination.k8s.io/v1');
    assert.equal(created.kind, 'Lease');
    assert.equal(ok(await srv.request('GET', `${path}/n1`)).spec.holderIdentity, 'n1');
  });
});

describe('get', () => {
  it('answers 404 NotFound in Kubernetes words, with details', async () => {
    await using srv = await startTestServer();
    const body = assertStatus(await srv.request('GET', `${CM}/missing`), 404, 'NotFound', 'configmaps "missing" not found');
    assert.deepEqual({ name: body.details.name, kind: body.details.kind }, { name: 'missing', kind: 'configmaps' });
    assertStatus(await srv.request('GET', '/apis/coordination.k8s.io/v1/namespaces/default/leases/missing'), 404, 'NotFound', 'leases.coordination.k8s.io "missing" not found');
  });

  it('answers 404 for paths that name nothing served', async () => {
    await using srv = await startTestServer();
    assertStatus(await srv.request('GET', '/api/v1/widgets'), 404, 'NotFound', 'the server could not find the requested resource');
    assertStatus(await srv.request('GET', '/apis/example.com/v1/widgets'), 404, 'NotFound');
    assertStatus(await srv.request('GET', `${CM}/x/bogus`), 404, 'NotFound');
  });

  it('gets each served kind of the core group', async () => {
    await using srv = await startTestServer();
    await createConfigMap(srv, 'c');
    ok(await srv.request('POST', '/api/v1/namespaces/default/secrets', { metadata: { name: 's' }, stringData: { a: 'b' } }), 201);
    ok(await srv.request('POST', '/api/v1/namespaces/default/serviceaccounts', { metadata: { name: 'sa' } }), 201);
    ok(
      await srv.request('POST', '/api/v1/namespaces/default/events', {
        metadata: { name: 'e' },
        involvedObject: { kind: 'ConfigMap', name: 'c', namespace: 'default' },
        reason: 'Tested',
      }),
      201,
    );
    const secret = ok(await srv.request('GET', '/api/v1/namespaces/default/secrets/s'));
    assert.equal(secret.data.a, Buffer.from('b').toString('base64'), 'stringData is folded into data');
    for (const [path, kind] of [
      [`${CM}/c`, 'ConfigMap'],
      ['/api/v1/namespaces/default/serviceaccounts/sa', 'ServiceAccount'],
      ['/api/v1/namespaces/default/events/e', 'Event'],
    ] as const) {
      assert.equal(ok(await srv.request('GET', path)).kind, kind);
    }
  });
});
