import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError, FakeClock } from '@setpoint/api';
import { HttpClient, type HttpClientOptions } from './httpclient.js';
import { parseRetryAfter } from './retry.js';
import { closedPort, json, startStub, status, waitFor } from './stub-server.test-support.js';

/** Settles `p`, advancing `clock` to each timer as it is scheduled; returns the outcome and the waits. */
async function drive<T>(clock: FakeClock, p: Promise<T>): Promise<{ value?: T; error?: unknown; waits: number[] }> {
  let outcome: { value?: T; error?: unknown } | undefined;
  p.then(
    (value) => (outcome = { value }),
    (error: unknown) => (outcome = { error }),
  );
  const waits: number[] = [];
  for (;;) {
    await waitFor(() => outcome !== undefined || clock.nextDue() !== undefined, 'the request to settle or wait');
    if (outcome !== undefined) return { ...outcome, waits };
    const due = clock.nextDue() as number;
    waits.push(due - clock.now());
    await clock.set(due);
  }
}

function client(server: string, options: HttpClientOptions = {}): { http: HttpClient; clock: FakeClock } {
  const clock = new FakeClock();
  return { http: new HttpClient({ server }, { clock, timeoutMs: 0, qps: Infinity, random: () => 0, ...options }), clock };
}

/** A stub answering the scripted responses in order, then 200 {ok: true}. */
async function scripted(script: Array<{ code: number; headers?: Record<string, string>; body?: unknown }>) {
  return startStub((_req, res) => {
    const next = script.shift();
    if (next === undefined) json(res, 200, { ok: true });
    else json(res, next.code, next.body ?? status(next.code, 'X', `scripted ${next.code}`), next.headers);
  });
}

