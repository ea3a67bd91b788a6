import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Schema } from '../schema.js';
import { ApiError } from '../meta/errors.js';
import { applyStrategicMergePatch, createThreeWayMergePatch, createTwoWayMergePatch } from './strategic.js';

// ---------------------------------------------------------------------------------------------
// A small Deployment schema carrying the patch metadata of the real one.

const str: Schema = { type: 'string' };
const int: Schema = { type: 'integer' };
const stringMap: Schema = { type: 'object', additionalProperties: str };
const merge = (mergeKey: string, items: Schema, strategy = 'merge'): Schema => ({
  type: 'array',
  items,
  'x-kubernetes-patch-merge-key': mergeKey,
  'x-kubernetes-patch-strategy': strategy,
});

const objectMeta: Schema = {
  type: 'object',
  properties: {
    name: str,
    namespace: str,
    labels: stringMap,
    annotations: stringMap,
    finalizers: { type: 'array', items: str, 'x-kubernetes-patch-strategy': 'merge', 'x-kubernetes-list-type': 'set' },
    ownerReferences: merge('uid', {
      type: 'object',
      properties: { apiVersion: str, kind: str, name: str, uid: str, controller: { type: 'boolean' } },
    }),
  },
};
const container: Schema = {
  type: 'object',
  properties: {
    name: str,
    image: str,
    args: { type: 'array', items: str },
    env: merge('name', { type: 'object', properties: { name: str, value: str, valueFrom: { type: 'object', properties: {} } } }),
    ports: {
      ...merge('containerPort', { type: 'object', properties: { containerPort: int, protocol: str, name: str } }),
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['containerPort', 'protocol'],
    },
    resources: { type: 'object', properties: { limits: stringMap, requests: stringMap } },
  },
};
const volume: Schema = {
  type: 'object',
  properties: {
    name: str,
    configMap: { type: 'object', properties: { name: str, defaultMode: int } },
    secret: { type: 'object', properties: { secretName: str } },
    emptyDir: { type: 'object', properties: { medium: str } },
  },
};
const podSpec: Schema = {
  type: 'object',
  properties: {
    containers: merge('name', container),
    initContainers: merge('name', container),
    volumes: merge('name', volume, 'merge,retainKeys'),
    tolerations: { type: 'array', items: { type: 'object', properties: { key: str, operator: str, value: str, effect: str } } },
    nodeSelector: stringMap,
  },
};
const deploymentSchema: Schema = {
  type: 'object',
  properties: {
    apiVersion: str,
    kind: str,
    metadata: objectMeta,
    spec: {
      type: 'object',
      properties: {
        replicas: int,
        strategy: {
          type: 'object',
          'x-kubernetes-patch-strategy': 'retainKeys',
          properties: { type: str, rollingUpdate: { type: 'object', properties: { maxSurge: str, maxUnavailable: str } } },
        },
        // How OpenAPI documents write a referenced schema with a description.
        template: { allOf: [{ type: 'object', properties: { metadata: objectMeta, spec: podSpec } }], description: 'PodTemplateSpec' },
      },
    },
  },
};

// ---------------------------------------------------------------------------------------------
// Helpers

/** Freezes a JSON value all the way down, so that any mutation by the code under test throws. */
function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

/** Writes to every object and array of a value: throws if any of them is frozen (shared with an input). */
function touchEverything(value: unknown): void {
  if (Array.isArray(value)) {
    value.push('x');
    value.pop();
    value.forEach(touchEverything);
  } else if (typeof value === 'object' && value !== null) {
    (value as Record<string, unknown>)['$touched'] = true;
    delete (value as Record<string, unknown>)['$touched'];
    Object.values(value).forEach(touchEverything);
  }
}

/** A deployment whose pod spec is `spec`. */
const pod = (spec: Record<string, unknown>): Record<string, unknown> => ({ spec: { template: { spec } } });

function apply(original: unknown, patch: unknown, schema: Schema | undefined = deploymentSchema): unknown {
  const result = applyStrategicMergePatch(deepFreeze(structuredClone(original)), deepFreeze(structuredClone(patch)), schema);
  touchEverything(result); // the result must share nothing with the frozen inputs
  return result;
}

interface ApplyCase {
  name: string;
  original: unknown;
  patch: unknown;
  result: unknown;
  schema?: Schema | undefined;
}

function runApplyCases(cases: ApplyCase[]): void {
  for (const c of cases) {
    it(c.name, () => {
      assert.deepEqual(apply(c.original, c.patch, 'schema' in c ? c.schema : deploymentSchema), c.result);
    });
  }
}

// ---------------------------------------------------------------------------------------------

