/**
 * `setpoint controller-manager --leader-elect` as processes: two replicas beside a `setpoint
 * server`, exactly one leads (and reconciles); when it is killed the other takes over.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const cli = join(dirname(fileURLToPath(import.meta.url)), '../src/cli-main.ts');

interface Proc {
  child: ChildProcess;
  url: string;
  exited: Promise<number | null>;
}

/** Starts `setpoint ARGS…` and resolves with the first URL its output names after `marker`. */
async function start(args: string[], marker: RegExp): Promise<Proc> {
  const child = spawn(process.execPath, ['--conditions=setpoint-src', '--import', 'tsx', cli, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no start within 30 s:\n${output}`)), 30_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const m = marker.exec(output);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    void exited.then((code) => reject(new Error(`exited with ${code}:\n${output}`)));
  });
  return { child, url, exited };
}

async function waitFor(what: string, check: () => Promise<boolean>, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('setpoint controller-manager --leader-elect', () => {
  it('two replicas: exactly one reconciles, and the other takes over when it is killed', { timeout: 120_000 }, async () => {
    const dir = await mkdtemp(join(tmpdir(), 'setpoint-cm-test-'));
    const procs: Proc[] = [];
    try {
      const server = await start(['server', '--data-dir', dir, '--port', '0', '--log-level', 'warn'], /API server at (https:\/\/[^;\s]+)/);
      procs.push(server);
      const ca = await readFile(join(dir, 'ca.crt'), 'utf8');
      const token = (await readFile(join(dir, 'admin.token'), 'utf8')).trim();
      const api = (method: string, path: string, body?: unknown) =>
        new Promise<{ status: number; json: any }>((resolve, reject) => { // eslint-disable-line @typescript-eslint/no-explicit-any
          const req = https.request(new URL(path, server.url), { method, ca, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' } }, (res) => {
            let text = '';
            res.on('data', (c: Buffer) => (text += c.toString()));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, json: text ? JSON.parse(text) : undefined }));
          });
          req.on('error', reject);
          if (body !== undefined) req.write(JSON.stringify(body));
          req.end();
        });
      const args = ['controller-manager', '--kubeconfig', join(dir, 'kubeconfig.yaml'), '--leader-elect', '--port', '0', '--log-level', 'warn'];
      const timing = ['--leader-elect-lease-duration', '2s', '--leader-elect-renew-deadline', '1500ms', '--leader-elect-retry-period', '200ms'];
      const a = await start([...args, ...timing], /health and metrics on (http:\/\/[^\s]+)/);
      const b = await start([...args, ...timing], /health and metrics on (http:\/\/[^\s]+)/);
      procs.push(a, b);
      const leading = async (p: Proc) => {
        const text = await (await fetch(`${p.url}/metrics`)).text();
        return /leader_election_master_status\{name="setpoint-controller-manager"\} 1/.test(text);
      };
      await waitFor('one leader', async () => (await leading(a)) !== (await leading(b)));
      const leader = (await leading(a)) ? a : b;
      const follower = leader === a ? b : a;
      assert.equal((await fetch(`${follower.url}/healthz`)).status, 200, 'the follower is alive');

      const rs = (name: string) => ({
        apiVersion: 'apps/v1',
        kind: 'ReplicaSet',
        metadata: { name },
        spec: { replicas: 2, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'i' }] } } },
      });
      const podsOf = async (app: string) => (await api('GET', `/api/v1/namespaces/default/pods?labelSelector=app%3D${app}`)).json.items.length as number;
      assert.equal((await api('POST', '/apis/apps/v1/namespaces/default/replicasets', rs('first'))).status, 201);
      await waitFor('the leader to create the first pods', async () => (await podsOf('first')) === 2);

      leader.child.kill('SIGKILL');
      await leader.exited;
      await waitFor('the follower to take over', () => leading(follower));
      assert.equal((await api('POST', '/apis/apps/v1/namespaces/default/replicasets', rs('second'))).status, 201);
      await waitFor('the new leader to reconcile', async () => (await podsOf('second')) === 2);
      assert.equal(await podsOf('first'), 2, 'no duplicate pods from the change of leader');
    } finally {
      for (const p of procs.reverse()) {
        p.child.kill('SIGTERM');
        await p.exited;
      }
      await rm(dir, { recursive: true, force: true });
    }
  });
});
