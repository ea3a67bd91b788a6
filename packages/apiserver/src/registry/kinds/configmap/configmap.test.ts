import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FieldError, KubeObject } from '@setpoint/api';
import { base64ErrorOffset, configMapResource, isConfigMapKey, validateConfigMap, validateConfigMapUpdate } from './configmap.js';

const KEY_MSG =
  "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')";

const messages = (errs: FieldError[]) => errs.map((e) => e.toString());
const cm = (fields: Record<string, unknown>): KubeObject => ({ metadata: { name: 'c', namespace: 'default' }, ...fields });

describe('isConfigMapKey', () => {
  const cases: Array<[string, string[]]> = [
    ['key.name', []],
    ['KEY_NAME', []],
    ['.dotfile', []],
    ['a b', [KEY_MSG]],
    ['', [KEY_MSG]],
    ['.', ["must not be '.'"]],
    ['..', ["must not be '..'"]],
    ['..a', ["must not start with '..'"]],
    ['a'.repeat(254), ['must be no more than 253 characters']],
  ];
  for (const [key, want] of cases) it(JSON.stringify(key.slice(0, 20)), () => assert.deepEqual(isConfigMapKey(key), want));
});

describe('base64ErrorOffset (Go base64.StdEncoding)', () => {
  const cases: Array<[string, number]> = [
    ['', -1],
    ['YQ==', -1],
    ['YWI=', -1],
    ['YWJj', -1],
    ['YW\nJj', -1],
    ['YQ', 0],
    ['YWJjZ', 4],
    ['YW!j', 2],
    ['Y===', 1],
    ['YQ=', 3],
    ['YQ=x', 2],
    ['YWI=YQ==', 4],
    ['YWJj====', 4],
  ];
  for (const [s, want] of cases) it(JSON.stringify(s), () => assert.equal(base64ErrorOffset(s), want));
});

describe('validateConfigMap', () => {
  const cases: Array<{ name: string; obj: KubeObject; want: string[] }> = [
    { name: 'valid', obj: cm({ data: { 'a.txt': 'x' }, binaryData: { 'b.bin': 'AAE=' } }), want: [] },
    { name: 'bad data key', obj: cm({ data: { 'a b': 'x' } }), want: [`data[a b]: Invalid value: "a b": ${KEY_MSG}`] },
    { name: 'bad binaryData key', obj: cm({ binaryData: { '..x': 'AA==' } }), want: [`binaryData[..x]: Invalid value: "..x": must not start with '..'`] },
    {
      name: 'a key in both data and binaryData',
      obj: cm({ data: { k: 'x' }, binaryData: { k: 'AA==' } }),
      want: ['data[k]: Invalid value: "k": duplicate of key present in binaryData'],
    },
    {
      name: 'binaryData not base64',
      obj: cm({ binaryData: { k: 'AA=' } }),
      want: ['binaryData[k]: Invalid value: "<secret contents redacted>": illegal base64 data at input byte 3'],
    },
    {
      name: 'more than 1 MiB in all',
      obj: cm({ data: { a: 'x'.repeat(1024 * 1024) }, binaryData: { b: 'AA==' } }),
      want: [': Too long: may not be more than 1048576 bytes'],
    },
    { name: 'exactly 1 MiB', obj: cm({ data: { a: 'x'.repeat(1024 * 1024) } }), want: [] },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(messages(validateConfigMap(c.obj)), c.want));
});

describe('validateConfigMapUpdate', () => {
  const old = cm({ data: { a: '1' }, binaryData: { b: 'AA==' }, immutable: true });
  const cases: Array<{ name: string; obj: KubeObject; old?: KubeObject; want: string[] }> = [
    { name: 'unchanged immutable', obj: cm({ data: { a: '1' }, binaryData: { b: 'AA==' }, immutable: true }), want: [] },
    { name: 'metadata may change', obj: { ...old, metadata: { ...old.metadata, labels: { x: 'y' } } }, want: [] },
    {
      name: 'data changed',
      obj: cm({ data: { a: '2' }, binaryData: { b: 'AA==' }, immutable: true }),
      want: ['data: Forbidden: field is immutable when `immutable` is set'],
    },
    {
      name: 'immutable unset, binaryData dropped',
      obj: cm({ data: { a: '1' } }),
      want: ['immutable: Forbidden: field is immutable when `immutable` is set', 'binaryData: Forbidden: field is immutable when `immutable` is set'],
    },
    { name: 'mutable configmaps change freely', obj: cm({ data: { a: '2' } }), old: cm({ data: { a: '1' } }), want: [] },
    { name: 'becoming immutable', obj: cm({ data: { a: '2' }, immutable: true }), old: cm({ data: { a: '1' } }), want: [] },
    { name: 'empty and absent maps are equal', obj: cm({ data: {}, immutable: true }), old: cm({ immutable: true }), want: [] },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(messages(validateConfigMapUpdate(c.obj, c.old ?? old)), c.want));

  it('is wired into the strategy', () => {
    const ctx = { now: '2026-01-01T00:00:00Z', namespace: 'default' };
    assert.deepEqual(messages(configMapResource.strategy.validateUpdate!(cm({ data: { a: '2' }, immutable: true }), old, ctx)), [
      'data: Forbidden: field is immutable when `immutable` is set',
      'binaryData: Forbidden: field is immutable when `immutable` is set',
    ]);
  });
});
