/**
 * An agent with its endpoint (plain HTTP with a token here; client certificates are tested in
 * packages/setpoint/test/agent-endpoint.test.ts): it reports the endpoint on its Node, and serves
 * its process runtime's container logs with the kubelet's answers.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Node } from '@setpoint/api';
import { startControlPlane } from '@setpoint/testing';
import { boundPod, eventually, nodeContainer, startProcessAgent, tempDir } from './testing/helpers.js';

const TOKEN = 'agent-test-token';

describe('the agent endpoint on the process runtime', () => {
  it("reports itself on the Node and serves a pod's container log, refusing unknown pods and containers", async () => {
    await using cp = await startControlPlane();
    await using dir = await tempDir();
    await using _agent = startProcessAgent(cp.client, { nodeName: 'logs-node', dataDir: dir.path, kubeletServer: { port: 0, host: '127.0.0.1', token: TOKEN } });
    const node: Node = await eventually('the node with its endpoint', async () => {
      const n = await cp.client.nodes().get('logs-node');
      return n.status?.daemonEndpoints?.kubeletEndpoint?.Port ? n : undefined;
    });
    assert.deepEqual(node.status?.addresses?.find((a) => a.type === 'InternalIP'), { type: 'InternalIP', address: '127.0.0.1' }, 'the listen address is where to connect');
    const base = `http://127.0.0.1:${node.status!.daemonEndpoints!.kubeletEndpoint!.Port}`;
    const get = async (path: string, token: string | null = TOKEN) => {
      const res = await fetch(`${base}${path}`, { headers: token === null ? {} : { authorization: `Bearer ${token}` } });
      return { status: res.status, text: await res.text() };
    };
    assert.equal((await get('/containerLogs/default/printer/main', null)).status, 401);

    await cp.client.pods().create(boundPod('default', 'printer', 'logs-node', [nodeContainer('main', `console.log('a'); console.log('b'); console.log('c'); setInterval(() => {}, 1000)`)]));
    const all = await eventually('the three lines', async () => {
      const res = await get('/containerLogs/default/printer/main');
      return res.status === 200 && res.text === 'a\nb\nc\n' ? res.text : undefined;
    });
    assert.equal(all, 'a\nb\nc\n');
    assert.deepEqual(await get('/containerLogs/default/printer/main?tailLines=1'), { status: 200, text: 'c\n' });
    assert.deepEqual(await get('/containerLogs/default/printer/main?previous=true'), { status: 400, text: 'previous terminated container "main" in pod "printer" not found\n' });
    assert.deepEqual(await get('/containerLogs/default/printer/other'), { status: 404, text: 'container "other" not found in pod "printer"\n' });
    assert.deepEqual(await get('/containerLogs/default/nobody/main'), { status: 404, text: 'pod "nobody" does not exist\n' });
    assert.equal((await get('/containerLogs/default/printer/main?sinceSeconds=0')).status, 422);
  });
});
