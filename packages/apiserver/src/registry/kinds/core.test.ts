import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '@setpoint/api';
import { coordinationResources } from './coordination.js';
import { coreResources } from './core.js';
import { cleanSecretReferences, serviceAccountResource } from './serviceaccount/serviceaccount.js';

describe('coreResources and coordinationResources', () => {
  const expected = [
    { resource: 'namespaces', kind: 'Namespace', singular: 'namespace', namespaced: false, shortNames: ['ns'] },
    { resource: 'configmaps', kind: 'ConfigMap', singular: 'configmap', namespaced: true, shortNames: ['cm'] },
    { resource: 'secrets', kind: 'Secret', singular: 'secret', namespaced: true, shortNames: undefined },
    { resource: 'events', kind: 'Event', singular: 'event', namespaced: true, shortNames: ['ev'] },
    { resource: 'serviceaccounts', kind: 'ServiceAccount', singular: 'serviceaccount', namespaced: true, shortNames: ['sa'] },
    { resource: 'nodes', kind: 'Node', singular: 'node', namespaced: false, shortNames: ['no'] },
    { resource: 'podtemplates', kind: 'PodTemplate', singular: 'podtemplate', namespaced: true, shortNames: undefined },
  ];

  it('serves the core kinds besides pods with their names and scope', () => {
    assert.deepEqual(
      coreResources.map((d) => ({ resource: d.resource, kind: d.kind, singular: d.singular, namespaced: d.namespaced, shortNames: d.shortNames })),
      expected,
    );
    for (const d of coreResources) {
      assert.equal(d.group, '');
      assert.equal(d.version, 'v1');
      assert.equal(d.listKind, `${d.kind}List`);
    }
  });

  it('serves leases', () => {
    assert.deepEqual(
      coordinationResources.map((d) => [d.group, d.version, d.resource, d.kind, d.listKind, d.namespaced]),
      [['coordination.k8s.io', 'v1', 'leases', 'Lease', 'LeaseList', true]],
    );
  });

  it('each schema names its own kind in x-kubernetes-group-version-kind', () => {
    for (const d of [...coreResources, ...coordinationResources]) {
      assert.deepEqual(d.schema['x-kubernetes-group-version-kind'], [{ group: d.group, version: d.version, kind: d.kind }], d.resource);
      assert.ok(d.schema.properties?.['metadata'], d.resource);
      assert.ok(d.schema.properties?.['apiVersion'] && d.schema.properties['kind'], d.resource);
    }
  });

  it('only namespaces and nodes have a status subresource', () => {
    assert.deepEqual(
      [...coreResources, ...coordinationResources].filter((d) => d.subresources?.status === true).map((d) => d.resource),
      ['namespaces', 'nodes'],
    );
  });
});

describe('serviceaccounts', () => {
  it('reduces secret references to names', () => {
    const sa: KubeObject = {
      metadata: { name: 'default', namespace: 'default' },
      secrets: [{ name: 'token', namespace: 'default', uid: 'u', kind: 'Secret' }, { kind: 'Secret' }],
    };
    cleanSecretReferences(sa);
    assert.deepEqual(sa['secrets'], [{ name: 'token' }, {}]);
  });

  it('runs on create and update', () => {
    const ctx = { now: '2026-01-01T00:00:00Z', namespace: 'default' };
    const sa: KubeObject = { metadata: { name: 'a', namespace: 'default' }, secrets: [{ name: 's', uid: 'x' }] };
    serviceAccountResource.strategy.prepareForCreate!(sa, ctx);
    assert.deepEqual(sa['secrets'], [{ name: 's' }]);
    const updated: KubeObject = { metadata: { name: 'a', namespace: 'default' }, secrets: [{ name: 't', kind: 'Secret' }] };
    serviceAccountResource.strategy.prepareForUpdate!(updated, sa, ctx);
    assert.deepEqual(updated['secrets'], [{ name: 't' }]);
  });
});
