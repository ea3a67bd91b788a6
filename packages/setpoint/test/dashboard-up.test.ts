/**
 * The dashboard as `setpoint up` serves it: the one-time link it prints signs in once, the app is
 * served at /ui/, the controllers' metrics are served to the signed-in user, and `setpoint
 * dashboard` prints a new link for the admin of the data dir.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { parseComponentMetrics } from '../src/commands/dashboard.js';
import { runSetpoint } from './cli-support.js';

const cli = join(dirname(fileURLToPath(import.meta.url)), '../src/cli-main.ts');

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

function call(url: string, ca: string, method: string, headers: Record<string, string> = {}, body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, ca, headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('setpoint up and the dashboard', () => {
  it('prints a one-time link that signs in once, serves /ui/, and serves the controllers metrics', { timeout: 120_000 }, async () => {
    const home = await mkdtemp(join(tmpdir(), 'setpoint-dashboard-home-'));
    const child = spawn(process.execPath, ['--conditions=setpoint-src', '--import', 'tsx', cli, 'up', '--port', '0', '--agents', '0'], {
      env: { ...process.env, HOME: home },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
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
      const link = /setpoint: dashboard: (https:\/\/\S+)\/ui\/#\/login\?code=(\S+)/.exec(output);
      assert.ok(link, `up prints a sign-in link:\n${output}`);
      const [, base, code] = link;
      const ca = await readFile(join(home, '.setpoint', 'ca.crt'), 'utf8');

      const app = await call(`${base}/ui/`, ca, 'GET');
      assert.equal(app.status, 200, `the built app is served (npm run build makes it): ${app.text}`);
      assert.match(String(app.headers['content-type']), /text\/html/);
      assert.match(app.text, /<div id="app">/);

      const login = await call(`${base}/dashboard/v1/login`, ca, 'POST', {}, JSON.stringify({ code: decodeURIComponent(code!) }));
      assert.equal(login.status, 200, login.text);
      const session = JSON.parse(login.text) as { token: string; user: { username: string } };
      assert.equal(session.user.username, 'admin');
      const again = await call(`${base}/dashboard/v1/login`, ca, 'POST', {}, JSON.stringify({ code: decodeURIComponent(code!) }));
      assert.equal(again.status, 401, 'a link works once');

      const auth = { authorization: `Bearer ${session.token}` };
      assert.deepEqual(JSON.parse((await call(`${base}/metrics/components`, ca, 'GET', auth)).text), { components: ['controller-manager', 'scheduler'] });
      const metrics = await call(`${base}/metrics/components/controller-manager`, ca, 'GET', auth);
      assert.equal(metrics.status, 200);
      assert.match(metrics.text, /workqueue_depth\{name="replicaset"\}/);
      assert.match(metrics.text, /controller_runtime_max_concurrent_reconciles\{controller="deployment"\}/);
      assert.equal((await call(`${base}/metrics/components/controller-manager`, ca, 'GET')).status, 401, 'not without credentials');
      assert.equal((await call(`${base}/dashboard/v1/links`, ca, 'POST')).status, 401, 'links need credentials');

      // `setpoint dashboard` asks the running server for a new link, as the data dir's admin.
      const printed = await runSetpoint(['dashboard', '--data-dir', join(home, '.setpoint')], { env: { HOME: home } });
      assert.equal(printed.code, 0, printed.stderr);
      const next = /\/ui\/#\/login\?code=(\S+)/.exec(printed.stdout);
      assert.ok(next, printed.stdout);
      assert.ok(printed.stdout.startsWith(`${base}/ui/#/login?code=`));
      const second = await call(`${base}/dashboard/v1/login`, ca, 'POST', {}, JSON.stringify({ code: decodeURIComponent(next[1]!) }));
      assert.equal(second.status, 200, second.text);
      // Signing out ends the session.
      const token = (JSON.parse(second.text) as { token: string }).token;
      assert.equal((await call(`${base}/api/v1/namespaces`, ca, 'GET', { authorization: `Bearer ${token}` })).status, 200);
      assert.equal((await call(`${base}/dashboard/v1/logout`, ca, 'POST', { authorization: `Bearer ${token}` })).status, 200);
      assert.equal((await call(`${base}/api/v1/namespaces`, ca, 'GET', { authorization: `Bearer ${token}` })).status, 401);
    } finally {
      child.kill('SIGTERM');
      await exited;
      await rm(home, { recursive: true, force: true });
    }
  });

  it('serves the metrics of a controller-manager run on its own (--component-metrics)', { timeout: 60_000 }, async () => {
    assert.throws(() => parseComponentMetrics(['controller-manager']), /NAME=URL/);
    assert.throws(() => parseComponentMetrics(['Bad Name=http://127.0.0.1:1/metrics']), /lower-case NAME/);
    assert.throws(() => parseComponentMetrics(['cm=file:///etc/passwd']), /http\(s\) URL/);
    const metrics = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('workqueue_depth{name="gc"} 7\n'));
    await new Promise<void>((resolve) => metrics.listen(0, '127.0.0.1', resolve));
    const dataDir = await mkdtemp(join(tmpdir(), 'setpoint-dashboard-server-'));
    const target = `http://127.0.0.1:${(metrics.address() as AddressInfo).port}/metrics`;
    const child = spawn(process.execPath, ['--conditions=setpoint-src', '--import', 'tsx', cli, 'server', '--port', '0', '--data-dir', dataDir, '--store', 'memory', '--component-metrics', `controller-manager=${target}`, 'gone=http://127.0.0.1:1/metrics'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      const base = await new Promise<string>((resolve, reject) => {
        let output = '';
        const timer = setTimeout(() => reject(new Error(`server did not start within 30 s:\n${output}`)), 30_000);
        const onData = (chunk: Buffer) => {
          output += chunk.toString();
          const m = /API server at (https:\/\/\S+);/.exec(output);
          if (m) {
            clearTimeout(timer);
            resolve(m[1]!);
          }
        };
        child.stdout!.on('data', onData);
        child.stderr!.on('data', onData);
        void exited.then((code) => reject(new Error(`server exited with ${code}:\n${output}`)));
      });
      const ca = await readFile(join(dataDir, 'ca.crt'), 'utf8');
      const auth = { authorization: `Bearer ${(await readFile(join(dataDir, 'admin.token'), 'utf8')).trim()}` };
      const res = await call(`${base}/metrics/components/controller-manager`, ca, 'GET', auth);
      assert.equal(res.status, 200, res.text);
      assert.equal(res.text, 'workqueue_depth{name="gc"} 7\n');
      const gone = await call(`${base}/metrics/components/gone`, ca, 'GET', auth);
      assert.equal(gone.status, 503, 'a component that does not answer is a 503 saying why');
    } finally {
      child.kill('SIGTERM');
      await exited;
      metrics.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
