import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Schema } from '@setpoint/api';
import { leaseSchema } from './coordination.js';
import { configMapSchema, eventSchema, namespaceSchema, nodeSchema, secretSchema, serviceAccountSchema } from './core.js';
import { conditionSchema, labelSelectorSchema, objectMetaSchema, typeMetaProperties } from './meta.js';

const props = (s: Schema | undefined): string[] => Object.keys(s?.properties ?? {}).sort();
const at = (s: Schema, ...path: string[]): Schema => {
  let cur: Schema | undefined = s;
  for (const p of path) cur = p === '[]' ? cur?.items : cur?.properties?.[p];
  assert.ok(cur, path.join('.'));
  return cur;
};

/** Every schema node reachable from `s`, with its path. */
function* walk(s: Schema, path = ''): Generator<[string, Schema]> {
  yield [path, s];
  for (const [k, v] of Object.entries(s.properties ?? {})) yield* walk(v, `${path}.${k}`);
  if (s.items) yield* walk(s.items, `${path}[]`);
  if (typeof s.additionalProperties === 'object') yield* walk(s.additionalProperties, `${path}{}`);
  for (const v of s.oneOf ?? []) yield* walk(v, `${path}|`);
}

describe('meta schemas', () => {
  it('objectMeta has every ObjectMeta field', () => {
    assert.deepEqual(props(objectMetaSchema), [
      'annotations',
      'creationTimestamp',
      'deletionGracePeriodSeconds',
      'deletionTimestamp',
      'finalizers',
      'generateName',
      'generation',
      'labels',
      'managedFields',
      'name',
      'namespace',
      'ownerReferences',
      'resourceVersion',
      'selfLink',
      'uid',
    ]);
  });

  it('carries Kubernetes patch metadata', () => {
    const owners = at(objectMetaSchema, 'ownerReferences');
    assert.equal(owners['x-kubernetes-patch-merge-key'], 'uid');
    assert.equal(owners['x-kubernetes-patch-strategy'], 'merge');
    assert.equal(owners['x-kubernetes-list-type'], 'map');
    assert.deepEqual(owners['x-kubernetes-list-map-keys'], ['uid']);
    assert.deepEqual(at(owners, '[]').required, ['apiVersion', 'kind', 'name', 'uid']);
    const finalizers = at(objectMetaSchema, 'finalizers');
    assert.equal(finalizers['x-kubernetes-list-type'], 'set');
    assert.equal(finalizers['x-kubernetes-patch-strategy'], 'merge');
    assert.equal(at(objectMetaSchema, 'managedFields')['x-kubernetes-list-type'], 'atomic');
    assert.equal(at(objectMetaSchema, 'managedFields', '[]', 'fieldsV1')['x-kubernetes-preserve-unknown-fields'], true);
    assert.equal(at(objectMetaSchema, 'creationTimestamp').format, 'date-time');
    assert.equal(at(objectMetaSchema, 'generation').format, 'int64');
  });

  it('labelSelector and condition', () => {
    assert.deepEqual(props(labelSelectorSchema), ['matchExpressions', 'matchLabels']);
    assert.equal(labelSelectorSchema['x-kubernetes-map-type'], 'atomic');
    assert.deepEqual(at(labelSelectorSchema, 'matchExpressions', '[]').required, ['key', 'operator']);
    assert.deepEqual(props(conditionSchema), ['lastTransitionTime', 'message', 'observedGeneration', 'reason', 'status', 'type']);
    assert.deepEqual(conditionSchema.required, ['type', 'status', 'lastTransitionTime', 'reason', 'message']);
    assert.deepEqual(Object.keys(typeMetaProperties).sort(), ['apiVersion', 'kind']);
  });
});

