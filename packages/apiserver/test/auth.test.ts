/**
 * Authentication over HTTPS (secure: true): the API needs the bearer token, health endpoints and
 * /version do not, /metrics is open from loopback.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { openWatch, request, startTestServer, type TestServer } from './harness.js';
import { assertStatus, ok } from './support.js';

describe('authentication', () => {
  let srv: TestServer;
  before(async () => {
    srv = await startTestServer({ secure: true });
  });
  after(async () => {
    await srv[Symbol.asyncDispose]();
  });

  const anonymous = (path: string, headers: Record<string, string> = {}) => request(srv.url, 'GET', path, undefined, headers, srv.caCert);

  it('serves HTTPS and the API with the admin token', async () => {
    assert.match(srv.url, /^https:\/\/127\.0\.0\.1:\d+$/);
    ok(await srv.request('GET', '/api/v1/namespaces'));
    ok(await srv.request('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'authed' } }), 201);
  });

  it('answers 401 as a Status without a token or with a wrong one, and writes nothing', async () => {
    assertStatus(await anonymous('/api/v1/namespaces'), 401, 'Unauthorized', 'Unauthorized');
    assertStatus(await anonymous('/api/v1/namespaces', { authorization: 'Bearer not-the-token' }), 401, 'Unauthorized', 'Unauthorized');
    assertStatus(await anonymous('/api/v1/namespaces', { authorization: `Basic ${Buffer.from('admin:admin').toString('base64')}` }), 401, 'Unauthorized');
    assertStatus(await anonymous('/api'), 401, 'Unauthorized');
    assertStatus(await anonymous('/apis'), 401, 'Unauthorized');
    assertStatus(await anonymous('/openapi/v3'), 401, 'Unauthorized');
    const write = await request(srv.url, 'POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'sneaky' } }, { authorization: 'Bearer nope' }, srv.caCert);
    assertStatus(write, 401, 'Unauthorized');
    assertStatus(await srv.request('GET', '/api/v1/namespaces/default/configmaps/sneaky'), 404, 'NotFound');
  });

  it('refuses a watch without a token', async () => {
    const w = openWatch(srv.url, '/api/v1/namespaces/default/configmaps?watch=true', {}, srv.caCert);
    try {
      await w.waitClosed();
      assert.equal(w.status, 401);
      assert.equal(w.events.length, 0);
    } finally {
      w.close();
    }
  });

  it('leaves /livez, /readyz, /healthz and /version open', async () => {
    for (const path of ['/livez', '/readyz', '/healthz']) {
      const res = await anonymous(path);
      assert.equal(res.status, 200, path);
      assert.equal(res.text, 'ok');
    }
    const version = ok(await anonymous('/version'));
    assert.equal(version.major, '1');
    assert.match(version.minor, /^\d+$/);
    assert.match(version.gitVersion, /^v1\.\d+\.\d+/);
    for (const field of ['platform', 'goVersion', 'buildDate']) assert.equal(typeof version[field], 'string', field);
  });

  it('serves /metrics from loopback without a token, counting requests as apiserver_request_total', async () => {
    ok(await srv.request('GET', '/api/v1/namespaces/default/configmaps'));
    const res = await anonymous('/metrics');
    assert.equal(res.status, 200);
    assert.match(String(res.headers['content-type']), /^text\/plain/);
    assert.match(res.text, /^# TYPE apiserver_request_total counter$/m);
    assert.match(res.text, /^apiserver_request_total\{[^}]*verb="list"[^}]*resource="configmaps"[^}]*code="200"[^}]*\} [1-9]\d*$/m);
  });
});
