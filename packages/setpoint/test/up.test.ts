/**
 * The main job, end to end, as the README's quick start runs it: `setpoint up` in a temporary HOME,
 * the example Deployment (examples/http-server) applied with kubectl, its processes answering HTTP,
 * one killed and brought back, `up` stopped and started again on the same data, everything
 * converged with the same objects and the same processes.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { podFilesDir } from '@setpoint/agent';
import { startUp, type SetpointProcess } from './setpoint-process.js';

const run = promisify(execFile);

async function waitFor<T>(what: string, check: () => Promise<T | undefined | false>, ms = 60_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check().catch(() => undefined);
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}


const examples = join(dirname(fileURLToPath(import.meta.url)), '../../../examples');

describe('setpoint up (the README quick start)', () => {
  it('runs the example Deployment as real processes, heals a killed one, and comes back converged after a restart', { timeout: 300_000 }, async () => {
    const home = await mkdtemp(join(tmpdir(), 'setpoint-up-home-'));
    const kubeconfig = join(home, '.setpoint', 'kubeconfig.yaml');
    const kubectl = async (...args: string[]) => (await run('kubectl', ['--kubeconfig', kubeconfig, ...args], { timeout: 60_000 })).stdout;
    /** Each replica's answer: it took its own port and wrote it to its working directory. */
    const answers = async (): Promise<Map<string, string>> => {
      const pods = JSON.parse(await kubectl('get', 'pods', '-l', 'app=http-server', '-o', 'json')) as { items: Array<{ metadata: { name: string; uid: string } }> };
      const [node] = await readdir(join(home, '.setpoint', 'agent'));
      const out = new Map<string, string>();
      for (const pod of pods.items) {
        const port = (await readFile(join(podFilesDir(join(home, '.setpoint', 'agent', node!), pod.metadata.uid), 'rootfs', 'port'), 'utf8')).trim();
        out.set(pod.metadata.name, await (await fetch(`http://127.0.0.1:${port}/`)).text());
      }
      return out;
    };
    const pidOf = (answer: string) => Number(/\(pid (\d+),/.exec(answer)![1]);
    let up: SetpointProcess | undefined;
    try {
      up = await startUp(home);
      // As the README says: apply the example, watch it roll out, ask each process.
      await kubectl('apply', '-k', join(examples, 'http-server'));
      await kubectl('rollout', 'status', 'deployment/http-server', '--timeout=120s');
      const first = await waitFor('both replicas to answer HTTP', async () => {
        const got = await answers();
        return got.size === 2 && [...got].every(([name, text]) => text.startsWith(`hello from ${name} (pid `)) ? got : undefined;
      });

      // Kill one process: the agent restarts the container (restartPolicy Always).
      const [victim, answer] = [...first][0]!;
      process.kill(pidOf(answer), 'SIGKILL');
      const healed = await waitFor('a new process to answer for the killed one', async () => {
        const got = await answers();
        const now = got.get(victim);
        return now !== undefined && pidOf(now) !== pidOf(answer) && got.size === 2 ? got : undefined;
      }, 120_000);
      const restarts = await kubectl('get', 'pod', victim, '-o', 'jsonpath={.status.containerStatuses[0].restartCount}');
      assert.equal(restarts, '1');

      // Stop up; start it again on the same data: the same objects, the processes adopted, not duplicated.
      const uid = await kubectl('get', 'deployment', 'http-server', '-o', 'jsonpath={.metadata.uid}');
      up.child.kill('SIGINT');
      assert.equal(await up.exited, 0);
      up = undefined;
      up = await startUp(home);
      assert.equal(await kubectl('get', 'deployment', 'http-server', '-o', 'jsonpath={.metadata.uid}'), uid, 'the same Deployment');
      await kubectl('rollout', 'status', 'deployment/http-server', '--timeout=120s');
      const after = await waitFor('the adopted processes to answer', async () => {
        const got = await answers();
        return got.size === 2 ? got : undefined;
      });
      assert.deepEqual(after, healed, 'the same pods, answered by the same processes');
    } finally {
      if (up !== undefined) {
        // Pods outlive `up` by design: delete them and wait until their processes are gone.
        await kubectl('delete', '-k', join(examples, 'http-server'), '--cascade=foreground', '--timeout=60s').catch(() => undefined);
        await waitFor('the pods to be gone', async () => (await kubectl('get', 'pods', '-l', 'app=http-server', '-o', 'name')).trim() === '', 60_000).catch(() => undefined);
        up.child.kill('SIGINT');
        await up.exited;
      }
      await rm(home, { recursive: true, force: true });
    }
  });
});
