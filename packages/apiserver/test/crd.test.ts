/**
 * CustomResourceDefinitions over the API: a CRD is served at once (discovery, OpenAPI, REST),
 * its objects are pruned, defaulted and validated by its schema, its status and scale
 * subresources and printer columns work, it reports NamesAccepted and Established, and deleting
 * it deletes its objects. Also: what Setpoint refuses (CEL rules, conversion webhooks), clearly.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { KubeObject } from '@setpoint/api';
import { startTestServer, type TestServer } from './harness.js';
import { assertStatus, ok, waitFor } from './support.js';

const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const WIDGETS = '/apis/example.com/v1/namespaces/default/widgets';

function widgetCrd(extra: { versions?: unknown[]; scope?: string } = {}): KubeObject {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'widgets.example.com' },
    spec: {
      group: 'example.com',
      scope: extra.scope ?? 'Namespaced',
      names: { plural: 'widgets', singular: 'widget', kind: 'Widget', shortNames: ['wg'], categories: ['all'] },
      versions: extra.versions ?? [
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
                  required: ['size'],
                  properties: {
                    size: { type: 'string', enum: ['small', 'large'] },
                    replicas: { type: 'integer', minimum: 0, maximum: 10, default: 1 },
                    name: { type: 'string', pattern: '^[a-z]+$', maxLength: 8 },
                    port: { 'x-kubernetes-int-or-string': true },
                    email: { type: 'string', format: 'email' },
                    tags: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'set' },
                    ports: {
                      type: 'array',
                      'x-kubernetes-list-type': 'map',
                      'x-kubernetes-list-map-keys': ['name'],
                      items: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, number: { type: 'integer' } } },
                    },
                    free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
                    selector: { type: 'string' },
                  },
                },
                status: { type: 'object', properties: { replicas: { type: 'integer' }, phase: { type: 'string' }, selector: { type: 'string' } } },
              },
            },
          },
          subresources: { status: {}, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.selector' } },
          additionalPrinterColumns: [
            { name: 'Size', type: 'string', jsonPath: '.spec.size' },
            { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas' },
            { name: 'Phase', type: 'string', jsonPath: '.status.phase', priority: 1 },
            { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
          ],
        },
      ],
    },
  };
}

function widget(name: string, spec: Record<string, unknown>): KubeObject {
  return { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name }, spec };
}

async function established(srv: TestServer, name: string): Promise<KubeObject> {
  let crd: KubeObject | undefined;
  await waitFor(async () => {
    const res = await srv.request('GET', `${CRDS}/${name}`);
    crd = res.body as KubeObject;
    const conditions = (crd.status as { conditions?: Array<{ type: string; status: string }> } | undefined)?.conditions ?? [];
    return conditions.some((c) => c.type === 'Established' && c.status === 'True');
  }, 5000, `${name} Established`);
  return crd!;
}

test('a CRD is served at once: discovery, OpenAPI, REST, conditions', async () => {
  await using srv = await startTestServer();
  ok(await srv.request('POST', CRDS, widgetCrd()), 201);
  const crd = await established(srv, 'widgets.example.com');
  const status = crd.status as { acceptedNames: { plural: string }; storedVersions: string[]; conditions: Array<{ type: string; status: string; reason: string }> };
  assert.equal(status.acceptedNames.plural, 'widgets');
  assert.deepEqual(status.storedVersions, ['v1']);
  assert.deepEqual(
    status.conditions.map((c) => [c.type, c.status, c.reason]),
    [
      ['NamesAccepted', 'True', 'NoConflicts'],
      ['Established', 'True', 'InitialNamesAccepted'],
    ],
  );
  assert.ok(crd.metadata.finalizers?.includes('customresourcecleanup.apiextensions.k8s.io'));

  const groups = ok(await srv.request('GET', '/apis'));
  assert.ok(groups.groups.some((g: { name: string }) => g.name === 'example.com'));
  const resources = ok(await srv.request('GET', '/apis/example.com/v1'));
  const entry = resources.resources.find((r: { name: string }) => r.name === 'widgets');
  assert.deepEqual([entry.kind, entry.namespaced, entry.shortNames, entry.categories], ['Widget', true, ['wg'], ['all']]);
  assert.ok(resources.resources.some((r: { name: string }) => r.name === 'widgets/status'));
  assert.ok(resources.resources.some((r: { name: string }) => r.name === 'widgets/scale'));
  const openapi = ok(await srv.request('GET', '/openapi/v3/apis/example.com/v1'));
  assert.ok(openapi.components.schemas['com.example.v1.Widget'], 'the schema is published under its reversed group');

  const created = ok(await srv.request('POST', WIDGETS, widget('w1', { size: 'small' })), 201);
  assert.equal(created.spec.replicas, 1, 'defaulted from the schema');
  const list = ok(await srv.request('GET', WIDGETS));
  assert.equal(list.kind, 'WidgetList');
  assert.deepEqual(list.items.map((i: KubeObject) => i.metadata.name), ['w1']);
});

test('objects are pruned, defaulted and validated by the schema, worded as Kubernetes words it', async () => {
  await using srv = await startTestServer();
  ok(await srv.request('POST', CRDS, widgetCrd()), 201);
  await established(srv, 'widgets.example.com');

  const pruned = await srv.request('POST', WIDGETS, { ...widget('p', { size: 'large', unknown: 1, free: { anything: { goes: true } } }), extra: 'x', metadata: { name: 'p', bogus: 1 } });
  const body = ok(pruned, 201);
  assert.equal(body.spec.unknown, undefined, 'unknown spec field pruned');
  assert.equal(body.extra, undefined, 'unknown top-level field pruned');
  assert.equal(body.metadata.bogus, undefined, 'unknown metadata field pruned');
  assert.deepEqual(body.spec.free, { anything: { goes: true } }, 'x-kubernetes-preserve-unknown-fields keeps what it holds');
  assert.match(String(pruned.headers.warning), /unknown field \\"spec.unknown\\"/);

  const strict = await srv.request('POST', `${WIDGETS}?fieldValidation=Strict`, widget('s', { size: 'small', unknown: 1 }));
  assertStatus(strict, 400, 'BadRequest', /strict decoding error: unknown field "spec.unknown"/);

  const cases: Array<[Record<string, unknown>, string]> = [
    [{}, 'spec.size: Required value'],
    [{ size: 'medium' }, 'spec.size: Unsupported value: "medium": supported values: "small", "large"'],
    [{ size: 'small', replicas: 'three' }, 'spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"'],
    [{ size: 'small', replicas: -1 }, 'spec.replicas: Invalid value: -1: spec.replicas in body should be greater than or equal to 0'],
    [{ size: 'small', replicas: 11 }, 'spec.replicas: Invalid value: 11: spec.replicas in body should be less than or equal to 10'],
    [{ size: 'small', name: 'ABC' }, `spec.name: Invalid value: "ABC": spec.name in body should match '^[a-z]+$'`],
    [{ size: 'small', name: 'abcdefghij' }, 'spec.name: Too long: may not be more than 8 bytes'],
    [{ size: 'small', port: true }, 'spec.port: Invalid value: "boolean": spec.port in body must be of type integer,string: "boolean"'],
    [{ size: 'small', email: 'nope' }, 'spec.email: Invalid value: "nope": spec.email in body must be of type email: "nope"'],
    [{ size: 'small', tags: ['a', 'a'] }, 'spec.tags[1]: Duplicate value: "a"'],
    [{ size: 'small', ports: [{ name: 'a', number: 1 }, { name: 'a', number: 2 }] }, 'spec.ports[1]: Duplicate value: {"name":"a"}'],
  ];
  for (const [spec, message] of cases) {
    const res = await srv.request('POST', WIDGETS, widget('bad', spec));
    const status = assertStatus(res, 422, 'Invalid');
    assert.equal(status.message, `Widget.example.com "bad" is invalid: ${message}`, JSON.stringify(spec));
    assert.equal(status.details.group, 'example.com');
    assert.equal(status.details.kind, 'Widget');
  }
  // int-or-string takes either.
  ok(await srv.request('POST', WIDGETS, widget('port-int', { size: 'small', port: 80 })), 201);
  ok(await srv.request('POST', WIDGETS, widget('port-str', { size: 'small', port: 'http' })), 201);
  // Strategic merge patch is not for custom resources.
  const smp = await srv.request('PATCH', `${WIDGETS}/port-int`, { spec: { size: 'large' } }, { 'content-type': 'application/strategic-merge-patch+json' });
  assertStatus(smp, 415, 'UnsupportedMediaType');
  ok(await srv.request('PATCH', `${WIDGETS}/port-int`, { spec: { size: 'large' } }, { 'content-type': 'application/merge-patch+json' }));
});

test('status and scale subresources, printer columns', async () => {
  await using srv = await startTestServer();
  ok(await srv.request('POST', CRDS, widgetCrd()), 201);
  await established(srv, 'widgets.example.com');
  const created = ok(await srv.request('POST', WIDGETS, { ...widget('w', { size: 'small', replicas: 2 }), status: { phase: 'Ignored' } }), 201);
  assert.equal(created.status, undefined, 'status is not written through the main resource');
  const withStatus = ok(await srv.request('PUT', `${WIDGETS}/w/status`, { ...created, status: { phase: 'Running', replicas: 2, selector: 'app=w' } }));
  assert.equal(withStatus.status.phase, 'Running');
  assert.equal(withStatus.metadata.generation, 1, 'a status write does not move generation');
  const badStatus = await srv.request('PUT', `${WIDGETS}/w/status`, { ...withStatus, status: { replicas: 'x' } });
  assertStatus(badStatus, 422, 'Invalid', /status.replicas in body must be of type integer/);

  const scale = ok(await srv.request('GET', `${WIDGETS}/w/scale`));
  assert.deepEqual([scale.kind, scale.spec.replicas, scale.status.replicas, scale.status.selector], ['Scale', 2, 2, 'app=w']);
  ok(await srv.request('PATCH', `${WIDGETS}/w/scale`, { spec: { replicas: 5 } }, { 'content-type': 'application/merge-patch+json' }));
  assert.equal(ok(await srv.request('GET', `${WIDGETS}/w`)).spec.replicas, 5);
  const tooMany = await srv.request('PATCH', `${WIDGETS}/w/scale`, { spec: { replicas: 50 } }, { 'content-type': 'application/merge-patch+json' });
  assertStatus(tooMany, 422, 'Invalid', /spec.replicas in body should be less than or equal to 10/);

  const table = ok(await srv.request('GET', WIDGETS, undefined, { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' }));
  assert.deepEqual(
    table.columnDefinitions.map((c: { name: string; priority: number }) => [c.name, c.priority]),
    [
      ['Name', 0],
      ['Size', 0],
      ['Replicas', 0],
      ['Phase', 1],
      ['Age', 0],
    ],
  );
  const [row] = table.rows as Array<{ cells: unknown[] }>;
  assert.deepEqual(row!.cells.slice(0, 4), ['w', 'small', 5, 'Running']);
  assert.match(String(row!.cells[4]), /^\d+s$/);
});

test('several versions share one stored form; a cluster-scoped CRD; a schema change applies at once', async () => {
  await using srv = await startTestServer();
  const schema = { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'string' } } } } } };
  ok(
    await srv.request(
      'POST',
      CRDS,
      widgetCrd({
        scope: 'Cluster',
        versions: [
          { name: 'v1beta1', served: true, storage: false, schema },
          { name: 'v1', served: true, storage: true, schema },
        ],
      }),
    ),
    201,
  );
  await established(srv, 'widgets.example.com');
  ok(await srv.request('POST', '/apis/example.com/v1/widgets', widget('c', { size: 'small' })), 201);
  const old = ok(await srv.request('GET', '/apis/example.com/v1beta1/widgets/c'));
  assert.equal(old.apiVersion, 'example.com/v1beta1');
  assert.equal(old.spec.size, 'small');
  const group = ok(await srv.request('GET', '/apis/example.com'));
  assert.equal(group.preferredVersion.version, 'v1');

  // Add a field with a default: new writes get it.
  const crd = ok(await srv.request('GET', `${CRDS}/widgets.example.com`));
  for (const v of crd.spec.versions) v.schema.openAPIV3Schema.properties.spec.properties.color = { type: 'string', default: 'blue' };
  ok(await srv.request('PUT', `${CRDS}/widgets.example.com`, crd));
  await waitFor(async () => {
    const res = await srv.request('POST', '/apis/example.com/v1/widgets?dryRun=All', widget('d', { size: 'small' }));
    return res.status === 201 && res.body.spec.color === 'blue';
  }, 5000, 'the new default to apply');
});

test('deleting a CRD deletes its objects, then stops serving it', async () => {
  await using srv = await startTestServer();
  ok(await srv.request('POST', CRDS, widgetCrd()), 201);
  await established(srv, 'widgets.example.com');
  for (const name of ['a', 'b', 'c']) ok(await srv.request('POST', WIDGETS, widget(name, { size: 'small' })), 201);
  ok(await srv.request('DELETE', `${CRDS}/widgets.example.com`));
  await waitFor(async () => (await srv.request('GET', `${CRDS}/widgets.example.com`)).status === 404, 10_000, 'the CRD to go');
  assert.equal((await srv.request('GET', WIDGETS)).status, 404);
  assert.equal((await srv.request('GET', '/apis/example.com/v1')).status, 404);
  // Created again: empty, its old objects gone from the store.
  ok(await srv.request('POST', CRDS, widgetCrd()), 201);
  await established(srv, 'widgets.example.com');
  assert.deepEqual(ok(await srv.request('GET', WIDGETS)).items, []);
});

test('a restarted server serves the CRDs it stored before taking requests', async () => {
  await using first = await startTestServer({ backend: 'sqlite' });
  ok(await first.request('POST', CRDS, widgetCrd()), 201);
  await established(first, 'widgets.example.com');
  ok(await first.request('POST', WIDGETS, widget('kept', { size: 'large' })), 201);
  await first.stop();
  await using second = await startTestServer({ backend: 'sqlite', dir: first.dir });
  const kept = ok(await second.request('GET', `${WIDGETS}/kept`));
  assert.equal(kept.spec.size, 'large');
});

test('what is refused: bad names, no storage version, CEL rules, conversion webhooks, non-structural schemas, name conflicts', async () => {
  await using srv = await startTestServer();
  const invalid = async (crd: KubeObject, message: RegExp) => {
    const res = await srv.request('POST', CRDS, crd);
    assertStatus(res, 422, 'Invalid', message);
  };
  const base = widgetCrd();
  await invalid({ ...base, metadata: { name: 'wrong.example.com' } }, /metadata.name: Invalid value: "wrong.example.com": must be spec.names.plural\+"."\+spec.group/);
  await invalid({ ...base, spec: { ...(base.spec as object), group: 'nodots' }, metadata: { name: 'widgets.nodots' } }, /spec.group: Invalid value: "nodots": should be a domain with at least one dot/);
  const schema = { openAPIV3Schema: { type: 'object' } };
  await invalid(widgetCrd({ versions: [{ name: 'v1', served: true, storage: false, schema }] }), /spec.versions: Invalid value: .*must have exactly one version marked as storage version/);
  const cel = { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', 'x-kubernetes-validations': [{ rule: 'self.a > 0' }] } } } };
  await invalid(widgetCrd({ versions: [{ name: 'v1', served: true, storage: true, schema: cel }] }), /x-kubernetes-validations: Forbidden: x-kubernetes-validations \(CEL\) rules are not supported by Setpoint/);
  const untyped = { openAPIV3Schema: { type: 'object', properties: { spec: { properties: { a: { type: 'string' } } } } } };
  await invalid(widgetCrd({ versions: [{ name: 'v1', served: true, storage: true, schema: untyped }] }), /properties\[spec\].type: Required value: must not be empty for specified object fields/);
  await invalid({ ...base, spec: { ...(base.spec as object), conversion: { strategy: 'Webhook' } } }, /spec.conversion.strategy: Unsupported value: "Webhook": supported values: "None"/);

  // A second CRD in the group with a plural already taken is stored but not served.
  ok(await srv.request('POST', CRDS, widgetCrd()), 201);
  await established(srv, 'widgets.example.com');
  const clash = widgetCrd();
  (clash.spec as { names: Record<string, unknown> }).names = { plural: 'gadgets', kind: 'Gadget', shortNames: ['wg'] };
  clash.metadata.name = 'gadgets.example.com';
  ok(await srv.request('POST', CRDS, clash), 201);
  await waitFor(async () => {
    const res = await srv.request('GET', `${CRDS}/gadgets.example.com`);
    const conditions = (res.body.status?.conditions ?? []) as Array<{ type: string; status: string; reason: string; message: string }>;
    return conditions.some((c) => c.type === 'NamesAccepted' && c.status === 'False' && c.reason === 'ShortNamesConflict' && c.message === '"wg" is already in use');
  }, 5000, 'NamesAccepted=False on the clashing CRD');
  assert.equal((await srv.request('GET', '/apis/example.com/v1/namespaces/default/gadgets')).status, 404);
});
