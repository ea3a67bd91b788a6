/**
 * pods/log through the API server to a stand-in node agent (plain HTTP with the shared token):
 * the agent's path and query, the token, streaming chunk by chunk, the agent's errors mapped as
 * kube-apiserver maps a kubelet's, and the API server's own refusals with Kubernetes' messages.
 */
import assert from 'node:assert/strict';
import { createServer, get, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { FakeClock } from '@setpoint/api';
import { startTestServer, type TestServer } from './harness.js';

interface AgentCall {
  readonly url: string;
  readonly authorization: string | undefined;
  readonly closed: Promise<void>;
}

/** A stand-in agent: records each call and answers it with `respond`. */
class FakeAgent {
  readonly calls: AgentCall[] = [];
  respond: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => res.end('ok\n');
  readonly server: Server = createServer((req, res) => {
    const closed = new Promise<void>((resolve) => res.on('close', () => resolve()));
    this.calls.push({ url: req.url ?? '', authorization: req.headers.authorization, closed });
    this.respond(req, res);
  });
  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }
}

const TOKEN = 'kubelet-token-for-tests';
let srv: TestServer;
let agent: FakeAgent;

before(async () => {
  agent = new FakeAgent();
  await new Promise<void>((resolve) => agent.server.listen(0, '127.0.0.1', resolve));
  srv = await startTestServer({ kubeletClient: { scheme: 'http', token: TOKEN } });
  const node = (name: string, port: number | undefined, labels: Record<string, string> = {}) => ({
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name, labels },
    status: { addresses: [{ type: 'Hostname', address: name }, { type: 'InternalIP', address: '127.0.0.1' }], ...(port === undefined ? {} : { daemonEndpoints: { kubeletEndpoint: { Port: port } } }) },
  });
  for (const [n, port, labels] of [['n1', agent.port, {}], ['bare', undefined, {}], ['sim-0', undefined, { 'node.setpoint.dev/simulated': 'true' }]] as const) {
    const created = await srv.request('POST', '/api/v1/nodes', node(n, port, labels));
    assert.equal(created.status, 201, created.text);
    const status = await srv.request('PUT', `/api/v1/nodes/${n}/status`, { ...created.body, status: node(n, port, labels).status });
    assert.equal(status.status, 200, status.text);
  }
  const pod = (name: string, nodeName: string | undefined, containers: string[], inits: string[] = []) => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name },
    spec: {
      ...(nodeName === undefined ? {} : { nodeName }),
      containers: containers.map((c) => ({ name: c, image: 'example/x' })),
      ...(inits.length === 0 ? {} : { initContainers: inits.map((c) => ({ name: c, image: 'example/x' })) }),
    },
  });
  for (const p of [pod('web', 'n1', ['main']), pod('multi', 'n1', ['app', 'sidecar'], ['setup']), pod('pending', undefined, ['main']), pod('bare', 'bare', ['main']), pod('sim', 'sim-0', ['main'])]) {
    const created = await srv.request('POST', '/api/v1/namespaces/default/pods', p);
    assert.equal(created.status, 201, created.text);
  }
});
after(async () => {
  await srv[Symbol.asyncDispose]();
  await new Promise<void>((resolve) => agent.server.close(() => resolve()));
});

const log = (query: string, pod = 'web') => srv.request('GET', `/api/v1/namespaces/default/pods/${pod}/log${query}`);

