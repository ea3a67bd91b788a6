/**
 * The system namespaces (default, kube-system, kube-public, kube-node-lease): deleting one is
 * Kubernetes' 403, `kubectl delete namespace --all` leaves them, and one that goes missing anyway is
 * created again within a minute of the server's clock.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FakeClock } from '@setpoint/api';
import { SYSTEM_NAMESPACES, SystemNamespacesLoop } from '../src/admission/systemnamespaces.js';
import { objectKey } from '../src/storage/codec.js';
import { startTestServer } from './harness.js';
import { kubectl } from './kubectl-support.js';
import { assertStatus, ok, waitFor } from './support.js';

const NS = '/api/v1/namespaces';

describe('system namespaces', () => {
  it('refuse DELETE with Kubernetes’ 403, dry run too, and DELETE of the collection with 405', async () => {
    await using srv = await startTestServer();
    for (const name of SYSTEM_NAMESPACES) {
      assertStatus(await srv.request('DELETE', `${NS}/${name}`), 403, 'Forbidden', `namespaces "${name}" is forbidden: this namespace may not be deleted`);
      assertStatus(await srv.request('DELETE', `${NS}/${name}?dryRun=All`), 403, 'Forbidden', `namespaces "${name}" is forbidden: this namespace may not be deleted`);
      const ns = ok(await srv.request('GET', `${NS}/${name}`));
      assert.equal(ns.metadata.deletionTimestamp, undefined);
      assert.equal(ns.status.phase, 'Active');
    }
    ok(await srv.request('POST', NS, { metadata: { name: 'mine' } }), 201);
    assertStatus(await srv.request('DELETE', NS), 405, 'MethodNotAllowed');
    const discovery = ok(await srv.request('GET', '/api/v1'));
    assert.deepEqual(discovery.resources.find((r: { name: string }) => r.name === 'namespaces').verbs, ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch']);
    assert.equal(ok(await srv.request('GET', `${NS}/mine`)).status.phase, 'Active');
    // Other namespaces are deleted as before.
    ok(await srv.request('DELETE', `${NS}/mine`));
    assert.equal(ok(await srv.request('GET', `${NS}/mine`)).status.phase, 'Terminating');
  });

  it('kubectl delete namespace --all deletes only the others', async () => {
    await using srv = await startTestServer({ secure: true });
    ok(await srv.request('POST', NS, { metadata: { name: 'team-a' } }), 201);
    const res = await kubectl(srv, 'delete', 'namespace', '--all', '--wait=false');
    assert.notEqual(res.code, 0);
    for (const name of SYSTEM_NAMESPACES) assert.match(res.stderr, new RegExp(`Error from server \\(Forbidden\\): namespaces "${name}" is forbidden: this namespace may not be deleted`));
    assert.match(res.stdout, /namespace "team-a" deleted/);
    for (const name of SYSTEM_NAMESPACES) assert.equal(ok(await srv.request('GET', `${NS}/${name}`)).status.phase, 'Active');
    assert.equal(ok(await srv.request('GET', `${NS}/team-a`)).status.phase, 'Terminating');
  });

  it('are created again when they go missing, on the next minute of the server’s clock', async () => {
    const clock = new FakeClock();
    await using srv = await startTestServer({ clock, backend: 'sqlite' });
    const key = (name: string) => objectKey({ group: '', resource: 'namespaces', namespaced: false }, '', name);
    // As a store written before this rule, or by hand, could be: both gone.
    await srv.store.delete(key('kube-node-lease'));
    await srv.store.delete(key('default'));
    await waitFor(async () => (await srv.request('GET', `${NS}/default`)).status === 404, 5000, 'the watch cache to see the deletion');
    await clock.advance(59_000);
    assert.equal(await srv.store.get(key('kube-node-lease')), undefined, 'not before the minute is up');
    await clock.advance(1_000);
    await waitFor(async () => (await srv.store.get(key('kube-node-lease'))) !== undefined && (await srv.store.get(key('default'))) !== undefined, 5000, 'the namespaces to be created again');
    await waitFor(async () => (await srv.request('GET', `${NS}/default`)).status === 200, 5000, 'the API to serve default again');
  });
});

describe('SystemNamespacesLoop', () => {
  it('runs every interval, tries again after a failure, and stops', async () => {
    const clock = new FakeClock();
    let calls = 0;
    const loop = new SystemNamespacesLoop(
      async () => {
        calls++;
        if (calls === 1) throw new Error('store unavailable');
      },
      { clock, intervalMs: 1000 },
    );
    loop.start();
    await clock.advance(999);
    assert.equal(calls, 0);
    await clock.advance(1);
    assert.equal(calls, 1);
    await clock.advance(1000);
    assert.equal(calls, 2, 'a failed round does not stop the loop');
    await loop.stop();
    await clock.advance(5000);
    assert.equal(calls, 2);
  });
});
