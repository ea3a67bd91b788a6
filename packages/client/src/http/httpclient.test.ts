import assert from 'node:assert/strict';
import { mkdtemp, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ApiError, FakeClock } from '@setpoint/api';
import { runs, writePlugin } from '../config/exec-plugin.test-support.js';
import { DEFAULT_USER_AGENT, HttpClient } from './httpclient.js';
import { json, startStub, status, waitFor } from './stub-server.test-support.js';

describe('HttpClient', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'setpoint-http-'));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  /** A stub that answers 200 with the Authorization it saw, or 401 when `allowed` rejects it. */
  const authStub = (allowed: (authorization: string | undefined) => boolean) =>
    startStub((req, res) => {
      if (allowed(req.headers.authorization)) json(res, 200, { authorization: req.headers.authorization ?? null });
      else json(res, 401, status(401, 'Unauthorized', 'Unauthorized'));
    });

  it('sends JSON with Accept, User-Agent and the query, below a server path prefix', async () => {
    await using stub = await startStub((_req, res) => json(res, 201, { created: true }));
    const http = new HttpClient({ server: `${stub.url}/prefix/` }, { qps: Infinity });
    const res = await http.request({ method: 'POST', path: '/api/v1/namespaces', query: { dryRun: 'All', skip: undefined, empty: '', limit: 5 }, body: { metadata: { name: 'n' } } });
    assert.equal(res.status, 201);
    assert.deepEqual(res.body, { created: true });
    const seen = stub.requests[0]!;
    assert.equal(seen.url, '/prefix/api/v1/namespaces?dryRun=All&limit=5');
    assert.equal(seen.headers.accept, 'application/json');
    assert.equal(seen.headers['content-type'], 'application/json');
    assert.equal(seen.headers['user-agent'], DEFAULT_USER_AGENT);
    assert.equal(seen.body, '{"metadata":{"name":"n"}}');
    http.close();
    const custom = new HttpClient({ server: stub.url, userAgent: 'my-controller/1.0' }, { qps: Infinity });
    await custom.request({ method: 'GET', path: '/' });
    assert.equal(stub.requests[1]?.headers['user-agent'], 'my-controller/1.0');
    custom.close();
  });

  it('authenticates with a token or basic auth, and a 401 with a static token is final', async () => {
    await using stub = await authStub((a) => a === 'Bearer good' || a === `Basic ${Buffer.from('alice:pw').toString('base64')}`);
    const token = new HttpClient({ server: stub.url, token: 'good' }, { qps: Infinity });
    assert.deepEqual((await token.request({ method: 'GET', path: '/' })).body, { authorization: 'Bearer good' });
    const basic = new HttpClient({ server: stub.url, username: 'alice', password: 'pw' }, { qps: Infinity });
    assert.equal((await basic.request<{ authorization: string }>({ method: 'GET', path: '/' })).body.authorization, `Basic ${Buffer.from('alice:pw').toString('base64')}`);
    const bad = new HttpClient({ server: stub.url, token: 'bad' }, { qps: Infinity });
    await assert.rejects(bad.request({ method: 'GET', path: '/' }), (err: unknown) => err instanceof ApiError && err.reason === 'Unauthorized' && err.code === 401);
    assert.equal(stub.requests.length, 3);
    for (const c of [token, basic, bad]) c.close();
  });

  it('re-reads the token file when it changes, and once more after a 401', async () => {
    const file = join(dir, 'token');
    await writeFile(file, 'first\n');
    let accept = 'Bearer first';
    await using stub = await authStub((a) => a === accept);
    const http = new HttpClient({ server: stub.url, tokenFile: file }, { qps: Infinity });
    assert.equal((await http.request<{ authorization: string }>({ method: 'GET', path: '/' })).body.authorization, 'Bearer first');
    await writeFile(file, 'second-rotated\n');
    await utimes(file, 1_700_000_000, 1_700_000_000);
    accept = 'Bearer second-rotated';
    assert.equal((await http.request<{ authorization: string }>({ method: 'GET', path: '/' })).body.authorization, 'Bearer second-rotated');
    // A change the stat does not show (same size, mtime put back): the 401 makes the client read the file again.
    await writeFile(file, 'third-rotated!\n');
    await utimes(file, 1_700_000_000, 1_700_000_000);
    accept = 'Bearer third-rotated!';
    assert.equal((await http.request<{ authorization: string }>({ method: 'GET', path: '/' })).body.authorization, 'Bearer third-rotated!');
    assert.deepEqual(
      stub.requests.map((r) => r.headers.authorization),
      ['Bearer first', 'Bearer second-rotated', 'Bearer second-rotated', 'Bearer third-rotated!'],
    );
    http.close();
  });

  it('runs the exec plugin, caches its token, and runs it again on a 401', async () => {
    const exec = await writePlugin(dir);
    let accept = 'Bearer token-1';
    await using stub = await authStub((a) => a === accept);
    const http = new HttpClient({ server: stub.url, exec }, { qps: Infinity });
    assert.equal((await http.request<{ authorization: string }>({ method: 'GET', path: '/' })).body.authorization, 'Bearer token-1');
    assert.equal((await http.request<{ authorization: string }>({ method: 'GET', path: '/' })).body.authorization, 'Bearer token-1');
    assert.equal(await runs(exec.runsFile), 1, 'cached');
    accept = 'Bearer token-2';
    const res = await http.request<{ authorization: string }>({ method: 'POST', path: '/', body: {} });
    assert.equal(res.body.authorization, 'Bearer token-2');
    assert.equal(await runs(exec.runsFile), 2);
    assert.deepEqual(
      stub.requests.map((r) => `${r.method} ${r.headers.authorization}`),
      ['GET Bearer token-1', 'GET Bearer token-1', 'POST Bearer token-1', 'POST Bearer token-2'],
    );
    // A server that refuses every token: one refresh, then the 401 is final.
    accept = 'nothing';
    await assert.rejects(http.request({ method: 'GET', path: '/' }), (err: unknown) => err instanceof ApiError && err.code === 401);
    assert.equal(await runs(exec.runsFile), 3);
    http.close();
  });

  it('turns a failing exec plugin into ApiError Unauthorized with the cause', async () => {
    const exec = await writePlugin(dir, { MODE: 'fail' });
    const http = new HttpClient({ server: 'http://127.0.0.1:1', exec }, { qps: Infinity });
    await assert.rejects(http.request({ method: 'GET', path: '/' }), (err: unknown) => {
      assert.ok(err instanceof ApiError);
      assert.equal(err.reason, 'Unauthorized');
      assert.match(err.message, /^getting credentials: .*exited with code 3: could not reach the identity provider/);
      assert.equal((err.cause as Error).name, 'ConfigError');
      return true;
    });
    http.close();
  });

  it('sends the Accept a request asks for, and open() hands over a streaming body as it comes', async () => {
    let finish: (() => void) | undefined;
    await using stub = await startStub((req, res) => {
      if (req.url?.startsWith('/missing')) return json(res, 404, status(404, 'NotFound', 'pods "missing" not found'));
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('line 1\n');
      finish = () => res.end('line 2\n');
    });
    const http = new HttpClient({ server: stub.url }, { qps: Infinity });
    const accept = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json';
    const res = await http.open({ method: 'GET', path: '/log', query: { follow: true }, accept });
    assert.equal(stub.requests[0]?.headers.accept, accept);
    assert.equal(stub.requests[0]?.url, '/log?follow=true');
    let text = '';
    const first = new Promise<void>((resolve) => res.once('data', (c: Buffer) => ((text += c.toString()), resolve())));
    await first;
    assert.equal(text, 'line 1\n', 'the first chunk arrives before the response ends');
    const ended = new Promise<void>((resolve) => res.on('data', (c: Buffer) => (text += c.toString())).on('end', resolve));
    finish!();
    await ended;
    assert.equal(text, 'line 1\nline 2\n');
    await assert.rejects(http.open({ method: 'GET', path: '/missing' }), (err: unknown) => err instanceof ApiError && err.code === 404 && err.message === 'pods "missing" not found');
    http.close();
  });
});