describe('pods/log', () => {
  it("proxies to the node's agent endpoint with the options and the token, answering text/plain", async () => {
    agent.respond = (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      res.end('hello\nworld\n');
    };
    const res = await log('?tailLines=2&timestamps=true&sinceSeconds=60&limitBytes=100&previous=true');
    assert.equal(res.status, 200, res.text);
    assert.equal(res.text, 'hello\nworld\n');
    assert.match(String(res.headers['content-type']), /^text\/plain/);
    const call = agent.calls.at(-1)!;
    assert.equal(call.authorization, `Bearer ${TOKEN}`);
    const url = new URL(call.url, 'http://agent');
    assert.equal(url.pathname, '/containerLogs/default/web/main', 'the only container is the default');
    assert.deepEqual(Object.fromEntries(url.searchParams), { previous: 'true', timestamps: 'true', sinceSeconds: '60', tailLines: '2', limitBytes: '100' });
    await log('?container=sidecar', 'multi');
    assert.equal(new URL(agent.calls.at(-1)!.url, 'http://agent').pathname, '/containerLogs/default/multi/sidecar');
    await log('?container=setup', 'multi');
    assert.equal(new URL(agent.calls.at(-1)!.url, 'http://agent').pathname, '/containerLogs/default/multi/setup', 'init containers have logs too');
  });

  it('streams: a chunk the agent writes reaches the client before the agent ends; the client leaving aborts the agent request', async () => {
    let agentRes: ServerResponse | undefined;
    agent.respond = (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      res.write('first line\n');
      agentRes = res;
    };
    const client = await new Promise<IncomingMessage>((resolve, reject) => get(`${srv.url}/api/v1/namespaces/default/pods/web/log?follow=true`, resolve).on('error', reject));
    assert.equal(client.statusCode, 200);
    assert.equal(client.headers['transfer-encoding'], 'chunked');
    const first = await new Promise<string>((resolve) => client.once('data', (c: Buffer) => resolve(c.toString())));
    assert.equal(first, 'first line\n', 'delivered while the agent keeps the stream open');
    assert.equal(new URL(agent.calls.at(-1)!.url, 'http://agent').searchParams.get('follow'), 'true');
    agentRes!.write('second line\n');
    const second = await new Promise<string>((resolve) => client.once('data', (c: Buffer) => resolve(c.toString())));
    assert.equal(second, 'second line\n');
    client.destroy();
    await agent.calls.at(-1)!.closed; // the API server closed its request to the agent
  });

  it("maps the agent's errors as kube-apiserver maps a kubelet's", async () => {
    agent.respond = (_req, res) => {
      res.writeHead(400, { 'Content-Type': 'text/plain' });
      res.end('previous terminated container "main" in pod "web" not found\n');
    };
    const bad = await log('?previous=true');
    assert.equal(bad.status, 400);
    assert.equal(bad.body.reason, 'BadRequest');
    assert.equal(bad.body.message, 'previous terminated container "main" in pod "web" not found');
    agent.respond = (_req, res) => {
      res.writeHead(404);
      res.end('container "main" not found in pod "web"');
    };
    const missing = await log('');
    assert.equal(missing.status, 404);
    assert.equal(missing.body.reason, 'NotFound');
    assert.equal(missing.body.message, 'the server could not find the requested resource ( pods/log web)');
    agent.respond = (_req, res) => {
      res.writeHead(401);
      res.end('Unauthorized');
    };
    const refused = await log('');
    assert.equal(refused.status, 401);
    assert.match(refused.body.message, /^the server has asked for the client to provide credentials/);
  });

  it("refuses what Kubernetes refuses, with its messages, before asking any agent", async () => {
    const calls = agent.calls.length;
    const cases: Array<[string, string, number, string]> = [
      ['nope', '', 404, 'pods "nope" not found'],
      ['multi', '', 400, 'a container name must be specified for pod multi, choose one of: [app sidecar] or one of the init containers: [setup]'],
      ['web', '?container=other', 400, 'container other is not valid for pod web'],
      ['pending', '', 400, 'pod pending does not have a host assigned'],
      ['web', '?tailLines=-1', 422, 'PodLogOptions "web" is invalid: tailLines: Invalid value: -1: must be greater than or equal to 0'],
      ['web', '?limitBytes=0', 422, 'PodLogOptions "web" is invalid: limitBytes: Invalid value: 0: must be greater than 0'],
      ['web', '?sinceSeconds=0', 422, 'PodLogOptions "web" is invalid: sinceSeconds: Invalid value: 0: must be greater than 0'],
      ['web', '?tailLines=ten', 400, 'invalid tailLines value: "ten": strconv.ParseInt: parsing "ten": invalid syntax'],
      ['bare', '', 400, 'node "bare" reports no agent endpoint (status.daemonEndpoints.kubeletEndpoint.Port), so it serves no container logs'],
      ['sim', '', 400, 'node "sim-0" is simulated: it runs no processes and keeps no container logs'],
    ];
    for (const [pod, query, code, message] of cases) {
      const res = await log(query, pod);
      assert.equal(res.status, code, `${pod}${query}: ${res.text}`);
      assert.equal(res.body.message, message);
    }
    const both = await log('?sinceSeconds=5&sinceTime=2024-01-01T00:00:00Z');
    assert.equal(both.status, 422);
    assert.match(both.body.message, /at most one of `sinceTime` or `sinceSeconds` may be specified/);
    assert.equal(agent.calls.length, calls, 'no agent was asked');
  });

  it('answers 503 when the server has no credentials for agents, and 500 naming the target when the agent is unreachable', async () => {
    await using plain = await startTestServer();
    const node = await plain.request('POST', '/api/v1/nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' } });
    await plain.request('PUT', '/api/v1/nodes/n1/status', { ...node.body, status: { addresses: [{ type: 'InternalIP', address: '127.0.0.1' }], daemonEndpoints: { kubeletEndpoint: { Port: 1 } } } });
    await plain.request('POST', '/api/v1/namespaces/default/pods', { metadata: { name: 'web' }, spec: { nodeName: 'n1', containers: [{ name: 'main', image: 'x' }] } });
    const res = await plain.request('GET', '/api/v1/namespaces/default/pods/web/log');
    assert.equal(res.status, 503, res.text);

    await using unreachable = await startTestServer({ kubeletClient: { scheme: 'http', token: TOKEN } });
    const n = await unreachable.request('POST', '/api/v1/nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' } });
    await unreachable.request('PUT', '/api/v1/nodes/n1/status', { ...n.body, status: { addresses: [{ type: 'InternalIP', address: '127.0.0.1' }], daemonEndpoints: { kubeletEndpoint: { Port: 1 } } } });
    await unreachable.request('POST', '/api/v1/namespaces/default/pods', { metadata: { name: 'web' }, spec: { nodeName: 'n1', containers: [{ name: 'main', image: 'x' }] } });
    const down = await unreachable.request('GET', '/api/v1/namespaces/default/pods/web/log');
    assert.equal(down.status, 500, down.text);
    assert.match(down.body.message, /^Get "http:\/\/127\.0\.0\.1:1\/containerLogs\/default\/web\/main": .*ECONNREFUSED/);
  });

  it("answers 500 when the agent sends no answer within responseTimeoutMs (10 s by default), on the server's clock", async () => {
    let asked = 0;
    const silent = createServer(() => void asked++); // takes the request, never answers
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const clock = new FakeClock();
      await using s = await startTestServer({ clock, kubeletClient: { scheme: 'http', token: TOKEN } });
      const port = (silent.address() as AddressInfo).port;
      const n = await s.request('POST', '/api/v1/nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' } });
      await s.request('PUT', '/api/v1/nodes/n1/status', { ...n.body, status: { addresses: [{ type: 'InternalIP', address: '127.0.0.1' }], daemonEndpoints: { kubeletEndpoint: { Port: port } } } });
      await s.request('POST', '/api/v1/namespaces/default/pods', { metadata: { name: 'web' }, spec: { nodeName: 'n1', containers: [{ name: 'main', image: 'x' }] } });
      let settled = false;
      const answer = s.request('GET', '/api/v1/namespaces/default/pods/web/log').finally(() => (settled = true));
      for (const deadline = Date.now() + 5000; asked === 0; ) {
        assert.ok(Date.now() < deadline, 'the agent was asked within 5 s');
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      await clock.advance(9_999);
      assert.equal(settled, false, 'still waiting for the agent');
      await clock.advance(1);
      const res = await answer;
      assert.equal(res.status, 500, res.text);
      assert.match(res.body.message, /^Get "http:\/\/127\.0\.0\.1:\d+\/containerLogs\/default\/web\/main": no answer within 10000 ms$/);
    } finally {
      silent.closeAllConnections();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });
});
