/**
 * The client verbs as a process (`setpoint …` run through tsx, as bin/setpoint.js runs an unbuilt
 * checkout): exit codes, one-line errors on stderr, the kubeconfig `setpoint up` writes found
 * without flags (HOME/.setpoint/kubeconfig.yaml), usage errors from the flag parser; and a
 * snapshot taken by another process from a running `setpoint server`, which keeps serving.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { copyFile, mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { silentLogger, type ConfigMap } from '@setpoint/api';
import { Client, loadKubeconfig } from '@setpoint/client';
import { startServer } from '../src/commands/server.js';
import { runSetpoint, startCliFixture, type CliFixture } from './cli-support.js';

const cli = join(dirname(fileURLToPath(import.meta.url)), '../src/cli-main.ts');

/** Runs the CLI in a child process (never blocking this one, which serves the API). */
function setpoint(args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--conditions=setpoint-src', '--import', 'tsx', cli, ...args], { env: { ...process.env, KUBECONFIG: '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`setpoint ${args.join(' ')} did not finish within 30 s:\n${stdout}\n${stderr}`));
    }, 30_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

describe('setpoint client verbs as a process', () => {
  let f: CliFixture;
  let home: string;
  before(async () => {
    f = await startCliFixture();
    home = join(f.dir, 'home');
    await mkdir(join(home, '.setpoint'), { recursive: true });
    await copyFile(f.kubeconfig, join(home, '.setpoint', 'kubeconfig.yaml'));
    await f.cp.client.configMaps().create({ metadata: { name: 'hello', namespace: 'default' }, data: { a: '1' } } as ConfigMap);
  });
  after(async () => {
    await f[Symbol.asyncDispose]();
  });

  it('finds the kubeconfig of setpoint up, prints, and exits 0; fails in one line with exit 1', { timeout: 90_000 }, async () => {
    const [ok, missing, usage] = await Promise.all([
      setpoint(['get', 'configmaps', '-o', 'name'], { HOME: home }),
      setpoint(['get', 'configmap', 'nope'], { HOME: home }),
      setpoint(['get', 'pods', '--bogus'], { HOME: home }),
    ]);
    assert.deepEqual(ok, { code: 0, stdout: 'configmap/hello\n', stderr: '' });
    assert.deepEqual(missing, { code: 1, stdout: '', stderr: 'error: configmaps "nope" not found\n' });
    assert.equal(usage.code, 1);
    assert.match(usage.stderr, /^error: unknown option '--bogus'\n/);
  });

  it('saves a snapshot from another process while setpoint server runs, which keeps serving', { timeout: 90_000 }, async () => {
    const data = join(f.dir, 'server-data');
    const server = spawn(process.execPath, ['--conditions=setpoint-src', '--import', 'tsx', cli, 'server', '--data-dir', data, '--port', '0', '--log-level', 'warn'], { stdio: ['ignore', 'pipe', 'pipe'] });
    const exited = new Promise<number | null>((resolve) => server.on('exit', (code) => resolve(code)));
    try {
      await new Promise<void>((resolve, reject) => {
        let output = '';
        const timer = setTimeout(() => reject(new Error(`server did not start:\n${output}`)), 30_000);
        const onData = (c: Buffer) => {
          output += c.toString();
          if (output.includes('API server at')) {
            clearTimeout(timer);
            resolve();
          }
        };
        server.stdout.on('data', onData);
        server.stderr.on('data', onData);
      });
      const client = new Client(await loadKubeconfig({ path: join(data, 'kubeconfig.yaml') }), { qps: Infinity });
      try {
        for (let i = 0; i < 20; i++) await client.configMaps().create({ metadata: { name: `before-${i}`, namespace: 'default' } } as ConfigMap);
        const file = join(f.dir, 'running.db');
        const saved = await setpoint(['snapshot', 'save', file, '--data-dir', data], { HOME: home });
        assert.equal(saved.code, 0, saved.stderr);
        assert.match(saved.stdout, /taken from the running server\)\n$/);
        await client.configMaps().create({ metadata: { name: 'after', namespace: 'default' } } as ConfigMap);
        assert.equal((await client.configMaps().listAll({ namespace: 'default' })).items.length, 21, 'the server kept serving and writing');

        const restoredDir = join(f.dir, 'restored-from-running');
        assert.equal((await runSetpoint(['snapshot', 'restore', file, '--data-dir', restoredDir])).code, 0);
        const restored = await startServer({ dataDir: restoredDir, port: '0', host: '127.0.0.1', store: 'sqlite', insecureHttp: true, compactionInterval: '5m', logLevel: 'silent' }, silentLogger);
        const reader = new Client(restored.connection, { qps: Infinity });
        try {
          const names = (await reader.configMaps().listAll({ namespace: 'default' })).items.map((c) => c.metadata.name);
          assert.deepEqual(names.sort(), Array.from({ length: 20 }, (_, i) => `before-${i}`).sort());
        } finally {
          reader.close();
          await restored.stop();
        }
      } finally {
        client.close();
      }
    } finally {
      server.kill('SIGTERM');
      assert.equal(await exited, 0);
    }
  });
});
