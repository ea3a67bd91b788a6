import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { applyMergePatch, createMergePatch } from './merge.js';

/** Freezes a JSON value all the way down, so that any mutation by the code under test throws. */
function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

describe('applyMergePatch', () => {
  // RFC 7386, Appendix A: every example, as [original, patch, result].
  const appendixA: Array<[unknown, unknown, unknown]> = [
    [{ a: 'b' }, { a: 'c' }, { a: 'c' }],
    [{ a: 'b' }, { b: 'c' }, { a: 'b', b: 'c' }],
    [{ a: 'b' }, { a: null }, {}],
    [{ a: 'b', b: 'c' }, { a: null }, { b: 'c' }],
    [{ a: ['b'] }, { a: 'c' }, { a: 'c' }],
    [{ a: 'c' }, { a: ['b'] }, { a: ['b'] }],
    [{ a: { b: 'c' } }, { a: { b: 'd', c: null } }, { a: { b: 'd' } }],
    [{ a: [{ b: 'c' }] }, { a: [1] }, { a: [1] }],
    [['a', 'b'], ['c', 'd'], ['c', 'd']],
    [{ a: 'b' }, ['c'], ['c']],
    [{ a: 'foo' }, null, null],
    [{ a: 'foo' }, 'bar', 'bar'],
    [{ e: null }, { a: 1 }, { e: null, a: 1 }],
    [[1, 2], { a: 'b', c: null }, { a: 'b' }],
    [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
  ];
  for (const [i, [original, patch, result]] of appendixA.entries()) {
    it(`RFC 7386 appendix A example ${i + 1}: ${JSON.stringify(original)} + ${JSON.stringify(patch)}`, () => {
      assert.deepEqual(applyMergePatch(deepFreeze(original), deepFreeze(patch)), result);
    });
  }

  it('RFC 7386 section 3: the example document', () => {
    const target = deepFreeze({
      title: 'Goodbye!',
      author: { givenName: 'John', familyName: 'Doe' },
      tags: ['example', 'sample'],
      content: 'This will be unchanged',
    });
    const patch = deepFreeze({
      title: 'Hello!',
      phoneNumber: '+01-123-456-7890',
      author: { familyName: null },
      tags: ['example'],
    });
    assert.deepEqual(applyMergePatch(target, patch), {
      title: 'Hello!',
      author: { givenName: 'John' },
      tags: ['example'],
      content: 'This will be unchanged',
      phoneNumber: '+01-123-456-7890',
    });
  });

  it('treats a missing or non-object target as {}', () => {
    assert.deepEqual(applyMergePatch(undefined, { a: 1, b: null }), { a: 1 });
    assert.deepEqual(applyMergePatch('text', { a: { b: null, c: 2 } }), { a: { c: 2 } });
  });

  it('returns a fresh tree that shares nothing with its inputs', () => {
    const target = { metadata: { labels: { app: 'web' } }, spec: { replicas: 1 } };
    const patch = { spec: { template: { containers: [{ name: 'c' }] } } };
    const result = applyMergePatch(target, patch) as typeof target & typeof patch;
    assert.notEqual(result.metadata, target.metadata);
    assert.notEqual(result.metadata.labels, target.metadata.labels);
    assert.notEqual(result.spec.template.containers, patch.spec.template.containers);
    result.metadata.labels.app = 'changed';
    result.spec.template.containers[0]!.name = 'changed';
    assert.equal(target.metadata.labels.app, 'web');
    assert.equal(patch.spec.template.containers[0]!.name, 'c');
  });

  it('keeps "__proto__" as a plain data key', () => {
    const patch = JSON.parse('{"__proto__": {"polluted": true}, "a": 1}') as unknown;
    const result = applyMergePatch({}, patch) as Record<string, unknown>;
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    assert.deepEqual(Object.keys(result), ['__proto__', 'a']);
    assert.equal(Object.getPrototypeOf(result), Object.prototype);
  });
});

describe('createMergePatch', () => {
  const cases: Array<{ name: string; original: unknown; modified: unknown; patch: unknown }> = [
    { name: 'identical objects', original: { a: 1, b: { c: [1, 2] } }, modified: { a: 1, b: { c: [1, 2] } }, patch: {} },
    { name: 'changed scalar', original: { a: 'b' }, modified: { a: 'c' }, patch: { a: 'c' } },
    { name: 'added key', original: { a: 'b' }, modified: { a: 'b', b: 'c' }, patch: { b: 'c' } },
    { name: 'removed key', original: { a: 'b', b: 'c' }, modified: { b: 'c' }, patch: { a: null } },
    { name: 'nested change', original: { a: { b: 'c', d: 'e' } }, modified: { a: { b: 'd', d: 'e' } }, patch: { a: { b: 'd' } } },
    { name: 'nested removal', original: { a: { b: 'c', d: 'e' } }, modified: { a: { b: 'c' } }, patch: { a: { d: null } } },
    { name: 'array changed: whole array', original: { a: [1, 2, 3] }, modified: { a: [1, 3] }, patch: { a: [1, 3] } },
    { name: 'equal arrays: nothing', original: { a: [{ x: 1 }] }, modified: { a: [{ x: 1 }] }, patch: {} },
    { name: 'object replaced by scalar', original: { a: { b: 1 } }, modified: { a: 1 }, patch: { a: 1 } },
    { name: 'scalar replaced by object', original: { a: 1 }, modified: { a: { b: 1 } }, patch: { a: { b: 1 } } },
    { name: 'non-object modified', original: { a: 1 }, modified: ['x'], patch: ['x'] },
    { name: 'non-object original', original: 'x', modified: { a: 1 }, patch: { a: 1 } },
    {
      name: 'kubectl label-like change',
      original: { metadata: { name: 'x', labels: { app: 'web', tier: 'fe' } } },
      modified: { metadata: { name: 'x', labels: { app: 'web', env: 'prod' } } },
      patch: { metadata: { labels: { tier: null, env: 'prod' } } },
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const patch = createMergePatch(deepFreeze(c.original), deepFreeze(c.modified));
      assert.deepEqual(patch, c.patch);
      assert.deepEqual(applyMergePatch(c.original, patch), c.modified);
    });
  }

  it('round-trips every RFC 7386 appendix A example whose result has no nested null', () => {
    const pairs: Array<[unknown, unknown]> = [
      [{ a: 'b' }, { a: 'c' }],
      [{ a: 'b', b: 'c' }, { b: 'c' }],
      [{ a: ['b'] }, { a: 'c' }],
      [{ a: { b: 'c' } }, { a: { b: 'd' } }],
      [['a', 'b'], ['c', 'd']],
      [{ a: 'foo' }, null],
      [[1, 2], { a: 'b' }],
    ];
    for (const [original, modified] of pairs) {
      assert.deepEqual(applyMergePatch(original, createMergePatch(original, modified)), modified);
    }
  });
});
