/**
 * The greeter example against a real API server: the CRD from crd.yaml is served, a Greeter gets
 * its Deployment, a change of message or replicas reaches the Deployment, drift in the Deployment
 * is put back, the Greeter's status follows the Deployment's (played here by the test, as no
 * Deployment controller runs), and `scale` works through the CRD's scale subresource.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { describe, it } from 'node:test';
import type { Deployment, KubeObject } from '@setpoint/api';
import { Client, Manager } from '@setpoint/client';
import { startControlPlane } from '@setpoint/testing';
import { parse } from 'yaml';
import { addGreeterController, desiredDeployment, greeters, observedStatus, type Greeter } from './controller.js';

async function eventually<T>(what: string, check: () => Promise<T | undefined | false>, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

const manifest = async (file: string) => parse(await readFile(new URL(file, import.meta.url), 'utf8')) as KubeObject;

describe('greeter example', () => {
  it('desiredDeployment and observedStatus are plain functions', () => {
    const g: Greeter = { metadata: { name: 'hi', namespace: 'default', uid: 'u1', generation: 2 }, spec: { message: 'hey', replicas: 3 } };
    const d = desiredDeployment(g);
    assert.equal(d.metadata.name, 'greeter-hi');
    assert.equal(d.spec?.replicas, 3);
    assert.deepEqual(d.metadata.ownerReferences?.[0]?.uid, 'u1');
    const creating = observedStatus(g, undefined, '2026-11-29T00:00:00Z');
    assert.deepEqual([creating.readyReplicas, creating.conditions?.[0]?.reason], [0, 'Creating']);
    const ready = observedStatus(g, { ...d, status: { replicas: 3, readyReplicas: 3 } }, '2026-11-29T00:00:01Z');
    assert.deepEqual([ready.readyReplicas, ready.conditions?.[0]?.status, ready.conditions?.[0]?.reason, ready.observedGeneration], [3, 'True', 'AllReplicasReady', 2]);
  });

  it('keeps a Deployment per Greeter and reports what it observes', async () => {
    await using cp = await startControlPlane();
    const client = new Client(cp.config);
    const crds = client.resource({ group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions', kind: 'CustomResourceDefinition', namespaced: false });
    await crds.create(await manifest('crd.yaml'));
    const api = client.resource<Greeter>(greeters);
    await eventually('the Greeter kind to be served', () => api.list({ namespace: 'default' }).then(() => true, () => false));

    const manager = new Manager({ client });
    addGreeterController(manager, client);
    const stop = new AbortController();
    const running = manager.start(stop.signal);
    const deployments = client.deployments();
    const getDeployment = () => deployments.get('greeter-hello', { namespace: 'default' }).catch(() => undefined);
    try {
      await api.create({ ...(await manifest('greeter.yaml')), metadata: { name: 'hello', namespace: 'default' } } as Greeter);
      let d = await eventually('the Deployment', getDeployment);
      assert.equal(d.spec?.replicas, 2);
      assert.deepEqual(d.spec?.template?.spec?.containers?.[0]?.env, [{ name: 'MESSAGE', value: 'Hello from Setpoint' }]);
      await eventually('status Creating/Progressing', async () => (await api.get('hello')).status?.conditions?.[0]?.status === 'False');

      // The Deployment becomes ready (what the Deployment controller and the agent would report).
      await deployments.updateStatus({ ...d, status: { replicas: 2, readyReplicas: 2, observedGeneration: d.metadata.generation } } as Deployment);
      const ready = await eventually('the Greeter Ready', async () => {
        const g = await api.get('hello');
        return g.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True' ? g : undefined;
      });
      assert.deepEqual([ready.status?.replicas, ready.status?.readyReplicas, ready.status?.selector], [2, 2, 'greeter.example.setpoint.dev/name=hello']);

      // A new message and replica count reach the Deployment; drift is put back.
      await api.update({ ...ready, spec: { message: 'Bonjour', replicas: 3 } });
      d = await eventually('the Deployment to follow', async () => {
        const now = await getDeployment();
        return now?.spec?.replicas === 3 && now.spec.template?.spec?.containers?.[0]?.env?.[0]?.value === 'Bonjour' ? now : undefined;
      });
      await deployments.update({ ...d, spec: { ...d.spec!, replicas: 7 } });
      await eventually('the drift to be undone', async () => (await getDeployment())?.spec?.replicas === 3);

      // kubectl scale goes through the CRD's scale subresource.
      await api.patch('hello', { spec: { replicas: 1 } }, { type: 'merge', subresource: 'scale' });
      await eventually('scale to reach the Deployment', async () => (await getDeployment())?.spec?.replicas === 1);
    } finally {
      stop.abort();
      await running;
      client.close();
    }
  });
});
