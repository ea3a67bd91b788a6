import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';
import { startControlPlane } from './controlplane.js';

describe('startControlPlane', () => {
  it('starts an API server with a client and a kubeconfig kubectl can use', async () => {
    await using cp = await startControlPlane();
    await cp.client.configMaps().create({ metadata: { name: 'hello', namespace: 'default' }, data: { a: '1' } });
    const { stdout } = await promisify(execFile)('kubectl', ['--kubeconfig', await cp.kubeconfig(), 'get', 'configmap', 'hello', '-o', 'jsonpath={.data.a}'], { timeout: 20_000 });
    assert.equal(stdout, '1');
  });
});
