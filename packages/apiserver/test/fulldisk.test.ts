/**
 * The API on a full disk (a small tmpfs; mounting one needs root, which the test machines have):
 * creates get a 503 that says the disk is full, while DELETE still works — immediate deletes and
 * graceful ones (a pod bound to a node gets its deletionTimestamp) — so space can be freed
 * through the API.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { SqliteStore } from '@setpoint/store';
import { ApiServer } from '../src/server.js';
import { request } from './harness.js';
import { CM, assertStatus, ok } from './support.js';

describe('a full disk', () => {
  it('answers creates 503 and still serves DELETE', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'setpoint-apiserver-fulldisk-'));
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=12m', 'tmpfs', dir]);
    try {
      const store = await SqliteStore.open({ path: join(dir, 'state.db'), reserveBytes: 1024 * 1024 });
      try {
        await using server = await ApiServer.start({ store, port: 0, compaction: false });
        const call = (method: string, path: string, body?: unknown) => request(server.url, method, path, body);
        ok(await call('POST', '/api/v1/nodes', { metadata: { name: 'n1' } }), 201);
        ok(await call('POST', '/api/v1/namespaces/default/pods', { metadata: { name: 'p1' }, spec: { nodeName: 'n1', containers: [{ name: 'c', image: 'i' }] } }), 201);
        const data = { blob: 'x'.repeat(200_000) };
        let created = 0;
        let refused;
        for (;;) {
          const res = await call('POST', CM, { metadata: { name: `cm-${created}` }, data });
          if (res.status !== 201) {
            refused = res;
            break;
          }
          created++;
        }
        assert.ok(created > 5, `only ${created} ConfigMaps fit`);
        assertStatus(refused, 503, 'ServiceUnavailable', /the disk is full/);
        assertStatus(await call('POST', CM, { metadata: { name: 'small' } }), 503, 'ServiceUnavailable', /only deletes and small updates are committed/);

        const deleted = ok(await call('DELETE', `${CM}/cm-0`));
        assert.equal(deleted.status, 'Success');
        assertStatus(await call('GET', `${CM}/cm-0`), 404, 'NotFound');
        const pod = ok(await call('DELETE', '/api/v1/namespaces/default/pods/p1'));
        assert.ok(pod.metadata.deletionTimestamp, 'the bound pod is marked for its node to finish');
        ok(await call('DELETE', '/api/v1/namespaces/default/pods/p1?gracePeriodSeconds=0'));
        for (let i = 1; i < created; i++) ok(await call('DELETE', `${CM}/cm-${i}`));
      } finally {
        await store.close().catch(() => undefined);
      }
    } finally {
      execFileSync('umount', [dir]);
      await rm(dir, { recursive: true, force: true });
    }
  });
});
