import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FakeClock } from '@setpoint/api';
import { HttpClient } from './httpclient.js';
import { TokenBucket } from './ratelimit.js';
import { json, startStub, waitFor } from './stub-server.test-support.js';

describe('TokenBucket', () => {
  it('lets a burst of 10 through at once and makes the 11th wait 200 ms at 5 qps', async () => {
    const clock = new FakeClock();
    const bucket = new TokenBucket({ qps: 5, burst: 10, clock });
    for (let i = 0; i < 10; i++) await bucket.take();
    let eleventh = false;
    const pending = bucket.take().then(() => (eleventh = true));
    assert.equal(clock.nextDue(), clock.now() + 200);
    await clock.advance(199);
    assert.equal(eleventh, false);
    await clock.advance(1);
    await pending;
    assert.equal(eleventh, true);
    // The next one waits a full interval again; a quiet second refills five tokens.
    assert.equal(bucket.tryTake(), false);
    await clock.advance(1000);
    for (let i = 0; i < 5; i++) assert.equal(bucket.tryTake(), true, `token ${i}`);
    assert.equal(bucket.tryTake(), false);
  });

  it('serves waiting takes in order and gives back the reservation of an aborted one', async () => {
    const clock = new FakeClock();
    const bucket = new TokenBucket({ qps: 10, burst: 1, clock });
    await bucket.take();
    const order: string[] = [];
    const ac = new AbortController();
    const a = bucket.take().then(() => order.push('a'));
    const b = bucket.take(ac.signal).then(
      () => order.push('b'),
      (err: unknown) => order.push(`b aborted: ${(err as Error).name}`),
    );
    ac.abort();
    await b;
    const c = bucket.take().then(() => order.push('c'));
    await clock.advance(100);
    await a;
    assert.deepEqual(order, ['b aborted: AbortError', 'a']);
    await clock.advance(100);
    await c;
    assert.deepEqual(order, ['b aborted: AbortError', 'a', 'c'], 'c took the token b gave back: it waited 200 ms, not 300');
  });

  it('is unlimited with qps Infinity or <= 0', async () => {
    for (const qps of [Infinity, 0, -1]) {
      const bucket = new TokenBucket({ qps, burst: 1, clock: new FakeClock() });
      for (let i = 0; i < 100; i++) await bucket.take();
      assert.equal(bucket.limited, false);
    }
  });
});

describe('HttpClient rate limit', () => {
  it('sends 10 requests at once and the 11th after 200 ms of fake time (5 qps, burst 10)', async () => {
    await using stub = await startStub((_req, res) => json(res, 200, { ok: true }));
    const clock = new FakeClock();
    const http = new HttpClient({ server: stub.url }, { qps: 5, burst: 10, clock, timeoutMs: 0 });
    try {
      const all = Promise.all(Array.from({ length: 11 }, () => http.request({ method: 'GET', path: '/x' })));
      await waitFor(() => stub.requests.length === 10 && clock.nextDue() !== undefined, '10 requests');
      assert.equal(clock.nextDue(), clock.now() + 200);
      await clock.advance(199);
      assert.equal(stub.requests.length, 10);
      await clock.advance(1);
      const responses = await all;
      assert.equal(stub.requests.length, 11);
      assert.ok(responses.every((r) => r.status === 200));
    } finally {
      http.close();
    }
  });
});
