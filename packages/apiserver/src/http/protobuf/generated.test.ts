/**
 * Every generated file (these protobuf descriptors, the OpenAPI definitions of
 * registry/schemas/generated) is what `npm run gen:api` derives from the data in
 * data/kubernetes-v1.32 (a hand edit of generated output, or new data without regenerating, fails
 * here); and the descriptors are Kubernetes' messages: field numbers, and the JSON flags from the
 * Go struct tags.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, it } from 'node:test';
import { messages } from './generated/messages.js';

const repoRoot = new URL('../../../../../', import.meta.url).pathname;

function field(message: string, name: string): readonly [string, number, string, string?] | undefined {
  return messages[message]?.find((f) => f[0] === name);
}

describe('generated protobuf descriptors', () => {
  it('are up to date with data/kubernetes-v1.32 (npm run gen:api -- --check)', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, ['scripts/gen-api/gen.mjs', '--check'], { cwd: repoRoot });
    assert.match(stdout, /up to date/);
  });

  it("carry Kubernetes' field numbers and types", () => {
    assert.deepEqual(field('k8s.io.api.core.v1.PodSpec', 'ephemeralContainers'), ['ephemeralContainers', 34, 'k8s.io.api.core.v1.EphemeralContainer', 'r']);
    assert.deepEqual(field('k8s.io.api.apps.v1.DeploymentSpec', 'progressDeadlineSeconds'), ['progressDeadlineSeconds', 9, 'int32', 'k']);
    assert.deepEqual(field('k8s.io.api.core.v1.ConfigMap', 'binaryData'), ['binaryData', 3, 'bytes', 'm']);
  });

  it('flag what Go writes at zero (pointer or no omitempty) and what JSON inlines', () => {
    // A pointer: kept at zero. Not a pointer and omitempty: left out at zero.
    assert.equal(field('k8s.io.api.apps.v1.DeploymentSpec', 'replicas')?.[3], 'k');
    assert.equal(field('k8s.io.api.apps.v1.DeploymentSpec', 'minReadySeconds')?.[3], undefined);
    // No omitempty: kept (ContainerStatus.ready is false for a container not ready).
    assert.equal(field('k8s.io.api.core.v1.ContainerStatus', 'ready')?.[3], 'k');
    // A list's items: always a JSON array.
    assert.equal(field('k8s.io.api.core.v1.PodList', 'items')?.[3], 'rk');
    // json:",inline", with and without a protobuf name in the tag.
    assert.equal(field('k8s.io.api.core.v1.Volume', 'volumeSource')?.[3], 'i');
    assert.equal(field('k8s.io.api.core.v1.EphemeralContainer', 'ephemeralContainerCommon')?.[3], 'i');
    // json:"-" is not JSON at all: never kept.
    assert.equal(field('k8s.io.apimachinery.pkg.runtime.RawExtension', 'raw')?.[3], undefined);
  });
});
