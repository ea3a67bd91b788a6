import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isApiError } from '@setpoint/api';
import { builtinResources } from './builtin.js';
import { deploymentSchema, podSchema } from './schemas/workloads.js';
import { leaseSchema } from './schemas/coordination.js';
import { nodeSchema } from './schemas/core.js';
import { checkTypes, typeDecodingError } from './typecheck.js';

const pod = { kind: 'Pod', version: 'v1', schema: podSchema };
const deployment = { kind: 'Deployment', version: 'v1', schema: deploymentSchema };

function decodeError(target: typeof pod, obj: unknown): string | undefined {
  return typeDecodingError(obj as Record<string, unknown>, target);
}

describe('typed decoding', () => {
  it('throws a BadRequest worded as kube-apiserver words a decoding error', () => {
    assert.throws(
      () => checkTypes({ spec: { nodeName: {} } }, pod),
      (err: unknown) =>
        isApiError(err) &&
        err.code === 400 &&
        err.reason === 'BadRequest' &&
        err.message === 'Pod in version "v1" cannot be handled as a Pod: json: cannot unmarshal object into Go struct field PodSpec.spec.nodeName of type string',
    );
  });

  it('names Go structs and types through nesting, lists and maps', () => {
    assert.equal(
      decodeError(pod, { spec: { containers: [{ name: 'c', env: [{ name: 'A', valueFrom: { secretKeyRef: { key: 1 } } }] }] } }),
      'json: cannot unmarshal number into Go struct field SecretKeySelector.spec.containers.env.valueFrom.secretKeyRef.key of type string',
    );
    assert.equal(
      decodeError(pod, { spec: { containers: [{ name: 'c', ports: [{ containerPort: '80' }] }] } }),
      'json: cannot unmarshal string into Go struct field ContainerPort.spec.containers.ports.containerPort of type int32',
    );
    assert.equal(
      decodeError(pod, { spec: { volumes: [{ name: 'v', nfs: { server: 1 } }, { name: 'w', projected: { sources: [{ serviceAccountToken: { path: [] } }] } }] } }),
      'json: cannot unmarshal number into Go struct field NFSVolumeSource.spec.volumes.nfs.server of type string',
    );
    assert.equal(
      decodeError(pod, { spec: { volumes: [{ name: 'w', projected: { sources: [{ serviceAccountToken: { path: [] } }] } }] } }),
      'json: cannot unmarshal array into Go struct field ServiceAccountTokenProjection.spec.volumes.projected.sources.serviceAccountToken.path of type string',
    );
    assert.equal(decodeError(pod, { spec: { tolerations: {} } }), 'json: cannot unmarshal object into Go struct field PodSpec.spec.tolerations of type []v1.Toleration');
    assert.equal(decodeError(pod, { spec: { overhead: [] } }), 'json: cannot unmarshal array into Go struct field PodSpec.spec.overhead of type v1.ResourceList');
    assert.equal(decodeError(pod, { metadata: { creationTimestamp: 5 } }), 'json: cannot unmarshal number into Go struct field ObjectMeta.metadata.creationTimestamp of type v1.Time');
    assert.equal(decodeError(pod, { metadata: { ownerReferences: ['x'] } }), 'json: cannot unmarshal string into Go struct field ObjectMeta.metadata.ownerReferences of type v1.OwnerReference');
    assert.equal(
      decodeError(deployment, { spec: { template: { spec: { hostNetwork: 'yes' } } } }),
      'json: cannot unmarshal string into Go struct field PodSpec.spec.template.spec.hostNetwork of type bool',
    );
    assert.equal(
      decodeError({ kind: 'Node', version: 'v1', schema: nodeSchema }, { status: { capacity: { cpu: {} } } }),
      'json: cannot unmarshal object into Go struct field NodeStatus.status.capacity of type resource.Quantity',
    );
    assert.equal(
      decodeError({ kind: 'Lease', version: 'v1', schema: leaseSchema }, { spec: { renewTime: false } }),
      'json: cannot unmarshal bool into Go struct field LeaseSpec.spec.renewTime of type v1.MicroTime',
    );
  });

  it('holds integers to int32 and int64 and floats to finite values', () => {
    const replicas = (n: number) => decodeError(deployment, { spec: { replicas: n } });
    assert.equal(replicas(2147483647), undefined);
    assert.equal(replicas(-2147483648), undefined);
    assert.equal(replicas(2147483648), 'json: cannot unmarshal number 2147483648 into Go struct field DeploymentSpec.spec.replicas of type int32');
    assert.equal(replicas(1.5), 'json: cannot unmarshal number 1.5 into Go struct field DeploymentSpec.spec.replicas of type int32');
    assert.equal(replicas(Infinity), 'json: cannot unmarshal number into Go struct field DeploymentSpec.spec.replicas of type int32');
    assert.equal(replicas(NaN), 'json: cannot unmarshal number into Go struct field DeploymentSpec.spec.replicas of type int32');
    const grace = (n: number) => decodeError(pod, { spec: { terminationGracePeriodSeconds: n } });
    assert.equal(grace(2 ** 62), undefined);
    assert.equal(grace(-(2 ** 63)), undefined);
    assert.equal(grace(2 ** 63), 'json: cannot unmarshal number 9223372036854775808 into Go struct field PodSpec.spec.terminationGracePeriodSeconds of type int64');
    assert.equal(grace(1e300), 'json: cannot unmarshal number 1e+300 into Go struct field PodSpec.spec.terminationGracePeriodSeconds of type int64');
    // Quantities: strings or finite numbers; int-or-string: strings or int32s.
    assert.equal(decodeError(pod, { spec: { containers: [{ name: 'c', resources: { limits: { cpu: 0.25, memory: '1Gi' } } }] } }), undefined);
    assert.equal(
      decodeError(pod, { spec: { containers: [{ name: 'c', resources: { limits: { cpu: -Infinity } } }] } }),
      'json: cannot unmarshal number into Go struct field ResourceRequirements.spec.containers.resources.limits of type resource.Quantity',
    );
    assert.equal(decodeError(pod, { spec: { containers: [{ name: 'c', livenessProbe: { httpGet: { port: 'http' } } }] } }), undefined);
    assert.equal(
      decodeError(pod, { spec: { containers: [{ name: 'c', livenessProbe: { httpGet: { port: 4294967296 } } }] } }),
      'json: cannot unmarshal number 4294967296 into Go struct field HTTPGetAction.spec.containers.livenessProbe.httpGet.port of type intstr.IntOrString',
    );
  });

  it('reads null as Go does: absent fields, zero-valued elements, raw JSON kept', () => {
    const obj: Record<string, unknown> = {
      metadata: { labels: null, annotations: { a: null }, finalizers: [null], managedFields: [{ manager: 'm', fieldsV1: { 'f:spec': {} } }] },
      spec: {
        nodeName: null,
        containers: [null, { name: 'c', args: [null], resources: { limits: { cpu: null } }, ports: [{ containerPort: 1, hostPort: null }] }],
        tolerations: null,
      },
      status: { conditions: [null] },
    };
    assert.equal(decodeError(pod, obj), undefined);
    assert.deepEqual(obj, {
      metadata: { annotations: { a: '' }, finalizers: [''], managedFields: [{ manager: 'm', fieldsV1: { 'f:spec': {} } }] },
      spec: { containers: [{}, { name: 'c', args: [''], resources: { limits: { cpu: '0' } }, ports: [{ containerPort: 1 }] }] },
      status: { conditions: [{}] },
    });
  });

  it('leaves fields the schema does not know to field validation', () => {
    assert.equal(decodeError(pod, { spec: { containers: [], notAField: { x: 1 } }, extra: [1] }), undefined);
  });

  it('accepts the empty object of every built-in kind, and its schema carries no Go type names', () => {
    for (const def of builtinResources) {
      assert.equal(typeDecodingError({ apiVersion: def.version, kind: def.kind, metadata: { name: 'x' } }, def), undefined, def.kind);
      const served = JSON.stringify(def.schema);
      assert.doesNotMatch(served, /"(v1|types|resource|intstr)\.[A-Z]/, `${def.kind}'s schema is served as before`);
    }
  });
});