describe('applyStrategicMergePatch: merging', () => {
  runApplyCases([
    {
      // The opening example of the strategic-merge-patch document: add a container to a pod.
      // Kubernetes places the patch's elements before the elements only the original has.
      name: 'containers merge by name: a new container is added',
      original: pod({ containers: [{ name: 'nginx', image: 'nginx-1.0' }] }),
      patch: pod({ containers: [{ name: 'log-tailer', image: 'log-tailer-1.0' }] }),
      result: pod({ containers: [{ name: 'log-tailer', image: 'log-tailer-1.0' }, { name: 'nginx', image: 'nginx-1.0' }] }),
    },
    {
      name: 'containers merge by name: an existing container is changed in place',
      original: pod({ containers: [{ name: 'a', image: 'a:1', args: ['x'] }, { name: 'b', image: 'b:1' }] }),
      patch: pod({ containers: [{ name: 'a', image: 'a:2' }] }),
      result: pod({ containers: [{ name: 'a', image: 'a:2', args: ['x'] }, { name: 'b', image: 'b:1' }] }),
    },
    {
      // Kubernetes' order: the patch's elements in patch order; an element only in the original
      // goes before a patch element that it preceded in the original, else after.
      name: 'patch elements keep the patch order; original-only elements keep their place among them',
      original: pod({ containers: [{ name: 'a' }, { name: 'b' }, { name: 'c' }] }),
      patch: pod({ containers: [{ name: 'z' }, { name: 'c', image: 'c' }, { name: 'y' }, { name: 'a', image: 'a' }] }),
      result: pod({ containers: [{ name: 'z' }, { name: 'b' }, { name: 'c', image: 'c' }, { name: 'y' }, { name: 'a', image: 'a' }] }),
    },
    {
      name: 'env merges by name inside a container (nested merge)',
      original: pod({ containers: [{ name: 'app', env: [{ name: 'A', value: '1' }, { name: 'B', value: '2' }] }] }),
      patch: pod({ containers: [{ name: 'app', env: [{ name: 'B', value: '3' }, { name: 'C', value: '4' }] }] }),
      result: pod({ containers: [{ name: 'app', env: [{ name: 'A', value: '1' }, { name: 'B', value: '3' }, { name: 'C', value: '4' }] }] }),
    },
    {
      name: 'env: a null removes a field of an element',
      original: pod({ containers: [{ name: 'app', env: [{ name: 'A', value: '1', valueFrom: { x: 1 } }] }] }),
      patch: pod({ containers: [{ name: 'app', env: [{ name: 'A', valueFrom: null }] }] }),
      result: pod({ containers: [{ name: 'app', env: [{ name: 'A', value: '1' }] }] }),
    },
    {
      name: 'ports merge by containerPort (a number)',
      original: pod({ containers: [{ name: 'app', ports: [{ containerPort: 80, name: 'http' }, { containerPort: 443 }] }] }),
      patch: pod({ containers: [{ name: 'app', ports: [{ containerPort: 443, name: 'https' }, { containerPort: 8080 }] }] }),
      result: pod({
        containers: [{ name: 'app', ports: [{ containerPort: 80, name: 'http' }, { containerPort: 443, name: 'https' }, { containerPort: 8080 }] }],
      }),
    },
    {
      name: 'finalizers merge as a set',
      original: { metadata: { finalizers: ['a', 'b'] } },
      patch: { metadata: { finalizers: ['b', 'c', 'c'] } },
      result: { metadata: { finalizers: ['a', 'b', 'c'] } },
    },
    {
      name: 'ownerReferences merge by uid',
      original: { metadata: { ownerReferences: [{ uid: 'u1', kind: 'ReplicaSet', name: 'rs1' }] } },
      patch: { metadata: { ownerReferences: [{ uid: 'u1', controller: true }, { uid: 'u2', kind: 'Deployment', name: 'd' }] } },
      result: {
        metadata: {
          ownerReferences: [
            { uid: 'u1', kind: 'ReplicaSet', name: 'rs1', controller: true },
            { uid: 'u2', kind: 'Deployment', name: 'd' },
          ],
        },
      },
    },
    {
      name: 'tolerations (no patch strategy) are replaced',
      original: pod({ tolerations: [{ key: 'a', operator: 'Exists' }, { key: 'b', operator: 'Exists' }] }),
      patch: pod({ tolerations: [{ key: 'c', operator: 'Exists' }] }),
      result: pod({ tolerations: [{ key: 'c', operator: 'Exists' }] }),
    },
    {
      name: 'args (a list of primitives without strategy) are replaced, order kept',
      original: pod({ containers: [{ name: 'app', args: ['--a', '--b'] }] }),
      patch: pod({ containers: [{ name: 'app', args: ['--b', '--b'] }] }),
      result: pod({ containers: [{ name: 'app', args: ['--b', '--b'] }] }),
    },
    {
      name: 'maps merge; null deletes a key',
      original: { metadata: { name: 'web', labels: { app: 'web', tier: 'fe' } }, spec: { replicas: 1 } },
      patch: { metadata: { labels: { tier: null, env: 'prod' } }, spec: { replicas: 3 } },
      result: { metadata: { name: 'web', labels: { app: 'web', env: 'prod' } }, spec: { replicas: 3 } },
    },
    {
      name: 'null deletes a whole subtree; null for a missing key is ignored',
      original: { spec: { replicas: 1, strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '1' } } } },
      patch: { spec: { strategy: { rollingUpdate: null }, paused: null } },
      result: { spec: { replicas: 1, strategy: { type: 'RollingUpdate' } } },
    },
    {
      name: 'nulls inside added values are dropped, nulls inside lists are kept',
      original: {},
      patch: { metadata: { labels: { a: '1', b: null } }, extra: { list: ['x', null], inner: { gone: null } } },
      result: { metadata: { labels: { a: '1' } }, extra: { list: ['x', null], inner: {} } },
    },
    {
      name: 'an empty list in the patch leaves a merged list alone',
      original: pod({ containers: [{ name: 'a' }] }),
      patch: pod({ containers: [] }),
      result: pod({ containers: [{ name: 'a' }] }),
    },
    {
      name: 'a value of another type replaces the original',
      original: { spec: { replicas: 1, selector: 'x' } },
      patch: { spec: { replicas: '2', selector: { matchLabels: { a: 'b' } } } },
      result: { spec: { replicas: '2', selector: { matchLabels: { a: 'b' } } } },
    },
  ]);
});

