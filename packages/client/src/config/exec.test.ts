import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { FakeClock } from '@setpoint/api';
import { ConfigError } from './errors.js';
import { ExecCredentialProvider } from './exec.js';
import { runs, writePlugin } from './exec-plugin.test-support.js';

describe('ExecCredentialProvider', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'setpoint-exec-'));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('runs the plugin with KUBERNETES_EXEC_INFO and caches the credential without expiry', async () => {
    const exec = await writePlugin(dir);
    const provider = new ExecCredentialProvider(exec);
    const [a, b] = await Promise.all([provider.get(), provider.get()]);
    assert.deepEqual(a, { token: 'token-1' });
    assert.equal(b, a, 'concurrent callers share one run');
    assert.equal((await provider.get()).token, 'token-1');
    assert.equal(await runs(exec.runsFile), 1);
    const info = JSON.parse(await readFile(exec.infoFile, 'utf8'));
    assert.deepEqual(info, { apiVersion: 'client.authentication.k8s.io/v1', kind: 'ExecCredential', spec: { interactive: false } });
  });

  it('passes cluster info when provideClusterInfo is set (v1beta1 too)', async () => {
    const exec = await writePlugin(dir, {}, 'client.authentication.k8s.io/v1beta1');
    const provider = new ExecCredentialProvider({ ...exec, provideClusterInfo: true }, { cluster: { server: 'https://k:6443', ca: 'PEM', tlsServerName: 'kube' } });
    assert.equal((await provider.get()).token, 'token-1');
    const info = JSON.parse(await readFile(exec.infoFile, 'utf8'));
    assert.equal(info.apiVersion, 'client.authentication.k8s.io/v1beta1');
    assert.deepEqual(info.spec.cluster, { server: 'https://k:6443', 'certificate-authority-data': Buffer.from('PEM').toString('base64'), 'tls-server-name': 'kube' });
  });

  it('re-runs the plugin when the credential expires (on the injected clock) and after invalidate', async () => {
    const clock = new FakeClock(Date.parse('2026-03-01T00:00:00Z'));
    const exec = await writePlugin(dir, { EXPIRES: '2026-03-01T00:10:00Z' });
    const provider = new ExecCredentialProvider(exec, { clock });
    const first = await provider.get();
    assert.deepEqual(first, { token: 'token-1', expiresAt: Date.parse('2026-03-01T00:10:00Z') });
    await clock.advance(9 * 60_000);
    assert.equal((await provider.get()).token, 'token-1');
    await clock.advance(60_000);
    assert.equal((await provider.get()).token, 'token-2');
    assert.equal(await runs(exec.runsFile), 2);
  });

  it('re-runs the plugin after invalidate (a 401), unless another caller already refreshed', async () => {
    const exec = await writePlugin(dir);
    const provider = new ExecCredentialProvider(exec);
    const first = await provider.get();
    provider.invalidate(first);
    const second = await provider.get();
    assert.equal(second.token, 'token-2');
    provider.invalidate(first);
    assert.equal((await provider.get()).token, 'token-2', 'a stale invalidate leaves the fresh credential');
    provider.invalidate(second);
    assert.equal((await provider.get()).token, 'token-3');
  });

  it('returns a client certificate and key', async () => {
    const exec = await writePlugin(dir, { MODE: 'cert' });
    assert.deepEqual(await new ExecCredentialProvider(exec).get(), { cert: 'CERT', key: 'KEY' });
  });

  it('throws ConfigError naming the command for failures', async () => {
    const check = async (mode: string, pattern: RegExp) => {
      const exec = await writePlugin(dir, { MODE: mode });
      await assert.rejects(new ExecCredentialProvider(exec).get(), (err: unknown) => {
        assert.ok(err instanceof ConfigError);
        assert.ok(err.message.startsWith(process.execPath));
        assert.doesNotMatch(err.message, /\n/);
        assert.match(err.message, pattern);
        return true;
      });
    };
    await check('fail', /exited with code 3: could not reach the identity provider$/);
    await check('garbage', /did not print JSON/);
    await check('wrong-version', /printed apiVersion client.authentication.k8s.io\/v1alpha1, configured for client.authentication.k8s.io\/v1/);
    await assert.rejects(new ExecCredentialProvider({ command: join(dir, 'no-such-plugin'), apiVersion: 'client.authentication.k8s.io/v1' }).get(), /cannot run: spawn .*ENOENT/);
    const exec = await writePlugin(dir);
    await assert.rejects(new ExecCredentialProvider({ ...exec, interactiveMode: 'Always' }).get(), /interactiveMode Always/);
    const hanging = await writePlugin(dir, { MODE: 'hang' });
    // The plugin's deadline runs on the provider's clock.
    const clock = new FakeClock();
    const getting = new ExecCredentialProvider(hanging, { timeoutMs: 60_000, clock }).get();
    let settled = false;
    getting.then(
      () => (settled = true),
      () => (settled = true),
    );
    await clock.advance(59_999);
    assert.equal(settled, false, 'not killed before timeoutMs');
    await clock.advance(1);
    await assert.rejects(getting, /exec credential plugin: was killed by SIGKILL/);
  });
});
