import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ConfigMap } from '@setpoint/api';
import { Client, Manager } from '@setpoint/client';
import { startControlPlane } from '@setpoint/testing';
import { FINALIZER, LABEL, addMirrorController } from './controller.js';

async function eventually(what: string, check: () => Promise<boolean>, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('mirror example', () => {
  it('keeps a Secret mirroring each labelled ConfigMap, repairs drift, and cleans up through its finalizer', async () => {
    await using cp = await startControlPlane();
    const client = new Client(cp.config);
    const manager = new Manager({ client });
    addMirrorController(manager, client);
    const stop = new AbortController();
    const running = manager.start(stop.signal);
    const secrets = client.secrets();
    const mirror = () => secrets.get('web-mirror', { namespace: 'default' }).catch(() => undefined);
    const decoded = async () => Buffer.from((await mirror())?.data?.greeting ?? '', 'base64').toString();
    try {
      const cm: ConfigMap = { metadata: { name: 'web', namespace: 'default', labels: { [LABEL]: 'true' } }, data: { greeting: 'hello' } };
      await client.configMaps().create(cm);
      await eventually('the mirror', async () => (await decoded()) === 'hello');
      await eventually('a Mirrored event on the ConfigMap', async () =>
        (await client.events().list({ namespace: 'default', fieldSelector: 'involvedObject.name=web' })).items.some((e) => e.reason === 'Mirrored'),
      );
      const withFinalizer = await client.configMaps().get('web', { namespace: 'default' });
      assert.deepEqual(withFinalizer.metadata.finalizers, [FINALIZER]);

      await client.configMaps().update({ ...withFinalizer, data: { greeting: 'bonjour' } });
      await eventually('the mirror to follow', async () => (await decoded()) === 'bonjour');

      await secrets.delete('web-mirror', { namespace: 'default' });
      await eventually('the mirror to come back', async () => (await decoded()) === 'bonjour');

      await client.configMaps().create({ metadata: { name: 'plain', namespace: 'default' }, data: { a: '1' } });
      await client.configMaps().delete('web', { namespace: 'default' });
      await eventually('the ConfigMap and its mirror to be gone', async () => (await mirror()) === undefined && (await client.configMaps().get('web', { namespace: 'default' }).then(() => false, () => true)));
      assert.equal((await secrets.list({ namespace: 'default' })).items.length, 0, 'an unlabelled ConfigMap gets no mirror');
    } finally {
      stop.abort();
      await running;
      client.close();
    }
  });
});
