import assert from 'node:assert/strict';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ApiError, FakeClock, type Pod, type ServiceAccount } from '@setpoint/api';
import type { Client, DeepReadonly } from '@setpoint/client';
import { eventually, tempDir } from '../testing/helpers.js';
import { ContainerConfigError } from './env.js';
import { PodIdentities } from './serviceaccount.js';

const CA = '-----BEGIN CERTIFICATE-----\nQ0E=\n-----END CERTIFICATE-----\n';

interface TokenCall {
  readonly namespace: string;
  readonly serviceAccount: string;
  readonly body: { spec: { expirationSeconds: number; boundObjectRef: { kind: string; name: string; uid: string } } };
}

/** A client whose ServiceAccounts live in `accounts` and whose TokenRequests are recorded (and can be made to fail). */
function fakeClient(clock: FakeClock, accounts: Record<string, ServiceAccount>) {
  const tokenCalls: TokenCall[] = [];
  const gets: string[] = [];
  const state = { failNext: 0 };
  const client = {
    serviceAccounts: () => ({
      get: async (name: string, o: { namespace: string }) => {
        gets.push(`${o.namespace}/${name}`);
        const sa = accounts[`${o.namespace}/${name}`];
        if (sa === undefined) throw ApiError.notFound({ group: '', resource: 'serviceaccounts' }, name);
        return sa;
      },
      createSubresource: async (name: string, subresource: string, body: TokenCall['body'], o: { namespace: string }) => {
        assert.equal(subresource, 'token');
        if (state.failNext > 0) {
          state.failNext--;
          throw new Error('the API server is away');
        }
        tokenCalls.push({ namespace: o.namespace, serviceAccount: name, body });
        const expires = clock.now() + body.spec.expirationSeconds * 1000;
        return { status: { token: `token-${tokenCalls.length}`, expirationTimestamp: new Date(expires).toISOString() } };
      },
    }),
  } as unknown as Pick<Client, 'serviceAccounts'>;
  return { client, tokenCalls, gets, state };
}

const pod = (spec: { serviceAccountName?: string; automountServiceAccountToken?: boolean } = {}, uid = 'uid-1'): DeepReadonly<Pod> => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'web', namespace: 'team', uid },
  spec: { containers: [{ name: 'c' }], ...spec },
});

