import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Schema } from '../schema.js';
import { describePath } from './elements.js';
import { pathsOf, setOf, setsEqual, union } from './fieldset.js';
import { compare, createdFieldSet, ensureNamedFieldsAreMembers, merge, removeItems, toFieldSet, TypedValueError, validateConfiguration } from './typed.js';
import { deploymentSchema } from './testdata.test-support.js';
import { typeOf } from './types.js';

const str: Schema = { type: 'string' };
const int: Schema = { type: 'integer' };
const deployment = typeOf(deploymentSchema);
const paths = (set: Parameters<typeof pathsOf>[0]) => pathsOf(set).map(describePath);

describe('toFieldSet', () => {
  test("Kubernetes' documented ConfigMap example", () => {
    const cm = typeOf({ type: 'object', properties: { metadata: deploymentSchema.properties!.metadata!, data: { type: 'object', additionalProperties: str } } });
    const config = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'test-cm', namespace: 'default', labels: { 'test-label': 'test' } }, data: { key: 'some value' } };
    assert.deepEqual(toFieldSet(config, cm), {
      'f:apiVersion': {},
      'f:kind': {},
      'f:metadata': { 'f:name': {}, 'f:namespace': {}, 'f:labels': { 'f:test-label': {} } },
      'f:data': { 'f:key': {} },
    });
  });

  test('keyed list items are members; a missing key field takes its schema default; atomic values are leaves', () => {
    const config = {
      spec: {
        replicas: 2,
        selector: { matchLabels: { app: 'web' } },
        template: {
          spec: {
            nodeSelector: { disk: 'ssd' },
            containers: [{ name: 'nginx', image: 'nginx:1', args: ['-g'], ports: [{ containerPort: 80 }], env: [{ name: 'A', value: '1' }] }],
          },
        },
      },
    };
    assert.deepEqual(paths(toFieldSet(config, deployment)), [
      '.spec.replicas',
      '.spec.selector',
      '.spec.template.spec.nodeSelector',
      '.spec.template.spec.containers[name="nginx"]',
      '.spec.template.spec.containers[name="nginx"].args',
      '.spec.template.spec.containers[name="nginx"].image',
      '.spec.template.spec.containers[name="nginx"].name',
      '.spec.template.spec.containers[name="nginx"].env[name="A"]',
      '.spec.template.spec.containers[name="nginx"].env[name="A"].name',
      '.spec.template.spec.containers[name="nginx"].env[name="A"].value',
      '.spec.template.spec.containers[name="nginx"].ports[containerPort=80,protocol="TCP"]',
      '.spec.template.spec.containers[name="nginx"].ports[containerPort=80,protocol="TCP"].containerPort',
    ]);
  });

  test('sets are identified by value; null and empty-map fields are members; unknown fields are typed by their value', () => {
    const config = { metadata: { finalizers: ['a', 'b'] }, spec: { template: { metadata: null }, extra: { deep: { x: 1 } } } };
    assert.deepEqual(paths(toFieldSet(config, deployment)), [
      '.metadata.finalizers[="a"]',
      '.metadata.finalizers[="b"]',
      '.spec.extra',
      '.spec.extra.deep',
      '.spec.extra.deep.x',
      '.spec.template.metadata',
    ]);
  });

  test('items without their keys are refused', () => {
    assert.throws(() => toFieldSet({ spec: { template: { spec: { containers: [{ image: 'x' }] } } } }, deployment), (err: Error) => {
      assert.equal(err instanceof TypedValueError, true);
      assert.equal(err.message, '.spec.template.spec.containers: associative list with keys has an element that omits all key fields ["name"] (and doesn\'t have default values for any key fields)');
      return true;
    });
  });

  test('a value of another shape than its schema is refused as structured-merge-diff refuses it; null is any shape', () => {
    const message = (value: unknown) => {
      try {
        validateConfiguration(value, deployment);
        return 'accepted';
      } catch (err) {
        assert.equal(err instanceof TypedValueError, true);
        return (err as Error).message;
      }
    };
    assert.equal(message({ metadata: 'web' }), '.metadata: expected map, got &{web}');
    assert.equal(message({ metadata: [1, 'a', null] }), '.metadata: expected map, got &{[1 a <nil>]}');
    assert.equal(message({ spec: { template: { spec: { containers: { b: [true], a: 1 } } } } }), '.spec.template.spec.containers: expected list, got &{map[a:1 b:[true]]}');
    assert.equal(message({ metadata: { finalizers: 5 } }), '.metadata.finalizers: expected list, got &{5}');
    assert.equal(message({ metadata: null, spec: { selector: null, template: { spec: { containers: null } } } }), 'accepted');
    // An unknown field is typed by its value: any shape.
    assert.equal(message({ spec: { extra: 'x' }, other: [1] }), 'accepted');
  });

  test('duplicate keys in an applied configuration are refused', () => {
    assert.throws(() => validateConfiguration({ spec: { template: { spec: { containers: [{ name: 'a' }, { name: 'a' }] } } } }, deployment), /duplicate entries for key \[name="a"\]/);
  });
});

