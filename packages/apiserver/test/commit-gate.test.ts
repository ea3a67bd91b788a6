/**
 * A 504 never leaves a change behind (http/commitgate.ts): a write whose request timed out before
 * its commit is not made; a write already committing when the timeout falls due is answered by its
 * handler, with what it committed — never 504. Time is a fake clock; the store is held by the test.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FakeClock } from '@setpoint/api';
import { MemoryStore, type Store } from '@setpoint/store';
import { ApiServer } from '../src/server.js';
import { request } from './harness.js';
import { waitFor } from './support.js';

const CM = '/api/v1/namespaces/default/configmaps';

/** `inner`, with the test holding one kind of operation on ConfigMap keys until it lets go. */
function holdable(inner: Store) {
  let held: { op: string; release: () => void; reached: boolean } | undefined;
  let gate: Promise<void> | undefined;
  const store = new Proxy(inner, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target) as unknown;
      if (typeof value !== 'function') return value;
      const method = value as (...args: unknown[]) => unknown;
      return async (...args: unknown[]) => {
        if (held !== undefined && prop === held.op && typeof args[0] === 'string' && args[0].includes('/configmaps/')) {
          held.reached = true;
          await gate;
        }
        return method.apply(target, args);
      };
    },
  });
  return {
    store,
    hold(op: 'get' | 'create' | 'update') {
      let release = () => {};
      gate = new Promise<void>((resolve) => (release = resolve));
      held = { op, release, reached: false };
    },
    get reached() {
      return held?.reached ?? false;
    },
    release() {
      const h = held;
      held = undefined;
      h?.release();
    },
  };
}

async function start() {
  const clock = new FakeClock(Date.parse('2026-12-01T12:00:00Z'));
  const held = holdable(new MemoryStore());
  const server = await ApiServer.start({ store: held.store, port: 0, compaction: false, authorization: false, clock, limits: { requestTimeoutMs: 1000 } });
  return { clock, held, server, async [Symbol.asyncDispose]() { held.release(); await server.stop(); } };
}

describe('the commit gate: a 504 never leaves a change behind', () => {
  it('a write whose request timed out before its commit is refused: 504, and the store keeps the old value', async () => {
    await using s = await start();
    assert.equal((await request(s.server.url, 'POST', CM, { metadata: { name: 'cm' }, data: { v: 'old' } })).status, 201);
    s.held.hold('get'); // the update's read of the stored object waits
    const answer = request(s.server.url, 'PUT', `${CM}/cm`, { metadata: { name: 'cm' }, data: { v: 'new' } });
    await waitFor(async () => s.held.reached, 5000, 'the update to read the stored object');
    await s.clock.advance(1001);
    const res = await answer;
    assert.equal(res.status, 504);
    assert.equal(res.body.reason, 'Timeout');
    s.held.release(); // the handler goes on, and reaches the store after the 504
    await waitFor(async () => s.server.limits.usage().mutating === 0, 5000, 'the handler to finish');
    const stored = await request(s.server.url, 'GET', `${CM}/cm`);
    assert.equal(stored.body.data.v, 'old', 'the write after the 504 was not made');
  });

  it('a write already committing when the timeout falls due is answered with what it committed, not 504', async () => {
    await using s = await start();
    s.held.hold('create'); // the create has passed the commit point and waits in the store
    const answer = request(s.server.url, 'POST', CM, { metadata: { name: 'late' }, data: { v: '1' } });
    await waitFor(async () => s.held.reached, 5000, 'the create to reach the store');
    await s.clock.advance(5000);
    s.held.release();
    const res = await answer;
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.equal((await request(s.server.url, 'GET', `${CM}/late`)).body.data.v, '1');
  });
});