const robot: ServiceAccount = { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'robot', namespace: 'team' } };
const defaultSa: ServiceAccount = { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default', namespace: 'team' } };

describe('PodIdentities', () => {
  it('writes a token bound to the pod, the CA and the namespace, and names them in the environment', async () => {
    await using dir = await tempDir();
    const clock = new FakeClock();
    const { client, tokenCalls } = fakeClient(clock, { 'team/robot': robot });
    const identities = new PodIdentities({ client, server: 'https://127.0.0.1:6443', ca: CA, clock });
    const [env, again] = await Promise.all([identities.mount(pod({ serviceAccountName: 'robot' }), dir.path), identities.mount(pod({ serviceAccountName: 'robot' }), dir.path)]);
    const mounted = join(dir.path, 'serviceaccount');
    assert.deepEqual(env, { KUBERNETES_SERVICE_HOST: '127.0.0.1', KUBERNETES_SERVICE_PORT: '6443', SETPOINT_SERVICE_ACCOUNT_DIR: mounted });
    assert.deepEqual(again, env);
    assert.equal(tokenCalls.length, 1, 'concurrent mounts share one request');
    assert.deepEqual(tokenCalls[0], {
      namespace: 'team',
      serviceAccount: 'robot',
      body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 3600, boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'web', uid: 'uid-1' } } },
    });
    assert.equal(await readFile(join(mounted, 'token'), 'utf8'), 'token-1');
    assert.equal(await readFile(join(mounted, 'ca.crt'), 'utf8'), CA);
    assert.equal(await readFile(join(mounted, 'namespace'), 'utf8'), 'team');
    assert.equal((await stat(join(mounted, 'token'))).mode & 0o777, 0o600);
    assert.ok(identities.has('uid-1'));
    await identities.mount(pod({ serviceAccountName: 'robot' }), dir.path);
    assert.equal(tokenCalls.length, 1, 'a mounted identity answers at once');
    identities.close();
  });

  it('refreshes the token at 80% of its lifetime, retries a failed refresh, and stops when forgotten', async () => {
    await using dir = await tempDir();
    const clock = new FakeClock();
    const { client, tokenCalls, state } = fakeClient(clock, { 'team/default': defaultSa });
    const identities = new PodIdentities({ client, server: 'https://[::1]:6443', ca: CA, clock, expirationSeconds: 1000 });
    const env = await identities.mount(pod(), dir.path);
    assert.equal(env['KUBERNETES_SERVICE_HOST'], '::1');
    const tokenFile = join(dir.path, 'serviceaccount', 'token');
    await clock.advance(799_000);
    assert.equal(tokenCalls.length, 1, 'not before 80%');
    await clock.advance(1_000);
    await eventually('the refreshed token', async () => (await readFile(tokenFile, 'utf8')) === 'token-2');
    state.failNext = 1;
    await clock.advance(800_000);
    await eventually('the failed refresh to be scheduled again', () => clock.pending() > 0 && state.failNext === 0);
    assert.equal(tokenCalls.length, 2);
    await clock.advance(10_000);
    await eventually('the retried refresh', async () => (await readFile(tokenFile, 'utf8')) === 'token-3');
    identities.forget('uid-1');
    assert.equal(identities.has('uid-1'), false);
    await clock.advance(10_000_000);
    assert.equal(tokenCalls.length, 3, 'no refresh after forget');
  });

  it("mounts nothing when the pod or its ServiceAccount says not to, but still names the API server", async () => {
    await using dir = await tempDir();
    const clock = new FakeClock();
    const noMount: ServiceAccount = { ...robot, automountServiceAccountToken: false };
    const { client, tokenCalls, gets } = fakeClient(clock, { 'team/robot': noMount, 'team/default': defaultSa });
    const identities = new PodIdentities({ client, server: 'https://localhost', ca: CA, clock });
    assert.deepEqual(await identities.mount(pod({ automountServiceAccountToken: false }), dir.path), { KUBERNETES_SERVICE_HOST: 'localhost', KUBERNETES_SERVICE_PORT: '443' });
    assert.deepEqual(gets, [], 'the pod decides: the account is not read');
    assert.deepEqual(await identities.mount(pod({ serviceAccountName: 'robot' }, 'uid-2'), dir.path), { KUBERNETES_SERVICE_HOST: 'localhost', KUBERNETES_SERVICE_PORT: '443' });
    await identities.mount(pod({ serviceAccountName: 'robot' }, 'uid-2'), dir.path);
    assert.deepEqual(gets, ['team/robot'], 'the account decided once');
    assert.ok(identities.has('uid-2'));
    const env = await identities.mount(pod({ serviceAccountName: 'robot', automountServiceAccountToken: true }, 'uid-3'), dir.path);
    assert.ok(env['SETPOINT_SERVICE_ACCOUNT_DIR'] !== undefined, "the pod's true overrides the account's false");
    assert.equal(tokenCalls.length, 1);
    identities.close();
  });

  it('fails the container with a config error when the ServiceAccount is missing, and succeeds once it exists', async () => {
    await using dir = await tempDir();
    const clock = new FakeClock();
    const accounts: Record<string, ServiceAccount> = {};
    const { client } = fakeClient(clock, accounts);
    const identities = new PodIdentities({ client, server: 'https://127.0.0.1:6443', ca: CA, clock });
    await assert.rejects(identities.mount(pod(), dir.path), (err: unknown) => err instanceof ContainerConfigError && err.message === 'failed to fetch token: serviceaccounts "default" not found');
    assert.equal(identities.has('uid-1'), false);
    accounts['team/default'] = defaultSa;
    assert.ok((await identities.mount(pod(), dir.path))['SETPOINT_SERVICE_ACCOUNT_DIR']);
    identities.close();
  });

  it('refuses a server that is not https', () => {
    const { client } = fakeClient(new FakeClock(), {});
    assert.throws(() => new PodIdentities({ client, server: 'http://127.0.0.1:8080', ca: CA }), TypeError);
  });
});
