/**
 * `setpoint server --store etcd`: two server processes on one etcd (started by the test), the second
 * with copies of the first one's CA, admin token and ServiceAccount keys (docs/etcd.md). A write
 * through one reaches a watch on the other with the same resourceVersion; bad etcd flags are refused.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { copyFile, mkdtemp, readFile, rm } from 'node:fs/promises';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { startEtcd } from '@setpoint/store/testing';

const cli = join(dirname(fileURLToPath(import.meta.url)), '../src/cli-main.ts');

interface Proc {
  child: ChildProcess;
  url: string;
  exited: Promise<number | null>;
}

async function startServer(dir: string, ...extra: string[]): Promise<Proc> {
  const child = spawn(process.execPath, ['--conditions=setpoint-src', '--import', 'tsx', cli, 'server', '--data-dir', dir, '--port', '0', '--log-level', 'warn', ...extra], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start within 30 s:\n${output}`)), 30_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const m = /API server at (https?:\/\/[^;\s]+)/.exec(output);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}:\n${output}`));
    });
  });
  return { child, url, exited };
}

async function stopServer(proc: Proc | undefined): Promise<void> {
  if (proc === undefined || proc.child.exitCode !== null) return;
  proc.child.kill('SIGTERM');
  await proc.exited;
}

function call(url: string, ca: string, token: string, method: string, path: string, body?: unknown): Promise<{ status: number; json: any }> { // eslint-disable-line @typescript-eslint/no-explicit-any
  return new Promise((resolve, reject) => {
    const req = https.request(new URL(path, url), { method, ca, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' } }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, json: JSON.parse(text) }));
    });
    req.on('error', reject);
    if (body !== undefined) req.write(JSON.stringify(body));
    req.end();
  });
}

/** The first line of a watch on `path` (an event), read with a deadline. */
function firstWatchLine(url: string, ca: string, token: string, path: string): { line: Promise<any>; close(): void } { // eslint-disable-line @typescript-eslint/no-explicit-any
  let req: ReturnType<typeof https.request> | undefined;
  const line = new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no watch event within 15 s')), 15_000);
    req = https.request(new URL(path, url), { ca, headers: { authorization: `Bearer ${token}` } }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => {
        text += c.toString();
        const nl = text.indexOf('\n');
        if (nl >= 0) {
          clearTimeout(timer);
          resolve(JSON.parse(text.slice(0, nl)));
        }
      });
    });
    req.on('error', () => undefined);
    req.end();
  });
  return { line, close: () => req?.destroy() };
}

describe('setpoint server --store etcd', () => {
  it('two servers on one etcd, sharing the first one\'s credentials: a write through one reaches a watch on the other', { timeout: 120_000 }, async () => {
    await using etcd = await startEtcd();
    const dirA = await mkdtemp(join(tmpdir(), 'setpoint-etcd-a-'));
    const dirB = await mkdtemp(join(tmpdir(), 'setpoint-etcd-b-'));
    let a: Proc | undefined;
    let b: Proc | undefined;
    try {
      const flags = ['--store', 'etcd', '--etcd-endpoints', etcd.endpoint, '--etcd-prefix', '/cluster-1'];
      a = await startServer(dirA, ...flags);
      for (const file of ['ca.crt', 'ca.key', 'admin.token', 'sa.key', 'sa.pub']) await copyFile(join(dirA, file), join(dirB, file));
      b = await startServer(dirB, ...flags);
      const ca = await readFile(join(dirA, 'ca.crt'), 'utf8');
      const token = (await readFile(join(dirA, 'admin.token'), 'utf8')).trim();
      const cm = '/api/v1/namespaces/default/configmaps';
      const listed = await call(b.url, ca, token, 'GET', cm);
      assert.equal(listed.status, 200, JSON.stringify(listed.json));
      const watch = firstWatchLine(b.url, ca, token, `${cm}?watch=true&resourceVersion=${listed.json.metadata.resourceVersion}`);
      try {
        const created = await call(a.url, ca, token, 'POST', cm, { metadata: { name: 'through-a' }, data: { k: 'v' } });
        assert.equal(created.status, 201, JSON.stringify(created.json));
        const event = await watch.line;
        assert.equal(event.type, 'ADDED');
        assert.equal(event.object.metadata.name, 'through-a');
        assert.equal(event.object.metadata.resourceVersion, created.json.metadata.resourceVersion);
      } finally {
        watch.close();
      }
      const onB = await call(b.url, ca, token, 'GET', `${cm}/through-a`);
      assert.deepEqual(onB.json, (await call(a.url, ca, token, 'GET', `${cm}/through-a`)).json);
    } finally {
      await stopServer(a);
      await stopServer(b);
      await rm(dirA, { recursive: true, force: true });
      await rm(dirB, { recursive: true, force: true });
    }
  });

  it('refuses etcd flags that do not fit, with a one-line message', async () => {
    const run = (...args: string[]) =>
      new Promise<{ code: number | null; stderr: string }>((resolve) => {
        const child = spawn(process.execPath, ['--conditions=setpoint-src', '--import', 'tsx', cli, 'server', '--data-dir', join(tmpdir(), 'never-created'), ...args], {
          stdio: ['ignore', 'ignore', 'pipe'],
        });
        let stderr = '';
        child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
        child.on('exit', (code) => resolve({ code, stderr }));
      });
    const missing = await run('--store', 'etcd');
    assert.notEqual(missing.code, 0);
    assert.equal(missing.stderr.trim(), 'setpoint: --store etcd needs --etcd-endpoints URL[,URL…]');
    const badUrl = await run('--store', 'etcd', '--etcd-endpoints', 'localhost:2379/x');
    assert.notEqual(badUrl.code, 0);
    assert.match(badUrl.stderr.trim(), /^setpoint: --etcd-endpoints: "localhost:2379\/x"/);
    const unused = await run('--etcd-endpoints', 'http://127.0.0.1:2379');
    assert.notEqual(unused.code, 0);
    assert.match(unused.stderr.trim(), /^setpoint: --etcd-… flags are used with --store etcd only/);
  });
});
