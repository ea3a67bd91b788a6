/**
 * The main job, end to end, as the README's quick start runs it: `setpoint up` in a temporary HOME,
 * a Deployment applied with kubectl whose pod is a real HTTP server process, the process killed and
 * brought back, `up` stopped and started again on the same data, everything converged.
 */
import assert from 'node:assert/strict';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const cli = join(dirname(fileURLToPath(import.meta.url)), '../src/cli-main.ts');
const run = promisify(execFile);

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}

async function waitFor<T>(what: string, check: () => Promise<T | undefined | false>, ms = 60_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check().catch(() => undefined);
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

interface Up {
  child: ChildProcess;
  exited: Promise<number | null>;
}

async function startUp(home: string): Promise<Up> {
  const child = spawn(process.execPath, ['--conditions=setpoint-src', '--import', 'tsx', cli, 'up', '--port', '0'], {
    env: { ...process.env, HOME: home },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`up did not start within 60 s:\n${output}`)), 60_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('press Ctrl-C')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    void exited.then((code) => reject(new Error(`up exited with ${code}:\n${output}`)));
  });
  return { child, exited };
}

describe('setpoint up (the README quick start)', () => {
  it('runs a Deployment as real processes, heals a killed one, and comes back converged after a restart', { timeout: 240_000 }, async () => {
    const home = await mkdtemp(join(tmpdir(), 'setpoint-up-home-'));
    const kubeconfig = join(home, '.setpoint', 'kubeconfig.yaml');
    const kubectl = async (...args: string[]) => (await run('kubectl', ['--kubeconfig', kubeconfig, ...args], { timeout: 60_000 })).stdout;
    const port = await freePort();
    const get = async () => {
      const res = await fetch(`http://127.0.0.1:${port}/`);
      return res.ok ? await res.text() : undefined;
    };
    let up: Up | undefined;
    try {
      up = await startUp(home);
      const manifest = join(home, 'web.yaml');
      await writeFile(
        manifest,
        `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      terminationGracePeriodSeconds: 2
      containers:
      - name: web
        image: example/web:1
        command: ["${process.execPath}", "-e", "require('http').createServer((q, s) => s.end('pid ' + process.pid)).listen(${port}, '127.0.0.1')"]
        readinessProbe:
          httpGet: {path: /, port: ${port}}
          periodSeconds: 1
`,
      );
      await kubectl('apply', '-f', manifest);
      await kubectl('rollout', 'status', 'deployment/web', '--timeout=60s');
      const first = await waitFor('the pod to answer HTTP', get);
      assert.match(first, /^pid \d+$/);

      // Kill the process: the agent restarts the container (restartPolicy Always).
      process.kill(Number(first.slice(4)), 'SIGKILL');
      const second = await waitFor('a new process to answer', async () => {
        const text = await get();
        return text !== undefined && text !== first ? text : undefined;
      });
      const restarts = await kubectl('get', 'pods', '-l', 'app=web', '-o', 'jsonpath={.items[0].status.containerStatuses[0].restartCount}');
      assert.equal(restarts, '1');

      // Stop up; start it again on the same data: the same objects, the pod adopted, not duplicated.
      const uid = await kubectl('get', 'deployment', 'web', '-o', 'jsonpath={.metadata.uid}');
      up.child.kill('SIGINT');
      assert.equal(await up.exited, 0);
      up = undefined;
      up = await startUp(home);
      assert.equal(await kubectl('get', 'deployment', 'web', '-o', 'jsonpath={.metadata.uid}'), uid, 'the same Deployment');
      await kubectl('rollout', 'status', 'deployment/web', '--timeout=60s');
      assert.equal(await waitFor('the adopted process to answer', get), second, 'the process kept running and was adopted');
      const pods = await kubectl('get', 'pods', '-l', 'app=web', '-o', 'name');
      assert.equal(pods.trim().split('\n').length, 1, 'one pod, not a duplicate');
    } finally {
      if (up !== undefined) {
        // Pods outlive `up` by design: delete them and wait until their process is gone.
        await kubectl('delete', 'deployment', 'web', '--cascade=foreground', '--timeout=30s').catch(() => undefined);
        await waitFor('the pod to be gone', async () => (await kubectl('get', 'pods', '-l', 'app=web', '-o', 'name')).trim() === '', 30_000).catch(() => undefined);
        await waitFor('the process to stop', async () => (await get().catch(() => undefined)) === undefined, 30_000).catch(() => undefined);
        up.child.kill('SIGINT');
        await up.exited;
      }
      await rm(home, { recursive: true, force: true });
    }
  });
});
