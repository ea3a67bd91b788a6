/**
 * ControllerRevision (apps/v1) end to end, added as one folder (registry/kinds/controllerrevision/):
 * create, get, list and watch; validation and the immutable `data` with Kubernetes' messages; the
 * object over protobuf (its `data` is a RawExtension); the table kubectl prints; kubectl's apply,
 * get and delete against it.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeProtobuf, encodeProtobuf } from '../src/http/protobuf/index.js';
import { openWatch, startTestServer } from './harness.js';
import { kubectlOk, manifest } from './kubectl-support.js';
import { assertStatus, ok, rawRequest as raw } from './support.js';

const CR = '/apis/apps/v1/namespaces/default/controllerrevisions';
const PROTOBUF = 'application/vnd.kubernetes.protobuf';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

function revision(name: string, rev: number, data: unknown = { spec: { template: { metadata: { labels: { app: name } } } } }, owner?: Json): Json {
  return { apiVersion: 'apps/v1', kind: 'ControllerRevision', metadata: { name, ...(owner ? { ownerReferences: [owner] } : {}) }, data, revision: rev };
}

describe('controllerrevisions', () => {
  it('create, get, list and watch; data is kept as given', async () => {
    await using srv = await startTestServer();
    const w = openWatch(srv.url, `${CR}?watch=true`);
    const created = ok(await srv.request('POST', CR, revision('web-1', 1)), 201);
    assert.deepEqual([created.revision, created.data], [1, { spec: { template: { metadata: { labels: { app: 'web-1' } } } } }]);
    assert.deepEqual(ok(await srv.request('GET', `${CR}/web-1`)), created);
    const list = ok(await srv.request('GET', CR));
    assert.equal(list.kind, 'ControllerRevisionList');
    assert.deepEqual(list.items.map((i: Json) => i.metadata.name), ['web-1']);
    const added = (await w.next()) as Json;
    assert.deepEqual([added.type, added.object.kind, added.object.metadata.name], ['ADDED', 'ControllerRevision', 'web-1']);
    w.close();
  });

  it('validates as ValidateControllerRevision and ValidateControllerRevisionUpdate: data mandatory and immutable, revision not negative', async () => {
    await using srv = await startTestServer();
    const noData = { apiVersion: 'apps/v1', kind: 'ControllerRevision', metadata: { name: 'empty' }, revision: 1 };
    const status = assertStatus(await srv.request('POST', CR, noData), 422, 'Invalid');
    assert.equal(status.message, 'ControllerRevision.apps "empty" is invalid: data: Required value: data is mandatory');
    const negative = assertStatus(await srv.request('POST', CR, revision('neg', -1)), 422, 'Invalid');
    assert.equal(negative.message, 'ControllerRevision.apps "neg" is invalid: revision: Invalid value: -1: must be greater than or equal to 0');
    assertStatus(await srv.request('POST', CR, revision('Not_A_Name', 1)), 422, 'Invalid');

    ok(await srv.request('POST', CR, revision('web-1', 1)), 201);
    const changed = assertStatus(
      await srv.request('PATCH', `${CR}/web-1`, { data: { spec: { replicas: 2 } } }, { 'content-type': 'application/merge-patch+json' }),
      422,
      'Invalid',
    );
    assert.equal(changed.details.causes[0].field, 'data');
    assert.match(changed.message, /^ControllerRevision\.apps "web-1" is invalid: data: Invalid value: .*: field is immutable$/);
    // revision may change (the controllers renumber a revision they bring back).
    const renumbered = ok(await srv.request('PATCH', `${CR}/web-1`, { revision: 3 }, { 'content-type': 'application/merge-patch+json' }));
    assert.equal(renumbered.revision, 3);
  });

  it('round-trips over protobuf, data included', async () => {
    await using srv = await startTestServer();
    const body = encodeProtobuf(revision('pb', 2));
    assert.ok(body !== undefined, 'ControllerRevision has a protobuf message');
    const res = await raw(srv, 'POST', CR, Buffer.from(body), { accept: PROTOBUF, 'content-type': PROTOBUF });
    assert.equal(res.status, 201, res.bytes.toString('utf8').slice(0, 300));
    assert.equal(res.contentType, PROTOBUF);
    const created = decodeProtobuf(res.bytes) as Json;
    assert.deepEqual([created.kind, created.metadata.name, created.revision, created.data], ['ControllerRevision', 'pb', 2, { spec: { template: { metadata: { labels: { app: 'pb' } } } } }]);
    assert.deepEqual(ok(await srv.request('GET', `${CR}/pb`)).data, created.data);
  });

  it('prints NAME CONTROLLER REVISION AGE as kubectl does', async () => {
    await using srv = await startTestServer();
    const owner = { apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'db', uid: 'u-1', controller: true };
    ok(await srv.request('POST', CR, revision('db-7f', 4, {}, owner)), 201);
    ok(await srv.request('POST', CR, revision('orphan', 1, {}, { apiVersion: 'v1', kind: 'Node', name: 'n1', uid: 'u-2' })), 201);
    const table = ok(await srv.request('GET', CR, undefined, { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' }));
    assert.deepEqual(
      table.columnDefinitions.map((c: Json) => [c.name, c.type]),
      [
        ['Name', 'string'],
        ['Controller', 'string'],
        ['Revision', 'number'],
        ['Age', 'string'],
      ],
    );
    assert.deepEqual(
      table.rows.map((r: Json) => r.cells.slice(0, 3)),
      [
        ['db-7f', 'statefulset.apps/db', 4],
        ['orphan', '<none>', 1],
      ],
    );
  });

  it('kubectl apply, get and delete', async () => {
    await using srv = await startTestServer({ secure: true });
    const file = await manifest(srv, 'revision.yaml', ['apiVersion: apps/v1', 'kind: ControllerRevision', 'metadata:', '  name: web-1', 'revision: 1', 'data:', '  spec: {}', ''].join('\n'));
    assert.match(await kubectlOk(srv, 'apply', '-f', file), /^controllerrevision\.apps\/web-1 created$/m);
    assert.match(await kubectlOk(srv, 'get', 'controllerrevisions'), /^web-1\s+<none>\s+1\s+\S+$/m);
    assert.match(await kubectlOk(srv, 'delete', 'controllerrevision', 'web-1'), /^controllerrevision\.apps "web-1" deleted$/m);
  });
});