describe('applyStrategicMergePatch: keys are data', () => {
  it('keeps "__proto__" from a request body as a plain key', () => {
    const patch = JSON.parse('{"metadata": {"labels": {"__proto__": {"polluted": "yes"}}}}') as unknown;
    const result = apply({ metadata: { labels: { a: '1' } } }, patch) as { metadata: { labels: Record<string, unknown> } };
    assert.deepEqual(Object.keys(result.metadata.labels), ['a', '__proto__']);
    assert.equal(Object.getPrototypeOf(result.metadata.labels), Object.prototype);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });
});

describe('applyStrategicMergePatch: unknown fields behave like a JSON merge patch', () => {
  runApplyCases([
    {
      name: 'a list the schema does not describe is replaced; a map merges',
      original: { status: { conditions: [{ type: 'Ready' }], observed: { a: 1 } } },
      patch: { status: { conditions: [{ type: 'Progressing' }], observed: { b: 2, a: null } } },
      result: { status: { conditions: [{ type: 'Progressing' }], observed: { b: 2 } } },
    },
    {
      name: 'an unknown field inside a known element',
      original: pod({ containers: [{ name: 'a', sidecarHints: ['x', 'y'] }] }),
      patch: pod({ containers: [{ name: 'a', sidecarHints: ['z'] }] }),
      result: pod({ containers: [{ name: 'a', sidecarHints: ['z'] }] }),
    },
    {
      name: 'without any schema: lists replaced, maps merged, directives still honoured',
      schema: undefined,
      original: { spec: { containers: [{ name: 'a' }], a: { b: 1, c: 2 }, d: { e: 1 } } },
      patch: { spec: { containers: [{ name: 'b' }], a: { c: null }, d: { $patch: 'replace', f: 2 } } },
      result: { spec: { containers: [{ name: 'b' }], a: { b: 1 }, d: { f: 2 } } },
    },
  ]);
});

