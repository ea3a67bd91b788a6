/**
 * Typed decoding of built-in kinds over HTTP (issue #19, items 1 and 10): wrong JSON types are
 * refused with kube-apiserver's 400 before defaulting or validation, integers out of range or not
 * integers are refused, null is read as Go reads it; the same holds for the results of patches and
 * apply, and for objects read back from the store (a malformed one answers GET with 500, is left
 * out of lists and watches, counted, and can still be deleted).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { openWatch, startTestServer, type TestServer } from './harness.js';
import { assertStatus, ok } from './support.js';

const PODS = '/api/v1/namespaces/default/pods';
const DEPLOYMENTS = '/apis/apps/v1/namespaces/default/deployments';
const LEASES = '/apis/coordination.k8s.io/v1/namespaces/default/leases';
const EVENTS = '/api/v1/namespaces/default/events';
const SECRETS = '/api/v1/namespaces/default/secrets';

const podPrefix = 'Pod in version "v1" cannot be handled as a Pod: json: cannot unmarshal';
const deploymentPrefix = 'Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal';

/** A Pod body with `spec` fields merged over one valid container, as JSON text. */
function podJson(name: string, specFields: string): string {
  return `{"metadata":{"name":"${name}"},"spec":{"containers":[{"name":"c","image":"img"}]${specFields === '' ? '' : `,${specFields}`}}}`;
}

/** A Deployment body whose spec has `specFields` (raw JSON) besides a valid selector and template. */
function deploymentJson(name: string, specFields: string, selector = '{"matchLabels":{"app":"x"}}'): string {
  return (
    `{"metadata":{"name":"${name}"},"spec":{${specFields === '' ? '' : `${specFields},`}"selector":${selector},` +
    `"template":{"metadata":{"labels":{"app":"x"}},"spec":{"containers":[{"name":"c","image":"img"}]}}}}`
  );
}

async function notStored(srv: TestServer, path: string): Promise<void> {
  const res = await srv.request('GET', path);
  assert.equal(res.status, 404, `nothing was stored at ${path}: HTTP ${res.status} ${res.text.slice(0, 200)}`);
}

