/**
 * Server-side apply and managedFields over HTTP: PATCH application/apply-patch+yaml (create → 201,
 * conflicts → 409 with Kubernetes' message and causes, force, dropped fields), its PatchOptions
 * checks, the Update entries every other write records (POST, PUT, merge/JSON/strategic patches,
 * /status, /scale), clearing managedFields, and @kubernetes/client-node's apply.
 */
import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import { KubeConfig, KubernetesObjectApi, PatchStrategy, type KubernetesObject } from '@kubernetes/client-node';
import type { KubeObject, ManagedFieldsEntry } from '@setpoint/api';
import { startTestServer, type TestServer } from './harness.js';
import { assertStatus, CM, ok } from './support.js';

const APPLY = { 'content-type': 'application/apply-patch+yaml' };
const MERGE = { 'content-type': 'application/merge-patch+json' };

function apply(srv: TestServer, path: string, body: unknown, query = 'fieldManager=tester') {
  return srv.request('PATCH', `${path}?${query}`, body, APPLY);
}

function cm(name: string, data: Record<string, string>, extra: Record<string, unknown> = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ...extra }, data };
}

function entryOf(obj: KubeObject, manager: string, operation = 'Apply'): ManagedFieldsEntry | undefined {
  return obj.metadata.managedFields?.find((e) => e.manager === manager && e.operation === operation);
}

const managers = (obj: KubeObject) => (obj.metadata.managedFields ?? []).map((e) => `${e.manager}/${e.operation}${e.subresource ? `/${e.subresource}` : ''}`);

