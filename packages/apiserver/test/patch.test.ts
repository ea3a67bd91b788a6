/**
 * PATCH over HTTP: JSON merge patch, JSON patch (RFC 6902, `test` included), strategic merge patch
 * on built-in kinds, resourceVersion preconditions inside patches, field validation, and unknown
 * patch media types.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { startTestServer } from './harness.js';
import { CM, assertStatus, createConfigMap, node, ok } from './support.js';

const MERGE = { 'content-type': 'application/merge-patch+json' };
const JSON_PATCH = { 'content-type': 'application/json-patch+json' };
const STRATEGIC = { 'content-type': 'application/strategic-merge-patch+json' };
const MODIFIED = 'the object has been modified; please apply your changes to the latest version and try again';

describe('patch', () => {
  it('applies a JSON merge patch: sets, replaces and removes (null) fields', async () => {
    await using srv = await startTestServer();
    const created = await createConfigMap(srv, 'm', { keep: '1', change: '1', drop: '1' }, { a: '1' });
    const patched = ok(await srv.request('PATCH', `${CM}/m`, { metadata: { labels: { b: '2', a: null } }, data: { change: '2', drop: null, add: '3' } }, MERGE));
    assert.deepEqual(patched.data, { keep: '1', change: '2', add: '3' });
    assert.deepEqual(patched.metadata.labels, { b: '2' });
    assert.equal(patched.metadata.uid, created.metadata.uid);
    assert.ok(Number(patched.metadata.resourceVersion) > Number(created.metadata.resourceVersion));
    assert.equal(patched.metadata.generation, 2);
    assert.deepEqual(ok(await srv.request('GET', `${CM}/m`)), patched);
    // The charset parameter is allowed on the media type.
    ok(await srv.request('PATCH', `${CM}/m`, { data: { x: 'y' } }, { 'content-type': 'application/merge-patch+json; charset=utf-8' }));
  });

  it('a merge patch that changes nothing writes nothing', async () => {
    await using srv = await startTestServer();
    const created = await createConfigMap(srv, 'm', { k: 'v' });
    const same = ok(await srv.request('PATCH', `${CM}/m`, { data: { k: 'v' } }, MERGE));
    assert.equal(same.metadata.resourceVersion, created.metadata.resourceVersion);
  });

  it('applies a JSON patch (add, replace, remove, copy, move, test)', async () => {
    await using srv = await startTestServer();
    await createConfigMap(srv, 'j', { a: '1', b: '2' });
    const patched = ok(
      await srv.request(
        'PATCH',
        `${CM}/j`,
        [
          { op: 'test', path: '/data/a', value: '1' },
          { op: 'replace', path: '/data/a', value: 'one' },
          { op: 'add', path: '/data/c', value: '3' },
          { op: 'remove', path: '/data/b' },
          { op: 'copy', from: '/data/c', path: '/data/d' },
          { op: 'move', from: '/data/c', path: '/data/e' },
          { op: 'add', path: '/metadata/labels', value: { 'x/y': 'z' } },
        ],
        JSON_PATCH,
      ),
    );
    assert.deepEqual(patched.data, { a: 'one', d: '3', e: '3' });
    assert.deepEqual(patched.metadata.labels, { 'x/y': 'z' });
  });

  it('a JSON patch whose test fails changes nothing and answers 422 as Kubernetes does', async () => {
    await using srv = await startTestServer();
    const created = await createConfigMap(srv, 'j', { a: '1' });
    const body = assertStatus(
      await srv.request('PATCH', `${CM}/j`, [{ op: 'test', path: '/data/a', value: '2' }, { op: 'replace', path: '/data/a', value: '3' }], JSON_PATCH),
      422,
      'Invalid',
      'the server rejected our request due to an error in our request',
    );
    assert.deepEqual(body.details, {});
    // A path that does not exist fails the same way.
    assertStatus(await srv.request('PATCH', `${CM}/j`, [{ op: 'remove', path: '/data/missing' }], JSON_PATCH), 422, 'Invalid', 'the server rejected our request due to an error in our request');
    const got = ok(await srv.request('GET', `${CM}/j`));
    assert.deepEqual(got.data, { a: '1' });
    assert.equal(got.metadata.resourceVersion, created.metadata.resourceVersion);
    // A body that is not a list of operations is a bad request.
    assertStatus(await srv.request('PATCH', `${CM}/j`, { op: 'remove', path: '/data/a' }, JSON_PATCH), 400, 'BadRequest');
    // An unknown op fails when applied, as in Kubernetes' JSON patch library.
    assertStatus(await srv.request('PATCH', `${CM}/j`, [{ op: 'frobnicate', path: '/data/a' }], JSON_PATCH), 422, 'Invalid');
    // A failed test of metadata.resourceVersion is a failed test like any other.
    assertStatus(await srv.request('PATCH', `${CM}/j`, [{ op: 'test', path: '/metadata/resourceVersion', value: '1' }], JSON_PATCH), 422, 'Invalid');
  });

  it('a resourceVersion inside the patch is a precondition (409 when stale)', async () => {
    await using srv = await startTestServer();
    const created = await createConfigMap(srv, 'p', { v: '1' });
    const rv = created.metadata.resourceVersion!;
    const fresh = ok(await srv.request('PATCH', `${CM}/p`, { metadata: { resourceVersion: rv }, data: { v: '2' } }, MERGE));
    assert.deepEqual(fresh.data, { v: '2' });
    assertStatus(await srv.request('PATCH', `${CM}/p`, { metadata: { resourceVersion: rv }, data: { v: '3' } }, MERGE), 409, 'Conflict', `Operation cannot be fulfilled on configmaps "p": ${MODIFIED}`);
    assertStatus(
      await srv.request('PATCH', `${CM}/p`, [{ op: 'replace', path: '/metadata/resourceVersion', value: rv }, { op: 'replace', path: '/data/v', value: '4' }], JSON_PATCH),
      409,
      'Conflict',
      `Operation cannot be fulfilled on configmaps "p": ${MODIFIED}`,
    );
    assertStatus(await srv.request('PATCH', `${CM}/p`, { metadata: { resourceVersion: rv }, data: { v: '5' } }, STRATEGIC), 409, 'Conflict');
    assert.deepEqual(ok(await srv.request('GET', `${CM}/p`)).data, { v: '2' });
  });

  it('strategic merge patch merges lists by their patch strategy where a merge patch replaces them', async () => {
    await using srv = await startTestServer();
    ok(await srv.request('POST', CM, { metadata: { name: 's', finalizers: ['example.com/a'] } }), 201);
    const merged = ok(await srv.request('PATCH', `${CM}/s`, { metadata: { finalizers: ['example.com/b'] } }, STRATEGIC));
    // A union (patchStrategy merge); Kubernetes puts the patch's items before the server-only ones.
    assert.deepEqual(merged.metadata.finalizers, ['example.com/b', 'example.com/a'], 'finalizers merge (patchStrategy merge)');
    const removed = ok(await srv.request('PATCH', `${CM}/s`, { metadata: { '$deleteFromPrimitiveList/finalizers': ['example.com/a'] } }, STRATEGIC));
    assert.deepEqual(removed.metadata.finalizers, ['example.com/b']);
    const replaced = ok(await srv.request('PATCH', `${CM}/s`, { metadata: { finalizers: ['example.com/c'] } }, MERGE));
    assert.deepEqual(replaced.metadata.finalizers, ['example.com/c'], 'a merge patch replaces the list');
    ok(await srv.request('PATCH', `${CM}/s`, { metadata: { finalizers: null } }, MERGE));
  });

  it('strategic merge patch on nodes/status merges conditions by type', async () => {
    await using srv = await startTestServer();
    ok(
      await srv.request(
        'POST',
        '/api/v1/nodes',
        node('n1', {
          status: {
            conditions: [
              { type: 'Ready', status: 'False', reason: 'Starting' },
              { type: 'MemoryPressure', status: 'False', reason: 'Fine' },
            ],
          },
        }),
      ),
      201,
    );
    const patched = ok(await srv.request('PATCH', '/api/v1/nodes/n1/status', { status: { conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady' }] } }, STRATEGIC));
    assert.deepEqual(
      patched.status.conditions.map((c: { type: string; status: string; reason: string }) => [c.type, c.status, c.reason]),
      [
        ['Ready', 'True', 'KubeletReady'],
        ['MemoryPressure', 'False', 'Fine'],
      ],
    );
    const deleted = ok(await srv.request('PATCH', '/api/v1/nodes/n1/status', { status: { conditions: [{ type: 'MemoryPressure', $patch: 'delete' }] } }, STRATEGIC));
    assert.deepEqual(
      deleted.status.conditions.map((c: { type: string }) => c.type),
      ['Ready'],
    );
  });

  it('field validation of patches: Strict refuses unknown fields, Warn warns and keeps them', async () => {
    await using srv = await startTestServer();
    await createConfigMap(srv, 'f', { a: '1' });
    assertStatus(await srv.request('PATCH', `${CM}/f?fieldValidation=Strict`, { spec: { x: 1 } }, MERGE), 400, 'BadRequest', 'strict decoding error: unknown field "spec"');
    const res = await srv.request('PATCH', `${CM}/f?fieldValidation=Warn`, { spec: { x: 1 }, data: { b: '2' } }, MERGE);
    const patched = ok(res);
    assert.equal(res.headers.warning, '299 - "unknown field \\"spec\\""');
    assert.deepEqual(patched.spec, { x: 1 });
    assert.deepEqual(patched.data, { a: '1', b: '2' });
    // A JSON patch's unknown fields are found in its result (those it adds, not those kept before).
    const addSpec = [{ op: 'add', path: '/spec2', value: { x: 1 } }];
    assertStatus(await srv.request('PATCH', `${CM}/f?fieldValidation=Strict`, addSpec, JSON_PATCH), 400, 'BadRequest', 'strict decoding error: unknown field "spec2"');
    const warned = await srv.request('PATCH', `${CM}/f`, [...addSpec, { op: 'add', path: '/data/c', value: '3' }], JSON_PATCH);
    assert.equal(warned.headers.warning, '299 - "unknown field \\"spec2\\""');
    assert.deepEqual(ok(warned).spec2, { x: 1 });
    // A Strict JSON patch that adds nothing unknown passes, although the object kept unknown fields.
    ok(await srv.request('PATCH', `${CM}/f?fieldValidation=Strict`, [{ op: 'add', path: '/data/d', value: '4' }], JSON_PATCH));
  });

  it('dryRun=All patches without writing', async () => {
    await using srv = await startTestServer();
    const created = await createConfigMap(srv, 'd', { a: '1' });
    const answered = ok(await srv.request('PATCH', `${CM}/d?dryRun=All`, { data: { a: '2' } }, MERGE));
    assert.deepEqual(answered.data, { a: '2' });
    const got = ok(await srv.request('GET', `${CM}/d`));
    assert.deepEqual(got.data, { a: '1' });
    assert.equal(got.metadata.resourceVersion, created.metadata.resourceVersion);
  });

  it('answers 404 when patching an object that does not exist', async () => {
    await using srv = await startTestServer();
    assertStatus(await srv.request('PATCH', `${CM}/nope`, { data: { a: '1' } }, MERGE), 404, 'NotFound', 'configmaps "nope" not found');
  });

  it('refuses an unknown patch Content-Type with 415 in Kubernetes words', async () => {
    await using srv = await startTestServer();
    const created = await createConfigMap(srv, 'u', { a: '1' });
    const want =
      'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json, application/apply-patch+yaml';
    assertStatus(await srv.request('PATCH', `${CM}/u`, { data: { a: '2' } }, { 'content-type': 'application/json' }), 415, 'UnsupportedMediaType', want);
    assertStatus(await srv.request('PATCH', `${CM}/u`, 'data: {}', { 'content-type': 'text/plain' }), 415, 'UnsupportedMediaType', want);
    assert.equal(ok(await srv.request('GET', `${CM}/u`)).metadata.resourceVersion, created.metadata.resourceVersion);
  });
});
