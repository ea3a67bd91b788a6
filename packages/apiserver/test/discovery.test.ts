/**
 * Discovery and OpenAPI over HTTP, in the shapes kubectl and client-go read: /api, /apis,
 * /api/v1, /apis/{group}[/{version}], and /openapi/v3 with one document per group-version whose
 * PATCH operations carry x-kubernetes-group-version-kind and a fieldValidation parameter.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from './harness.js';
import { assertStatus, ok } from './support.js';

interface ResourceEntry {
  name: string;
  singularName: string;
  namespaced: boolean;
  kind: string;
  verbs: string[];
}

describe('discovery', () => {
  let srv: TestServer;
  before(async () => {
    srv = await startTestServer();
  });
  after(async () => {
    await srv[Symbol.asyncDispose]();
  });

  /** Every group-version the server lists: "v1" and "group/version". */
  async function groupVersions(): Promise<string[]> {
    const core = ok(await srv.request('GET', '/api')).versions as string[];
    const groups = ok(await srv.request('GET', '/apis')).groups as Array<{ versions: Array<{ groupVersion: string }> }>;
    return [...core, ...groups.flatMap((g) => g.versions.map((v) => v.groupVersion))];
  }

  function checkEntries(list: { resources: ResourceEntry[] }): Map<string, ResourceEntry> {
    assert.ok(Array.isArray(list.resources) && list.resources.length > 0);
    const byName = new Map<string, ResourceEntry>();
    for (const r of list.resources) {
      assert.equal(typeof r.name, 'string');
      assert.equal(typeof r.singularName, 'string', `${r.name}.singularName`);
      assert.equal(typeof r.namespaced, 'boolean', `${r.name}.namespaced`);
      assert.equal(typeof r.kind, 'string', `${r.name}.kind`);
      assert.ok(Array.isArray(r.verbs) && r.verbs.length > 0, `${r.name}.verbs`);
      if (!r.name.includes('/')) assert.notEqual(r.singularName, '', `${r.name} has a singular name`);
      byName.set(r.name, r);
    }
    return byName;
  }

  it('/api lists v1 with a real serverAddressByClientCIDRs array', async () => {
    const body = ok(await srv.request('GET', '/api'));
    assert.equal(body.kind, 'APIVersions');
    assert.deepEqual(body.versions, ['v1']);
    assert.ok(Array.isArray(body.serverAddressByClientCIDRs));
  });

  it('/apis lists coordination.k8s.io/v1 with a preferred version', async () => {
    const body = ok(await srv.request('GET', '/apis'));
    assert.equal(body.kind, 'APIGroupList');
    assert.ok(Array.isArray(body.groups));
    const coordination = body.groups.find((g: { name: string }) => g.name === 'coordination.k8s.io');
    assert.ok(coordination, 'coordination.k8s.io is listed');
    assert.deepEqual(coordination.versions, [{ groupVersion: 'coordination.k8s.io/v1', version: 'v1' }]);
    assert.deepEqual(coordination.preferredVersion, { groupVersion: 'coordination.k8s.io/v1', version: 'v1' });
    assert.ok(!body.groups.some((g: { name: string }) => g.name === ''), 'the core group is not in /apis');
    const group = ok(await srv.request('GET', '/apis/coordination.k8s.io'));
    assert.equal(group.kind, 'APIGroup');
    assert.equal(group.name, 'coordination.k8s.io');
  });

  it('/api/v1 lists every core kind with name, singularName, namespaced, kind and verbs, and subresources', async () => {
    const body = ok(await srv.request('GET', '/api/v1'));
    assert.equal(body.kind, 'APIResourceList');
    assert.equal(body.groupVersion, 'v1');
    const byName = checkEntries(body);
    const expect: Array<[string, string, boolean, string]> = [
      ['namespaces', 'namespace', false, 'Namespace'],
      ['configmaps', 'configmap', true, 'ConfigMap'],
      ['secrets', 'secret', true, 'Secret'],
      ['events', 'event', true, 'Event'],
      ['serviceaccounts', 'serviceaccount', true, 'ServiceAccount'],
      ['nodes', 'node', false, 'Node'],
    ];
    for (const [name, singular, namespaced, kind] of expect) {
      const entry = byName.get(name);
      assert.ok(entry, `${name} is listed`);
      assert.deepEqual([entry.singularName, entry.namespaced, entry.kind], [singular, namespaced, kind], name);
      // As in Kubernetes, namespaces have every verb but deletecollection.
      const verbs = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'].filter((v) => name !== 'namespaces' || v !== 'deletecollection');
      for (const verb of verbs) assert.ok(entry.verbs.includes(verb), `${name} ${verb}`);
    }
    for (const sub of ['namespaces/status', 'nodes/status']) {
      const entry = byName.get(sub);
      assert.ok(entry, `${sub} is listed`);
      assert.deepEqual([...entry.verbs].sort(), ['get', 'patch', 'update']);
    }
    assert.equal(byName.get('namespaces/status')!.kind, 'Namespace');
    assert.deepEqual(byName.get('namespaces/finalize')?.verbs, ['update']);
  });

  it('/apis/coordination.k8s.io/v1 lists leases', async () => {
    const body = ok(await srv.request('GET', '/apis/coordination.k8s.io/v1'));
    assert.equal(body.kind, 'APIResourceList');
    assert.equal(body.groupVersion, 'coordination.k8s.io/v1');
    const leases = checkEntries(body).get('leases');
    assert.ok(leases);
    assert.deepEqual([leases.singularName, leases.namespaced, leases.kind], ['lease', true, 'Lease']);
  });

  it('every group-version it lists answers, and unknown ones are 404 Status', async () => {
    for (const gv of await groupVersions()) {
      const path = gv.includes('/') ? `/apis/${gv}` : `/api/${gv}`;
      const body = ok(await srv.request('GET', path));
      assert.equal(body.groupVersion, gv);
      checkEntries(body);
    }
    assertStatus(await srv.request('GET', '/apis/example.com/v1'), 404, 'NotFound');
    assertStatus(await srv.request('GET', '/api/v2'), 404, 'NotFound');
  });

  it('/openapi/v3 lists every group-version; each document has, per kind, a PATCH with its GVK and fieldValidation', async () => {
    const index = ok(await srv.request('GET', '/openapi/v3'));
    const paths = index.paths as Record<string, { serverRelativeURL: string }>;
    const gvs = await groupVersions();
    assert.deepEqual(Object.keys(paths).sort(), gvs.map((gv) => (gv.includes('/') ? `apis/${gv}` : `api/${gv}`)).sort());
    for (const gv of gvs) {
      const docPath = gv.includes('/') ? `apis/${gv}` : `api/${gv}`;
      const url = paths[docPath]!.serverRelativeURL;
      assert.match(url, new RegExp(`^/openapi/v3/${docPath.replace(/\./g, '\\.')}\\?hash=[0-9A-F]+$`));
      const doc = ok(await srv.request('GET', url));
      assert.match(doc.openapi, /^3\./);
      const [group, version] = gv.includes('/') ? gv.split('/') : ['', gv];
      const resources = ok(await srv.request('GET', gv.includes('/') ? `/apis/${gv}` : `/api/${gv}`)).resources as ResourceEntry[];
      for (const r of resources.filter((e) => !e.name.includes('/'))) {
        const base = group === '' ? `/api/${version}` : `/apis/${group}/${version}`;
        const item = r.namespaced ? `${base}/namespaces/{namespace}/${r.name}/{name}` : `${base}/${r.name}/{name}`;
        const patch = doc.paths[item]?.patch;
        assert.ok(patch, `${gv} ${r.name}: PATCH ${item}`);
        assert.deepEqual(patch['x-kubernetes-group-version-kind'], { group, version, kind: r.kind }, `${r.name} GVK`);
        assert.ok(
          patch.parameters.some((p: { name: string; in: string }) => p.name === 'fieldValidation' && p.in === 'query'),
          `${r.name} PATCH takes fieldValidation`,
        );
        const schemas = Object.values(doc.components.schemas) as Array<{ 'x-kubernetes-group-version-kind'?: Array<{ kind: string }> }>;
        assert.ok(
          schemas.some((s) => s['x-kubernetes-group-version-kind']?.some((g) => g.kind === r.kind)),
          `${r.kind} has a schema carrying its GVK (kubectl explain)`,
        );
      }
    }
    assertStatus(await srv.request('GET', '/openapi/v3/apis/example.com/v1'), 404, 'NotFound');
  });

  it('serves discovery with Content-Type application/json', async () => {
    for (const path of ['/api', '/apis', '/api/v1', '/openapi/v3']) {
      const res = await srv.request('GET', path);
      assert.match(String(res.headers['content-type']), /^application\/json/, path);
    }
  });
});
