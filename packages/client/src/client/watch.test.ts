/**
 * ResourceClient.watch against a control plane, beyond the ListWatch contract: what the ListWatch
 * conformance suite proves of every ListWatch (events in order, abort, resourceVersion 0, label
 * selectors, 410 for a compacted resourceVersion) runs on ResourceClient in
 * informer/listwatch.test.ts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ConfigMap } from '@setpoint/api';
import { startControlPlane, type ControlPlane } from '@setpoint/testing';
import { waitFor } from '../http/stub-server.test-support.js';
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
