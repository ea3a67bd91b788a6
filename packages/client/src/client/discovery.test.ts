import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ApiError } from '@setpoint/api';
import { builtinResources } from '@setpoint/apiserver';
import { startControlPlane, type ControlPlane } from '@setpoint/testing';
import { Client } from './client.js';

describe('Discovery against a control plane', () => {
  let cp: ControlPlane;
  let client: Client;
  before(async () => {
    cp = await startControlPlane();
    client = new Client(cp.config, { qps: Infinity });
  });
  after(async () => {
    client.close();
    await cp.stop();
  });

  it('reads the server version, groups and resources', async () => {
    const version = await client.discovery.serverVersion();
    assert.equal(version.major, '1');
    assert.match(version.gitVersion, /^v1\.\d+\.\d+/);
    const groups = await client.discovery.groups();
    assert.equal(groups[0]?.name, '');
    assert.deepEqual(groups[0]?.versions, [{ groupVersion: 'v1', version: 'v1' }]);
    assert.ok(groups.some((g) => g.name === 'apps' && g.versions.some((v) => v.groupVersion === 'apps/v1')));
    const apps = await client.discovery.resources('apps/v1');
    const deployments = apps.find((r) => r.name === 'deployments');
    assert.equal(deployments?.kind, 'Deployment');
    assert.equal(deployments?.namespaced, true);
    assert.ok(apps.some((r) => r.name === 'deployments/status'));
    await assert.rejects(client.discovery.resources('nothing.example.com/v1'), (err: unknown) => err instanceof ApiError && err.code === 404);
  });

  it('resolves apiVersion and kind to a working resource client', async () => {
    const deployments = await client.resourceFor('apps/v1', 'Deployment');
    assert.deepEqual(deployments.ref, { group: 'apps', version: 'v1', resource: 'deployments', kind: 'Deployment', namespaced: true });
    const nodes = await client.resourceFor('v1', 'Node');
    assert.deepEqual(nodes.ref, { group: '', version: 'v1', resource: 'nodes', kind: 'Node', namespaced: false });
    const created = await (await client.resourceFor('v1', 'ConfigMap')).create({ metadata: { name: 'via-discovery' }, data: { a: 'b' } });
    assert.equal(created.metadata.namespace, 'default');
    await assert.rejects(client.resourceFor('apps/v1', 'Nonexistent'), (err: unknown) => {
      assert.ok(err instanceof ApiError);
      assert.equal(err.reason, 'NotFound');
      assert.equal(err.message, 'no matches for kind "Nonexistent" in version "apps/v1"');
      return true;
    });
  });

  it('re-reads discovery once on a miss, so kinds added later are found', async () => {
    assert.ok((await client.discovery.groups()).every((g) => g.name !== 'widgets.example.com'));
    await assert.rejects(client.resourceFor('widgets.example.com/v1', 'Widget'), /no matches for kind "Widget"/);
    const template = builtinResources.find((d) => d.resource === 'configmaps')!;
    cp.server.registry.add({ ...template, group: 'widgets.example.com', version: 'v1', resource: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' });
    const widgets = await client.resourceFor('widgets.example.com/v1', 'Widget');
    assert.deepEqual(widgets.ref, { group: 'widgets.example.com', version: 'v1', resource: 'widgets', kind: 'Widget', namespaced: true });
    assert.ok((await client.discovery.groups()).some((g) => g.name === 'widgets.example.com'), 'the cache was refreshed');
  });
});
