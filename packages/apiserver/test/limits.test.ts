/**
 * Request limits over HTTP (http/limits.ts), on a store whose ConfigMap operations can be held:
 * max-in-flight (429 with Retry-After while leases, health checks and system:masters get through),
 * watches per user, the request timeout (504), the watch timeout, body size and nesting, and
 * requests the HTTP parser refuses.
 */
import assert from 'node:assert/strict';
import net from 'node:net';
import { describe, it } from 'node:test';
import { MemoryStore } from '@setpoint/store';
import { TokenAuthenticator } from '../src/auth/index.js';
import type { RequestLimitsOptions } from '../src/http/limits.js';
import { ApiServer, type ApiServerOptions } from '../src/server.js';
import { openWatch, request, type TestResponse } from './harness.js';
import { slowStore, until, type SlowStore } from './slowstore.js';
import { CM, assertStatus, configMap, ok } from './support.js';

const ADMIN = 'admin-token';
const TOKENS = {
  alice: 'alice-token',
  bob: 'bob-token',
  node: 'node-token',
} as const;
const LEASES = '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases';

interface LimitedServer extends AsyncDisposable {
  readonly server: ApiServer;
  readonly slow: SlowStore;
  req(who: keyof typeof TOKENS | 'admin', method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<TestResponse>;
  watch(who: keyof typeof TOKENS | 'admin', path: string): ReturnType<typeof openWatch>;
}

/** A server over plain HTTP with token users (system:masters for `admin`), ConfigMap store operations holdable. */
async function startLimited(limits: RequestLimitsOptions, extra: Partial<ApiServerOptions> = {}): Promise<LimitedServer> {
  const slow = slowStore(new MemoryStore(), (key) => key.includes('/configmaps/'));
  const authenticated = ['system:authenticated'];
  const server = await ApiServer.start({
    store: slow.store,
    port: 0,
    compaction: false,
    limits,
    authorization: false,
    authenticator: new TokenAuthenticator({
      adminToken: ADMIN,
      tokens: [
        [TOKENS.alice, { name: 'alice', groups: authenticated }],
        [TOKENS.bob, { name: 'bob', groups: authenticated }],
        [TOKENS.node, { name: 'system:node:n1', groups: ['system:nodes', ...authenticated] }],
      ],
    }),
    ...extra,
  });
  const auth = (who: keyof typeof TOKENS | 'admin') => ({ authorization: `Bearer ${who === 'admin' ? ADMIN : TOKENS[who]}` });
  return {
    server,
    slow,
    req: (who, method, path, body, headers = {}) => request(server.url, method, path, body, { ...auth(who), ...headers }),
    watch: (who, path) => openWatch(server.url, path, auth(who)),
    async [Symbol.asyncDispose]() {
      slow.open();
      await server.stop();
    },
  };
}

function lease(renewTime: string): object {
  return {
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: { name: 'n1', namespace: 'kube-node-lease' },
    spec: { holderIdentity: 'n1', leaseDurationSeconds: 40, renewTime },
  };
}

function assertTooMany(res: TestResponse, message: string | RegExp = 'Too many requests, please try again later.'): void {
  assertStatus(res, 429, 'TooManyRequests', message);
  assert.equal(res.headers['retry-after'], '1');
  assert.equal(res.body.details.retryAfterSeconds, 1);
}

describe('request limits', () => {
  it('beyond max-in-flight: 429 with Retry-After: 1, while leases, health checks and system:masters are served', async () => {
    await using srv = await startLimited({ maxRequestsInflight: 2, maxMutatingRequestsInflight: 1 });
    ok(await srv.req('node', 'POST', LEASES, lease('2025-01-01T00:00:00.000000Z')), 201);
    srv.slow.close();
    // Two slow lists take both read-only seats; a slow create takes the mutating one.
    const held = [srv.req('alice', 'GET', CM), srv.req('alice', 'GET', CM), srv.req('alice', 'POST', CM, configMap('held'))];
    await until(() => srv.slow.waiting === 3, 5000, 'three requests at the gate');
    assert.deepEqual(srv.server.limits.usage().readOnly, 2);
    assertTooMany(await srv.req('bob', 'GET', CM));
    assertTooMany(await srv.req('bob', 'GET', '/api/v1/namespaces/default/configmaps/held'));
    assertTooMany(await srv.req('bob', 'POST', CM, configMap('refused')));
    assertTooMany(await srv.req('bob', 'GET', '/apis'), undefined);
    // The node's lease renewals have their own pool.
    for (let i = 1; i <= 3; i++) {
      const current = ok(await srv.req('node', 'GET', `${LEASES}/n1`));
      current.spec.renewTime = `2025-01-01T00:00:0${i}.000000Z`;
      ok(await srv.req('node', 'PUT', `${LEASES}/n1`, current));
    }
    for (const path of ['/livez', '/readyz', '/healthz']) assert.equal((await srv.req('bob', 'GET', path)).status, 200, path);
    // system:masters is served without a seat (kube-apiserver does the same): it waits at the gate, not refused.
    const admin = srv.req('admin', 'GET', CM);
    await until(() => srv.slow.waiting === 4, 5000, 'the admin list at the gate');
    srv.slow.open();
    const answers = await Promise.all([...held, admin]);
    assert.deepEqual(
      answers.map((r) => r.status),
      [200, 200, 201, 200],
    );
    await until(() => srv.server.limits.usage().readOnly === 0 && srv.server.limits.usage().mutating === 0, 5000, 'seats released');
    ok(await srv.req('bob', 'GET', CM));
    const metrics = (await srv.req('admin', 'GET', '/metrics')).text;
    assert.match(metrics, /apiserver_request_terminations_total\{verb="list",group="",version="v1",resource="configmaps",subresource="",code="429"\} 1/);
    // The scrape itself is a read-only request in flight.
    assert.match(metrics, /apiserver_current_inflight_requests\{request_kind="readOnly"\} 1/);
    assert.match(metrics, /apiserver_current_inflight_requests\{request_kind="mutating"\} 0/);
  });

  it('watches do not take seats; beyond max-watches-per-user a watch gets 429', async () => {
    await using srv = await startLimited({ maxRequestsInflight: 1, maxWatchesPerUser: 2 });
    const watchPath = `${CM}?watch=true`;
    const first = srv.watch('alice', watchPath);
    const second = srv.watch('alice', watchPath);
    await until(() => first.status === 200 && second.status === 200, 5000, 'two watches open');
    ok(await srv.req('alice', 'GET', CM), 200);
    assertTooMany(await srv.req('alice', 'GET', watchPath), /^Too many requests, please try again later\. \(user "alice" has 2 open watches, the most allowed\)$/);
    const bobs = srv.watch('bob', watchPath);
    const admins = [srv.watch('admin', watchPath), srv.watch('admin', watchPath), srv.watch('admin', watchPath)];
    await until(() => bobs.status === 200 && admins.every((w) => w.status === 200), 5000, 'other users watch');
    first.close();
    await until(() => srv.server.limits.usage().watches.get('alice') === 1, 5000, "alice's first watch released");
    const third = srv.watch('alice', watchPath);
    await until(() => third.status === 200, 5000, 'a new watch for alice');
    for (const w of [second, third, bobs, ...admins]) w.close();
    await until(() => srv.server.limits.usage().watches.size === 0, 5000, 'every watch released');
  });

  it('a request still running after --request-timeout: 504 Timeout, its seat held until it returns; ?timeout= shortens it', async () => {
    await using srv = await startLimited({ requestTimeoutMs: 300, maxRequestsInflight: 1 });
    const watch = srv.watch('alice', `${CM}?watch=true`);
    await until(() => watch.status === 200, 5000, 'the watch open');
    srv.slow.close();
    assertStatus(await srv.req('alice', 'GET', CM), 504, 'Timeout', 'Timeout: request did not complete within the allotted timeout');
    // The list is still waiting for the store: it keeps its seat.
    assert.equal(srv.server.limits.usage().readOnly, 1);
    assertTooMany(await srv.req('bob', 'GET', CM));
    srv.slow.open();
    await until(() => srv.server.limits.usage().readOnly === 0, 5000, 'the seat released when the handler returned');
    srv.slow.close();
    assertStatus(await srv.req('bob', 'GET', `${CM}?timeout=50ms`), 504, 'Timeout');
    assertStatus(await srv.req('bob', 'GET', `${CM}?timeout=abc`), 400, 'BadRequest', 'invalid timeout specified in the request URL - time: invalid duration "abc"');
    assertStatus(await srv.req('bob', 'GET', `${CM}?timeout=5`), 400, 'BadRequest', 'invalid timeout specified in the request URL - time: missing unit in duration "5"');
    srv.slow.open();
    await until(() => srv.server.limits.usage().readOnly === 0, 5000, 'seat released');
    // The watch outlived every request timeout above and still delivers.
    assert.equal(watch.closed, false);
    ok(await srv.req('alice', 'POST', CM, configMap('after')), 201);
    assert.equal((await watch.next()).object.metadata.name, 'after');
    watch.close();
  });

  it('a watch without timeoutSeconds ends between --min-request-timeout and twice that', async () => {
    await using srv = await startLimited({ minRequestTimeoutSeconds: 1 });
    const watch = srv.watch('alice', `${CM}?watch=true`);
    await watch.waitClosed(5000);
    assert.equal(watch.status, 200);
  });

  it('bodies over --max-request-body-bytes: 413; nested too deeply: 400', async () => {
    await using srv = await startLimited({ maxRequestBodyBytes: 2000 });
    assertStatus(await srv.req('alice', 'POST', CM, configMap('big', { blob: 'x'.repeat(3000) })), 413, 'RequestEntityTooLarge', 'Request entity too large: limit is 2000');
    ok(await srv.req('alice', 'POST', CM, configMap('small', { blob: 'x'.repeat(1000) })), 201);
  });

  it('bodies nested deeper than 1000 levels: 400, in JSON and YAML (and YAML alias cycles)', async () => {
    await using srv = await startLimited({});
    const nested = (depth: number) => `{"metadata":{"name":"deep"},"extra":${'['.repeat(depth - 1)}${']'.repeat(depth - 1)}}`;
    const tooDeep = /^the body of the request is nested too deeply: more than 1000 levels of objects and arrays$/;
    assertStatus(await srv.req('alice', 'POST', CM, nested(1001)), 400, 'BadRequest', tooDeep);
    assertStatus(await srv.req('alice', 'PATCH', `${CM}/deep`, nested(5000), { 'content-type': 'application/merge-patch+json' }), 400, 'BadRequest', tooDeep);
    const yamlDeep = `metadata:\n  name: deep\nextra: ${'['.repeat(1200)}${']'.repeat(1200)}\n`;
    const yamlAnswer = await srv.req('alice', 'POST', CM, yamlDeep, { 'content-type': 'application/yaml' });
    assertStatus(yamlAnswer, 400, 'BadRequest');
    const cycle = 'metadata:\n  name: cyclic\nextra: &a [1, *a]\n';
    assertStatus(await srv.req('alice', 'POST', CM, cycle, { 'content-type': 'application/yaml' }), 400, 'BadRequest', tooDeep);
    // At the limit the server still answers (the unknown field is kept, with a warning).
    const atLimit = await srv.req('alice', 'POST', CM, nested(1000));
    assert.ok(atLimit.status < 500, `HTTP ${atLimit.status}: ${atLimit.text.slice(0, 200)}`);
    assert.equal((await srv.req('alice', 'GET', '/readyz')).status, 200);
  });

  it('requests the HTTP parser refuses get a 400 Status too', async () => {
    await using srv = await startLimited({});
    const answer = await rawRequest(srv.server.port, 'GET /api/v1 HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n');
    assert.match(answer, /^HTTP\/1\.1 400 Bad Request\r\n/);
    assert.match(answer, /Content-Type: application\/json/);
    const body = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as { kind: string; code: number; reason: string };
    assert.deepEqual([body.kind, body.code, body.reason], ['Status', 400, 'BadRequest']);
    const huge = await rawRequest(srv.server.port, `GET /api HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    assert.match(huge, /^HTTP\/1\.1 431 /);
    assert.equal((await srv.req('alice', 'GET', '/readyz')).status, 200);
  });
});

/** Sends raw bytes, returns everything the server answers until it closes. */
function rawRequest(port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(text));
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
    socket.on('error', reject);
  });
}