describe('applyStrategicMergePatch: $patch directives', () => {
  runApplyCases([
    {
      // The document's "replace directive on a map".
      name: '$patch: replace on a map takes the patch literally',
      original: pod({ containers: [{ name: 'a', image: 'a' }], nodeSelector: { zone: 'a', disk: 'ssd' } }),
      patch: { spec: { template: { spec: { $patch: 'replace', containers: [{ name: 'nginx', image: 'nginx-1.0' }] } } } },
      result: pod({ containers: [{ name: 'nginx', image: 'nginx-1.0' }] }),
    },
    {
      name: '$patch: replace on a nested map (labels)',
      original: { metadata: { name: 'x', labels: { a: '1', b: '2' } } },
      patch: { metadata: { labels: { $patch: 'replace', c: '3' } } },
      result: { metadata: { name: 'x', labels: { c: '3' } } },
    },
    {
      name: '$patch: replace on the whole object',
      original: { a: 1, b: 2 },
      patch: { $patch: 'replace', c: 3 },
      result: { c: 3 },
    },
    {
      // The document's "replace directive in a list of maps".
      name: '$patch: replace inside a list replaces the list with the other elements',
      original: pod({ containers: [{ name: 'a', image: 'a' }, { name: 'b' }] }),
      patch: pod({ containers: [{ name: 'nginx', image: 'nginx-1.0' }, { $patch: 'replace' }] }),
      result: pod({ containers: [{ name: 'nginx', image: 'nginx-1.0' }] }),
    },
    {
      name: '[{$patch: replace}] empties a merged list',
      original: pod({ containers: [{ name: 'a' }, { name: 'b' }] }),
      patch: pod({ containers: [{ $patch: 'replace' }] }),
      result: pod({ containers: [] }),
    },
    {
      // The document's "delete directive in a list of maps".
      name: '$patch: delete removes the element with that merge key',
      original: pod({ containers: [{ name: 'nginx', image: 'nginx-0.9' }, { name: 'log-tailer', image: 'log-tailer-1.0' }] }),
      patch: pod({ containers: [{ name: 'nginx', image: 'nginx-1.0' }, { $patch: 'delete', name: 'log-tailer' }] }),
      result: pod({ containers: [{ name: 'nginx', image: 'nginx-1.0' }] }),
    },
    {
      name: '$patch: delete removes every element with that merge key; unknown keys are ignored',
      original: pod({ containers: [{ name: 'a' }, { name: 'a' }, { name: 'b' }] }),
      patch: pod({ containers: [{ name: 'a', $patch: 'delete' }, { name: 'zz', $patch: 'delete' }] }),
      result: pod({ containers: [{ name: 'b' }] }),
    },
    {
      name: '$patch: delete of an env var inside a container',
      original: pod({ containers: [{ name: 'app', env: [{ name: 'A', value: '1' }, { name: 'B', value: '2' }] }] }),
      patch: pod({ containers: [{ name: 'app', env: [{ name: 'A', $patch: 'delete' }] }] }),
      result: pod({ containers: [{ name: 'app', env: [{ name: 'B', value: '2' }] }] }),
    },
    {
      // The document's "delete directive on a map": like `rollingUpdate: null`.
      name: '$patch: delete on a map deletes the map',
      original: { spec: { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '1' } } } },
      patch: { spec: { strategy: { rollingUpdate: { $patch: 'delete' } } } },
      result: { spec: { strategy: { type: 'RollingUpdate' } } },
    },
    {
      name: '$patch: delete on a map the original lacks adds nothing',
      original: { spec: {} },
      patch: { spec: { strategy: { $patch: 'delete', type: 'x' } } },
      result: { spec: {} },
    },
    {
      name: '$patch: delete on the whole object gives {}',
      original: { a: 1 },
      patch: { $patch: 'delete' },
      result: {},
    },
    {
      name: '$patch: merge on a map merges (the default)',
      original: { metadata: { labels: { a: '1' } } },
      patch: { metadata: { labels: { $patch: 'merge', b: '2' } } },
      result: { metadata: { labels: { a: '1', b: '2' } } },
    },
    {
      name: 'directives inside added values are carried out, never stored',
      original: {},
      patch: pod({
        containers: [
          { name: 'a', env: [{ name: 'X', value: '1' }, { name: 'Y', $patch: 'delete' }], resources: { $patch: 'replace', limits: { cpu: '1' } } },
          { $patch: 'replace' },
        ],
        volumes: [{ name: 'v', $retainKeys: ['name', 'emptyDir'], emptyDir: {} }],
      }),
      result: pod({ containers: [{ name: 'a', env: [{ name: 'X', value: '1' }], resources: { limits: { cpu: '1' } } }], volumes: [{ name: 'v', emptyDir: {} }] }),
    },
  ]);
});

