/** The shape checks controllers make before acting on an object: Go's messages, Go's integer ranges. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '@setpoint/api';
import { MalformedObjectError, checkDeployment, checkNode, checkPod, checkReplicaSet, isWellFormed, partitionWellFormed, throwMalformed } from './shape.js';

const rs = (spec: unknown): KubeObject => ({ metadata: { name: 'web', namespace: 'ns' }, spec } as KubeObject);

describe('shape checks', () => {
  it("names the field and the JSON type as Go's typed decoding does", () => {
    assert.throws(() => checkReplicaSet(rs({ replicas: 'x' })), {
      name: 'MalformedObjectError',
      message: 'ReplicaSet ns/web cannot be handled: json: cannot unmarshal string into Go struct field ReplicaSetSpec.spec.replicas of type int32',
    });
    assert.throws(() => checkPod({ metadata: { name: 'p', namespace: 'ns' }, spec: { nodeName: {} } } as KubeObject), /cannot unmarshal object into Go struct field PodSpec\.spec\.nodeName of type string/);
    assert.throws(() => checkDeployment({ metadata: { name: 'd' }, spec: { selector: { matchLabels: ['a'] } } } as KubeObject), /array into Go struct field LabelSelector\.spec\.selector\.matchLabels of type map\[string\]string/);
    assert.throws(() => checkNode({ metadata: { name: 'n' }, status: { conditions: { Ready: 'True' } } } as KubeObject), /object into Go struct field NodeStatus\.status\.conditions of type \[\]v1\.NodeCondition/);
  });

  it('refuses integers outside int32 and numbers that are not integers; accepts absent and null', () => {
    for (const replicas of [1.5, 2 ** 31, Number.POSITIVE_INFINITY, -(2 ** 31) - 1]) assert.throws(() => checkReplicaSet(rs({ replicas })), MalformedObjectError, String(replicas));
    for (const replicas of [0, 2 ** 31 - 1, null, undefined]) checkReplicaSet(rs({ replicas }));
    assert.throws(() => checkPod({ metadata: { name: 'p' }, spec: { terminationGracePeriodSeconds: 2 ** 63 } } as KubeObject), /number 9223372036854776000 into Go struct field PodSpec\.spec\.terminationGracePeriodSeconds of type int64/);
    assert.throws(() => checkPod({ metadata: { name: 'p' }, spec: { containers: [null] } } as KubeObject), /null into Go struct field PodSpec\.spec\.containers of type v1\.Container/);
  });

  it('checks metadata: labels null passes, a label that is not a string, ownerReferences of the wrong shape do not', () => {
    checkPod({ metadata: { name: 'p', labels: null } } as unknown as KubeObject);
    assert.throws(() => checkPod({ metadata: { name: 'p', labels: { a: 1 } } } as unknown as KubeObject), /ObjectMeta\.metadata\.labels\[a\] of type string/);
    assert.throws(() => checkPod({ metadata: { name: 'p', ownerReferences: [{ uid: 5 }] } } as unknown as KubeObject), /OwnerReference\.metadata\.ownerReferences\.uid of type string/);
    assert.throws(() => checkPod({ metadata: { name: 'p', ownerReferences: {} } } as unknown as KubeObject), /ownerReferences of type \[\]v1\.OwnerReference/);
  });

  it('partitions a list into the well-formed objects and the errors of the others, and reports them together', () => {
    const good = rs({ replicas: 1 });
    const { good: kept, malformed } = partitionWellFormed([good, rs({ replicas: 'a' }), rs({ replicas: 'b' })], checkReplicaSet);
    assert.deepEqual(kept, [good]);
    assert.equal(malformed.length, 2);
    assert.equal(isWellFormed(checkReplicaSet, good), true);
    assert.throws(() => throwMalformed(malformed), /and 1 more malformed objects skipped/);
    throwMalformed([]);
  });
});
