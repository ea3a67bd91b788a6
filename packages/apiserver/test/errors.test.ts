/**
 * Bad input over HTTP: oversized bodies, malformed JSON and YAML, bodies that do not fit the URL,
 * invalid names and labels. Every answer is a Status served as application/json, nothing is
 * written, and the server keeps serving.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { startTestServer, type TestServer } from './harness.js';
import { CM, assertStatus, configMap, createConfigMap, ok } from './support.js';

const DNS1123_SUBDOMAIN =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const QUALIFIED_NAME =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const LABEL_VALUE =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

/** The state nothing bad may change: the store revision and the objects. */
async function snapshot(srv: TestServer) {
  return { revision: await srv.store.currentRevision(), configmaps: ok(await srv.request('GET', '/api/v1/configmaps')).items };
}

async function assertUnchangedAndServing(srv: TestServer, before: Awaited<ReturnType<typeof snapshot>>) {
  assert.deepEqual(await snapshot(srv), before, 'nothing was written');
  const ready = await srv.request('GET', '/readyz');
  assert.equal(ready.status, 200);
  ok(await srv.request('POST', CM, configMap(`still-serving-${Math.random().toString(36).slice(2, 7)}`)), 201);
}

describe('bad input', () => {
  it('a body over 3 MiB: 413 RequestEntityTooLarge', async () => {
    await using srv = await startTestServer();
    await createConfigMap(srv, 'existing', { a: '1' });
    const before = await snapshot(srv);
    const big = JSON.stringify(configMap('big', { blob: 'x'.repeat(3 * 1024 * 1024 + 10) }));
    assertStatus(await srv.request('POST', CM, big), 413, 'RequestEntityTooLarge', 'Request entity too large: limit is 3145728');
    assertStatus(await srv.request('PUT', `${CM}/existing`, big), 413, 'RequestEntityTooLarge');
    assertStatus(await srv.request('PATCH', `${CM}/existing`, big, { 'content-type': 'application/merge-patch+json' }), 413, 'RequestEntityTooLarge');
    await assertUnchangedAndServing(srv, before);
  });

  it('malformed JSON and YAML: 400 BadRequest', async () => {
    await using srv = await startTestServer();
    await createConfigMap(srv, 'existing');
    const before = await snapshot(srv);
    assertStatus(await srv.request('POST', CM, '{"metadata": {"name": "x"'), 400, 'BadRequest');
    assertStatus(await srv.request('POST', CM, 'not json at all'), 400, 'BadRequest');
    assertStatus(await srv.request('PUT', `${CM}/existing`, '{"metadata":'), 400, 'BadRequest');
    assertStatus(await srv.request('PATCH', `${CM}/existing`, '{"data": [', { 'content-type': 'application/merge-patch+json' }), 400, 'BadRequest');
    assertStatus(await srv.request('POST', CM, 'metadata:\n  name: [unclosed\n', { 'content-type': 'application/yaml' }), 400, 'BadRequest');
    assertStatus(await srv.request('POST', CM, 'a: b: c\n', { 'content-type': 'application/yaml' }), 400, 'BadRequest');
    // A key twice in one map, in block and flow style, at any depth.
    const yaml = { 'content-type': 'application/yaml' };
    const unique = 'the body of the request could not be decoded as YAML: Map keys must be unique at line';
    assertStatus(await srv.request('POST', CM, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: d1\ndata:\n  k: a\n  j: b\n  k: c\n', yaml), 400, 'BadRequest', `${unique} 8, column 3:`);
    assertStatus(await srv.request('POST', CM, '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"d2","name":"d3"}}', yaml), 400, 'BadRequest', `${unique} 1, column 63:`);
    // A body that is JSON but not an object.
    assertStatus(await srv.request('POST', CM, '[1, 2]'), 400, 'BadRequest');
    assertStatus(await srv.request('POST', CM, '"text"'), 400, 'BadRequest');
    await assertUnchangedAndServing(srv, before);
  });

  it('accepts a well-formed YAML body', async () => {
    await using srv = await startTestServer();
    const created = ok(await srv.request('POST', CM, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: from-yaml\ndata:\n  k: v\n', { 'content-type': 'application/yaml' }), 201);
    assert.deepEqual(created.data, { k: 'v' });
    // The same key in two maps is no duplicate; "1" and 1 are two keys.
    const twice = ok(await srv.request('POST', CM, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: twice\n  labels: {name: x}\ndata: {"1": a, 1: b, "name": c}\n', { 'content-type': 'application/yaml' }), 201);
    assert.deepEqual([twice.metadata.labels, twice.data], [{ name: 'x' }, { 1: 'b', name: 'c' }]);
  });

  it('a body of another media type: 415', async () => {
    await using srv = await startTestServer();
    const before = await snapshot(srv);
    assertStatus(await srv.request('POST', CM, 'name=x', { 'content-type': 'application/x-www-form-urlencoded' }), 415, 'UnsupportedMediaType');
    await assertUnchangedAndServing(srv, before);
  });

  it('a body whose apiVersion or kind does not fit the URL: 400', async () => {
    await using srv = await startTestServer();
    await createConfigMap(srv, 'existing');
    const before = await snapshot(srv);
    assertStatus(await srv.request('POST', CM, { ...configMap('x'), apiVersion: 'apps/v1' }), 400, 'BadRequest', /apps\/v1/);
    assertStatus(await srv.request('POST', CM, { ...configMap('x'), kind: 'Secret' }), 400, 'BadRequest', /Secret/);
    assertStatus(await srv.request('PUT', `${CM}/existing`, { ...configMap('existing'), kind: 'Namespace' }), 400, 'BadRequest');
    assertStatus(await srv.request('POST', '/apis/coordination.k8s.io/v1/namespaces/default/leases', { apiVersion: 'v1', kind: 'Lease', metadata: { name: 'l' } }), 400, 'BadRequest');
    await assertUnchangedAndServing(srv, before);
  });

  it('a name or namespace in the body other than the URL’s: 400', async () => {
    await using srv = await startTestServer();
    await createConfigMap(srv, 'existing');
    const before = await snapshot(srv);
    assertStatus(
      await srv.request('PUT', `${CM}/existing`, configMap('other')),
      400,
      'BadRequest',
      'the name of the object (other) does not match the name on the URL (existing)',
    );
    assertStatus(
      await srv.request('POST', CM, { ...configMap('x'), metadata: { name: 'x', namespace: 'kube-system' } }),
      400,
      'BadRequest',
      'the namespace of the provided object does not match the namespace sent on the request',
    );
    assertStatus(
      await srv.request('PUT', `${CM}/existing`, { ...configMap('existing'), metadata: { name: 'existing', namespace: 'kube-system' } }),
      400,
      'BadRequest',
      'the namespace of the provided object does not match the namespace sent on the request',
    );
    assertStatus(await srv.request('PATCH', `${CM}/existing`, { metadata: { name: 'renamed' } }, { 'content-type': 'application/merge-patch+json' }), 400, 'BadRequest');
    await assertUnchangedAndServing(srv, before);
  });

  it('an invalid name: 422 Invalid with the field path and Kubernetes’ wording', async () => {
    await using srv = await startTestServer();
    const before = await snapshot(srv);
    const body = assertStatus(
      await srv.request('POST', CM, configMap('Bad_Name')),
      422,
      'Invalid',
      `ConfigMap "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name": ${DNS1123_SUBDOMAIN}`,
    );
    assert.equal(body.details.name, 'Bad_Name');
    assert.equal(body.details.kind, 'ConfigMap', 'Invalid names the Kind, not the resource');
    assert.deepEqual(body.details.causes, [{ reason: 'FieldValueInvalid', message: `Invalid value: "Bad_Name": ${DNS1123_SUBDOMAIN}`, field: 'metadata.name' }]);
    // A missing name.
    const missing = assertStatus(await srv.request('POST', CM, { metadata: {} }), 422, 'Invalid');
    assert.deepEqual(
      missing.details.causes.map((c: { field: string; reason: string }) => [c.field, c.reason]),
      [['metadata.name', 'FieldValueRequired']],
    );
    assert.match(missing.message, /metadata\.name: Required value: name or generateName is required/);
    // A name too long for a namespace (a DNS-1123 label).
    const ns = assertStatus(await srv.request('POST', '/api/v1/namespaces', { metadata: { name: 'a'.repeat(64) } }), 422, 'Invalid');
    assert.equal(ns.details.causes[0].field, 'metadata.name');
    assert.match(ns.message, /must be no more than 63 characters/);
    await assertUnchangedAndServing(srv, before);
  });

  it('invalid labels: 422 Invalid with a cause per problem', async () => {
    await using srv = await startTestServer();
    const before = await snapshot(srv);
    const body = assertStatus(await srv.request('POST', CM, configMap('x', {}, { 'bad key!': 'ok', good: 'bad value!' })), 422, 'Invalid');
    assert.deepEqual(body.details.causes, [
      { reason: 'FieldValueInvalid', message: `Invalid value: "bad key!": ${QUALIFIED_NAME}`, field: 'metadata.labels' },
      { reason: 'FieldValueInvalid', message: `Invalid value: "bad value!": ${LABEL_VALUE}`, field: 'metadata.labels' },
    ]);
    assert.equal(
      body.message,
      `ConfigMap "x" is invalid: [metadata.labels: Invalid value: "bad key!": ${QUALIFIED_NAME}, metadata.labels: Invalid value: "bad value!": ${LABEL_VALUE}]`,
    );
    // On update too; the stored object is unchanged.
    await createConfigMap(srv, 'y', {}, { fine: 'yes' });
    const mid = await snapshot(srv);
    assertStatus(await srv.request('PUT', `${CM}/y`, configMap('y', {}, { fine: 'no way' })), 422, 'Invalid');
    assertStatus(await srv.request('PATCH', `${CM}/y`, { metadata: { labels: { '-bad': 'x' } } }, { 'content-type': 'application/merge-patch+json' }), 422, 'Invalid');
    assert.deepEqual(await snapshot(srv), mid);
    await assertUnchangedAndServing(srv, await snapshot(srv));
    assert.ok(before.revision < mid.revision);
  });

  it('an invalid object of a kind with its own rules: 422 naming the field', async () => {
    await using srv = await startTestServer();
    const before = await snapshot(srv);
    const body = assertStatus(await srv.request('POST', CM, configMap('k', { 'bad key': 'v' })), 422, 'Invalid');
    assert.equal(body.details.causes[0].field, 'data[bad key]');
    assert.match(body.message, /^ConfigMap "k" is invalid: data\[bad key\]: Invalid value: "bad key": a valid config key must consist of/);
    await assertUnchangedAndServing(srv, before);
  });

  it('every error is a Status served as application/json, whatever the Accept header', async () => {
    await using srv = await startTestServer();
    for (const accept of ['application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf, application/json', '*/*']) {
      assertStatus(await srv.request('GET', `${CM}/missing`, undefined, { accept }), 404, 'NotFound', 'configmaps "missing" not found');
    }
    assertStatus(await srv.request('POST', `${CM}/named`, configMap('named')), 405, 'MethodNotAllowed');
    assertStatus(await srv.request('GET', '/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=abc'), 400, 'BadRequest');
  });
});