describe('applyStrategicMergePatch: parallel lists and $retainKeys', () => {
  runApplyCases([
    {
      // The document's deleteFromPrimitiveList example.
      name: '$deleteFromPrimitiveList/finalizers removes values',
      original: { metadata: { finalizers: ['a', 'b', 'c'] } },
      patch: { metadata: { '$deleteFromPrimitiveList/finalizers': ['b', 'c'] } },
      result: { metadata: { finalizers: ['a'] } },
    },
    {
      name: '$deleteFromPrimitiveList removes all duplicates, ignores absent values and absent lists',
      original: { metadata: { finalizers: ['a', 'b', 'a'] } },
      patch: { metadata: { '$deleteFromPrimitiveList/finalizers': ['a', 'zz'], '$deleteFromPrimitiveList/other': ['x'] } },
      result: { metadata: { finalizers: ['b'] } },
    },
    {
      name: '$deleteFromPrimitiveList together with additions',
      original: { metadata: { finalizers: ['a', 'b'] } },
      patch: { metadata: { finalizers: ['c'], '$deleteFromPrimitiveList/finalizers': ['a'] } },
      result: { metadata: { finalizers: ['c', 'b'] } },
    },
    {
      // The document's setElementOrder examples.
      name: '$setElementOrder/finalizers reorders a list of primitives',
      original: { metadata: { finalizers: ['a', 'b', 'c'] } },
      patch: { metadata: { '$setElementOrder/finalizers': ['b', 'c', 'a'] } },
      result: { metadata: { finalizers: ['b', 'c', 'a'] } },
    },
    {
      name: '$setElementOrder/containers reorders a list of maps',
      original: pod({ containers: [{ name: 'a', image: 'a' }, { name: 'b', image: 'b' }, { name: 'c', image: 'c' }] }),
      patch: pod({ '$setElementOrder/containers': [{ name: 'b' }, { name: 'c' }, { name: 'a' }] }),
      result: pod({ containers: [{ name: 'b', image: 'b' }, { name: 'c', image: 'c' }, { name: 'a', image: 'a' }] }),
    },
    {
      name: '$setElementOrder with changes: what kubectl apply sends',
      original: pod({ containers: [{ name: 'a', image: 'a:1' }, { name: 'b', image: 'b:1' }] }),
      patch: pod({ '$setElementOrder/containers': [{ name: 'b' }, { name: 'c' }, { name: 'a' }], containers: [{ name: 'c', image: 'c:1' }, { name: 'a', image: 'a:2' }] }),
      result: pod({ containers: [{ name: 'b', image: 'b:1' }, { name: 'c', image: 'c:1' }, { name: 'a', image: 'a:2' }] }),
    },
    {
      name: '$setElementOrder: elements only on the server keep their relative positions',
      original: pod({ containers: [{ name: 'istio-init' }, { name: 'a' }, { name: 'sidecar' }, { name: 'b' }] }),
      patch: pod({ '$setElementOrder/containers': [{ name: 'b' }, { name: 'a' }] }),
      result: pod({ containers: [{ name: 'istio-init' }, { name: 'sidecar' }, { name: 'b' }, { name: 'a' }] }),
    },
    {
      // kube-apiserver puts a new element where a deleted one was, after the server-only ones.
      name: '$setElementOrder with a deletion: the new element goes after the server-only element',
      original: pod({ containers: [{ name: 'a' }, { name: 'sidecar' }] }),
      patch: pod({ '$setElementOrder/containers': [{ name: 'c' }], containers: [{ name: 'c' }, { name: 'a', $patch: 'delete' }] }),
      result: pod({ containers: [{ name: 'sidecar' }, { name: 'c' }] }),
    },
    {
      name: '$setElementOrder naming an element that is in neither list',
      original: pod({ containers: [{ name: 'a' }, { name: 'c' }] }),
      patch: pod({ '$setElementOrder/containers': [{ name: 'c' }, { name: 'b' }, { name: 'a' }], containers: [{ name: 'c', image: 'c' }] }),
      result: pod({ containers: [{ name: 'c', image: 'c' }, { name: 'a' }] }),
    },
    {
      name: '$setElementOrder for a list the original lacks',
      original: {},
      patch: pod({ '$setElementOrder/containers': [{ name: 'b' }, { name: 'a' }], containers: [{ name: 'b' }, { name: 'a' }] }),
      result: pod({ containers: [{ name: 'b' }, { name: 'a' }] }),
    },
    {
      name: '$retainKeys on deployment strategy: switching to Recreate clears rollingUpdate',
      original: { spec: { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } } } },
      patch: { spec: { strategy: { $retainKeys: ['type'], type: 'Recreate' } } },
      result: { spec: { strategy: { type: 'Recreate' } } },
    },
    {
      name: '$retainKeys in a volume: switching the source from configMap to secret',
      original: pod({ volumes: [{ name: 'cfg', configMap: { name: 'c' } }, { name: 'tmp', emptyDir: {} }] }),
      patch: pod({ volumes: [{ name: 'cfg', $retainKeys: ['name', 'secret'], secret: { secretName: 's' } }] }),
      result: pod({ volumes: [{ name: 'cfg', secret: { secretName: 's' } }, { name: 'tmp', emptyDir: {} }] }),
    },
    {
      name: 'without $retainKeys a retainKeys field merges normally',
      original: { spec: { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '1' } } } },
      patch: { spec: { strategy: { rollingUpdate: { maxUnavailable: '0' } } } },
      result: { spec: { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '1', maxUnavailable: '0' } } } },
    },
  ]);
});