describe('typed decoding of request bodies', () => {
  it('refuses a Pod whose spec.nodeName is not a string, with Go decoding message, and stores nothing', async () => {
    await using srv = await startTestServer();
    for (const [value, jsonType] of [
      ['{}', 'object'],
      ['0', 'number'],
      ['["x"]', 'array'],
      ['true', 'bool'],
    ] as const) {
      const res = await srv.request('POST', PODS, podJson('bad', `"nodeName":${value}`));
      assertStatus(res, 400, 'BadRequest', `${podPrefix} ${jsonType} into Go struct field PodSpec.spec.nodeName of type string`);
    }
    await notStored(srv, `${PODS}/bad`);
  });

  it('names the innermost Go struct and the element type in lists', async () => {
    await using srv = await startTestServer();
    assertStatus(
      await srv.request('POST', PODS, '{"metadata":{"name":"p"},"spec":{"containers":[{"name":5,"image":"i"}]}}'),
      400,
      'BadRequest',
      `${podPrefix} number into Go struct field Container.spec.containers.name of type string`,
    );
    assertStatus(await srv.request('POST', PODS, '{"metadata":{"name":"p"},"spec":{"containers":["x"]}}'), 400, 'BadRequest', `${podPrefix} string into Go struct field PodSpec.spec.containers of type v1.Container`);
    assertStatus(await srv.request('POST', PODS, '{"metadata":{"name":"p"},"spec":{"containers":{}}}'), 400, 'BadRequest', `${podPrefix} object into Go struct field PodSpec.spec.containers of type []v1.Container`);
    assertStatus(await srv.request('POST', PODS, '{"metadata":{"name":"p"},"spec":"x"}'), 400, 'BadRequest', `${podPrefix} string into Go struct field Pod.spec of type v1.PodSpec`);
    assertStatus(
      await srv.request('POST', PODS, podJson('p', '"nodeSelector":{"a":1}')),
      400,
      'BadRequest',
      `${podPrefix} number into Go struct field PodSpec.spec.nodeSelector of type string`,
    );
    assertStatus(
      await srv.request('POST', PODS, '{"metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"i","resources":{"limits":{"cpu":true}}}]}}'),
      400,
      'BadRequest',
      `${podPrefix} bool into Go struct field ResourceRequirements.spec.containers.resources.limits of type resource.Quantity`,
    );
    await notStored(srv, `${PODS}/p`);
  });

  it('checks the metadata of custom resources too: labels and annotations of the wrong type are 400, not 500', async () => {
    await using srv = await startTestServer();
    const crds = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
    ok(await srv.request('POST', crds, {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'gadgets.example.com' },
      spec: {
        group: 'example.com',
        scope: 'Namespaced',
        names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget', listKind: 'GadgetList' },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
      },
    }), 201);
    const gadgets = '/apis/example.com/v1/namespaces/default/gadgets';
    const deadline = Date.now() + 10_000;
    while ((await srv.request('GET', gadgets)).status !== 200) {
      assert.ok(Date.now() < deadline, 'the CRD is served within 10 s');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assertStatus(
      await srv.request('POST', gadgets, { apiVersion: 'example.com/v1', kind: 'Gadget', metadata: { name: 'g', labels: { a: ['x'] } } }),
      400,
      'BadRequest',
      'Gadget in version "v1" cannot be handled as a Gadget: json: cannot unmarshal array into Go struct field ObjectMeta.metadata.labels of type string',
    );
    ok(await srv.request('POST', gadgets, { apiVersion: 'example.com/v1', kind: 'Gadget', metadata: { name: 'g' } }), 201);
    assertStatus(await srv.request('PATCH', `${gadgets}/g`, { metadata: { annotations: { a: { b: 1 } } } }, { 'content-type': 'application/merge-patch+json' }), 400, 'BadRequest');
    assert.equal((await srv.request('GET', `${gadgets}/g`)).body.metadata.annotations, undefined, 'nothing stored');
  });

  it('reads a null container as an empty one, which validation then refuses (422 name Required)', async () => {
    await using srv = await startTestServer();
    const res = await srv.request('POST', PODS, '{"metadata":{"name":"nulls"},"spec":{"containers":[null]}}');
    const status = assertStatus(res, 422, 'Invalid');
    const fields = (status.details.causes as Array<{ field: string; reason: string }>).map((c) => `${c.field} ${c.reason}`);
    assert.ok(fields.includes('spec.containers[0].name FieldValueRequired'), fields.join(', '));
    await notStored(srv, `${PODS}/nulls`);
  });

  it('refuses an Event whose involvedObject fields are not strings; accepts names as Kubernetes does (path segments)', async () => {
    await using srv = await startTestServer();
    for (const [field, value, jsonType] of [
      ['name', '5', 'number'],
      ['kind', '{}', 'object'],
      ['namespace', '["default"]', 'array'],
      ['uid', 'false', 'bool'],
    ] as const) {
      const body = `{"metadata":{"name":"ev"},"involvedObject":{"kind":"Pod","name":"p","namespace":"default","${field}":${value}}}`;
      assertStatus(
        await srv.request('POST', EVENTS, body),
        400,
        'BadRequest',
        `Event in version "v1" cannot be handled as a Event: json: cannot unmarshal ${jsonType} into Go struct field ObjectReference.involvedObject.${field} of type ${field === 'uid' ? 'types.UID' : 'string'}`,
      );
    }
    await notStored(srv, `${EVENTS}/ev`);
    // core/v1 Events: kube-apiserver validates names only as path segments (ValidateEventCreate
    // skips the DNS-subdomain check for v1), so an upper-case, underscored name is accepted ...
    const involved = { kind: 'Pod', name: 'p', namespace: 'default' };
    ok(await srv.request('POST', EVENTS, { metadata: { name: 'Pod_P.17' }, involvedObject: involved }), 201);
    // ... and one that cannot be a path segment is refused.
    assertStatus(await srv.request('POST', EVENTS, { metadata: { name: 'a%b' }, involvedObject: involved }), 422, 'Invalid', /may not contain '%'/);
  });

  it('refuses integers that are not integers or do not fit int32/int64', async () => {
    await using srv = await startTestServer();
    for (const [value, shown] of [
      ['1e400', 'number'],
      ['1.5', 'number 1.5'],
      ['2147483648', 'number 2147483648'],
      ['-2147483649', 'number -2147483649'],
      ['"3"', 'string'],
    ] as const) {
      const res = await srv.request('POST', DEPLOYMENTS, deploymentJson('d', `"replicas":${value}`));
      assertStatus(res, 400, 'BadRequest', `${deploymentPrefix} ${shown} into Go struct field DeploymentSpec.spec.replicas of type int32`);
    }
    await notStored(srv, `${DEPLOYMENTS}/d`);
    assertStatus(
      await srv.request('POST', LEASES, '{"metadata":{"name":"l"},"spec":{"leaseDurationSeconds":1e20}}'),
      400,
      'BadRequest',
      'Lease in version "v1" cannot be handled as a Lease: json: cannot unmarshal number 100000000000000000000 into Go struct field LeaseSpec.spec.leaseDurationSeconds of type int32',
    );
    await notStored(srv, `${LEASES}/l`);
    assertStatus(
      await srv.request('POST', PODS, podJson('grace', '"terminationGracePeriodSeconds":9223372036854775808')),
      400,
      'BadRequest',
      `${podPrefix} number 9223372036854775808 into Go struct field PodSpec.spec.terminationGracePeriodSeconds of type int64`,
    );
    await notStored(srv, `${PODS}/grace`);
    // In range: accepted.
    ok(await srv.request('POST', DEPLOYMENTS, deploymentJson('fits', '"replicas":2147483647')), 201);
    ok(await srv.request('POST', PODS, podJson('grace-ok', '"terminationGracePeriodSeconds":30,"activeDeadlineSeconds":2147483647')), 201);
  });

  it('refuses a non-string matchLabels value with 400, not 500', async () => {
    await using srv = await startTestServer();
    assertStatus(
      await srv.request('POST', DEPLOYMENTS, deploymentJson('sel', '', '{"matchLabels":{"app":1}}')),
      400,
      'BadRequest',
      `${deploymentPrefix} number into Go struct field LabelSelector.spec.selector.matchLabels of type string`,
    );
    assertStatus(
      await srv.request('POST', DEPLOYMENTS, deploymentJson('sel', '', '{"matchLabels":["app"]}')),
      400,
      'BadRequest',
      `${deploymentPrefix} array into Go struct field LabelSelector.spec.selector.matchLabels of type map[string]string`,
    );
    await notStored(srv, `${DEPLOYMENTS}/sel`);
  });

  it('reads null as Go does: a null field is absent, a null map value is ""', async () => {
    await using srv = await startTestServer();
    const secret = ok(await srv.request('POST', SECRETS, '{"metadata":{"name":"s","labels":null,"annotations":{"a":null}},"data":{"a":null,"b":"eA=="},"type":null}'), 201);
    assert.deepEqual(secret.data, { a: '', b: 'eA==' });
    assert.equal('labels' in secret.metadata, false);
    assert.deepEqual(secret.metadata.annotations, { a: '' });
    assert.equal(secret.type, 'Opaque', 'a null type is absent, then defaulted');
    const got = ok(await srv.request('GET', `${SECRETS}/s`));
    assert.deepEqual(got.data, { a: '', b: 'eA==' });
    const pod = ok(await srv.request('POST', PODS, '{"metadata":{"name":"np"},"spec":{"nodeName":null,"containers":[{"name":"c","image":"i","args":[null,"x"],"resources":null}]}}'), 201);
    assert.equal(pod.spec.nodeName, undefined);
    assert.deepEqual(pod.spec.containers[0].args, ['', 'x']);
  });

  it('accepts what Go accepts: quantities as strings or numbers, int-or-string ports, raw extensions', async () => {
    await using srv = await startTestServer();
    const pod = ok(
      await srv.request(
        'POST',
        PODS,
        JSON.stringify({
          metadata: { name: 'valid' },
          spec: {
            containers: [
              {
                name: 'c',
                image: 'i',
                resources: { limits: { cpu: 2, memory: '1Gi' }, requests: { cpu: 0.5 } },
                ports: [{ containerPort: 80 }],
                livenessProbe: { httpGet: { port: 'http', path: '/' }, periodSeconds: 10 },
                readinessProbe: { tcpSocket: { port: 8080 } },
              },
            ],
          },
        }),
      ),
      201,
    );
    assert.equal(pod.spec.containers[0].readinessProbe.tcpSocket.port, 8080);
    ok(await srv.request('POST', DEPLOYMENTS, deploymentJson('strategy', '"strategy":{"type":"RollingUpdate","rollingUpdate":{"maxSurge":"25%","maxUnavailable":1}}')), 201);
    assertStatus(
      await srv.request('POST', DEPLOYMENTS, deploymentJson('strategy2', '"strategy":{"rollingUpdate":{"maxSurge":1.5}}')),
      400,
      'BadRequest',
      `${deploymentPrefix} number 1.5 into Go struct field RollingUpdateDeployment.spec.strategy.rollingUpdate.maxSurge of type intstr.IntOrString`,
    );
  });
});

