import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { describePath, fieldElement, FieldPathError, goJson, keyElement, readFieldsV1, valueElement } from './elements.js';

describe('path elements as Go writes them', () => {
  test('strings are escaped as encoding/json escapes them', () => {
    const cases: [string, string][] = [
      ['plain', '"plain"'],
      ['', '""'],
      ['say "hi"', '"say \\"hi\\""'],
      ['back\\slash', '"back\\\\slash"'],
      ['tab\there', '"tab\\there"'],
      ['\u0001', '"\\u0001"'],
      ['\u001f', '"\\u001f"'],
      [' ~', '" ~"'],
      ['a<b', '"a\\u003cb"'],
      ['a>b', '"a\\u003eb"'],
      ['a&b', '"a\\u0026b"'],
      ['line\u2028sep\u2029', '"line\\u2028sep\\u2029"'],
      ['é😀\u007f', '"é😀\u007f"'],
      // Each character alone, as well as among plain ones.
      ['"', '"\\""'],
      ['\\', '"\\\\"'],
      ['<', '"\\u003c"'],
      ['>', '"\\u003e"'],
      ['&', '"\\u0026"'],
      ['\u2028', '"\\u2028"'],
      ['\u2029\u2028', '"\\u2029\\u2028"'],
      ['é', '"é"'],
    ];
    for (const [s, want] of cases) assert.equal(goJson(s), want, JSON.stringify(s));
  });

  test('objects with sorted keys, arrays, numbers, booleans and null', () => {
    assert.equal(goJson({ b: 1, a: [true, null, 'x<'], c: { z: 1.5, y: false } }), '{"a":[true,null,"x\\u003c"],"b":1,"c":{"y":false,"z":1.5}}');
    assert.equal(goJson({ '<k>': 1 }), '{"\\u003ck\\u003e":1}');
    assert.equal(goJson(undefined), 'null');
    assert.equal(goJson(null), 'null');
    assert.equal(goJson([]), '[]');
    assert.equal(goJson({}), '{}');
  });

  test('field, key and value elements', () => {
    assert.equal(fieldElement('spec'), 'f:spec');
    assert.equal(keyElement([['name', 'nginx']]), 'k:{"name":"nginx"}');
    assert.equal(keyElement([['b', 1], ['a', 'x'], ['c', null]]), 'k:{"a":"x","b":1,"c":null}');
    assert.equal(keyElement([['a"b', 'v']]), 'k:{"a\\"b":"v"}');
    assert.equal(valueElement(3), 'v:3');
    assert.equal(valueElement({ b: 1, a: 2 }), 'v:{"a":2,"b":1}');
  });

  test('paths print as in Kubernetes messages', () => {
    assert.equal(describePath([]), '');
    assert.equal(describePath(['f:spec', 'f:replicas']), '.spec.replicas');
    assert.equal(describePath(['f:ports', keyElement([['port', 80], ['protocol', 'TCP']])]), '.ports[port=80,protocol="TCP"]');
    assert.equal(describePath(['f:x', 'k:{"a":null,"b":true,"c":[1,"s"],"d":{"e":1,"f":"g"}}']), '.x[a=null,b=true,c=[1,"s"],d=e=1f="g"]');
    assert.equal(describePath(['f:finalizers', valueElement('a')]), '.finalizers[="a"]');
    assert.equal(describePath(['f:ints', valueElement(7)]), '.ints[=7]');
    assert.equal(describePath(['f:v', 'v:not json']), '.v[="not json"]');
    assert.equal(describePath(['f:items', 'i:0']), '.items[0]');
    assert.equal(describePath(['f:a', 'x:y', '.']), '.a{{invalid path element}}{{invalid path element}}');
  });
});

