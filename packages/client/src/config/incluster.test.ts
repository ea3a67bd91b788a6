import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ConfigError } from './errors.js';
import { inClusterConfig } from './incluster.js';

const CA = '-----BEGIN CERTIFICATE-----\nQ0E=\n-----END CERTIFICATE-----\n';

describe('inClusterConfig', () => {
  let dir: string;
  let paths: { tokenPath: string; caPath: string; namespacePath: string };
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'setpoint-incluster-'));
    paths = { tokenPath: join(dir, 'token'), caPath: join(dir, 'ca.crt'), namespacePath: join(dir, 'namespace') };
    await writeFile(paths.tokenPath, 'sa-token\n');
    await writeFile(paths.caPath, CA);
    await writeFile(paths.namespacePath, 'team-a\n');
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('builds the config from the service account and the service environment', async () => {
    const config = await inClusterConfig({ ...paths, env: { KUBERNETES_SERVICE_HOST: '10.96.0.1', KUBERNETES_SERVICE_PORT: '443' } });
    assert.deepEqual(config, { server: 'https://10.96.0.1:443', ca: CA, token: 'sa-token', tokenFile: paths.tokenPath, namespace: 'team-a' });
  });

  it('brackets an IPv6 host and leaves the namespace out when its file is absent', async () => {
    const config = await inClusterConfig({ ...paths, namespacePath: join(dir, 'none'), env: { KUBERNETES_SERVICE_HOST: 'fd00::1', KUBERNETES_SERVICE_PORT: '6443' } });
    assert.equal(config.server, 'https://[fd00::1]:6443');
    assert.equal(config.namespace, undefined);
  });

  it('reads the directory SETPOINT_SERVICE_ACCOUNT_DIR names (pods of Setpoint\'s process agent)', async () => {
    const env = { KUBERNETES_SERVICE_HOST: '127.0.0.1', KUBERNETES_SERVICE_PORT: '6443', SETPOINT_SERVICE_ACCOUNT_DIR: dir };
    const config = await inClusterConfig({ env });
    assert.deepEqual(config, { server: 'https://127.0.0.1:6443', ca: CA, token: 'sa-token', tokenFile: paths.tokenPath, namespace: 'team-a' });
    await assert.rejects(inClusterConfig({ env: { ...env, SETPOINT_SERVICE_ACCOUNT_DIR: join(dir, 'nowhere') } }), /nowhere\/token: the service account token is missing/);
  });

  it('throws ConfigError outside a pod or without the service account files', async () => {
    await assert.rejects(inClusterConfig({ ...paths, env: {} }), (err: unknown) => err instanceof ConfigError && /KUBERNETES_SERVICE_HOST/.test(err.message));
    const env = { KUBERNETES_SERVICE_HOST: 'h', KUBERNETES_SERVICE_PORT: '1' };
    await assert.rejects(inClusterConfig({ ...paths, tokenPath: join(dir, 'missing'), env }), /missing: the service account token is missing/);
    await assert.rejects(inClusterConfig({ ...paths, caPath: join(dir, 'missing'), env }), /missing: the service account CA is missing/);
  });
});