describe('kind schemas', () => {
  const kinds: Array<[Schema, string, string]> = [
    [namespaceSchema, '', 'Namespace'],
    [configMapSchema, '', 'ConfigMap'],
    [secretSchema, '', 'Secret'],
    [eventSchema, '', 'Event'],
    [serviceAccountSchema, '', 'ServiceAccount'],
    [nodeSchema, '', 'Node'],
    [leaseSchema, 'coordination.k8s.io', 'Lease'],
  ];

  for (const [schema, group, kind] of kinds) {
    it(`${kind} carries x-kubernetes-group-version-kind and no $ref`, () => {
      assert.deepEqual(schema['x-kubernetes-group-version-kind'], [{ group, version: 'v1', kind }]);
      assert.equal(at(schema, 'metadata'), objectMetaSchema);
      for (const [path, node] of walk(schema)) {
        assert.equal(node.$ref, undefined, path);
        if (node.type === 'array') assert.ok(node.items, `${path} has items`);
      }
    });
  }

  it('has every top-level field Kubernetes publishes', () => {
    assert.deepEqual(props(namespaceSchema), ['apiVersion', 'kind', 'metadata', 'spec', 'status']);
    assert.deepEqual(props(configMapSchema), ['apiVersion', 'binaryData', 'data', 'immutable', 'kind', 'metadata']);
    assert.deepEqual(props(secretSchema), ['apiVersion', 'data', 'immutable', 'kind', 'metadata', 'stringData', 'type']);
    assert.deepEqual(props(eventSchema), [
      'action',
      'apiVersion',
      'count',
      'eventTime',
      'firstTimestamp',
      'involvedObject',
      'kind',
      'lastTimestamp',
      'message',
      'metadata',
      'reason',
      'related',
      'reportingComponent',
      'reportingInstance',
      'series',
      'source',
      'type',
    ]);
    assert.deepEqual(props(serviceAccountSchema), ['apiVersion', 'automountServiceAccountToken', 'imagePullSecrets', 'kind', 'metadata', 'secrets']);
    assert.deepEqual(props(at(nodeSchema, 'spec')), ['configSource', 'externalID', 'podCIDR', 'podCIDRs', 'providerID', 'taints', 'unschedulable']);
    assert.deepEqual(props(at(nodeSchema, 'status')), [
      'addresses',
      'allocatable',
      'capacity',
      'conditions',
      'config',
      'daemonEndpoints',
      'features',
      'images',
      'nodeInfo',
      'phase',
      'runtimeHandlers',
      'volumesAttached',
      'volumesInUse',
    ]);
    assert.deepEqual(props(at(leaseSchema, 'spec')), [
      'acquireTime',
      'holderIdentity',
      'leaseDurationSeconds',
      'leaseTransitions',
      'preferredHolder',
      'renewTime',
      'strategy',
    ]);
  });

  it('types byte fields, times and quantities as Kubernetes does', () => {
    assert.deepEqual(at(secretSchema, 'data').additionalProperties, { type: 'string', format: 'byte' });
    assert.deepEqual(at(configMapSchema, 'binaryData').additionalProperties, { type: 'string', format: 'byte' });
    assert.equal(at(leaseSchema, 'spec', 'renewTime').format, 'date-time');
    assert.equal(at(eventSchema, 'eventTime').format, 'date-time');
    assert.deepEqual((at(nodeSchema, 'status', 'capacity').additionalProperties as Schema).oneOf, [{ type: 'string' }, { type: 'number' }]);
    assert.equal(at(nodeSchema, 'status', 'daemonEndpoints', 'kubeletEndpoint', 'Port').format, 'int32');
  });

  it('merges node lists the way strategic merge patch expects', () => {
    const conditions = at(nodeSchema, 'status', 'conditions');
    assert.equal(conditions['x-kubernetes-patch-merge-key'], 'type');
    assert.equal(conditions['x-kubernetes-patch-strategy'], 'merge');
    assert.equal(at(nodeSchema, 'status', 'addresses')['x-kubernetes-patch-merge-key'], 'type');
    assert.equal(at(nodeSchema, 'spec', 'taints')['x-kubernetes-list-type'], 'atomic');
    assert.equal(at(nodeSchema, 'status', 'conditions', '[]', 'lastHeartbeatTime').format, 'date-time');
    assert.equal(at(namespaceSchema, 'status', 'conditions')['x-kubernetes-patch-merge-key'], 'type');
    assert.equal(at(serviceAccountSchema, 'secrets')['x-kubernetes-patch-merge-key'], 'name');
  });
});
