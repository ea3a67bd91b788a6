/** What the resource client puts on the wire, checked against a recording stub server. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError, type KubeObject } from '@setpoint/api';
import { json, startStub, status } from '../http/stub-server.test-support.js';
import type { ResourceRef } from '../types.js';
import { builtin } from './builtin.js';
import { Client } from './client.js';
import { resourcePath } from './paths.js';

const widgets: ResourceRef = { group: 'example.com', version: 'v1alpha1', resource: 'widgets', kind: 'Widget', namespaced: true };

describe('resource paths', () => {
  it('builds core, group, namespaced and cluster-scoped paths with percent-encoding', () => {
    assert.equal(resourcePath(builtin.pods), '/api/v1/pods');
    assert.equal(resourcePath(builtin.pods, { namespace: 'ns' }), '/api/v1/namespaces/ns/pods');
    assert.equal(resourcePath(builtin.pods, { namespace: 'ns', name: 'p', subresource: 'status' }), '/api/v1/namespaces/ns/pods/p/status');
    assert.equal(resourcePath(builtin.nodes, { namespace: 'ignored', name: 'n1' }), '/api/v1/nodes/n1');
    assert.equal(resourcePath(builtin.deployments, { namespace: 'a', name: 'd', subresource: 'scale' }), '/apis/apps/v1/namespaces/a/deployments/d/scale');
    assert.equal(resourcePath(widgets, { namespace: 'x y', name: 'a/b?c#d%' }), '/apis/example.com/v1alpha1/namespaces/x%20y/widgets/a%2Fb%3Fc%23d%25');
    assert.throws(() => resourcePath(builtin.pods, { subresource: 'status' }), TypeError);
  });
});

describe('ResourceClient on the wire', () => {
  const echo = () =>
    startStub((req, res, recorded) => {
      if (req.method === 'DELETE' && recorded.body === '') json(res, 200, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 200 });
      else json(res, req.method === 'POST' ? 201 : 200, { metadata: { name: 'echo' } });
    });

  it('sends writes with their query options, content types and bodies', async () => {
    await using stub = await echo();
    const client = new Client({ server: stub.url, namespace: 'team' }, { qps: Infinity });
    const w = client.resource<KubeObject>(widgets);
    await w.create({ metadata: { name: 'w' } }, { dryRun: true, fieldManager: 'me', fieldValidation: 'Strict' });
    await w.update({ metadata: { name: 'w', namespace: 'elsewhere' } });
    await w.updateStatus({ apiVersion: 'example.com/v1alpha1', kind: 'Widget', metadata: { name: 'w' } });
    await w.patch('w', { spec: { size: 2 } }, { type: 'merge' });
    await w.patch('w', [{ op: 'add', path: '/spec/x', value: 1 }], { type: 'json', namespace: 'n2' });
    await w.patch('w', { spec: {} }, { type: 'strategic', subresource: 'status' });
    await w.patch('w', { metadata: { name: 'w' }, spec: { size: 3 } }, { type: 'apply', fieldManager: 'ctl', force: true });
    await assert.rejects(w.patch('w', {}, { type: 'apply' }), (err: unknown) => err instanceof ApiError && err.reason === 'BadRequest');
    await w.delete('w');
    await w.delete('w', { propagationPolicy: 'Foreground', gracePeriodSeconds: 0, preconditions: { resourceVersion: '9' }, dryRun: true });
    await w.deleteCollection({ namespace: 'team', labelSelector: 'a=b' });
    client.close();

    const sent = stub.requests.map((r) => ({ line: `${r.method} ${r.url}`, type: r.headers['content-type'], body: r.body === '' ? undefined : JSON.parse(r.body) }));
    assert.deepEqual(sent, [
      {
        line: 'POST /apis/example.com/v1alpha1/namespaces/team/widgets?dryRun=All&fieldManager=me&fieldValidation=Strict',
        type: 'application/json',
        body: { apiVersion: 'example.com/v1alpha1', kind: 'Widget', metadata: { name: 'w' } },
      },
      { line: 'PUT /apis/example.com/v1alpha1/namespaces/elsewhere/widgets/w', type: 'application/json', body: { apiVersion: 'example.com/v1alpha1', kind: 'Widget', metadata: { name: 'w', namespace: 'elsewhere' } } },
      { line: 'PUT /apis/example.com/v1alpha1/namespaces/team/widgets/w/status', type: 'application/json', body: { apiVersion: 'example.com/v1alpha1', kind: 'Widget', metadata: { name: 'w' } } },
      { line: 'PATCH /apis/example.com/v1alpha1/namespaces/team/widgets/w', type: 'application/merge-patch+json', body: { spec: { size: 2 } } },
      { line: 'PATCH /apis/example.com/v1alpha1/namespaces/n2/widgets/w', type: 'application/json-patch+json', body: [{ op: 'add', path: '/spec/x', value: 1 }] },
      { line: 'PATCH /apis/example.com/v1alpha1/namespaces/team/widgets/w/status', type: 'application/strategic-merge-patch+json', body: { spec: {} } },
      {
        line: 'PATCH /apis/example.com/v1alpha1/namespaces/team/widgets/w?fieldManager=ctl&force=true',
        type: 'application/apply-patch+yaml',
        body: { apiVersion: 'example.com/v1alpha1', kind: 'Widget', metadata: { name: 'w' }, spec: { size: 3 } },
      },
      { line: 'DELETE /apis/example.com/v1alpha1/namespaces/team/widgets/w', type: undefined, body: undefined },
      {
        line: 'DELETE /apis/example.com/v1alpha1/namespaces/team/widgets/w',
        type: 'application/json',
        body: { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Foreground', gracePeriodSeconds: 0, preconditions: { resourceVersion: '9' }, dryRun: ['All'] },
      },
      { line: 'DELETE /apis/example.com/v1alpha1/namespaces/team/widgets?labelSelector=a%3Db', type: undefined, body: undefined },
    ]);
  });

  it('sends list and watch options as kubectl and client-go do', async () => {
    await using stub = await startStub((req, res) => {
      if (req.url?.includes('watch=true')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end();
      } else json(res, 200, { kind: 'WidgetList', apiVersion: 'example.com/v1alpha1', metadata: { resourceVersion: '5' }, items: [{ metadata: { name: 'a' } }] });
    });
    const client = new Client({ server: stub.url }, { qps: Infinity });
    const w = client.resource(widgets);
    const list = await w.list({ labelSelector: 'app in (a,b)', fieldSelector: 'metadata.name=a', limit: 500, resourceVersion: '0', resourceVersionMatch: 'NotOlderThan', timeoutSeconds: 30 });
    assert.deepEqual(list.items, [{ apiVersion: 'example.com/v1alpha1', kind: 'Widget', metadata: { name: 'a' } }]);
    for await (const _ of w.watch({ namespace: 'ns', resourceVersion: '5', allowWatchBookmarks: true, sendInitialEvents: false, timeoutSeconds: 300 })) assert.fail('no events');
    assert.deepEqual(
      stub.requests.map((r) => r.url),
      [
        '/apis/example.com/v1alpha1/widgets?labelSelector=app+in+%28a%2Cb%29&fieldSelector=metadata.name%3Da&limit=500&resourceVersion=0&resourceVersionMatch=NotOlderThan&timeoutSeconds=30',
        '/apis/example.com/v1alpha1/namespaces/ns/widgets?watch=true&resourceVersion=5&allowWatchBookmarks=true&sendInitialEvents=false&timeoutSeconds=300',
      ],
    );
    client.close();
  });

  it('falls back to one unpaged list when a continue token expires during listAll', async () => {
    await using stub = await startStub((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      if (url.searchParams.get('continue') === 'page-2') json(res, 410, status(410, 'Expired', 'The provided continue parameter is too old'));
      else if (url.searchParams.has('limit')) json(res, 200, { metadata: { resourceVersion: '10', continue: 'page-2' }, items: [{ metadata: { name: 'a' } }] });
      else json(res, 200, { metadata: { resourceVersion: '12' }, items: [{ metadata: { name: 'a' } }, { metadata: { name: 'b' } }] });
    });
    const client = new Client({ server: stub.url }, { qps: Infinity });
    const all = await client.configMaps().listAll({ namespace: 'n', resourceVersion: '' });
    assert.deepEqual(all.items.map((i) => i.metadata.name), ['a', 'b']);
    assert.equal(all.metadata.resourceVersion, '12');
    assert.deepEqual(stub.requests.map((r) => r.url), ['/api/v1/namespaces/n/configmaps?limit=500', '/api/v1/namespaces/n/configmaps?limit=500&continue=page-2', '/api/v1/namespaces/n/configmaps']);
    client.close();
  });

  it('caches discovery and re-reads it once per miss', async () => {
    await using stub = await startStub((req, res) => {
      if (req.url === '/apis/apps/v1') json(res, 200, { kind: 'APIResourceList', groupVersion: 'apps/v1', resources: [{ name: 'deployments', singularName: 'deployment', namespaced: true, kind: 'Deployment', verbs: ['get'] }] });
      else json(res, 404, status(404, 'NotFound', 'the server could not find the requested resource'));
    });
    const client = new Client({ server: stub.url }, { qps: Infinity });
    await client.resourceFor('apps/v1', 'Deployment');
    await client.resourceFor('apps/v1', 'Deployment');
    assert.equal(stub.requests.length, 1, 'served from the cache');
    await assert.rejects(client.resourceFor('apps/v1', 'StatefulSet'), /no matches for kind "StatefulSet" in version "apps\/v1"/);
    assert.equal(stub.requests.length, 2, 'one re-read on the miss');
    client.close();
  });
});