describe('readFieldsV1', () => {
  const refuses = (fields: unknown, message: string) =>
    assert.throws(() => readFieldsV1(fields), (err: unknown) => err instanceof FieldPathError && err.message === message, message);

  test('refuses what is not a tree of objects, saying where', () => {
    refuses(null, 'fieldsV1 must be an object');
    refuses('f:a', 'fieldsV1 must be an object');
    refuses([], 'fieldsV1 must be an object');
    refuses({ 'f:a': { 'f:b': null } }, 'fieldsV1: the value of "f:b" must be an object');
    refuses({ 'f:a': [] }, 'fieldsV1: the value of "f:a" must be an object');
    refuses({ 'f:a': 'x' }, 'fieldsV1: the value of "f:a" must be an object');
  });

  test('the error is a FieldPathError by name', () => {
    assert.throws(() => readFieldsV1(null), (err: unknown) => err instanceof Error && err.name === 'FieldPathError');
  });

  test('an element may have an empty body (a field named "")', () => {
    assert.deepEqual(readFieldsV1({ 'f:': {}, 'f:a': { 'f:': {} } }), { 'f:': {}, 'f:a': { 'f:': {} } });
  });

  test('what is below an element of an unknown type is not read', () => {
    assert.deepEqual(readFieldsV1({ 'f:a': { 'z:new': { 'f:b': 'not an object', 'bad': {} } } }), { 'f:a': {} });
  });

  test('refuses malformed elements', () => {
    refuses({ f: {} }, 'key must be 2 characters long: "f"');
    refuses({ 'fa': {} }, 'key must be 2 characters long: "fa"');
    refuses({ 'i:x': {} }, 'invalid index path element: "i:x"');
    refuses({ 'i:1.5': {} }, 'invalid index path element: "i:1.5"');
    refuses({ 'k:[1]': {} }, 'key path element is not an object: "k:[1]"');
    refuses({ 'k:null': {} }, 'key path element is not an object: "k:null"');
    refuses({ 'k:"s"': {} }, 'key path element is not an object: "k:\\"s\\""');
    assert.throws(() => readFieldsV1({ 'v:{': {} }), (err: unknown) => err instanceof FieldPathError && err.message.startsWith('parsing key as path element: '));
    assert.throws(() => readFieldsV1({ 'f:a': { 'k:{x': {} } }), (err: unknown) => err instanceof FieldPathError && err.message.startsWith('parsing key as path element: '));
  });

  test('puts elements in canonical form, the same each time it reads them', () => {
    for (let round = 0; round < 2; round++) {
      assert.deepEqual(readFieldsV1({ 'f:l': { 'i:007': {}, 'i:-0': {}, 'v:"\\u0041<"': {}, 'v: 1': { '.': {} } } }), { 'f:l': { 'i:7': {}, 'i:0': {}, 'v:"A\\u003c"': {}, 'v:1': { '.': {} } } });
    }
    assert.deepEqual(readFieldsV1({ 'k:{"b":2,"a":1}': { 'f:x': {} } }), { 'k:{"a":1,"b":2}': { 'f:x': {} } });
  });

  test('a member marker with content is read as a plain marker; unknown element types go with what is below them', () => {
    assert.deepEqual(readFieldsV1({ 'f:a': { '.': { 'f:junk': {} }, 'f:b': {} } }), { 'f:a': { '.': {}, 'f:b': {} } });
    assert.deepEqual(readFieldsV1({ 'f:a': { 'z:new': { 'f:b': {} } } }), { 'f:a': {} });
    assert.deepEqual(readFieldsV1({ 'z:new': {} }), {});
  });

  test('returns the tree itself when it is canonical, a new tree otherwise (the input untouched)', () => {
    const canonical = { 'f:a': { '.': {}, 'k:{"name":"x"}': { 'f:b': {} } } };
    assert.equal(readFieldsV1(canonical), canonical);
    const client = { 'f:a': { 'k:{"name": "x"}': { 'f:b': {} } }, 'f:c': {} };
    const read = readFieldsV1(client);
    assert.notEqual(read, client);
    assert.deepEqual(read, { 'f:a': { 'k:{"name":"x"}': { 'f:b': {} } }, 'f:c': {} });
    assert.equal(read['f:c'], client['f:c'], 'unchanged subtrees are shared');
    assert.deepEqual(client, { 'f:a': { 'k:{"name": "x"}': { 'f:b': {} } }, 'f:c': {} });
  });

  test('reads trees as deep as the API server accepts objects, not deeper', () => {
    const nest = (depth: number) => {
      let tree: Record<string, unknown> = {};
      for (let i = 0; i < depth; i++) tree = { 'f:a': tree };
      return tree;
    };
    const deep = nest(1001);
    assert.equal(readFieldsV1(deep), deep);
    // The bound: 1100 levels below the root.
    const deepest = nest(1100);
    assert.equal(readFieldsV1(deepest), deepest);
    assert.throws(() => readFieldsV1(nest(1101)), (err: unknown) => err instanceof FieldPathError && err.message === 'fieldsV1 is nested too deeply');
    assert.throws(() => readFieldsV1(nest(1200)), (err: unknown) => err instanceof FieldPathError && err.message === 'fieldsV1 is nested too deeply');
  });
});
