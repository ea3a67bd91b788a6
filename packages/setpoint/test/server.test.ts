/**
 * `setpoint server` as a process: first start writes credentials and a kubeconfig, SIGTERM ends
 * open watches cleanly and exits 0, and a restart on the same data directory keeps every object.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
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

async function startServer(dir: string, ...extra: string[]): Promise<Proc> {
  const child = spawn(process.execPath, ['--conditions=setpoint-src', '--import', 'tsx', cli, 'server', '--data-dir', dir, '--port', '0', '--log-level', 'warn', ...extra], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start within 20 s:\n${output}`)), 20_000);
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

interface Creds {
  ca: string;
  token: string;
}

function call(url: string, creds: Creds | undefined, method: string, path: string, body?: unknown): Promise<{ status: number; json: any }> { // eslint-disable-line @typescript-eslint/no-explicit-any
  return new Promise((resolve, reject) => {
    const req = https.request(new URL(path, url), {
      method,
      ca: creds?.ca,
      rejectUnauthorized: creds !== undefined,
      headers: { ...(creds ? { authorization: `Bearer ${creds.token}` } : {}), 'content-type': 'application/json' },
    }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => {
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          json = text;
        }
        resolve({ status: res.statusCode ?? 0, json });
      });
    });
    req.on('error', reject);
    if (body !== undefined) req.write(JSON.stringify(body));
    req.end();
  });
}

describe('setpoint server', () => {
  it('writes credentials at first start, ends watches and exits 0 on SIGTERM, and keeps every object across a restart', { timeout: 90_000 }, async () => {
    const dir = await mkdtemp(join(tmpdir(), 'setpoint-server-test-'));
    let proc: Proc | undefined;
    try {
      proc = await startServer(dir);
      assert.match(proc.url, /^https:\/\/127\.0\.0\.1:\d+$/);
      for (const file of ['ca.key', 'server.key', 'admin.token', 'kubeconfig.yaml']) {
        assert.equal((await stat(join(dir, file))).mode & 0o777, 0o600, `${file} is private`);
      }
      const kubeconfig = await readFile(join(dir, 'kubeconfig.yaml'), 'utf8');
      assert.ok(kubeconfig.includes(proc.url), 'the kubeconfig names the server');
      const creds: Creds = { ca: await readFile(join(dir, 'ca.crt'), 'utf8'), token: (await readFile(join(dir, 'admin.token'), 'utf8')).trim() };

      assert.equal((await call(proc.url, creds, 'GET', '/readyz')).status, 200);
      const anonymous = await call(proc.url, undefined, 'GET', '/api/v1/namespaces');
      assert.equal(anonymous.status, 401);
      assert.equal(anonymous.json.reason, 'Unauthorized');

      const created = await call(proc.url, creds, 'POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'kept' }, data: { a: '1' } });
      assert.equal(created.status, 201);
      const rv = Number(created.json.metadata.resourceVersion);

      // A watch open at SIGTERM ends cleanly (the response completes), and the process exits 0.
      const watchEnded = new Promise<string>((resolve, reject) => {
        const req = https.request(new URL('/api/v1/namespaces/default/configmaps?watch=true', proc!.url), { ca: creds.ca, headers: { authorization: `Bearer ${creds.token}` } }, (res) => {
          let text = '';
          res.on('data', (c: Buffer) => (text += c.toString()));
          res.on('end', () => resolve(text));
          res.on('error', reject);
        });
        req.on('error', reject);
        req.end();
      });
      // Wait until the watch delivered its first event, so it is open when the signal arrives.
      const firstEvent = new Promise<void>((resolve) => {
        const poll = setInterval(async () => {
          const list = await call(proc!.url, creds, 'GET', '/metrics');
          if (typeof list.json === 'string' && /apiserver_registered_watchers\{[^}]*resource="configmaps"[^}]*\} 1/.test(list.json)) {
            clearInterval(poll);
            resolve();
          }
        }, 50);
      });
      await firstEvent;
      proc.child.kill('SIGTERM');
      const streamed = await watchEnded;
      assert.ok(streamed.includes('"kept"'), 'the watch had sent the current state');
      assert.equal(await proc.exited, 0);
      proc = undefined;

      proc = await startServer(dir);
      const again = await call(proc.url, creds, 'GET', '/api/v1/namespaces/default/configmaps/kept');
      assert.equal(again.status, 200);
      assert.deepEqual(again.json.data, { a: '1' });
      const next = await call(proc.url, creds, 'POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'after' } });
      assert.ok(Number(next.json.metadata.resourceVersion) > rv, 'resourceVersions keep growing across restarts');
    } finally {
      if (proc !== undefined) {
        proc.child.kill('SIGTERM');
        await proc.exited;
      }
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('refuses bad flags with a one-line message and a non-zero exit', async () => {
    const run = (...args: string[]) =>
      new Promise<{ code: number | null; stderr: string }>((resolve) => {
        const child = spawn(process.execPath, ['--conditions=setpoint-src', '--import', 'tsx', cli, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
        let stderr = '';
        child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
        child.on('exit', (code) => resolve({ code, stderr }));
      });
    const bad = await run('server', '--port', 'nope', '--data-dir', join(tmpdir(), 'never-created'));
    assert.notEqual(bad.code, 0);
    assert.equal(bad.stderr.trim(), 'setpoint: --port must be a port number from 0 to 65535, not "nope"');
    const insecure = await run('server', '--insecure-http', '--host', '0.0.0.0', '--data-dir', join(tmpdir(), 'never-created'));
    assert.notEqual(insecure.code, 0);
    assert.match(insecure.stderr.trim(), /^setpoint: --insecure-http is allowed on loopback only/);
  });
});
