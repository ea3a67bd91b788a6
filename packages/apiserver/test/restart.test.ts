/**
 * Restarts on the SQLite backend: a server started again on the same directory serves every object
 * as it was, keeps counting resourceVersions upwards, and lets watchers resume from before the
 * restart.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { KubeObject } from '@setpoint/api';
import { openWatch, startTestServer } from './harness.js';
import { CM, configMap, createConfigMap, names, ok } from './support.js';

describe('restart (sqlite)', () => {
  it('keeps every object and resourceVersions keep growing', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'setpoint-restart-test-'));
    try {
      const before: KubeObject[] = [];
      let lastRv: number;
      let resumeFrom: string;
      {
        await using srv = await startTestServer({ backend: 'sqlite', dir });
        assert.equal(srv.store.backend, 'sqlite');
        before.push(await createConfigMap(srv, 'a', { k: '1' }, { app: 'x' }));
        const b = await createConfigMap(srv, 'b', { k: '2' });
        resumeFrom = b.metadata.resourceVersion!;
        before.push(ok(await srv.request('PUT', `${CM}/b`, configMap('b', { k: '2b' }))));
        before.push(await createConfigMap(srv, 'c', {}, undefined, 'kube-system'));
        ok(await srv.request('POST', '/api/v1/namespaces', { metadata: { name: 'team' } }), 201);
        ok(await srv.request('POST', '/api/v1/nodes', { metadata: { name: 'n1' }, status: { capacity: { cpu: '2' } } }), 201);
        ok(await srv.request('POST', CM, { metadata: { name: 'held', finalizers: ['example.com/x'] } }), 201);
        ok(await srv.request('DELETE', `${CM}/held`));
        await createConfigMap(srv, 'doomed');
        ok(await srv.request('DELETE', `${CM}/doomed`));
        lastRv = await srv.store.currentRevision();
      }
      await using srv = await startTestServer({ backend: 'sqlite', dir });
      for (const obj of before) {
        const got = ok(await srv.request('GET', `/api/v1/namespaces/${obj.metadata.namespace}/configmaps/${obj.metadata.name}`));
        assert.deepEqual(got, obj, `${obj.metadata.name} as it was`);
      }
      assert.deepEqual(names(ok(await srv.request('GET', CM))), ['a', 'b', 'held']);
      assert.ok(ok(await srv.request('GET', `${CM}/held`)).metadata.deletionTimestamp, 'a pending deletion is still pending');
      assert.deepEqual(names(ok(await srv.request('GET', '/api/v1/namespaces'))), ['default', 'kube-node-lease', 'kube-public', 'kube-system', 'team']);
      assert.deepEqual(ok(await srv.request('GET', '/api/v1/nodes/n1')).status.capacity, { cpu: '2' });
      // The default namespaces were not created again.
      assert.equal(await srv.store.currentRevision(), lastRv);
      const list = ok(await srv.request('GET', CM));
      assert.equal(list.metadata.resourceVersion, String(lastRv));

      const d = await createConfigMap(srv, 'd');
      assert.ok(Number(d.metadata.resourceVersion) > lastRv, 'new resourceVersions are greater than every old one');
      const a = ok(await srv.request('PUT', `${CM}/a`, { ...before[0], data: { k: 'after' } }));
      assert.ok(Number(a.metadata.resourceVersion) > Number(d.metadata.resourceVersion));

      // A watcher from before the restart resumes with nothing missed and nothing repeated.
      const w = openWatch(srv.url, `${CM}?watch=true&resourceVersion=${resumeFrom}`);
      try {
        const seen: string[] = [];
        for (let i = 0; i < 7; i++) {
          const e = await w.next();
          seen.push(`${e.type} ${e.object.metadata.name}`);
        }
        assert.deepEqual(seen, ['MODIFIED b', 'ADDED held', 'MODIFIED held', 'ADDED doomed', 'DELETED doomed', 'ADDED d', 'MODIFIED a']);
        await createConfigMap(srv, 'sentinel');
        const next = await w.next();
        assert.equal(`${next.type} ${next.object.metadata.name}`, 'ADDED sentinel');
      } finally {
        w.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