describe('applyStrategicMergePatch: errors', () => {
  const cases: Array<{ name: string; original?: unknown; patch: unknown; message: string | RegExp }> = [
    { name: 'a patch that is an array', patch: [{ op: 'add' }], message: 'a strategic merge patch must be a JSON object, not an array' },
    { name: 'a patch that is null', patch: null, message: 'a strategic merge patch must be a JSON object, not null' },
    { name: 'a patch that is a string', patch: 'x', message: 'a strategic merge patch must be a JSON object, not a string' },
    { name: 'an unknown $patch in a map', patch: { metadata: { $patch: 'explode' } }, original: { metadata: {} }, message: /^unknown patch type: "explode" in map: / },
    {
      name: 'an unknown $patch in a list',
      original: pod({ containers: [{ name: 'a' }] }),
      patch: pod({ containers: [{ name: 'a', $patch: 'explode' }] }),
      message: /^unknown patch type: "explode" in map: /,
    },
    {
      name: '$patch: merge inside a list',
      original: pod({ containers: [{ name: 'a' }] }),
      patch: pod({ containers: [{ $patch: 'merge' }] }),
      message: /^merging lists cannot yet be specified in the patch/,
    },
    {
      name: 'a merged element without its merge key',
      original: pod({ containers: [{ name: 'a', image: 'a' }] }),
      patch: pod({ containers: [{ image: 'b' }] }),
      message: 'map: {"image":"b"} does not contain declared merge key: name',
    },
    {
      name: 'a delete directive without the merge key',
      original: pod({ containers: [{ name: 'a' }] }),
      patch: pod({ containers: [{ $patch: 'delete' }] }),
      message: 'map: {"$patch":"delete"} does not contain declared merge key: name',
    },
    {
      name: '$retainKeys that is not a list',
      original: { spec: { strategy: {} } },
      patch: { spec: { strategy: { $retainKeys: 'type' } } },
      message: /^invalid patch format of retainKeys/,
    },
    {
      name: 'a patch setting a field $retainKeys does not list',
      original: { spec: { strategy: {} } },
      patch: { spec: { strategy: { $retainKeys: ['type'], type: 'Recreate', rollingUpdate: {} } } },
      message: /^invalid patch format of retainKeys: .*spec\.strategy\.rollingUpdate/,
    },
    {
      name: '$deleteFromPrimitiveList that is not a list',
      original: { metadata: { finalizers: ['a'] } },
      patch: { metadata: { '$deleteFromPrimitiveList/finalizers': 'a' } },
      message: /^invalid patch format of primitive list/,
    },
    {
      name: '$deleteFromPrimitiveList without a field name',
      patch: { metadata: { $deleteFromPrimitiveList: ['a'] } },
      original: { metadata: {} },
      message: /^invalid patch format of primitive list/,
    },
    {
      name: '$setElementOrder that is not a list',
      original: { metadata: { finalizers: ['a'] } },
      patch: { metadata: { '$setElementOrder/finalizers': 'a' } },
      message: /^invalid patch format of setElementOrder list/,
    },
    {
      name: '$setElementOrder contradicting the order of the patch list',
      original: pod({ containers: [{ name: 'a' }, { name: 'b' }] }),
      patch: pod({ '$setElementOrder/containers': [{ name: 'a' }, { name: 'b' }], containers: [{ name: 'b', image: 'b' }, { name: 'a', image: 'a' }] }),
      message: /doesn't match \$setElementOrder\/containers list/,
    },
    {
      name: 'a list of lists in a merged list',
      original: { metadata: { finalizers: ['a'] } },
      patch: { metadata: { finalizers: [['b']] } },
      message: /^lists of lists are not supported/,
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      assert.throws(
        () => applyStrategicMergePatch(deepFreeze(c.original ?? {}), deepFreeze(c.patch), deploymentSchema),
        (err: unknown) => {
          assert.ok(err instanceof ApiError, `not an ApiError: ${String(err)}`);
          assert.equal(err.reason, 'BadRequest');
          assert.equal(err.code, 400);
          if (typeof c.message === 'string') assert.equal(err.message, c.message);
          else assert.match(err.message, c.message);
          return true;
        },
      );
    });
  }

  it('a schema with an invalid patch strategy is an internal error', () => {
    const schema: Schema = { type: 'object', properties: { list: { type: 'array', 'x-kubernetes-patch-strategy': 'merge,replace,retainKeys' } } };
    assert.throws(() => applyStrategicMergePatch({ list: [1] }, { list: [2] }, schema), (err: unknown) => err instanceof ApiError && err.code === 500);
  });
});

// ---------------------------------------------------------------------------------------------

