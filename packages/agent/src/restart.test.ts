/**
 * Restart safety: the agent runs in a child process, is killed with SIGKILL while its pods run,
 * and a new agent on the same data dir takes over — adopting the processes of pods that still
 * exist, killing those of pods deleted meanwhile, and starting pods created meanwhile. No duplicate
 * process, no lost pod.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { isApiError, type Pod } from '@setpoint/api';
import { startControlPlane, type ControlPlane } from '@setpoint/testing';
import { markOf, markedGroupLeaders } from './runtime/records.js';
import { boundPod, eventually, nodeContainer, pidAlive, tempDir } from './testing/helpers.js';

const NODE = 'restart-node';
const NS = 'default';
const AGENT = fileURLToPath(new URL('./testing/agent-process.ts', import.meta.url));
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
let cp: ControlPlane;
let dataDir: Awaited<ReturnType<typeof tempDir>>;
let out: Awaited<ReturnType<typeof tempDir>>;
const agents: ChildProcess[] = [];

before(async () => {
  cp = await startControlPlane();
  dataDir = await tempDir();
  out = await tempDir('setpoint-out-', 0o777); // pods write here, as users of their own
});
after(async () => {
  for (const agent of agents) if (agent.exitCode === null && agent.signalCode === null) agent.kill('SIGKILL');
  // Whatever a failed test left running.
  for (const pid of markedGroupLeaders(markOf(dataDir.path))) process.kill(-pid, 'SIGKILL');
  await cp.stop();
  await dataDir[Symbol.asyncDispose]();
  await out[Symbol.asyncDispose]();
});

function startAgent(): ChildProcess {
  const agent = spawn(process.execPath, ['--conditions=setpoint-src', '--import', 'tsx', AGENT, cp.url, NODE, dataDir.path], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  agents.push(agent);
  return agent;
}

function exited(agent: ChildProcess): Promise<void> {
  return agent.exitCode !== null || agent.signalCode !== null ? Promise.resolve() : new Promise((resolve) => agent.once('exit', () => resolve()));
}

/** A pod whose container appends its pid to <out>/<name>.pids and runs until killed. */
function recordingPod(name: string): Pod {
  const script = `require('fs').appendFileSync(process.env.PIDS, process.pid + '\\n'); setInterval(() => {}, 1000)`;
  return boundPod(NS, name, NODE, [nodeContainer('main', script, { env: [{ name: 'PIDS', value: join(out.path, `${name}.pids`) }] })]);
}

const pidsOf = (name: string): number[] => {
  const file = join(out.path, `${name}.pids`);
  return existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean).map(Number) : [];
};

async function readyPod(name: string): Promise<Pod> {
  return eventually(`${name} to be Running and Ready`, async () => {
    const pod = await cp.client.pods().get(name, { namespace: NS });
    return pod.status?.phase === 'Running' && pod.status.containerStatuses?.[0]?.ready === true ? pod : undefined;
  }, 30_000);
}

async function gone(name: string): Promise<void> {
  await eventually(`${name} to be deleted`, async () => cp.client.pods().get(name, { namespace: NS }).then(() => false, (err: unknown) => isApiError(err, 'NotFound')), 30_000);
}

describe('agent restart', () => {
  it('after kill -9 and a restart: keeps running pods, kills deleted ones, starts new ones, duplicates none', async () => {
    await cp.client.pods().create(recordingPod('keep'));
    await cp.client.pods().create(recordingPod('drop'));
    const first = startAgent();
    const keepBefore = await readyPod('keep');
    await readyPod('drop');
    // Running is reported once the process is spawned; its script writes the pid a moment later.
    const keepPid = await eventually('keep to record its pid', () => pidsOf('keep')[0]);
    const dropPid = await eventually('drop to record its pid', () => pidsOf('drop')[0]);

    first.kill('SIGKILL');
    await exited(first);
    assert.ok(pidAlive(keepPid) && pidAlive(dropPid), 'containers outlive the agent');

    // While no agent runs: one pod is force-deleted, another created.
    await cp.client.pods().delete('drop', { namespace: NS, gracePeriodSeconds: 0 });
    await cp.client.pods().create(recordingPod('new'));

    const second = startAgent();
    await readyPod('new');
    await eventually('new to record its pid', () => pidsOf('new').length > 0);
    await eventually('the deleted pod’s process to be killed', () => !pidAlive(dropPid), 30_000);
    const keepAfter = await readyPod('keep');
    assert.deepEqual(pidsOf('keep'), [keepPid], 'the running container was adopted, not started again');
    assert.ok(pidAlive(keepPid));
    assert.equal(keepAfter.status?.containerStatuses?.[0]?.restartCount, 0);
    assert.equal(keepAfter.status?.containerStatuses?.[0]?.containerID, keepBefore.status?.containerStatuses?.[0]?.containerID);
    assert.equal(pidsOf('new').length, 1);
    assert.deepEqual(markedGroupLeaders(markOf(dataDir.path)).sort(), [keepPid, ...pidsOf('new')].sort(), 'exactly one process per running container');

    // The adopted process is still managed: deleting its pod stops it.
    await cp.client.pods().delete('keep', { namespace: NS });
    await cp.client.pods().delete('new', { namespace: NS });
    await gone('keep');
    await gone('new');
    assert.equal(pidAlive(keepPid), false);
    second.kill('SIGTERM');
    await exited(second);
    assert.deepEqual(markedGroupLeaders(markOf(dataDir.path)), []);
  });
});
