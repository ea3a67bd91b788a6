import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { startControlPlane } from '@setpoint/testing';
import { Client } from './client.js';

describe('Client across an API server restart', () => {
  it('sends a write that meets a keep-alive connection the old server closed again, once', async () => {
    await using cp = await startControlPlane();
    const client = new Client(cp.config);
    try {
      await client.configMaps().create({ metadata: { name: 'before', namespace: 'default' } });
      await cp.restart();
      const after = await client.configMaps().create({ metadata: { name: 'after', namespace: 'default' } });
      assert.equal(after.metadata.name, 'after');
      const names = (await client.configMaps().list({ namespace: 'default' })).items.map((c) => c.metadata.name).sort();
      assert.deepEqual(names, ['after', 'before'], 'created exactly once');
    } finally {
      client.close();
    }
  });
});
