import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock } from '@setpoint/api';
import type { ResourceRef } from '../types.js';
import { SharedInformerFactory, type InformerSelectors } from './factory.js';
import { cm, FakeListWatch } from './fake-listwatch.test.js';

const configmaps: ResourceRef = { group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap', namespaced: true };
const nodes: ResourceRef = { group: '', version: 'v1', resource: 'nodes', kind: 'Node', namespaced: false };

function factory(options: { namespace?: string } = {}) {
  const made: Array<{ ref: ResourceRef; selectors: InformerSelectors; lw: FakeListWatch }> = [];
  const f = new SharedInformerFactory(
    (ref, selectors) => {
      const lw = new FakeListWatch();
      lw.objects = [cm(`${ref.resource}-1`, 1)];
      made.push({ ref, selectors, lw });
      return lw;
    },
    { clock: new FakeClock(), ...options },
  );
  return { f, made };
}

test('one informer per resource, namespace and selectors', () => {
  const { f, made } = factory({ namespace: 'team' });
  const a = f.forResource(configmaps);
  assert.equal(f.forResource(configmaps), a);
  assert.equal(f.forResource(configmaps, { namespace: 'team' }), a, 'the factory namespace is the default');
  assert.notEqual(f.forResource(configmaps, { namespace: 'other' }), a);
  assert.notEqual(f.forResource(configmaps, { labelSelector: 'app=x' }), a);
  assert.notEqual(f.forResource(configmaps, { fieldSelector: 'metadata.name=x' }), a);
  assert.equal(f.forResource(nodes, { namespace: 'ignored' }), f.forResource(nodes), 'cluster-scoped kinds have no namespace');
  assert.equal(made.length, 5);
  assert.deepEqual(made[0]!.selectors, { namespace: 'team', labelSelector: '', fieldSelector: '' });
  assert.equal(made.at(-1)!.selectors.namespace, '');
  assert.equal(f.informers().length, 5);
});

test('start runs every informer, and ones asked for later; waitForCacheSync waits for all of them', async () => {
  const { f, made } = factory();
  const cms = f.forResource(configmaps);
  const abort = new AbortController();
  f.start(abort.signal);
  const later = f.forResource(nodes);
  assert.equal(await f.waitForCacheSync(abort.signal), true);
  assert.equal(cms.hasSynced() && later.hasSynced(), true);
  assert.deepEqual(later.store.listKeys(), ['default/nodes-1']);
  f.start(abort.signal); // a second start does not start anything twice
  await made[0]!.lw.watchNumber(0);
  assert.equal(made[0]!.lw.lists.length, 1);
  abort.abort();
  await f.stopped();
  assert.equal(cms.isRunning() || later.isRunning(), false);
});