describe('createTwoWayMergePatch', () => {
  const cases: Array<{ name: string; original: unknown; modified: unknown; patch: unknown }> = [
    { name: 'no change', original: { metadata: { name: 'x' } }, modified: { metadata: { name: 'x' } }, patch: {} },
    {
      name: 'changed, added and removed fields',
      original: { metadata: { labels: { a: '1', b: '2' } }, spec: { replicas: 1 } },
      modified: { metadata: { labels: { a: '1', c: '3' } }, spec: { replicas: 2 } },
      patch: { metadata: { labels: { b: null, c: '3' } }, spec: { replicas: 2 } },
    },
    {
      name: 'a container changed, one added, one removed',
      original: pod({ containers: [{ name: 'a', image: 'a:1' }, { name: 'b', image: 'b:1' }] }),
      modified: pod({ containers: [{ name: 'a', image: 'a:2' }, { name: 'c', image: 'c:1' }] }),
      patch: pod({
        '$setElementOrder/containers': [{ name: 'a' }, { name: 'c' }],
        containers: [{ name: 'a', image: 'a:2' }, { name: 'c', image: 'c:1' }, { name: 'b', $patch: 'delete' }],
      }),
    },
    {
      name: 'containers reordered only',
      original: pod({ containers: [{ name: 'a' }, { name: 'b' }] }),
      modified: pod({ containers: [{ name: 'b' }, { name: 'a' }] }),
      patch: pod({ '$setElementOrder/containers': [{ name: 'b' }, { name: 'a' }] }),
    },
    {
      name: 'a finalizer removed and one added',
      original: { metadata: { finalizers: ['a', 'b'] } },
      modified: { metadata: { finalizers: ['a', 'c'] } },
      patch: { metadata: { finalizers: ['c'], '$deleteFromPrimitiveList/finalizers': ['b'], '$setElementOrder/finalizers': ['a', 'c'] } },
    },
    {
      name: 'tolerations changed: the whole list',
      original: pod({ tolerations: [{ key: 'a' }, { key: 'b' }] }),
      modified: pod({ tolerations: [{ key: 'a' }] }),
      patch: pod({ tolerations: [{ key: 'a' }] }),
    },
    {
      name: 'deployment strategy switched to Recreate: $retainKeys',
      original: { spec: { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '1' } } } },
      modified: { spec: { strategy: { type: 'Recreate' } } },
      patch: { spec: { strategy: { $retainKeys: ['type'], type: 'Recreate', rollingUpdate: null } } },
    },
    {
      name: 'a volume source switched: $retainKeys in the element',
      original: pod({ volumes: [{ name: 'v', configMap: { name: 'c' } }] }),
      modified: pod({ volumes: [{ name: 'v', secret: { secretName: 's' } }] }),
      patch: pod({
        '$setElementOrder/volumes': [{ name: 'v' }],
        volumes: [{ name: 'v', $retainKeys: ['name', 'secret'], secret: { secretName: 's' }, configMap: null }],
      }),
    },
    {
      name: 'an env var removed deep inside',
      original: pod({ containers: [{ name: 'app', env: [{ name: 'A', value: '1' }, { name: 'B', value: '2' }] }] }),
      modified: pod({ containers: [{ name: 'app', env: [{ name: 'B', value: '2' }] }] }),
      patch: pod({
        '$setElementOrder/containers': [{ name: 'app' }],
        containers: [{ name: 'app', '$setElementOrder/env': [{ name: 'B' }], env: [{ name: 'A', $patch: 'delete' }] }],
      }),
    },
    {
      name: 'a field unknown to the schema: merge-patch diff',
      original: { status: { conditions: [{ type: 'A' }], x: { y: 1, z: 2 } } },
      modified: { status: { conditions: [{ type: 'B' }], x: { y: 1 } } },
      patch: { status: { conditions: [{ type: 'B' }], x: { z: null } } },
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const patch = createTwoWayMergePatch(deepFreeze(c.original), deepFreeze(c.modified), deploymentSchema);
      assert.deepEqual(patch, c.patch);
      assert.deepEqual(apply(c.original, patch), c.modified);
    });
  }
});

