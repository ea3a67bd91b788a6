/**
 * DELETE and DELETE-collection over HTTP: DeleteOptions in the body or the query, preconditions,
 * finalizers (deletionTimestamp, MODIFIED, then DELETED once they are emptied), propagation
 * policies, dryRun, and deletecollection with a label selector.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { openWatch, startTestServer, type TestServer } from './harness.js';
import { CM, assertStatus, configMap, createConfigMap, names, ok } from './support.js';

async function withFinalizers(srv: TestServer, name: string, finalizers: string[]) {
  return ok(await srv.request('POST', CM, { metadata: { name, finalizers }, data: { k: 'v' } }), 201);
}

describe('delete', () => {
  it('removes an object and answers a Success Status naming it', async () => {
    await using srv = await startTestServer();
    const created = await createConfigMap(srv, 'a');
    const res = await srv.request('DELETE', `${CM}/a`);
    const status = ok(res);
    assert.equal(status.kind, 'Status');
    assert.equal(status.apiVersion, 'v1');
    assert.equal(status.status, 'Success');
    assert.equal(status.details.name, 'a');
    assert.equal(status.details.kind, 'configmaps');
    assert.equal(status.details.uid, created.metadata.uid);
    assertStatus(await srv.request('GET', `${CM}/a`), 404, 'NotFound');
    assertStatus(await srv.request('DELETE', `${CM}/a`), 404, 'NotFound', 'configmaps "a" not found');
  });

  it('takes DeleteOptions in the body (kubectl) or none at all (client-node)', async () => {
    await using srv = await startTestServer();
    await createConfigMap(srv, 'a');
    await createConfigMap(srv, 'b');
    ok(await srv.request('DELETE', `${CM}/a`, { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Background' }));
    ok(await srv.request('DELETE', `${CM}/b`, ''));
    assert.deepEqual(ok(await srv.request('GET', CM)).items, []);
    await createConfigMap(srv, 'c');
    assertStatus(
      await srv.request('DELETE', `${CM}/c`, { propagationPolicy: 'Sometimes' }),
      422,
      'Invalid',
      'DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: "Sometimes": supported values: "Foreground", "Background", "Orphan", "nil"',
    );
    assertStatus(
      await srv.request('DELETE', `${CM}/c`, { dryRun: ['Some'] }),
      422,
      'Invalid',
      'DeleteOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: []string{"Some"}: supported values: "All"',
    );
    assertStatus(await srv.request('DELETE', `${CM}/c`, '[1]'), 400, 'BadRequest');
    ok(await srv.request('GET', `${CM}/c`));
  });

  it('checks uid and resourceVersion preconditions (409 when they do not hold)', async () => {
    await using srv = await startTestServer();
    const created = await createConfigMap(srv, 'p');
    assertStatus(
      await srv.request('DELETE', `${CM}/p`, { preconditions: { uid: 'not-the-uid' } }),
      409,
      'Conflict',
      `Operation cannot be fulfilled on configmaps "p": Precondition failed: UID in precondition: not-the-uid, UID in object meta: ${created.metadata.uid}`,
    );
    assertStatus(
      await srv.request('DELETE', `${CM}/p`, { preconditions: { resourceVersion: '1' } }),
      409,
      'Conflict',
      `Operation cannot be fulfilled on configmaps "p": Precondition failed: ResourceVersion in precondition: 1, ResourceVersion in object meta: ${created.metadata.resourceVersion}`,
    );
    ok(await srv.request('GET', `${CM}/p`));
    ok(await srv.request('DELETE', `${CM}/p`, { preconditions: { uid: created.metadata.uid, resourceVersion: created.metadata.resourceVersion } }));
    assertStatus(await srv.request('GET', `${CM}/p`), 404, 'NotFound');
  });

  it('with finalizers: sets deletionTimestamp (MODIFIED) and keeps the object until an update empties them (DELETED)', async () => {
    await using srv = await startTestServer();
    const created = await withFinalizers(srv, 'held', ['example.com/hold']);
    const w = openWatch(srv.url, `${CM}?watch=true&resourceVersion=${created.metadata.resourceVersion}`);
    try {
      const pending = ok(await srv.request('DELETE', `${CM}/held`));
      assert.equal(pending.kind, 'ConfigMap', 'a pending deletion answers the object');
      assert.match(pending.metadata.deletionTimestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      assert.equal(pending.metadata.deletionGracePeriodSeconds, 0);
      assert.deepEqual(pending.metadata.finalizers, ['example.com/hold']);
      const modified = await w.next();
      assert.equal(modified.type, 'MODIFIED');
      assert.equal(modified.object.metadata.deletionTimestamp, pending.metadata.deletionTimestamp);

      const kept = ok(await srv.request('GET', `${CM}/held`));
      assert.equal(kept.metadata.deletionTimestamp, pending.metadata.deletionTimestamp);
      // Deleting again changes nothing.
      const again = ok(await srv.request('DELETE', `${CM}/held`));
      assert.equal(again.metadata.resourceVersion, kept.metadata.resourceVersion);
      // The deletionTimestamp cannot be taken back by an update.
      const updated = ok(await srv.request('PUT', `${CM}/held`, { ...kept, metadata: { ...kept.metadata, deletionTimestamp: undefined }, data: { k: 'w' } }));
      assert.equal(updated.metadata.deletionTimestamp, pending.metadata.deletionTimestamp);
      assert.equal((await w.next()).type, 'MODIFIED');

      // Emptying the finalizers removes it.
      ok(await srv.request('PATCH', `${CM}/held`, { metadata: { finalizers: null } }, { 'content-type': 'application/merge-patch+json' }));
      const deleted = await w.next();
      assert.equal(deleted.type, 'DELETED');
      assert.equal(deleted.object.metadata.name, 'held');
      assertStatus(await srv.request('GET', `${CM}/held`), 404, 'NotFound');
    } finally {
      w.close();
    }
  });

  it('with finalizers, a PUT that empties them removes the object', async () => {
    await using srv = await startTestServer();
    await withFinalizers(srv, 'held', ['example.com/a', 'example.com/b']);
    const pending = ok(await srv.request('DELETE', `${CM}/held`));
    const one = ok(await srv.request('PUT', `${CM}/held`, { ...pending, metadata: { ...pending.metadata, finalizers: ['example.com/b'] } }));
    assert.deepEqual(one.metadata.finalizers, ['example.com/b']);
    ok(await srv.request('GET', `${CM}/held`));
    ok(await srv.request('PUT', `${CM}/held`, { ...one, metadata: { ...one.metadata, finalizers: [] } }));
    assertStatus(await srv.request('GET', `${CM}/held`), 404, 'NotFound');
  });

  it('propagationPolicy Foreground adds foregroundDeletion; Orphan adds orphan', async () => {
    await using srv = await startTestServer();
    await createConfigMap(srv, 'fg');
    await createConfigMap(srv, 'or');
    await createConfigMap(srv, 'legacy');
    const fg = ok(await srv.request('DELETE', `${CM}/fg`, { propagationPolicy: 'Foreground' }));
    assert.deepEqual(fg.metadata.finalizers, ['foregroundDeletion']);
    assert.ok(fg.metadata.deletionTimestamp);
    const or = ok(await srv.request('DELETE', `${CM}/or?propagationPolicy=Orphan`));
    assert.deepEqual(or.metadata.finalizers, ['orphan']);
    const legacy = ok(await srv.request('DELETE', `${CM}/legacy`, { orphanDependents: true }));
    assert.deepEqual(legacy.metadata.finalizers, ['orphan']);
    // They wait for the garbage collector.
    assert.deepEqual(names(ok(await srv.request('GET', CM))), ['fg', 'legacy', 'or']);
    // Background (the default) removes at once.
    await createConfigMap(srv, 'bg');
    assert.equal(ok(await srv.request('DELETE', `${CM}/bg?propagationPolicy=Background`)).status, 'Success');
    assertStatus(
      await srv.request('DELETE', `${CM}/fg`, { propagationPolicy: 'Orphan', orphanDependents: true }),
      422,
      'Invalid',
      'DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Invalid value: "Orphan": orphanDependents and deletionPropagation cannot be both set',
    );
  });

  it('dryRun=All deletes nothing and sends no event', async () => {
    await using srv = await startTestServer();
    const created = await createConfigMap(srv, 'd');
    await withFinalizers(srv, 'f', ['example.com/x']);
    const w = openWatch(srv.url, `${CM}?watch=true&resourceVersion=${await srv.store.currentRevision()}`);
    try {
      ok(await srv.request('DELETE', `${CM}/d?dryRun=All`));
      // client-go and kubectl (delete --dry-run=server) send dryRun in the DeleteOptions body.
      ok(await srv.request('DELETE', `${CM}/d`, { kind: 'DeleteOptions', apiVersion: 'v1', dryRun: ['All'], propagationPolicy: 'Background' }));
      const fin = ok(await srv.request('DELETE', `${CM}/f?dryRun=All`));
      assert.ok(fin.metadata.deletionTimestamp, 'the answer shows what would happen');
      assert.equal(ok(await srv.request('GET', `${CM}/f`)).metadata.deletionTimestamp, undefined);
      assert.equal(ok(await srv.request('GET', `${CM}/d`)).metadata.resourceVersion, created.metadata.resourceVersion);
      await createConfigMap(srv, 'sentinel');
      const event = await w.next();
      assert.equal(`${event.type} ${event.object.metadata.name}`, 'ADDED sentinel');
    } finally {
      w.close();
    }
  });

  it('deletecollection deletes what the label selector matches and answers the deleted list', async () => {
    await using srv = await startTestServer();
    for (const n of ['x1', 'x2', 'x3']) await createConfigMap(srv, n, {}, { app: 'x' });
    for (const n of ['y1', 'y2']) await createConfigMap(srv, n, {}, { app: 'y' });
    await createConfigMap(srv, 'x-elsewhere', {}, { app: 'x' }, 'kube-system');
    const res = await srv.request('DELETE', `${CM}?labelSelector=app%3Dx`);
    const list = ok(res);
    assert.equal(list.kind, 'ConfigMapList');
    assert.deepEqual(names(list), ['x1', 'x2', 'x3']);
    assert.deepEqual(names(ok(await srv.request('GET', CM))), ['y1', 'y2']);
    assert.deepEqual(names(ok(await srv.request('GET', '/api/v1/namespaces/kube-system/configmaps'))), ['x-elsewhere'], 'only the namespace in the URL');
    // dryRun leaves everything.
    ok(await srv.request('DELETE', `${CM}?labelSelector=app%3Dy&dryRun=All`));
    assert.deepEqual(names(ok(await srv.request('GET', CM))), ['y1', 'y2']);
    // A field selector works too.
    ok(await srv.request('DELETE', `${CM}?fieldSelector=metadata.name%3Dy1`));
    assert.deepEqual(names(ok(await srv.request('GET', CM))), ['y2']);
  });

  it('deleting a namespace marks it Terminating and keeps it for the namespace controller', async () => {
    await using srv = await startTestServer();
    ok(await srv.request('POST', '/api/v1/namespaces', { metadata: { name: 'gone' } }), 201);
    const w = openWatch(srv.url, `/api/v1/namespaces?watch=true&resourceVersion=${await srv.store.currentRevision()}`);
    try {
      const ns = ok(await srv.request('DELETE', '/api/v1/namespaces/gone'));
      assert.equal(ns.kind, 'Namespace');
      assert.equal(ns.status.phase, 'Terminating');
      assert.ok(ns.metadata.deletionTimestamp);
      const event = await w.next();
      assert.equal(event.type, 'MODIFIED');
      assert.equal(event.object.status.phase, 'Terminating');
    } finally {
      w.close();
    }
    // Its spec.finalizers change only through /finalize; emptied, the namespace goes.
    const ns = ok(await srv.request('GET', '/api/v1/namespaces/gone'));
    ok(await srv.request('PUT', '/api/v1/namespaces/gone/finalize', { ...ns, spec: { finalizers: [] } }));
    assertStatus(await srv.request('GET', '/api/v1/namespaces/gone'), 404, 'NotFound');
  });

  it('a deleted name can be created again, with a new uid', async () => {
    await using srv = await startTestServer();
    const first = await createConfigMap(srv, 'again');
    ok(await srv.request('DELETE', `${CM}/again`));
    const second = ok(await srv.request('POST', CM, configMap('again')), 201);
    assert.notEqual(second.metadata.uid, first.metadata.uid);
  });
});
