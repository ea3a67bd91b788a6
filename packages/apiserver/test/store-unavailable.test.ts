/**
 * A store that does not answer is a 503 with Retry-After wherever the server meets it — also where
 * a route reads the store directly rather than through a resource's storage (the start of a watch
 * with sendInitialEvents=false reads the store's current revision).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MemoryStore, StoreError } from '@setpoint/store';
import { ApiServer } from '../src/server.js';
import { request } from './harness.js';
import { CM, assertStatus } from './support.js';

describe('a store that does not answer', () => {
  it('is answered 503 with Retry-After, not 500, by a watch that starts at the current revision', async () => {
    const store = new MemoryStore();
    const server = await ApiServer.start({ port: 0, compaction: false, store });
    try {
      store.currentRevision = () => Promise.reject(new StoreError('Unavailable', 'reading the current revision: etcd did not answer: leader changed'));
      const res = await request(server.url, 'GET', `${CM}?watch=true&sendInitialEvents=false&resourceVersionMatch=NotOlderThan`);
      assertStatus(res, 503, 'ServiceUnavailable', /etcd did not answer/);
      assert.equal(res.headers['retry-after'], '1');
    } finally {
      await server.stop();
      await store.close();
    }
  });
});