describe('typed decoding of patch and apply results', () => {
  it('refuses a JSON patch, a merge patch, a strategic merge patch and an apply that introduce a wrong type, and stores nothing', async () => {
    await using srv = await startTestServer();
    const created = ok(await srv.request('POST', PODS, podJson('target', '')), 201);
    const rv = created.metadata.resourceVersion as string;
    const cases: Array<[string, string, string]> = [
      ['application/json-patch+json', '[{"op":"add","path":"/spec/nodeName","value":{}}]', `${podPrefix} object into Go struct field PodSpec.spec.nodeName of type string`],
      ['application/merge-patch+json', '{"spec":{"nodeName":0}}', `${podPrefix} number into Go struct field PodSpec.spec.nodeName of type string`],
      ['application/strategic-merge-patch+json', '{"spec":{"containers":[{"name":"c","image":5}]}}', `${podPrefix} number into Go struct field Container.spec.containers.image of type string`],
      ['application/strategic-merge-patch+json', '{"metadata":{"labels":{"a":["x"]}}}', `${podPrefix} array into Go struct field ObjectMeta.metadata.labels of type string`],
    ];
    for (const [contentType, patch, message] of cases) {
      assertStatus(await srv.request('PATCH', `${PODS}/target`, patch, { 'content-type': contentType }), 400, 'BadRequest', message);
    }
    for (const [field, message] of [
      ['"terminationGracePeriodSeconds":1.5', `${podPrefix} number 1.5 into Go struct field PodSpec.spec.terminationGracePeriodSeconds of type int64`],
      ['"nodeName":["x"]', `${podPrefix} array into Go struct field PodSpec.spec.nodeName of type string`],
    ]) {
      const apply = `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"target"},"spec":{"containers":[{"name":"c","image":"img"}],${field}}}`;
      const res = await srv.request('PATCH', `${PODS}/target?fieldManager=test&force=true`, apply, { 'content-type': 'application/apply-patch+yaml' });
      assertStatus(res, 400, 'BadRequest', message);
    }
    const after = ok(await srv.request('GET', `${PODS}/target`));
    assert.equal(after.metadata.resourceVersion, rv, 'nothing was written');
    assert.equal(after.spec.nodeName, undefined);
    // A patch of the right type still works.
    ok(await srv.request('PATCH', `${PODS}/target`, '{"metadata":{"labels":{"a":"b"}}}', { 'content-type': 'application/merge-patch+json' }));
  });

  it('refuses a scale that does not fit the kind (replicas outside int32)', async () => {
    await using srv = await startTestServer();
    ok(await srv.request('POST', DEPLOYMENTS, deploymentJson('scaled', '"replicas":1')), 201);
    const scale = { apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: 'scaled', namespace: 'default' }, spec: { replicas: 2 ** 40 } };
    assertStatus(
      await srv.request('PUT', `${DEPLOYMENTS}/scaled/scale`, scale),
      400,
      'BadRequest',
      `${deploymentPrefix} number 1099511627776 into Go struct field DeploymentSpec.spec.replicas of type int32`,
    );
    assert.equal(ok(await srv.request('GET', `${DEPLOYMENTS}/scaled`)).spec.replicas, 1);
    assert.equal(ok(await srv.request('PUT', `${DEPLOYMENTS}/scaled/scale`, { ...scale, spec: { replicas: 3 } })).spec.replicas, 3);
  });

  it('refuses a PUT whose spec has a wrong type', async () => {
    await using srv = await startTestServer();
    const created = ok(await srv.request('POST', DEPLOYMENTS, deploymentJson('put', '"replicas":1')), 201);
    created.spec.replicas = 1.5;
    assertStatus(await srv.request('PUT', `${DEPLOYMENTS}/put`, created), 400, 'BadRequest', `${deploymentPrefix} number 1.5 into Go struct field DeploymentSpec.spec.replicas of type int32`);
    assert.equal(ok(await srv.request('GET', `${DEPLOYMENTS}/put`)).spec.replicas, 1);
  });
});

