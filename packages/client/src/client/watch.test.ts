import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ApiError, type ConfigMap } from '@setpoint/api';
import { waitFor } from '../http/stub-server.test-support.js';
import { startControlPlane, type ControlPlane } from '../testing/index.js';
import type { WatchEvent } from '../types.js';
import { Client } from './client.js';

/** Consumes a watch in the background, recording "TYPE name" per event. */
function record(events: AsyncIterable<WatchEvent<ConfigMap>>) {
  const seen: string[] = [];
  const objects: ConfigMap[] = [];
  const done = (async () => {
    for await (const e of events) {
      seen.push(`${e.type} ${e.object.metadata.name ?? ''}`);
      objects.push(e.object);
    }
  })();
  return { seen, objects, done };
}

describe('ResourceClient.watch against a control plane', () => {
  let cp: ControlPlane;
  let client: Client;
  before(async () => {
    cp = await startControlPlane();
    client = new Client(cp.config, { qps: Infinity });
    await client.namespaces().create({ metadata: { name: 'watched' } });
  });
  after(async () => {
    client.close();
    await cp.stop();
  });

  it('delivers ADDED, MODIFIED and DELETED after a resourceVersion, and ends on abort', async () => {
    const cms = client.configMaps();
    const { metadata } = await cms.list({ namespace: 'watched' });
    const ac = new AbortController();
    const w = record(cms.watch({ namespace: 'watched', resourceVersion: metadata.resourceVersion!, signal: ac.signal }));
    const created = await cms.create({ metadata: { name: 'w1', namespace: 'watched' }, data: { v: '1' } });
    await cms.update({ ...created, data: { v: '2' } });
    await cms.delete('w1', { namespace: 'watched' });
    await waitFor(() => w.seen.length === 3, 'three events');
    assert.deepEqual(w.seen, ['ADDED w1', 'MODIFIED w1', 'DELETED w1']);
    assert.deepEqual(w.objects[1]?.data, { v: '2' });
    assert.ok(w.objects.every((o) => o.kind === 'ConfigMap' && o.metadata.resourceVersion));
    ac.abort();
    await w.done;
  });

  it('starts with the current state as ADDED from resourceVersion 0, and filters by label', async () => {
    const cms = client.configMaps();
    await cms.create({ metadata: { name: 'existing', namespace: 'watched', labels: { team: 'a' } } });
    await cms.create({ metadata: { name: 'other', namespace: 'watched', labels: { team: 'b' } } });
    const stream = cms.watch({ namespace: 'watched', resourceVersion: '0', labelSelector: 'team=a' });
    const first = await stream.next();
    assert.equal(first.value?.type, 'ADDED');
    assert.equal(first.value?.object.metadata.name, 'existing');
    await stream.return();
    assert.equal((await stream.next()).done, true);
  });

  it('throws ApiError 410 Expired for a watch from a compacted resourceVersion', async () => {
    // A small watch cache window, so that the old resourceVersion is served from the (compacted) store.
    await using small = await startControlPlane({ watchCache: { windowSize: 2 } });
    const other = new Client(small.config, { qps: Infinity });
    const cms = other.configMaps();
    const old = await cms.create({ metadata: { name: 'old', namespace: 'default' } });
    for (let i = 0; i < 4; i++) await cms.update({ ...(await cms.get('old')), data: { i: String(i) } });
    await small.store.compact(await small.store.currentRevision());
    await assert.rejects(
      (async () => {
        for await (const _ of cms.watch({ namespace: 'default', resourceVersion: old.metadata.resourceVersion! })) {
          // nothing is expected before the error
        }
      })(),
      (err: unknown) => {
        assert.ok(err instanceof ApiError, String(err));
        assert.equal(err.code, 410);
        assert.match(err.reason, /^(Expired|Gone)$/);
        assert.match(err.message, /too old resource version/);
        return true;
      },
    );
    other.close();
  });

  it('ends when the API server restarts (the caller re-watches from its last resourceVersion)', async () => {
    const cms = client.configMaps();
    const { metadata } = await cms.list({ namespace: 'watched' });
    const w = record(cms.watch({ namespace: 'watched', resourceVersion: metadata.resourceVersion! }));
    await cms.create({ metadata: { name: 'before-restart', namespace: 'watched' } });
    await waitFor(() => w.seen.length === 1, 'the event before the restart');
    await cp.restart();
    await w.done;
    assert.deepEqual(w.seen, ['ADDED before-restart']);
    // Reads go on: a GET on a keep-alive connection the old server closed is retried.
    assert.ok((await cms.list({ namespace: 'watched' })).items.some((i) => i.metadata.name === 'before-restart'));
  });
});