describe('compare', () => {
  test('leaves are added, removed or modified; new structs are added with their content', () => {
    const before = { spec: { replicas: 1, paused: true, template: { spec: { containers: [{ name: 'a', image: 'x' }] } } } };
    const after = { spec: { replicas: 2, template: { spec: { containers: [{ name: 'a', image: 'x' }, { name: 'b', image: 'y' }] } } }, status: { replicas: 2 } };
    const c = compare(before, after, deployment);
    assert.deepEqual(paths(c.modified), ['.spec.replicas']);
    assert.deepEqual(paths(c.removed), ['.spec.paused']);
    assert.deepEqual(paths(c.added), [
      '.status',
      '.spec.template.spec.containers[name="b"]',
      '.spec.template.spec.containers[name="b"].image',
      '.spec.template.spec.containers[name="b"].name',
      '.status.replicas',
    ]);
  });

  test('an atomic value changes as a whole', () => {
    const c = compare({ spec: { selector: { matchLabels: { a: '1' } } } }, { spec: { selector: { matchLabels: { a: '2' } } } }, deployment);
    assert.deepEqual(paths(c.modified), ['.spec.selector']);
  });
});

describe('merge (structured-merge-diff cases)', () => {
  const setSchema = typeOf({ type: 'object', properties: { setStr: { type: 'array', items: str, 'x-kubernetes-list-type': 'set' }, setBool: { type: 'array', items: { type: 'boolean' }, 'x-kubernetes-list-type': 'set' }, setNumeric: { type: 'array', items: { type: 'number' }, 'x-kubernetes-list-type': 'set' } } });
  const cases: Array<[unknown, unknown, unknown]> = [
    [{ setStr: ['a', 'b', 'c'] }, { setStr: ['a', 'b'] }, { setStr: ['a', 'b', 'c'] }],
    [{ setStr: ['a', 'b'] }, { setStr: ['a', 'b', 'c'] }, { setStr: ['a', 'b', 'c'] }],
    [{ setStr: ['a', 'b', 'c'] }, { setStr: [] }, { setStr: ['a', 'b', 'c'] }],
    [{ setStr: [] }, { setStr: ['a', 'b', 'c'] }, { setStr: ['a', 'b', 'c'] }],
    [{ setStr: ['a', 'b'] }, { setStr: ['b', 'a'] }, { setStr: ['b', 'a'] }],
    [{ setStr: ['a', 'b', 'c'] }, { setStr: ['d', 'e', 'f'] }, { setStr: ['a', 'b', 'c', 'd', 'e', 'f'] }],
    [{ setStr: ['a', 'b', 'c', 'g', 'f'] }, { setStr: ['c', 'd', 'e', 'f'] }, { setStr: ['a', 'b', 'c', 'g', 'd', 'e', 'f'] }],
    [{ setStr: ['c', 'd', 'e', 'f'] }, { setStr: ['a', 'c', 'e'] }, { setStr: ['a', 'c', 'd', 'e', 'f'] }],
    [{ setStr: ['a', 'b', 'c', 'x', 'y', 'z'] }, { setStr: ['d', 'e', 'f', 'x', 'y', 'z'] }, { setStr: ['a', 'b', 'c', 'd', 'e', 'f', 'x', 'y', 'z'] }],
    [{ setStr: ['c', 'a', 'g', 'f'] }, { setStr: ['c', 'f', 'a', 'g'] }, { setStr: ['c', 'f', 'a', 'g'] }],
    [{ setStr: ['a', 'b', 'c', 'd'] }, { setStr: ['d', 'e', 'f', 'a'] }, { setStr: ['b', 'c', 'd', 'e', 'f', 'a'] }],
    [{ setStr: ['c', 'd', 'e', 'f', 'g', 'h', 'i', 'j'] }, { setStr: ['2', 'h', '3', 'e', '4', 'k', 'l'] }, { setStr: ['c', 'd', 'f', 'g', '2', 'h', 'i', 'j', '3', 'e', '4', 'k', 'l'] }],
    [
      { setStr: ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j'] },
      { setStr: ['1', 'b', '2', 'h', '3', 'e', '4', 'k', 'l'] },
      { setStr: ['a', '1', 'b', 'c', 'd', 'f', 'g', '2', 'h', 'i', 'j', '3', 'e', '4', 'k', 'l'] },
    ],
    // Duplicates in the live list.
    [{ setStr: ['a', 'b', 'b'] }, { setStr: ['c'] }, { setStr: ['a', 'b', 'b', 'c'] }],
    [{ setStr: ['a', 'b', 'b'] }, { setStr: ['b'] }, { setStr: ['a', 'b'] }],
    [{ setStr: ['a', 'b', 'b'] }, { setStr: ['a'] }, { setStr: ['a', 'b', 'b'] }],
    [{ setStr: ['a', 'b', 'c', 'd', 'e', 'c'] }, { setStr: ['1', 'b', '2', 'e', 'd'] }, { setStr: ['a', '1', 'b', 'c', '2', 'e', 'c', 'd'] }],
    [{ setStr: ['a', 'b', 'c', 'd', 'e', 'c'] }, { setStr: ['1', 'b', '2', 'c', 'e', 'd'] }, { setStr: ['a', '1', 'b', '2', 'c', 'e', 'd'] }],
    [{ setStr: ['a', 'a', 'b', 'b'] }, { setStr: ['b', 'c', 'd'] }, { setStr: ['a', 'a', 'b', 'c', 'd'] }],
    // Orders of structured-merge-diff v4.4.2's loop itself (run in Go on random merges), each one a
    // case the ones above do not tell apart from a slightly different loop.
    [{ setStr: ['c', 'c', 'c', 'e'] }, { setStr: ['c', 'a'] }, { setStr: ['c', 'a', 'e'] }],
    [{ setStr: ['a', 'a', 'a', 'c', 'c', 'c'] }, { setStr: ['d', 'a', 'b'] }, { setStr: ['d', 'a', 'b', 'c', 'c', 'c'] }],
    [{ setStr: ['a', 'c', 'd', 'd', 'c', 'b', 'b'] }, { setStr: ['c', 'd', 'a'] }, { setStr: ['c', 'd', 'b', 'b', 'a'] }],
    [{ setStr: ['g', 'g', 'd', 'g', 'c', 'e'] }, { setStr: ['a', 'g', 'c', 'f'] }, { setStr: ['a', 'g', 'd', 'c', 'e', 'f'] }],
    [{ setStr: ['e', 'e', 'd', 'a', 'c'] }, { setStr: ['c', 'd', 'b', 'e'] }, { setStr: ['a', 'c', 'd', 'b', 'e'] }],
    [{ setStr: ['b', 'f', 'f'] }, { setStr: ['e', 'b', 'a', 'f'] }, { setStr: ['e', 'b', 'a', 'f'] }],
    [{ setBool: [true] }, { setBool: [false] }, { setBool: [true, false] }],
    [{ setNumeric: [1, 2, 3.14159] }, { setNumeric: [1, 2, 3] }, { setNumeric: [1, 2, 3.14159, 3] }],
    [{ setBool: [true, false, true] }, { setBool: [true] }, { setBool: [true, false] }],
  ];
  for (const [live, config, want] of cases) {
    test(`${JSON.stringify(live)} + ${JSON.stringify(config)}`, () => {
      assert.deepEqual(merge(live, config, setSchema), want);
    });
  }

  const keyed = typeOf({
    type: 'object',
    properties: {
      list: {
        type: 'array',
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['key', 'id'],
        items: { type: 'object', properties: { key: str, id: int, value: { type: 'object', additionalProperties: str }, bv: { type: 'boolean' }, nv: int } },
      },
      atomicList: { type: 'array', items: str, 'x-kubernetes-list-type': 'atomic' },
    },
  });
  const keyedCases: Array<[unknown, unknown, unknown]> = [
    [{ list: [{ key: 'a', id: 1, value: { a: 'a' } }] }, { list: [{ key: 'a', id: 2, value: { a: 'a' } }] }, { list: [{ key: 'a', id: 1, value: { a: 'a' } }, { key: 'a', id: 2, value: { a: 'a' } }] }],
    [{ list: [{ key: 'b', id: 2 }] }, { list: [{ key: 'a', id: 1 }, { key: 'b', id: 2 }, { key: 'c', id: 3 }] }, { list: [{ key: 'a', id: 1 }, { key: 'b', id: 2 }, { key: 'c', id: 3 }] }],
    [{ list: [{ key: 'a', id: 1 }, { key: 'b', id: 2 }, { key: 'c', id: 3 }] }, { list: [{ key: 'c', id: 3 }, { key: 'b', id: 2 }] }, { list: [{ key: 'a', id: 1 }, { key: 'c', id: 3 }, { key: 'b', id: 2 }] }],
    [{ list: [{ key: 'a', id: 1 }, { key: 'b', id: 2 }, { key: 'c', id: 3 }] }, { list: [{ key: 'c', id: 3 }, { key: 'a', id: 1 }] }, { list: [{ key: 'b', id: 2 }, { key: 'c', id: 3 }, { key: 'a', id: 1 }] }],
    [{ atomicList: ['a', 'b', 'c'] }, { atomicList: [] }, { atomicList: [] }],
    [
      { list: [{ key: 'a', id: 1, bv: true }, { key: 'b', id: 2 }, { key: 'a', id: 1, bv: false, nv: 2 }] },
      { list: [{ key: 'a', id: 1, nv: 3 }, { key: 'c', id: 3 }, { key: 'b', id: 2 }] },
      { list: [{ key: 'a', id: 1, nv: 3 }, { key: 'c', id: 3 }, { key: 'b', id: 2 }] },
    ],
    [{ list: [{ key: 'a', id: 1, nv: 1 }, { key: 'a', id: 1, nv: 2 }] }, { list: [] }, { list: [{ key: 'a', id: 1, nv: 1 }, { key: 'a', id: 1, nv: 2 }] }],
    // Maps merge key by key inside an item.
    [{ list: [{ key: 'a', id: 1, value: { x: '1' }, bv: true }] }, { list: [{ key: 'a', id: 1, value: { y: '2' } }] }, { list: [{ key: 'a', id: 1, value: { x: '1', y: '2' }, bv: true }] }],
  ];
  for (const [live, config, want] of keyedCases) {
    test(`keyed ${JSON.stringify(live)} + ${JSON.stringify(config)}`, () => {
      assert.deepEqual(merge(live, config, keyed), want);
    });
  }

  test('null in a configuration removes the field; inputs are untouched', () => {
    const live = { spec: { replicas: 3, paused: true } };
    assert.deepEqual(merge(live, { spec: { paused: null } }, deployment), { spec: { replicas: 3 } });
    assert.deepEqual(live, { spec: { replicas: 3, paused: true } });
  });
});

describe('removeItems and named fields', () => {
  test('a member goes with everything below it; a map left empty goes too', () => {
    const obj = { metadata: { name: 'x', labels: { a: '1' } }, spec: { replicas: 1, template: { spec: { containers: [{ name: 'a', image: 'x' }, { name: 'b', image: 'y' }] } } } };
    const out = removeItems(obj, setOf(['f:metadata', 'f:labels', 'f:a'], ['f:spec', 'f:template', 'f:spec', 'f:containers', 'k:{"name":"a"}'], ['f:spec', 'f:template', 'f:spec', 'f:containers', 'k:{"name":"b"}', 'f:image']), deployment);
    assert.deepEqual(out, { metadata: { name: 'x' }, spec: { replicas: 1, template: { spec: { containers: [{ name: 'b' }] } } } });
  });

  test('named fields with members below become members; map keys do not', () => {
    const set = setOf(['f:metadata', 'f:labels', 'f:a'], ['f:spec', 'f:template', 'f:spec', 'f:containers', 'k:{"name":"a"}', 'f:image']);
    assert.deepEqual(paths(ensureNamedFieldsAreMembers(set, deployment)), [
      '.metadata',
      '.spec',
      '.metadata.labels',
      '.metadata.labels.a',
      '.spec.template',
      '.spec.template.spec',
      '.spec.template.spec.containers',
      '.spec.template.spec.containers[name="a"].image',
    ]);
  });
});

describe('createdFieldSet', () => {
  test('equals what a comparison with an empty object reports as added or modified', () => {
    const objects: unknown[] = [
      { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'x', labels: { a: '1' }, finalizers: ['f', 'f'] }, spec: {}, status: { replicas: 1 } },
      { metadata: { name: 'x' }, spec: { replicas: 1, paused: null, selector: { matchLabels: { a: '1' } }, template: { metadata: {}, spec: { containers: [{ name: 'a', args: [], ports: [{ containerPort: 80 }] }, { name: 'a' }, { name: 'b', env: [] }] } } } },
      { metadata: {}, spec: null, extra: { deep: [1, 2], empty: {} } },
    ];
    for (const obj of objects) {
      const c = compare({ metadata: {}, spec: {}, status: {} }, obj, deployment);
      assert.ok(setsEqual(createdFieldSet(obj, deployment, new Set(['metadata', 'spec', 'status'])), union(c.added, c.modified)), JSON.stringify(obj));
    }
  });
});