test('server-side apply over HTTP', async (t: TestContext) => {
  await using srv = await startTestServer();

  await t.test('an apply that creates answers 201 with one Apply entry; applying it again changes nothing', async () => {
    const created = ok(await apply(srv, `${CM}/one`, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: one\n  labels:\n    app: demo\ndata:\n  a: "1"\n'), 201);
    assert.deepEqual(created.data, { a: '1' });
    assert.match(created.metadata.uid, /^[0-9a-f-]{36}$/);
    const [entry] = created.metadata.managedFields as ManagedFieldsEntry[];
    assert.deepEqual(entry, {
      manager: 'tester',
      operation: 'Apply',
      apiVersion: 'v1',
      time: entry!.time,
      fieldsType: 'FieldsV1',
      fieldsV1: { 'f:metadata': { 'f:labels': { 'f:app': {} } }, 'f:data': { 'f:a': {} } },
    });
    assert.match(entry!.time!, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    // A JSON body is YAML too.
    const again = ok(await apply(srv, `${CM}/one`, cm('one', { a: '1' }, { labels: { app: 'demo' } })));
    assert.equal(again.metadata.resourceVersion, created.metadata.resourceVersion);
    assert.deepEqual(again.metadata.managedFields, created.metadata.managedFields);
  });

  await t.test('PatchOptions: apply needs a fieldManager; force is for apply only', async () => {
    assertStatus(
      await srv.request('PATCH', `${CM}/one`, cm('one', {}), APPLY),
      422,
      'Invalid',
      'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch',
    );
    const forced = assertStatus(
      await srv.request('PATCH', `${CM}/one?force=true`, { data: { b: '2' } }, MERGE),
      422,
      'Invalid',
      'PatchOptions.meta.k8s.io "" is invalid: force: Forbidden: may not be specified for non-apply patch',
    );
    assert.deepEqual(forced.details.causes, [{ reason: 'FieldValueForbidden', message: 'Forbidden: may not be specified for non-apply patch', field: 'force' }]);
    assertStatus(
      await srv.request('POST', `${CM}?fieldManager=${'x'.repeat(129)}`, cm('long', {})),
      422,
      'Invalid',
      'CreateOptions.meta.k8s.io "" is invalid: fieldManager: Too long: may not be more than 128 bytes',
    );
  });

  await t.test('the configuration must be an object of the served kind and version, without managedFields', async () => {
    assertStatus(await apply(srv, `${CM}/one`, { apiVersion: 'v2', kind: 'ConfigMap', metadata: { name: 'one' } }), 400, 'BadRequest', 'invalid object type: /v2, Kind=ConfigMap');
    assertStatus(await apply(srv, `${CM}/one`, { metadata: { name: 'one' } }), 400, 'BadRequest', 'invalid object type: /, Kind=');
    assertStatus(await apply(srv, `${CM}/one`, cm('one', {}, { managedFields: [] })), 400, 'BadRequest', 'metadata.managedFields must be nil');
    assertStatus(await apply(srv, `${CM}/one`, '- a\n- b\n'), 400, 'BadRequest');
    assertStatus(await apply(srv, `${CM}/one`, cm('two', {})), 400, 'BadRequest', 'the name of the object (two) does not match the name on the URL (one)');
    // A field of another shape than the schema's is refused before anything merges (a string
    // metadata was spread into one key per character).
    const before = ok(await srv.request('GET', `${CM}/one`));
    assertStatus(await apply(srv, `${CM}/one`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: 'abc' }), 400, 'BadRequest', 'failed to create typed patch object (/; /v1, Kind=ConfigMap): .metadata: expected map, got &{abc}');
    assertStatus(await apply(srv, `${CM}/one`, cm('one', {}, { labels: ['x'] })), 400, 'BadRequest', 'failed to create typed patch object (/one; /v1, Kind=ConfigMap): .metadata.labels: expected map, got &{[x]}');
    assertStatus(await apply(srv, `${CM}/fresh`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: [1, 2] }), 400, 'BadRequest');
    assert.deepEqual(ok(await srv.request('GET', `${CM}/one`)).metadata, before.metadata);
    assertStatus(await srv.request('GET', `${CM}/fresh`), 404, 'NotFound');
  });

  await t.test('a conflict answers 409 with Kubernetes message and causes; force takes the fields', async () => {
    const res = await apply(srv, `${CM}/one`, cm('one', { a: '2' }, { labels: { app: 'other' } }), 'fieldManager=intruder');
    // Paths in Kubernetes' order: fields sorted at each level.
    const status = assertStatus(res, 409, 'Conflict', 'Apply failed with 2 conflicts: conflicts with "tester":\n- .data.a\n- .metadata.labels.app');
    assert.deepEqual(status.details, {
      causes: [
        { reason: 'FieldManagerConflict', message: 'conflict with "tester"', field: '.data.a' },
        { reason: 'FieldManagerConflict', message: 'conflict with "tester"', field: '.metadata.labels.app' },
      ],
    });
    const forced = ok(await apply(srv, `${CM}/one`, cm('one', { a: '2' }), 'fieldManager=intruder&force=true'));
    assert.deepEqual(forced.data, { a: '2' });
    assert.deepEqual(entryOf(forced, 'intruder')?.fieldsV1, { 'f:data': { 'f:a': {} } });
    assert.deepEqual(entryOf(forced, 'tester')?.fieldsV1, { 'f:metadata': { 'f:labels': { 'f:app': {} } } });
  });

  await t.test('a field dropped from a configuration goes when no other manager owns it', async () => {
    ok(await apply(srv, `${CM}/drop`, cm('drop', { keep: '1', gone: '2', shared: '3' })), 201);
    ok(await apply(srv, `${CM}/drop`, cm('drop', { shared: '3' }), 'fieldManager=friend'));
    const after = ok(await apply(srv, `${CM}/drop`, cm('drop', { keep: '1' })));
    assert.deepEqual(after.data, { keep: '1', shared: '3' });
    assert.deepEqual(entryOf(after, 'tester')?.fieldsV1, { 'f:data': { 'f:keep': {} } });
  });

  await t.test('a stale resourceVersion in the configuration is a conflict; dryRun stores nothing', async () => {
    const live = ok(await srv.request('GET', `${CM}/drop`));
    assertStatus(
      await apply(srv, `${CM}/drop`, cm('drop', { keep: 'x' }, { resourceVersion: '1' })),
      409,
      'Conflict',
      'Operation cannot be fulfilled on configmaps "drop": the object has been modified; please apply your changes to the latest version and try again',
    );
    const dry = ok(await apply(srv, `${CM}/drop`, cm('drop', { keep: 'dry' }), 'fieldManager=tester&dryRun=All'));
    assert.equal(dry.data.keep, 'dry');
    assert.equal(ok(await srv.request('GET', `${CM}/drop`)).metadata.resourceVersion, live.metadata.resourceVersion);
    assert.equal((await apply(srv, `${CM}/dry-new`, cm('dry-new', {}), 'fieldManager=tester&dryRun=All')).status, 201);
    assert.equal((await srv.request('GET', `${CM}/dry-new`)).status, 404);
  });

  await t.test('every other write records an Update entry for its manager', async () => {
    const created = ok(await srv.request('POST', `${CM}?fieldManager=maker`, cm('upd', { a: '1' })), 201);
    assert.deepEqual(created.metadata.managedFields, [
      { manager: 'maker', operation: 'Update', apiVersion: 'v1', time: created.metadata.managedFields[0].time, fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { '.': {}, 'f:a': {} } } },
    ]);
    // The User-Agent names the manager when fieldManager is absent.
    const put = ok(await srv.request('PUT', `${CM}/upd`, { ...created, data: { a: '1', b: '2' } }, { 'user-agent': 'deployer/1.0 (linux)' }));
    assert.deepEqual(entryOf(put, 'deployer', 'Update')?.fieldsV1, { 'f:data': { 'f:b': {} } });
    const merged = ok(await srv.request('PATCH', `${CM}/upd?fieldManager=merger`, { data: { c: '3' } }, MERGE));
    assert.deepEqual(entryOf(merged, 'merger', 'Update')?.fieldsV1, { 'f:data': { 'f:c': {} } });
    const json = ok(await srv.request('PATCH', `${CM}/upd?fieldManager=jsonpatcher`, [{ op: 'replace', path: '/data/a', value: 'x' }], { 'content-type': 'application/json-patch+json' }));
    assert.deepEqual(entryOf(json, 'jsonpatcher', 'Update')?.fieldsV1, { 'f:data': { 'f:a': {} } });
    assert.deepEqual(entryOf(json, 'maker', 'Update')?.fieldsV1, { 'f:data': {} }, 'maker lost the field jsonpatcher changed (it keeps the map itself)');
    const smp = ok(await srv.request('PATCH', `${CM}/upd?fieldManager=smp`, { metadata: { labels: { l: 'v' } } }, { 'content-type': 'application/strategic-merge-patch+json' }));
    assert.deepEqual(entryOf(smp, 'smp', 'Update')?.fieldsV1, { 'f:metadata': { 'f:labels': { '.': {}, 'f:l': {} } } });
    assert.deepEqual([...managers(smp)].sort(), ['deployer/Update', 'jsonpatcher/Update', 'maker/Update', 'merger/Update', 'smp/Update']);
    // An apply that changes a field an updater owns conflicts, naming its version.
    assertStatus(await apply(srv, `${CM}/upd`, cm('upd', { c: 'mine' })), 409, 'Conflict', 'Apply failed with 1 conflict: conflict with "merger" using v1: .data.c');
  });

  await t.test('status and scale writes are recorded with their subresource; status is not owned through the main resource', async () => {
    const deploy = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web' },
      spec: { replicas: 1, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'app', image: 'nginx' }] } } },
      status: { replicas: 5 },
    };
    const path = '/apis/apps/v1/namespaces/default/deployments/web';
    const created = ok(await apply(srv, path, deploy), 201);
    assert.equal(created.status?.replicas, undefined, 'status is not written through the main resource');
    assert.equal((entryOf(created, 'tester')?.fieldsV1 as Record<string, unknown>)['f:status'], undefined);
    const status = ok(await srv.request('PUT', `${path}/status?fieldManager=controller`, { ...created, status: { replicas: 1, observedGeneration: 1 } }));
    assert.deepEqual(
      status.metadata.managedFields.find((e: ManagedFieldsEntry) => e.manager === 'controller'),
      {
        manager: 'controller',
        operation: 'Update',
        apiVersion: 'apps/v1',
        time: status.metadata.managedFields.find((e: ManagedFieldsEntry) => e.manager === 'controller').time,
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:status': { 'f:observedGeneration': {}, 'f:replicas': {} } },
        subresource: 'status',
      },
    );
    const applied = ok(await apply(srv, `${path}/status`, { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' }, status: { readyReplicas: 1, availableReplicas: 1 } }, 'fieldManager=reporter'));
    assert.equal(applied.status.availableReplicas, 1);
    assert.deepEqual(entryOf(applied, 'reporter'), { ...entryOf(applied, 'reporter'), fieldsV1: { 'f:status': { 'f:availableReplicas': {}, 'f:readyReplicas': {} } }, subresource: 'status' });
    const scaled = ok(await srv.request('PATCH', `${path}/scale?fieldManager=scaler`, { spec: { replicas: 3 } }, MERGE));
    assert.equal(scaled.spec.replicas, 3);
    const after = ok(await srv.request('GET', path));
    assert.deepEqual(entryOf(after, 'scaler', 'Update')?.fieldsV1, { 'f:spec': { 'f:replicas': {} } });
    assert.equal(entryOf(after, 'scaler', 'Update')?.subresource, 'scale');
    assert.equal((entryOf(after, 'tester')?.fieldsV1 as { 'f:spec': Record<string, unknown> })['f:spec']['f:replicas'], undefined, 'the applier lost replicas to the scaler');
  });

  await t.test('managedFields: [{}] clears them; then updates record nothing and the first apply sees before-first-apply', async () => {
    ok(await srv.request('POST', `${CM}?fieldManager=maker`, cm('cleared', { a: '1' })), 201);
    const cleared = ok(await srv.request('PATCH', `${CM}/cleared`, { metadata: { managedFields: [{}] } }, MERGE));
    assert.equal(cleared.metadata.managedFields, undefined);
    const updated = ok(await srv.request('PATCH', `${CM}/cleared?fieldManager=merger`, { data: { b: '2' } }, MERGE));
    assert.equal(updated.metadata.managedFields, undefined);
    assertStatus(await apply(srv, `${CM}/cleared`, cm('cleared', { a: 'new' })), 409, 'Conflict', 'Apply failed with 1 conflict: conflict with "before-first-apply" using v1: .data.a');
    const taken = ok(await apply(srv, `${CM}/cleared`, cm('cleared', { a: '1' })));
    assert.deepEqual(managers(taken), ['tester/Apply', 'before-first-apply/Update']);
    // managedFields a client sends on a PUT replace the recorded ones.
    const replaced = ok(await srv.request('PUT', `${CM}/cleared?fieldManager=editor`, { ...taken, metadata: { ...taken.metadata, managedFields: [taken.metadata.managedFields[0]] } }));
    assert.deepEqual(managers(replaced), ['tester/Apply']);
  });

  await t.test('custom resources: items keyed by x-kubernetes-list-map-keys, sets, untyped subtrees; unknown fields not owned', async () => {
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'gadgets.example.com' },
      spec: {
        group: 'example.com',
        scope: 'Namespaced',
        names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget' },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: {
              openAPIV3Schema: {
                type: 'object',
                properties: {
                  spec: {
                    type: 'object',
                    properties: {
                      ports: {
                        type: 'array',
                        'x-kubernetes-list-type': 'map',
                        'x-kubernetes-list-map-keys': ['name'],
                        items: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, number: { type: 'integer' } } },
                      },
                      tags: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'set' },
                      args: { type: 'array', items: { type: 'string' } },
                      free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
                    },
                  },
                },
              },
            },
          },
        ],
      },
    };
    ok(await srv.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd), 201);
    const path = '/apis/example.com/v1/namespaces/default/gadgets/g';
    const gadget = (spec: Record<string, unknown>) => ({ apiVersion: 'example.com/v1', kind: 'Gadget', metadata: { name: 'g' }, spec });
    const deadline = Date.now() + 5000;
    let res = await apply(srv, path, gadget({ ports: [{ name: 'http', number: 80 }], tags: ['a'], args: ['-v'], free: { x: { y: 1 } }, bogus: true }), 'fieldManager=one&fieldValidation=Ignore');
    while (res.status === 404 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      res = await apply(srv, path, gadget({ ports: [{ name: 'http', number: 80 }], tags: ['a'], args: ['-v'], free: { x: { y: 1 } }, bogus: true }), 'fieldManager=one&fieldValidation=Ignore');
    }
    const created = ok(res, 201);
    assert.equal(created.spec.bogus, undefined, 'unknown fields are pruned');
    assert.deepEqual(entryOf(created, 'one')?.fieldsV1, {
      'f:spec': { 'f:ports': { 'k:{"name":"http"}': { '.': {}, 'f:name': {}, 'f:number': {} } }, 'f:tags': { 'v:"a"': {} }, 'f:args': {}, 'f:free': { 'f:x': { '.': {}, 'f:y': {} } } },
    });
    const two = ok(await apply(srv, path, gadget({ ports: [{ name: 'grpc', number: 90 }], tags: ['b'], free: { z: 2 } }), 'fieldManager=two'));
    assert.deepEqual(two.spec, { ports: [{ name: 'http', number: 80 }, { name: 'grpc', number: 90 }], tags: ['a', 'b'], args: ['-v'], free: { x: { y: 1 }, z: 2 } });
    assertStatus(await apply(srv, path, gadget({ ports: [{ name: 'http', number: 81 }] }), 'fieldManager=two'), 409, 'Conflict', 'Apply failed with 1 conflict: conflict with "one": .spec.ports[name="http"].number');
    assertStatus(await apply(srv, path, gadget({ args: ['-q'] }), 'fieldManager=two'), 409, 'Conflict', 'Apply failed with 1 conflict: conflict with "one": .spec.args');
    const dropped = ok(await apply(srv, path, gadget({}), 'fieldManager=one'));
    assert.deepEqual(dropped.spec, { ports: [{ name: 'grpc', number: 90 }], tags: ['b'], free: { z: 2 } });
    // Strategic merge patch stays refused for custom resources; apply is listed among the accepted types.
    const smp = await srv.request('PATCH', path, { spec: {} }, { 'content-type': 'application/strategic-merge-patch+json' });
    assert.equal(smp.status, 415);
  });

  await t.test('@kubernetes/client-node applies through KubernetesObjectApi.patch with PatchStrategy.ServerSideApply', async () => {
    const secure = await startTestServer({ secure: true });
    try {
      const kc = new KubeConfig();
      kc.loadFromFile(secure.kubeconfig!);
      const client = KubernetesObjectApi.makeApiClient(kc);
      const spec = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'from-node', namespace: 'default' }, data: { k: 'v' } };
      const created = await client.patch<KubernetesObject & { data?: Record<string, string> }>(spec, undefined, undefined, 'node-app', true, PatchStrategy.ServerSideApply);
      assert.deepEqual(created.data, { k: 'v' });
      assert.deepEqual(
        created.metadata?.managedFields?.map((e) => [e.manager, e.operation]),
        [['node-app', 'Apply']],
      );
      const updated = await client.patch<KubernetesObject & { data?: Record<string, string> }>({ ...spec, data: { k: 'w' } }, undefined, undefined, 'node-app', true, PatchStrategy.ServerSideApply);
      assert.deepEqual(updated.data, { k: 'w' });
    } finally {
      await secure[Symbol.asyncDispose]();
    }
  });
});
