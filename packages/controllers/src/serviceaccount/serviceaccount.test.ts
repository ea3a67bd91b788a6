/**
 * The ServiceAccount controller against a real API server: a "default" account in every active
 * namespace, recreated when deleted, never made in a terminating namespace.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { isApiError, type ServiceAccount } from '@setpoint/api';
import { Manager } from '@setpoint/client';
import { startControlPlane, type ControlPlane } from '@setpoint/testing';
import { DEFAULT_SERVICE_ACCOUNT, registerServiceAccountController } from './index.js';

async function eventually(what: string, check: () => Promise<boolean> | boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('ServiceAccount controller', () => {
  let cp: ControlPlane;
  const stop = new AbortController();
  let running: Promise<void> = Promise.resolve();

  before(async () => {
    cp = await startControlPlane();
    const manager = new Manager({ client: cp.client, gracefulShutdownMs: 2_000 });
    registerServiceAccountController(manager);
    running = manager.start(stop.signal);
  });

  after(async () => {
    stop.abort();
    await running;
    await cp.stop();
  });

  const account = (namespace: string): Promise<ServiceAccount | undefined> =>
    cp.client
      .serviceAccounts()
      .get(DEFAULT_SERVICE_ACCOUNT, { namespace })
      .catch((err: unknown) => (isApiError(err, 'NotFound') ? undefined : Promise.reject(err)));

  it('gives every namespace a default ServiceAccount, new namespaces too', async () => {
    for (const ns of ['default', 'kube-system', 'kube-public', 'kube-node-lease']) {
      await eventually(`the default ServiceAccount of ${ns}`, async () => (await account(ns)) !== undefined);
    }
    await cp.client.namespaces().create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-a' } });
    await eventually('the default ServiceAccount of team-a', async () => (await account('team-a')) !== undefined);
  });

  it('makes it again when it is deleted, with a new uid', async () => {
    await eventually('the account', async () => (await account('default')) !== undefined);
    const before = await account('default');
    await cp.client.serviceAccounts().delete(DEFAULT_SERVICE_ACCOUNT, { namespace: 'default' });
    await eventually('a new default ServiceAccount', async () => {
      const now = await account('default');
      return now !== undefined && now.metadata.uid !== before?.metadata.uid;
    });
  });

  it('leaves a terminating namespace alone', async () => {
    await cp.client.namespaces().create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'going' } });
    await eventually('the account of going', async () => (await account('going')) !== undefined);
    // No namespace controller runs here: the namespace stays Terminating (its `kubernetes` finalizer).
    await cp.client.namespaces().delete('going');
    await eventually('going to be terminating', async () => (await cp.client.namespaces().get('going')).metadata.deletionTimestamp !== undefined);
    await cp.client.serviceAccounts().delete(DEFAULT_SERVICE_ACCOUNT, { namespace: 'going' });
    // A namespace event after the deletion proves the controller looked at it since.
    await cp.client.namespaces().create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'after-going' } });
    await eventually('the account of after-going', async () => (await account('after-going')) !== undefined);
    const going = await cp.client.namespaces().get('going');
    await cp.client.namespaces().update({ ...going, metadata: { ...going.metadata, labels: { touched: 'yes' } } });
    await cp.client.namespaces().create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'after-touch' } });
    await eventually('the account of after-touch', async () => (await account('after-touch')) !== undefined);
    assert.equal(await account('going'), undefined);
  });
});