describe('HttpClient write fence', () => {
  it('asks the fence before each attempt of a write, and sends nothing it refuses', async () => {
    let open = true;
    await using stub = await startStub((req, res) => {
      if (req.method !== 'PUT') return json(res, 200, {});
      open = false; // the fence closes while the PUT's answer is on its way
      json(res, 503, status(503, 'ServiceUnavailable', 'busy'));
    });
    const http = new HttpClient({ server: stub.url }, { qps: Infinity, retryBackoff: { initialMs: 1, maxMs: 1, jitter: 0 } });
    const asked: string[] = [];
    http.setWriteFence((method, path) => {
      asked.push(method);
      return open ? undefined : new Error(`fenced ${method} ${path}`);
    });
    await http.request({ method: 'GET', path: '/api/v1/pods' });
    await http.request({ method: 'POST', path: '/api/v1/namespaces/a/configmaps', body: {} });
    // A PUT answered 503 is retried — and the fence, closed meanwhile, stops the retry.
    await assert.rejects(http.request({ method: 'PUT', path: '/api/v1/namespaces/a/configmaps/c', body: {} }), /fenced PUT \/api\/v1\/namespaces\/a\/configmaps\/c/);
    await assert.rejects(http.request({ method: 'DELETE', path: '/api/v1/namespaces/a/configmaps/c' }), /fenced DELETE/);
    await http.request({ method: 'GET', path: '/api/v1/pods' });
    assert.deepEqual(stub.requests.map((r) => r.method), ['GET', 'POST', 'PUT', 'GET'], 'refused attempts were not sent');
    assert.deepEqual(asked, ['POST', 'POST', 'PUT', 'PUT', 'PUT', 'DELETE'], 'asked before each attempt and again at its connection; never for reads');
    assert.throws(() => http.setWriteFence(() => undefined), /already has a write fence/);
    http.setWriteFence(undefined);
    await http.request({ method: 'DELETE', path: '/api/v1/namespaces/a/configmaps/c' });
  });

  it('asks again once a new connection is ready, and sends nothing when the answer changed meanwhile', async () => {
    await using stub = await startStub((_req, res) => json(res, 200, {}));
    const http = new HttpClient({ server: stub.url }, { qps: Infinity });
    let calls = 0;
    // Open when the attempt starts, closed by the time its (new) connection is up.
    http.setWriteFence(() => (calls++ === 0 ? undefined : new Error('fenced at the connection')));
    await assert.rejects(http.request({ method: 'POST', path: '/api/v1/namespaces/a/configmaps', body: {} }), /fenced at the connection/);
    assert.equal(stub.requests.length, 0, 'nothing was sent');
  });
});

describe('HttpClient close', () => {
  it('ends a request waiting between retries, so a closed client keeps nothing alive', async () => {
    let calls = 0;
    await using stub = await startStub((_req, res) => {
      calls++;
      json(res, 503, status(503, 'ServiceUnavailable', 'busy'));
    });
    const clock = new FakeClock();
    const http = new HttpClient({ server: stub.url }, { qps: Infinity, clock, retryBackoff: { initialMs: 60_000, maxMs: 60_000, jitter: 0 } });
    const pending = http.request({ method: 'GET', path: '/api/v1/namespaces' });
    // The first answer came: the request now sleeps a minute on the fake clock before its retry.
    await waitFor(() => calls === 1 && clock.pending() > 0, 'the first attempt and its retry timer');
    http.close();
    await assert.rejects(pending, (err: unknown) => err instanceof ApiError && err.reason === 'ServiceUnavailable' && /closed/.test(err.message));
    assert.equal(clock.pending(), 0, 'no retry timer is left');
    assert.equal(calls, 1);
  });
});
