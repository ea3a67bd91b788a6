/**
 * The examples of examples/README.md do what it says: each manifest is applied from its folder with
 * kubectl, exactly as a user would, to an in-process control plane with the built-in controllers,
 * the scheduler and a node agent that runs pods as real processes.
 *
 * kubectl runs asynchronously (the API server is in this process). Every process a pod started is
 * gone at the end: the test deletes what it applied and waits for the processes to exit, and the
 * runtime kills whatever is left if a step failed.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { Pod } from '@setpoint/api';
import { containerLogPath, podDir, podFilesDir, ProcessRuntime, runAgent } from '@setpoint/agent';
import { Manager, type Client } from '@setpoint/client';
import { startControlPlane } from '@setpoint/testing';
import { registerBuiltinControllers, registerScheduler } from '@setpoint/controllers';

const examples = join(dirname(fileURLToPath(import.meta.url)), '../../../examples');
const run = promisify(execFile);

async function waitFor<T>(what: string, check: () => Promise<T | undefined | false>, ms = 60_000): Promise<T> {
  const deadline = Date.now() + ms;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined && value !== false) return value;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`, { cause: last });
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Whether a process exists and is not a zombie (the zombie check needs /proc). */
async function alive(pid: number): Promise<boolean> {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => undefined);
  return stat === undefined || !/\) [ZX] /.test(stat);
}

/** The pid of a pod's first container, from its status (`setpoint-process://<pid>`). */
function pidOf(pod: Pod): number {
  const id = pod.status?.containerStatuses?.[0]?.containerID ?? '';
  const match = /^setpoint-process:\/\/(\d+)$/.exec(id);
  assert.ok(match, `pod ${pod.metadata.name} has no process: ${id}`);
  return Number(match[1]);
}

interface Cluster extends AsyncDisposable {
  readonly client: Client;
  /** The agent's data dir (pods' working directories and logs). */
  readonly dataDir: string;
  kubectl(...args: string[]): Promise<string>;
  /** The pods of the default namespace that match `selector`, not being deleted. */
  pods(selector: string): Promise<Pod[]>;
}

