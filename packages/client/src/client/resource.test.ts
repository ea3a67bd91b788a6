import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ApiError, type ConfigMap, type Deployment, type Status } from '@setpoint/api';
import { startControlPlane, type ControlPlane } from '@setpoint/testing';
import { builtin } from './builtin.js';
import { Client } from './client.js';

const isApiError = (reason: string, code: number) => (err: unknown) => {
  assert.ok(err instanceof ApiError, String(err));
  assert.equal(err.reason, reason);
  assert.equal(err.code, code);
  return true;
};

const deployment = (name: string): Deployment => ({
  metadata: { name },
  spec: {
    replicas: 1,
    selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx:1' }] } },
  },
});

describe('ResourceClient against a control plane', () => {
  let cp: ControlPlane;
  let client: Client;
  before(async () => {
    cp = await startControlPlane();
    client = new Client(cp.config, { qps: Infinity });
    for (const name of ['crud', 'paging', 'patching', 'deleting']) await client.namespaces().create({ metadata: { name } });
  });
  after(async () => {
    client.close();
    await cp.stop();
  });

  it('creates, gets, lists, updates and deletes, with namespaces from the object, the option or the default', async () => {
    const cms = client.configMaps();
    const created = await cms.create({ metadata: { name: 'a', namespace: 'crud' }, data: { k: 'v' } });
    assert.equal(created.metadata.namespace, 'crud');
    assert.ok(created.metadata.uid);
    const viaOption = await cms.create({ metadata: { name: 'b' }, data: {} }, { namespace: 'crud' });
    assert.equal(viaOption.metadata.namespace, 'crud');
    const inDefault = await cms.create({ metadata: { name: 'c' } });
    assert.equal(inDefault.metadata.namespace, 'default');

    const got = await cms.get('a', { namespace: 'crud' });
    assert.deepEqual(got.data, { k: 'v' });
    assert.equal(got.kind, 'ConfigMap');

    const list = await cms.list({ namespace: 'crud' });
    assert.deepEqual(list.items.map((i) => i.metadata.name).sort(), ['a', 'b']);
    assert.ok(list.items.every((i) => i.kind === 'ConfigMap' && i.apiVersion === 'v1'), 'items carry apiVersion and kind');
    assert.ok(list.metadata.resourceVersion);
    const everywhere = await cms.list({ fieldSelector: 'metadata.name=c' });
    assert.deepEqual(everywhere.items.map((i) => `${i.metadata.namespace}/${i.metadata.name}`), ['default/c']);

    const updated = await cms.update({ ...got, data: { k: 'v2' } });
    assert.deepEqual(updated.data, { k: 'v2' });
    assert.notEqual(updated.metadata.resourceVersion, got.metadata.resourceVersion);

    await cms.delete('a', { namespace: 'crud' });
    await assert.rejects(cms.get('a', { namespace: 'crud' }), isApiError('NotFound', 404));
  });

  it('reports conflicts, duplicates and missing objects as ApiError with Kubernetes reasons', async () => {
    const cms = client.configMaps();
    const first = await cms.create({ metadata: { name: 'conflict', namespace: 'crud' }, data: { n: '1' } });
    await assert.rejects(cms.create({ metadata: { name: 'conflict', namespace: 'crud' } }), (err: unknown) => {
      isApiError('AlreadyExists', 409)(err);
      assert.equal((err as ApiError).message, 'configmaps "conflict" already exists');
      return true;
    });
    await cms.update({ ...first, data: { n: '2' } });
    await assert.rejects(cms.update({ ...first, data: { n: '3' } }), (err: unknown) => {
      isApiError('Conflict', 409)(err);
      assert.match((err as ApiError).message, /^Operation cannot be fulfilled on configmaps "conflict": the object has been modified/);
      return true;
    });
    await assert.rejects(cms.get('nope', { namespace: 'crud' }), (err: unknown) => {
      isApiError('NotFound', 404)(err);
      assert.equal((err as ApiError).message, 'configmaps "nope" not found');
      return true;
    });
    await assert.rejects(cms.update({ metadata: { namespace: 'crud' } } as ConfigMap), isApiError('BadRequest', 400));
  });

  it('does not persist a dry run', async () => {
    const cms = client.configMaps();
    const dry = await cms.create({ metadata: { name: 'dry', namespace: 'crud' } }, { dryRun: true, fieldManager: 'test' });
    assert.equal(dry.metadata.name, 'dry');
    await assert.rejects(cms.get('dry', { namespace: 'crud' }), isApiError('NotFound', 404));
  });

  it('works on cluster-scoped kinds', async () => {
    const ns = await client.namespaces().get('crud');
    assert.equal(ns.metadata.name, 'crud');
    assert.equal(ns.metadata.namespace, undefined);
    const all = await client.namespaces().listAll();
    assert.ok(all.items.some((n) => n.metadata.name === 'kube-system'));
  });

  it('patches with merge, JSON and strategic merge patches, and the status subresource', async () => {
    const cms = client.configMaps();
    await cms.create({ metadata: { name: 'p', namespace: 'patching' }, data: { a: '1', b: '1' } });
    const merged = await cms.patch('p', { data: { a: null, c: '3' } }, { type: 'merge', namespace: 'patching' });
    assert.deepEqual(merged.data, { b: '1', c: '3' });
    const jsonPatched = await cms.patch('p', [{ op: 'replace', path: '/data/b', value: '2' }], { type: 'json', namespace: 'patching' });
    assert.deepEqual(jsonPatched.data, { b: '2', c: '3' });
    await assert.rejects(cms.patch('p', [{ op: 'test', path: '/data/b', value: 'x' }], { type: 'json', namespace: 'patching' }), isApiError('Invalid', 422));

    const deployments = client.deployments();
    await deployments.create(deployment('web'), { namespace: 'patching' });
    const strategic = await deployments.patch('web', { spec: { template: { spec: { containers: [{ name: 'c', image: 'nginx:2' }] } } } }, { type: 'strategic', namespace: 'patching' });
    assert.deepEqual(strategic.spec?.template?.spec?.containers?.map((c) => `${c.name}=${c.image}`), ['c=nginx:2']);

    const status = await deployments.patch('web', { status: { observedGeneration: 7 } }, { type: 'merge', namespace: 'patching', subresource: 'status' });
    assert.equal(status.status?.observedGeneration, 7);
  });

  it('updates the status subresource without touching the spec', async () => {
    const deployments = client.deployments();
    const created = await deployments.create(deployment('status'), { namespace: 'patching' });
    const result = await deployments.updateStatus({ ...created, spec: { ...created.spec!, replicas: 5 }, status: { replicas: 1, observedGeneration: 1 } });
    assert.equal(result.status?.replicas, 1);
    assert.equal(result.spec?.replicas, 1, 'the spec half of a status update is ignored');
  });

  it('lists all pages following continue, with the snapshot resourceVersion', async () => {
    const cms = client.configMaps();
    for (let i = 0; i < 7; i++) await cms.create({ metadata: { name: `page-${i}`, namespace: 'paging', labels: { paged: 'yes' } } });
    const firstPage = await cms.list({ namespace: 'paging', limit: 3 });
    assert.equal(firstPage.items.length, 3);
    assert.ok(firstPage.metadata.continue, 'a continue token');
    const all = await cms.listAll({ namespace: 'paging', limit: 3, labelSelector: 'paged=yes' });
    assert.deepEqual(all.items.map((i) => i.metadata.name), ['page-0', 'page-1', 'page-2', 'page-3', 'page-4', 'page-5', 'page-6']);
    assert.equal(all.metadata.resourceVersion, firstPage.metadata.resourceVersion);
    assert.equal(all.kind, 'ConfigMapList');
    assert.equal(all.metadata.continue, undefined);
  });

  it('deletes with options, returning the object or a Status, and deletes collections', async () => {
    const cms = client.configMaps();
    const victim = await cms.create({ metadata: { name: 'victim', namespace: 'deleting' } });
    await assert.rejects(cms.delete('victim', { namespace: 'deleting', preconditions: { uid: 'not-the-uid' } }), isApiError('Conflict', 409));
    await cms.delete('victim', { namespace: 'deleting', dryRun: true });
    await cms.get('victim', { namespace: 'deleting' });
    const gone = await cms.delete('victim', { namespace: 'deleting', propagationPolicy: 'Background', gracePeriodSeconds: 0, preconditions: { uid: victim.metadata.uid! } });
    assert.ok((gone as Status).kind === 'Status' || (gone as ConfigMap).metadata.name === 'victim');
    await assert.rejects(cms.delete('victim', { namespace: 'deleting' }), isApiError('NotFound', 404));

    const held = await cms.create({ metadata: { name: 'held', namespace: 'deleting', finalizers: ['example.com/hold'] } });
    const marked = (await cms.delete('held', { namespace: 'deleting' })) as ConfigMap;
    assert.equal(marked.metadata.name, 'held');
    assert.ok(marked.metadata.deletionTimestamp, 'a finalizer keeps the object, marked for deletion');
    await cms.update({ ...marked, metadata: { ...marked.metadata, finalizers: [] } });
    await assert.rejects(cms.get('held', { namespace: 'deleting' }), isApiError('NotFound', 404));
    void held;

    for (const name of ['x1', 'x2', 'keep']) await cms.create({ metadata: { name, namespace: 'deleting', labels: { sweep: name === 'keep' ? 'no' : 'yes' } } });
    await cms.deleteCollection({ namespace: 'deleting', labelSelector: 'sweep=yes' });
    assert.deepEqual((await cms.list({ namespace: 'deleting' })).items.map((i) => i.metadata.name), ['keep']);
  });

  it('addresses any kind by ResourceRef', async () => {
    const leases = client.resource(builtin.leases);
    const lease = await leases.create({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'leader', namespace: 'crud' }, spec: { holderIdentity: 'me' } });
    assert.equal(lease.metadata.name, 'leader');
    assert.equal((await client.leases().get('leader', { namespace: 'crud' })).spec?.holderIdentity, 'me');
  });
});
