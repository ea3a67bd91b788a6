/**
 * Probes against real containers: readiness through an httpGet probe on a tiny HTTP server the
 * container itself starts; a liveness failure restarting the container.
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { Pod } from '@setpoint/api';
import { startControlPlane, type ControlPlane } from '@setpoint/testing';
import { boundPod, eventually, nodeContainer, startProcessAgent, tempDir, type TestAgent } from '../testing/helpers.js';

const NODE = 'probe-node';
const NS = 'default';
let cp: ControlPlane;
let dataDir: Awaited<ReturnType<typeof tempDir>>;
let agent: TestAgent;

before(async () => {
  cp = await startControlPlane();
  dataDir = await tempDir();
  agent = startProcessAgent(cp.client, { nodeName: NODE, dataDir: dataDir.path, backoff: { initialMs: 300, maxMs: 1200 } });
});
after(async () => {
  await agent.stop();
  await cp.stop();
  await dataDir[Symbol.asyncDispose]();
});

/** A port nothing listens on now. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  return typeof address === 'object' && address !== null ? address.port : 0;
}

async function waitPod(name: string, what: string, test: (pod: Pod) => boolean): Promise<Pod> {
  return eventually(`${name}: ${what}`, async () => {
    const pod = await cp.client.pods().get(name, { namespace: NS });
    return test(pod) ? pod : undefined;
  });
}

describe('probes', () => {
  it('marks the pod Ready only once its httpGet readiness probe passes', async () => {
    const port = await freePort();
    // The server comes up 1.5 s after the container starts: the first probes fail.
    const script = `setTimeout(() => require('http').createServer((req, res) => res.writeHead(req.url === '/healthz' ? 200 : 404).end('ok')).listen(Number(process.env.PORT), '127.0.0.1'), 1500)`;
    await cp.client.pods().create(
      boundPod(NS, 'server', NODE, [
        nodeContainer('web', script, {
          env: [{ name: 'PORT', value: String(port) }],
          ports: [{ name: 'http', containerPort: port }],
          readinessProbe: { httpGet: { path: '/healthz', port: 'http' }, periodSeconds: 1, failureThreshold: 1 },
        }),
      ]),
    );
    const running = await waitPod('server', 'Running, not yet Ready', (p) => p.status?.containerStatuses?.[0]?.state?.running !== undefined);
    assert.equal(running.status?.containerStatuses?.[0]?.ready, false);
    assert.equal(running.status?.conditions?.find((c) => c.type === 'Ready')?.status, 'False');
    const ready = await waitPod('server', 'Ready', (p) => p.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True');
    assert.equal(ready.status?.containerStatuses?.[0]?.ready, true);
    assert.equal(ready.status?.containerStatuses?.[0]?.restartCount, 0);
  });

  it('restarts a container whose liveness probe fails', async () => {
    const port = await freePort(); // nothing will listen there
    await cp.client.pods().create(
      boundPod(NS, 'unhealthy', NODE, [nodeContainer('main', 'setInterval(() => {}, 1000)', { livenessProbe: { tcpSocket: { port }, periodSeconds: 1, failureThreshold: 1, timeoutSeconds: 1 } })]),
    );
    const restarted = await waitPod('unhealthy', 'restarted by its liveness probe', (p) => (p.status?.containerStatuses?.[0]?.restartCount ?? 0) >= 1);
    const last = restarted.status?.containerStatuses?.[0]?.lastState?.terminated;
    assert.equal(last?.exitCode, 143, 'stopped with SIGTERM (128 + 15)');
    assert.equal(last?.reason, 'Error');
    assert.equal(restarted.status?.phase, 'Running');
  });
});