/** A control plane as `setpoint up` runs it, with one node agent on the process runtime. */
async function startCluster(): Promise<Cluster> {
  const cp = await startControlPlane();
  const kubeconfig = await cp.kubeconfig();
  const dataDir = await mkdtemp(join(tmpdir(), 'setpoint-examples-'));
  const client = cp.client;
  const manager = new Manager({ client });
  registerBuiltinControllers(manager);
  registerScheduler(manager);
  const runtime = new ProcessRuntime({ client, dataDir });
  const stop = new AbortController();
  const running = [manager.start(stop.signal), runAgent({ client, nodeName: 'examples', dataDir, runtime, signal: stop.signal })];
  return {
    client,
    dataDir,
    async kubectl(...args) {
      return (await run('kubectl', ['--kubeconfig', kubeconfig, ...args], { cwd: examples, timeout: 60_000 })).stdout;
    },
    async pods(selector) {
      const list = await client.pods().list({ namespace: 'default', labelSelector: selector });
      return list.items.filter((p) => p.metadata.deletionTimestamp === undefined);
    },
    async [Symbol.asyncDispose]() {
      stop.abort();
      await Promise.allSettled(running);
      await runtime.killAll(0); // only what a failed step left behind
      await cp.stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

describe('examples', () => {
  it('http-server: two replicas become Ready, each answers HTTP on its own port, and a killed process is restarted', { timeout: 120_000 }, async () => {
    await using cluster = await startCluster();
    const { kubectl } = cluster;
    const applied = await kubectl('apply', '-k', 'http-server');
    assert.match(applied, /configmap\/http-server-\w+ created/);
    assert.match(applied, /deployment.apps\/http-server created/);
    const pids: number[] = [];
    try {
      assert.match(await kubectl('rollout', 'status', 'deployment/http-server', '--timeout=60s'), /successfully rolled out/);
      const pods = await waitFor('two Ready pods', async () => {
        const ready = (await cluster.pods('app=http-server')).filter((p) => p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'));
        return ready.length === 2 ? ready : undefined;
      });
      pids.push(...pods.map(pidOf));

      // Each replica took its own port and wrote it to its working directory; curl answers.
      const ports = new Set<number>();
      for (const pod of pods) {
        const port = Number((await readFile(join(podFilesDir(cluster.dataDir, pod.metadata.uid ?? ''), 'rootfs', 'port'), 'utf8')).trim());
        ports.add(port);
        const answer = await (await fetch(`http://127.0.0.1:${port}/`)).text();
        assert.equal(answer, `hello from ${pod.metadata.name} (pid ${pidOf(pod)}, port ${port})\n`);
        const log = await readFile(containerLogPath(podDir(cluster.dataDir, pod.metadata.uid ?? ''), 'server'), 'utf8');
        assert.match(log, new RegExp(`${pod.metadata.name} listening on http://127.0.0.1:${port}\\n`));
      }
      assert.equal(ports.size, 2, 'one port per replica');

      // `kill <pid>`: the agent starts the container again (restartPolicy Always), on the same pod.
      const [victim] = pods as [Pod, ...Pod[]];
      process.kill(pidOf(victim), 'SIGTERM');
      const healed = await waitFor('the killed container to be restarted and Ready', async () => {
        const pod = await cluster.client.pods().get(victim.metadata.name ?? '', { namespace: 'default' });
        const status = pod.status?.containerStatuses?.[0];
        return status?.restartCount === 1 && status.ready ? pod : undefined;
      });
      pids.push(pidOf(healed));
      assert.notEqual(pidOf(healed), pidOf(victim));
      assert.equal((await cluster.pods('app=http-server')).length, 2, 'the same two pods, none replaced');
    } finally {
      await kubectl('delete', '-k', 'http-server', '--wait=false').catch(() => undefined);
    }
    await waitFor('the pods to be gone', async () => (await cluster.client.pods().list({ namespace: 'default' })).items.length === 0, 30_000);
    for (const pid of pids) await waitFor(`process ${pid} to end`, async () => !(await alive(pid)), 30_000);
  });

  it('run-to-completion: the pod runs once, ends Succeeded (STATUS Completed), and its output is in its log', { timeout: 120_000 }, async () => {
    await using cluster = await startCluster();
    const { kubectl } = cluster;
    assert.match(await kubectl('apply', '-f', 'run-to-completion/pod.yaml'), /pod\/primes created/);
    try {
      const pod = await waitFor('phase Succeeded', async () => {
        const p = await cluster.client.pods().get('primes', { namespace: 'default' });
        return p.status?.phase === 'Succeeded' ? p : undefined;
      });
      const terminated = pod.status?.containerStatuses?.[0]?.state?.terminated;
      assert.equal(terminated?.exitCode, 0);
      assert.equal(terminated?.reason, 'Completed');
      assert.equal(pod.status?.containerStatuses?.[0]?.restartCount, 0);
      assert.match(await kubectl('get', 'pod', 'primes'), /primes\s+0\/1\s+Completed\s+0\s/);

      const log = await readFile(containerLogPath(podDir(cluster.dataDir, pod.metadata.uid ?? ''), 'primes'), 'utf8');
      assert.equal(
        log,
        [
          'primes below 10: 4',
          'primes below 100: 25',
          'primes below 1000: 168',
          'primes below 10000: 1229',
          'primes below 100000: 9592',
          'primes below 1000000: 78498',
          'primes below 10000000: 664579',
          'done',
          '',
        ].join('\n'),
      );
    } finally {
      await kubectl('delete', '-f', 'run-to-completion/pod.yaml', '--wait=false').catch(() => undefined);
    }
    await waitFor('the pod to be gone', async () => (await cluster.client.pods().list({ namespace: 'default' })).items.length === 0, 30_000);
  });
});
