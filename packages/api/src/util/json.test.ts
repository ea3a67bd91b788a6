import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { jsonClone, jsonEqual } from './json.js';

describe('jsonClone', () => {
  it('copies nested objects and arrays so that changing the copy leaves the original alone', () => {
    const original = { metadata: { name: 'a', labels: { app: 'web' } }, spec: { containers: [{ name: 'c', ports: [{ containerPort: 80 }] }] }, n: 1, ok: true, none: null };
    const copy = jsonClone(original);
    assert.deepEqual(copy, original);
    assert.notEqual(copy.metadata, original.metadata);
    assert.notEqual(copy.spec.containers[0], original.spec.containers[0]);
    copy.metadata.labels.app = 'changed';
    copy.spec.containers[0]!.ports.push({ containerPort: 443 });
    assert.equal(original.metadata.labels.app, 'web');
    assert.equal(original.spec.containers[0]!.ports.length, 1);
  });

  it('copies frozen objects into unfrozen ones, and keeps undefined members', () => {
    const frozen = Object.freeze({ a: Object.freeze({ b: 1 }), u: undefined });
    const copy = jsonClone(frozen) as { a: { b: number }; u: undefined };
    assert.equal(Object.isFrozen(copy), false);
    copy.a.b = 2;
    assert.equal(frozen.a.b, 1);
    assert.ok('u' in copy);
  });

  it('copies a "__proto__" key as an own property, never as the prototype', () => {
    const parsed = JSON.parse('{"__proto__": {"polluted": true}, "x": 1}') as Record<string, unknown>;
    const copy = jsonClone(parsed);
    assert.equal(Object.getPrototypeOf(copy), Object.prototype);
    assert.equal((copy as { polluted?: unknown }).polluted, undefined);
    assert.deepEqual(Object.keys(copy), ['__proto__', 'x']);
    assert.equal(JSON.stringify(copy), JSON.stringify(parsed));
  });

  it('copies what is not a plain object (a Date) with structuredClone', () => {
    const when = new Date(0);
    const copy = jsonClone({ when });
    assert.ok(copy.when instanceof Date);
    assert.notEqual(copy.when, when);
    assert.equal(copy.when.getTime(), 0);
  });

  it('agrees with JSON round trips on the values the API serves', () => {
    const values: unknown[] = [0, 'x', null, [], {}, [[1, [2]], { a: [{}] }], { 'a.b/c': { '': [null, false] } }];
    for (const v of values) assert.ok(jsonEqual(jsonClone(v), JSON.parse(JSON.stringify(v))));
  });
});