describe('retries', () => {
  it('parses Retry-After as seconds or an HTTP date', () => {
    assert.equal(parseRetryAfter('3', 0), 3000);
    assert.equal(parseRetryAfter(['0'], 0), 0);
    assert.equal(parseRetryAfter(new Date(10_000).toUTCString(), 4_000), 6000);
    assert.equal(parseRetryAfter('soon', 0), undefined);
    assert.equal(parseRetryAfter(undefined, 0), undefined);
  });

  it('retries 429 after exactly Retry-After, for POST too', async () => {
    await using stub = await scripted([{ code: 429, headers: { 'retry-after': '2' }, body: status(429, 'TooManyRequests', 'slow down') }]);
    const { http, clock } = client(stub.url);
    const { value, waits } = await drive(clock, http.request({ method: 'POST', path: '/things', body: { a: 1 } }));
    assert.equal(value?.status, 200);
    assert.deepEqual(waits, [2000]);
    assert.equal(stub.requests.length, 2);
    assert.deepEqual(stub.requests.map((r) => r.body), ['{"a":1}', '{"a":1}']);
    http.close();
  });

  it('retries 503 on GET with a jittered exponential backoff, and not on POST without Retry-After', async () => {
    await using stub = await scripted([{ code: 503 }, { code: 503 }, { code: 502 }]);
    const { http, clock } = client(stub.url);
    const got = await drive(clock, http.request({ method: 'GET', path: '/x' }));
    assert.equal(got.value?.status, 200);
    assert.deepEqual(got.waits, [250, 500, 1000]);

    await using post = await scripted([{ code: 503, body: status(503, 'ServiceUnavailable', 'not now') }]);
    const p = client(post.url);
    const sent = await drive(p.clock, p.http.request({ method: 'POST', path: '/x', body: {} }));
    assert.ok(sent.error instanceof ApiError);
    assert.equal(sent.error.code, 503);
    assert.equal(sent.error.reason, 'ServiceUnavailable');
    assert.equal(sent.error.message, 'not now');
    assert.equal(post.requests.length, 1);
    http.close();
    p.http.close();
  });

  it('retries 5xx with Retry-After whatever the method, and never a bare 500', async () => {
    await using stub = await scripted([{ code: 503, headers: { 'retry-after': '1' } }, { code: 500, body: status(500, 'InternalError', 'boom') }]);
    const { http, clock } = client(stub.url);
    const first = await drive(clock, http.request({ method: 'PATCH', path: '/x', body: '{}' }));
    assert.ok(first.error instanceof ApiError);
    assert.equal(first.error.reason, 'InternalError');
    assert.deepEqual(first.waits, [1000]);
    assert.equal(stub.requests.length, 2);
    http.close();
  });

  it('gives up after maxRetries with the last answer as ApiError', async () => {
    await using stub = await startStub((_req, res) => json(res, 429, { ...status(429, 'TooManyRequests', 'busy'), details: { retryAfterSeconds: 1 } }, { 'retry-after': '1' }));
    const { http, clock } = client(stub.url, { maxRetries: 3 });
    const { error, waits } = await drive(clock, http.request({ method: 'GET', path: '/x' }));
    assert.ok(error instanceof ApiError);
    assert.equal(error.code, 429);
    assert.equal(error.details?.retryAfterSeconds, 1);
    assert.deepEqual(waits, [1000, 1000, 1000]);
    assert.equal(stub.requests.length, 4);
    http.close();
  });

  it('retries a refused connection on GET, but not on POST', async () => {
    const port = await closedPort();
    const { http, clock } = client(`http://127.0.0.1:${port}`);
    let settled = false;
    const get = http.request({ method: 'GET', path: '/late' }).finally(() => (settled = true));
    await waitFor(() => clock.nextDue() !== undefined, 'a backoff wait after ECONNREFUSED');
    assert.equal(settled, false);
    await using stub = await startStub((_req, res) => json(res, 200, { late: true }), port);
    await clock.set(clock.nextDue() as number);
    assert.deepEqual((await get).body, { late: true });
    assert.equal(stub.requests.length, 1);
    await stub.close();

    const post = await closedPort();
    const p = client(`http://127.0.0.1:${post}`);
    await assert.rejects(p.http.request({ method: 'POST', path: '/x', body: {} }), (err: unknown) => {
      assert.ok(err instanceof ApiError);
      assert.equal(err.reason, 'ServiceUnavailable');
      assert.equal(err.code, 503);
      assert.equal((err.cause as NodeJS.ErrnoException).code, 'ECONNREFUSED');
      assert.match(err.message, /^POST \/x: /);
      return true;
    });
    assert.equal(p.clock.pending(), 0, 'no retry was scheduled');
    http.close();
    p.http.close();
  });

  it('times an attempt out on the injected clock as ApiError Timeout', async () => {
    await using stub = await startStub(() => undefined);
    const clock = new FakeClock();
    const http = new HttpClient({ server: stub.url }, { clock, timeoutMs: 1000, qps: Infinity });
    const p = http.request({ method: 'GET', path: '/hang' });
    await waitFor(() => stub.requests.length === 1, 'the request');
    const rejected = assert.rejects(p, (err: unknown) => err instanceof ApiError && err.reason === 'Timeout' && err.code === 504 && /timed out after 1000 ms/.test(err.message));
    await clock.advance(999);
    assert.equal(clock.pending(), 1);
    await clock.advance(1);
    await rejected;
    assert.equal(stub.requests.length, 1);
    http.close();
  });

  it('rejects with the abort reason when the caller aborts', async () => {
    await using stub = await startStub(() => undefined);
    const { http } = client(stub.url);
    const ac = new AbortController();
    const p = http.request({ method: 'GET', path: '/hang', signal: ac.signal });
    await waitFor(() => stub.requests.length === 1, 'the request');
    ac.abort(new Error('caller gave up'));
    await assert.rejects(p, /caller gave up/);
    http.close();
  });

  it('describes an error response without a Status body from its HTTP code', async () => {
    await using stub = await startStub((_req, res) => {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('404 page not found\n');
    });
    const { http } = client(stub.url);
    await assert.rejects(http.request({ method: 'GET', path: '/nope' }), (err: unknown) => {
      assert.ok(err instanceof ApiError);
      assert.equal(err.reason, 'NotFound');
      assert.equal(err.code, 404);
      assert.equal(err.message, 'the server responded with the status code 404: 404 page not found');
      return true;
    });
    http.close();
  });
});