describe('typed decoding of stored objects', () => {
  const badKey = '/registry/core/pods/default/bad';
  const badPod = JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'bad', namespace: 'default', uid: 'u-1', finalizers: ['example.com/keep'] }, spec: { nodeName: {}, terminationGracePeriodSeconds: 2 ** 63, containers: [{ name: 'c', image: 'i' }] } });

  async function metric(srv: TestServer): Promise<string> {
    return (await srv.server.metrics.registry.metrics()).split('\n').filter((l) => l.startsWith('setpoint_storage_malformed_objects_total{')).join('\n');
  }

  it('answers GET of a malformed object with a 500 Status, leaves it out of lists and watches, counts it once, and lets DELETE remove it', async () => {
    await using srv = await startTestServer();
    ok(await srv.request('POST', PODS, podJson('good', '')), 201);
    const watch = openWatch(srv.url, `${PODS}?watch=true`);
    const added = await watch.next();
    assert.equal(added.type, 'ADDED');
    assert.equal(added.object.metadata.name, 'good');
    await srv.store.create(badKey, badPod);
    // A valid change after the malformed one: the watch sees it, and nothing of the malformed one.
    ok(await srv.request('POST', PODS, podJson('good2', '')), 201);
    const next = await watch.next();
    assert.equal(next.object.metadata.name, 'good2', `the watch skipped the malformed object: ${JSON.stringify(next)}`);

    const status = assertStatus(await srv.request('GET', `${PODS}/bad`), 500, 'InternalError');
    assert.match(status.message, /\/registry\/core\/pods\/default\/bad/);
    assert.match(status.message, /json: cannot unmarshal object into Go struct field PodSpec\.spec\.nodeName of type string/);

    for (const query of ['', '?resourceVersion=0', '?limit=1']) {
      const list = ok(await srv.request('GET', `${PODS}${query}`));
      assert.ok(!list.items.some((p: { metadata: { name: string } }) => p.metadata.name === 'bad'), `list${query} leaves the malformed object out`);
    }
    const all = ok(await srv.request('GET', PODS));
    assert.deepEqual(all.items.map((p: { metadata: { name: string } }) => p.metadata.name).sort(), ['good', 'good2']);
    const fresh = openWatch(srv.url, `${PODS}?watch=true`);
    const initial = [await fresh.next(), await fresh.next()].map((e) => e.object.metadata.name).sort();
    assert.deepEqual(initial, ['good', 'good2']);

    // Counted once per key and revision, however often it was read.
    assert.equal(await metric(srv), 'setpoint_storage_malformed_objects_total{resource="pods"} 1');

    // DELETE removes it, without reading its grace period or finalizers.
    const del = await srv.request('DELETE', `${PODS}/bad`);
    assert.equal(del.status, 200, del.text);
    assert.equal(await srv.store.get(badKey), undefined, 'gone from the store');
    assertStatus(await srv.request('GET', `${PODS}/bad`), 404, 'NotFound');
    assert.equal(watch.events.length, 2, 'the first watch saw nothing of the malformed object');
  });

  it('removes a malformed object at once also when the DELETE asks for foreground or orphan propagation', async () => {
    await using srv = await startTestServer();
    for (const policy of ['Foreground', 'Orphan']) {
      await srv.store.create(badKey, badPod);
      const del = await srv.request('DELETE', `${PODS}/bad?propagationPolicy=${policy}`);
      assert.equal(del.status, 200, del.text);
      assert.equal(await srv.store.get(badKey), undefined, `${policy}: gone from the store, not kept as its identity with a finalizer no update could remove`);
    }
  });

  it('shows a watcher an object that turns malformed in the store as DELETED, and counts that revision', async () => {
    await using srv = await startTestServer();
    const created = ok(await srv.request('POST', PODS, podJson('turns', '')), 201);
    const watch = openWatch(srv.url, `${PODS}?watch=true&resourceVersion=${created.metadata.resourceVersion}`);
    const key = '/registry/core/pods/default/turns';
    const kv = (await srv.store.get(key))!;
    const stored = JSON.parse(kv.value) as { spec: Record<string, unknown> };
    stored.spec['replicas'] = 1; // unknown fields stay acceptable ...
    stored.spec['priority'] = 'high'; // ... a wrong type does not
    await srv.store.update(key, JSON.stringify(stored), kv.modRevision);
    const gone = await watch.next();
    assert.equal(gone.type, 'DELETED');
    assert.equal(gone.object.metadata.name, 'turns');
    assert.equal(gone.object.spec.priority, created.spec.priority, 'the last good state is what the watcher gets');
    const status = assertStatus(await srv.request('GET', `${PODS}/turns`), 500, 'InternalError');
    assert.match(status.message, /cannot unmarshal string into Go struct field PodSpec\.spec\.priority of type int32/);
    assert.equal(await metric(srv), 'setpoint_storage_malformed_objects_total{resource="pods"} 1');
    // Writes through the API over it answer the same 500 (nothing decodes it); DELETE removes it.
    assertStatus(await srv.request('PATCH', `${PODS}/turns`, '{"metadata":{"labels":{"a":"b"}}}', { 'content-type': 'application/merge-patch+json' }), 500, 'InternalError');
    assert.equal((await srv.request('DELETE', `${PODS}/turns`)).status, 200);
    assert.equal(await srv.store.get(key), undefined);
  });

  it('treats a stored value that is not a JSON object, or whose metadata is not one, the same way', async () => {
    await using srv = await startTestServer();
    await srv.store.create('/registry/core/configmaps/default/garbage', '{"metadata":');
    await srv.store.create('/registry/core/configmaps/default/meta', '{"metadata":"x","data":{}}');
    ok(await srv.request('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'fine' } }), 201);
    assertStatus(await srv.request('GET', '/api/v1/namespaces/default/configmaps/garbage'), 500, 'InternalError', /\/registry\/core\/configmaps\/default\/garbage/);
    assertStatus(await srv.request('GET', '/api/v1/namespaces/default/configmaps/meta'), 500, 'InternalError', /metadata is not a JSON object/);
    for (const query of ['', '?resourceVersion=0']) {
      const list = ok(await srv.request('GET', `/api/v1/namespaces/default/configmaps${query}`));
      assert.deepEqual(list.items.map((c: { metadata: { name: string } }) => c.metadata.name), ['fine']);
    }
    assert.equal((await srv.request('DELETE', '/api/v1/namespaces/default/configmaps/garbage')).status, 200);
    assert.equal((await srv.request('DELETE', '/api/v1/namespaces/default/configmaps/meta')).status, 200);
    assert.equal(await srv.store.get('/registry/core/configmaps/default/garbage'), undefined);
  });

  it('serves stored objects as they are with checkStoredObjects: false', async () => {
    await using srv = await startTestServer({ checkStoredObjects: false });
    await srv.store.create(badKey, badPod);
    const got = ok(await srv.request('GET', `${PODS}/bad`));
    assert.deepEqual(got.spec.nodeName, {});
    assert.ok(ok(await srv.request('GET', PODS)).items.some((p: { metadata: { name: string } }) => p.metadata.name === 'bad'));
    assert.equal(await metric(srv), '');
  });
});
