/**
 * How published.ts turns Kubernetes' definitions into the trees the server walks: shared subtrees,
 * the OpenAPI v3 defaults, the special JSON forms, and the Go type of each node.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Schema } from '@setpoint/api';
import { recordedGoType } from './gotypes.js';
import { objectMetaSchema } from './meta.js';
import { publishedKindSchema, publishedSchema } from './published.js';

function at(s: Schema, ...path: string[]): Schema {
  let cur: Schema | undefined = s;
  for (const p of path) cur = p === '[]' ? cur?.items : p === '{}' ? (cur?.additionalProperties as Schema | undefined) : cur?.properties?.[p];
  assert.notEqual(cur, undefined, path.join('.'));
  return cur!;
}

describe('published schema trees', () => {
  const pod = publishedKindSchema('', 'v1', 'Pod');
  const container = at(pod, 'spec', 'containers', '[]');

  it('share one tree per definition', () => {
    assert.equal(at(pod, 'metadata'), objectMetaSchema);
    assert.equal(at(publishedKindSchema('apps', 'v1', 'Deployment'), 'spec', 'template', 'spec'), at(pod, 'spec'));
    assert.equal(publishedSchema('io.k8s.api.core.v1.Pod'), pod);
  });

  it("copy a definition's tree for a field that adds merge metadata to it", () => {
    const strategy = at(publishedKindSchema('apps', 'v1', 'Deployment'), 'spec', 'strategy');
    assert.equal(strategy['x-kubernetes-patch-strategy'], 'retainKeys');
    assert.equal(publishedSchema('io.k8s.api.apps.v1.DeploymentStrategy')['x-kubernetes-patch-strategy'], undefined);
    assert.equal(at(strategy, 'rollingUpdate'), publishedSchema('io.k8s.api.apps.v1.RollingUpdateDeployment'));
  });

  it('carry the defaults Kubernetes publishes in OpenAPI v3', () => {
    // +default="TCP", and the zero value of a scalar Go always writes.
    assert.equal(at(container, 'ports', '[]', 'protocol').default, 'TCP');
    assert.equal(at(container, 'ports', '[]', 'containerPort').default, 0);
    assert.equal(at(container, 'name').default, '');
    // A pointer or an omitempty field has none.
    assert.equal(at(container, 'ports', '[]', 'hostPort').default, undefined);
    assert.equal(at(pod, 'spec', 'terminationGracePeriodSeconds').default, undefined);
    // Elements of scalar lists and values of string maps default to their zero value.
    assert.equal(at(container, 'args', '[]').default, '');
    assert.equal(at(pod, 'spec', 'securityContext', 'supplementalGroups', '[]').default, 0);
    assert.equal(at(objectMetaSchema, 'labels', '{}').default, '');
    assert.equal(at(publishedKindSchema('', 'v1', 'Secret'), 'data', '{}').default, undefined);
  });

  it('give quantities, int-or-strings, times and raw JSON their own forms', () => {
    assert.deepEqual(at(container, 'resources', 'limits', '{}').oneOf, [{ type: 'string' }, { type: 'number' }]);
    const port = at(container, 'livenessProbe', 'httpGet', 'port');
    assert.deepEqual([port.anyOf, port['x-kubernetes-int-or-string']], [[{ type: 'integer' }, { type: 'string' }], true]);
    assert.deepEqual([at(pod, 'status', 'startTime').type, at(pod, 'status', 'startTime').format], ['string', 'date-time']);
    const crd = publishedKindSchema('apiextensions.k8s.io', 'v1', 'CustomResourceDefinition');
    assert.equal(at(crd, 'spec', 'versions', '[]', 'schema', 'openAPIV3Schema')['x-kubernetes-preserve-unknown-fields'], true);
    assert.equal(at(objectMetaSchema, 'managedFields', '[]', 'fieldsV1')['x-kubernetes-preserve-unknown-fields'], true);
  });

  it('record the Go type of each node', () => {
    assert.equal(recordedGoType(at(pod, 'spec')), 'v1.PodSpec');
    assert.equal(recordedGoType(at(container, 'securityContext', 'windowsOptions')), 'v1.WindowsSecurityContextOptions');
    assert.equal(recordedGoType(at(container, 'resources', 'limits')), 'v1.ResourceList');
    assert.equal(recordedGoType(at(container, 'ports', '[]', 'protocol')), 'v1.Protocol');
    assert.equal(recordedGoType(at(objectMetaSchema, 'uid')), 'types.UID');
    assert.equal(recordedGoType(at(container, 'resources', 'limits', '{}')), 'resource.Quantity');
  });

  it('refuse a name Kubernetes does not publish', () => {
    assert.throws(() => publishedSchema('io.k8s.api.core.v1.NoSuchThing'), /publishes no definition io\.k8s\.api\.core\.v1\.NoSuchThing/);
    assert.throws(() => publishedKindSchema('apps', 'v1', 'Pod'), /publishes no kind Pod in apps\/v1/);
  });
});
