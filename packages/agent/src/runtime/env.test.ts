import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ConfigMap, Pod, Secret } from '@setpoint/api';
import type { DeepReadonly } from '@setpoint/client';
import { ContainerConfigError, containerArgv, containerEnv, expand, type ConfigSource } from './env.js';

const pod = { metadata: { name: 'web-0', namespace: 'shop', uid: 'u-1', labels: { app: 'web' } }, spec: { nodeName: 'n1', containers: [] } } satisfies Pod as unknown as DeepReadonly<Pod>;
const source = (configMaps: Record<string, ConfigMap>, secrets: Record<string, Secret> = {}): ConfigSource => ({
  configMap: async (ns, name) => configMaps[`${ns}/${name}`],
  secret: async (ns, name) => secrets[`${ns}/${name}`],
});
const ips = { podIP: '127.0.0.1', hostIP: '10.0.0.1' };

describe('container environment', () => {
  it('expands $(VAR) from earlier variables; $$ is a literal $; unknown references stay', () => {
    assert.equal(expand('$(A)-$(B)-$$(A)-$(NOPE)', { A: 'x', B: 'y' }), 'x-y-$(A)-$(NOPE)');
  });

  it('reads ConfigMap and Secret keys, the downward API, envFrom with a prefix, in the kubelet order', async () => {
    const cm: ConfigMap = { metadata: { name: 'cfg' }, data: { greeting: 'hello', level: 'debug' } };
    const secret: Secret = { metadata: { name: 'creds' }, data: { token: Buffer.from('s3cret').toString('base64') } };
    const env = await containerEnv(
      {
        name: 'main',
        envFrom: [{ prefix: 'CFG_', configMapRef: { name: 'cfg' } }],
        env: [
          { name: 'GREETING', valueFrom: { configMapKeyRef: { name: 'cfg', key: 'greeting' } } },
          { name: 'TOKEN', valueFrom: { secretKeyRef: { name: 'creds', key: 'token' } } },
          { name: 'MISSING', valueFrom: { configMapKeyRef: { name: 'nope', key: 'x', optional: true } } },
          { name: 'POD', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
          { name: 'NS', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } },
          { name: 'UID', valueFrom: { fieldRef: { fieldPath: 'metadata.uid' } } },
          { name: 'NODE', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } },
          { name: 'IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } },
          { name: 'APP', valueFrom: { fieldRef: { fieldPath: "metadata.labels['app']" } } },
          { name: 'URL', value: 'http://$(IP):80/$(POD)' },
        ],
      },
      pod,
      source({ 'shop/cfg': cm }, { 'shop/creds': secret }),
      ips,
    );
    assert.deepEqual(env, {
      CFG_greeting: 'hello',
      CFG_level: 'debug',
      GREETING: 'hello',
      TOKEN: 's3cret',
      POD: 'web-0',
      NS: 'shop',
      UID: 'u-1',
      NODE: 'n1',
      IP: '127.0.0.1',
      APP: 'web',
      URL: 'http://127.0.0.1:80/web-0',
    });
    assert.deepEqual(containerArgv({ name: 'main', command: ['echo', '$(POD)'], args: ['$(NS)', '$$(POD)'] }, env), ['echo', 'web-0', 'shop', '$(POD)']);
  });

  it('refuses a missing ConfigMap, a missing key and sources it does not support, with the kubelet messages', async () => {
    const cm: ConfigMap = { metadata: { name: 'cfg' }, data: {} };
    const src = source({ 'shop/cfg': cm });
    await assert.rejects(containerEnv({ name: 'm', env: [{ name: 'X', valueFrom: { configMapKeyRef: { name: 'other', key: 'k' } } }] }, pod, src, ips), (err: unknown) => {
      assert.ok(err instanceof ContainerConfigError);
      assert.equal(err.message, 'configmap "other" not found');
      return true;
    });
    await assert.rejects(containerEnv({ name: 'm', env: [{ name: 'X', valueFrom: { configMapKeyRef: { name: 'cfg', key: 'k' } } }] }, pod, src, ips), /couldn't find key k in ConfigMap shop\/cfg/);
    await assert.rejects(containerEnv({ name: 'm', env: [{ name: 'X', valueFrom: { resourceFieldRef: { resource: 'limits.cpu' } } }] }, pod, src, ips), ContainerConfigError);
  });
});