describe('createThreeWayMergePatch (kubectl apply)', () => {
  interface ThreeWayCase {
    name: string;
    lastApplied: unknown;
    config: unknown;
    live: unknown;
    patch?: unknown;
    result: unknown;
  }
  const cases: ThreeWayCase[] = [
    {
      name: 'a field removed from the config is removed',
      lastApplied: { metadata: { labels: { app: 'web', tier: 'fe' } } },
      config: { metadata: { labels: { app: 'web' } } },
      live: { metadata: { labels: { app: 'web', tier: 'fe' }, uid: 'u' } },
      patch: { metadata: { labels: { tier: null } } },
      result: { metadata: { labels: { app: 'web' }, uid: 'u' } },
    },
    {
      name: 'a field set by someone else and never in the config is kept',
      lastApplied: { metadata: { labels: { app: 'web' } }, spec: { replicas: 2 } },
      config: { metadata: { labels: { app: 'web' } }, spec: { replicas: 3 } },
      live: { metadata: { labels: { app: 'web', 'team': 'x' }, annotations: { 'deployment.kubernetes.io/revision': '4' } }, spec: { replicas: 2, paused: false } },
      patch: { spec: { replicas: 3 } },
      result: { metadata: { labels: { app: 'web', team: 'x' }, annotations: { 'deployment.kubernetes.io/revision': '4' } }, spec: { replicas: 3, paused: false } },
    },
    {
      name: 'a container removed from the config is deleted; an injected sidecar stays',
      lastApplied: pod({ containers: [{ name: 'app', image: 'app:1' }, { name: 'log', image: 'log:1' }] }),
      config: pod({ containers: [{ name: 'app', image: 'app:2' }] }),
      live: pod({ containers: [{ name: 'app', image: 'app:1' }, { name: 'log', image: 'log:1' }, { name: 'istio-proxy', image: 'proxy' }] }),
      patch: pod({
        '$setElementOrder/containers': [{ name: 'app' }],
        containers: [{ name: 'app', image: 'app:2' }, { name: 'log', $patch: 'delete' }],
      }),
      result: pod({ containers: [{ name: 'app', image: 'app:2' }, { name: 'istio-proxy', image: 'proxy' }] }),
    },
    {
      name: 'a finalizer removed from the config; one added by a controller stays',
      lastApplied: { metadata: { finalizers: ['a', 'b'] } },
      config: { metadata: { finalizers: ['a'] } },
      live: { metadata: { finalizers: ['a', 'b', 'controller'] } },
      patch: { metadata: { '$deleteFromPrimitiveList/finalizers': ['b'], '$setElementOrder/finalizers': ['a'] } },
      result: { metadata: { finalizers: ['a', 'controller'] } },
    },
    {
      name: 'strategy switched to Recreate clears the defaulted rollingUpdate',
      lastApplied: { spec: { replicas: 1 } },
      config: { spec: { replicas: 1, strategy: { type: 'Recreate' } } },
      live: { spec: { replicas: 1, strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } } } },
      patch: { spec: { strategy: { $retainKeys: ['type'], type: 'Recreate' } } },
      result: { spec: { replicas: 1, strategy: { type: 'Recreate' } } },
    },
    {
      name: 'no last-applied configuration: nothing is deleted',
      lastApplied: undefined,
      config: { metadata: { labels: { app: 'web' } } },
      live: { metadata: { labels: { other: 'x' } } },
      patch: { metadata: { labels: { app: 'web' } } },
      result: { metadata: { labels: { other: 'x', app: 'web' } } },
    },
    {
      name: 'an env var changed in the config while someone else added one',
      lastApplied: pod({ containers: [{ name: 'app', env: [{ name: 'A', value: '1' }] }] }),
      config: pod({ containers: [{ name: 'app', env: [{ name: 'A', value: '2' }] }] }),
      live: pod({ containers: [{ name: 'app', env: [{ name: 'A', value: '1' }, { name: 'INJECTED', value: 'x' }] }] }),
      result: pod({ containers: [{ name: 'app', env: [{ name: 'A', value: '2' }, { name: 'INJECTED', value: 'x' }] }] }),
    },
    {
      name: 'the config changes a value someone else changed: the config wins',
      lastApplied: { spec: { replicas: 1 } },
      config: { spec: { replicas: 1 } },
      live: { spec: { replicas: 5 } },
      patch: { spec: { replicas: 1 } },
      result: { spec: { replicas: 1 } },
    },
    {
      name: 'tolerations (replaced) follow the config',
      lastApplied: pod({ tolerations: [{ key: 'a' }] }),
      config: pod({ tolerations: [{ key: 'b' }] }),
      live: pod({ tolerations: [{ key: 'a' }, { key: 'added-by-admission' }] }),
      patch: pod({ tolerations: [{ key: 'b' }] }),
      result: pod({ tolerations: [{ key: 'b' }] }),
    },
    {
      name: 'nothing changed: an empty patch',
      lastApplied: pod({ containers: [{ name: 'a', image: 'a' }] }),
      config: pod({ containers: [{ name: 'a', image: 'a' }] }),
      live: pod({ containers: [{ name: 'a', image: 'a', imagePullPolicy: 'Always' }] }),
      patch: {},
      result: pod({ containers: [{ name: 'a', image: 'a', imagePullPolicy: 'Always' }] }),
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const patch = createThreeWayMergePatch(deepFreeze(c.lastApplied), deepFreeze(c.config), deepFreeze(c.live), deploymentSchema);
      if (c.patch !== undefined) assert.deepEqual(patch, c.patch);
      assert.deepEqual(apply(c.live, patch), c.result);
    });
  }

  it('refuses documents that are not objects', () => {
    assert.throws(() => createThreeWayMergePatch({}, [], {}, deploymentSchema), (err: unknown) => err instanceof ApiError && err.code === 400);
    assert.throws(() => createTwoWayMergePatch('x', {}, deploymentSchema), (err: unknown) => err instanceof ApiError && err.code === 400);
  });
});
