/**
 * Graceful deletion through pod sync, with real processes: SIGTERM to the process group, SIGKILL
 * after the grace period, then the final delete; pods that vanish are killed as orphans.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { isApiError, type Pod } from '@setpoint/api';
import { startControlPlane, type ControlPlane } from '@setpoint/testing';
import { boundPod, eventually, nodeContainer, pidAlive, startProcessAgent, tempDir, type TestAgent } from './testing/helpers.js';

const NODE = 'delete-node';
const NS = 'default';
let cp: ControlPlane;
let dataDir: Awaited<ReturnType<typeof tempDir>>;
let out: Awaited<ReturnType<typeof tempDir>>;
let agent: TestAgent;

before(async () => {
  cp = await startControlPlane();
  dataDir = await tempDir();
  out = await tempDir('setpoint-out-', 0o777); // pods write here, as users of their own
  agent = startProcessAgent(cp.client, { nodeName: NODE, dataDir: dataDir.path });
});
after(async () => {
  await agent.stop();
  await cp.stop();
  await dataDir[Symbol.asyncDispose]();
  await out[Symbol.asyncDispose]();
});

async function runningPid(name: string): Promise<{ pod: Pod; pid: number }> {
  return eventually(`${name} to run`, async () => {
    const pod = await cp.client.pods().get(name, { namespace: NS });
    const id = pod.status?.containerStatuses?.[0]?.containerID;
    return pod.status?.containerStatuses?.[0]?.state?.running !== undefined && id !== undefined ? { pod, pid: Number(id.split('://')[1]) } : undefined;
  });
}

async function gone(name: string): Promise<void> {
  await eventually(`${name} to be deleted`, async () => {
    try {
      await cp.client.pods().get(name, { namespace: NS });
      return false;
    } catch (err) {
      return isApiError(err, 'NotFound');
    }
  });
}

describe('pod deletion', () => {
  it('sends SIGTERM to the process group and deletes the pod once it exited', async () => {
    const term = join(out.path, 'term');
    const child = join(out.path, 'child.pid');
    // The container starts a child of its own (same process group) and exits cleanly on SIGTERM.
    const script = [
      `const fs = require('fs');`,
      `process.on('SIGTERM', () => { fs.writeFileSync(process.env.TERM_FILE, 'got SIGTERM'); process.exit(0); });`,
      `const c = require('child_process').spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });`,
      `fs.writeFileSync(process.env.CHILD, String(c.pid));`,
      `setInterval(() => {}, 1000);`,
    ].join(' ');
    await cp.client.pods().create(
      boundPod(NS, 'graceful', NODE, [nodeContainer('main', script, { env: [{ name: 'TERM_FILE', value: term }, { name: 'CHILD', value: child }] })], { terminationGracePeriodSeconds: 30 }),
    );
    const { pid } = await runningPid('graceful');
    const childPid = Number(await eventually('the grandchild pid', () => (existsSync(child) ? readFileSync(child, 'utf8') : undefined)));
    assert.ok(pidAlive(childPid));
    const started = Date.now();
    await cp.client.pods().delete('graceful', { namespace: NS });
    await gone('graceful');
    assert.ok(Date.now() - started < 10_000, 'well within the 30 s grace period');
    assert.equal(readFileSync(term, 'utf8'), 'got SIGTERM');
    assert.equal(pidAlive(pid), false);
    await eventually('the grandchild to be killed with its group', () => !pidAlive(childPid));
  });

  it('sends SIGKILL when the grace period is over', async () => {
    const ready = join(out.path, 'stubborn-ready');
    const script = `process.on('SIGTERM', () => {}); require('fs').writeFileSync(process.env.READY, ''); setInterval(() => {}, 1000)`;
    await cp.client.pods().create(boundPod(NS, 'stubborn', NODE, [nodeContainer('main', script, { env: [{ name: 'READY', value: ready }] })], { terminationGracePeriodSeconds: 1 }));
    const { pid } = await runningPid('stubborn');
    await eventually('the container to ignore SIGTERM', () => existsSync(ready));
    const started = Date.now();
    await cp.client.pods().delete('stubborn', { namespace: NS });
    await gone('stubborn');
    const took = Date.now() - started;
    assert.ok(took >= 900, `killed only after the grace period (${took} ms)`);
    assert.ok(took < 8_000, `and soon after it (${took} ms)`);
    assert.equal(pidAlive(pid), false);
  });

  it('kills what runs for a pod that vanished from the API (force deletion)', async () => {
    await cp.client.pods().create(boundPod(NS, 'forced', NODE, [nodeContainer('main', 'setInterval(() => {}, 1000)')]));
    const { pod, pid } = await runningPid('forced');
    await cp.client.pods().delete('forced', { namespace: NS, gracePeriodSeconds: 0 });
    await eventually('the orphan process to be killed', () => !pidAlive(pid));
    await eventually('its data to be removed', () => !existsSync(join(dataDir.path, 'pods', pod.metadata.uid ?? '')));
    // The runtime forgets the pod last, once its files are gone too.
    await eventually('the runtime to forget the pod', () => agent.runtime.pods().length === 0);
    assert.deepEqual(agent.runtime.pods(), []);
  });
});
