import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FieldError, KubeObject } from '@setpoint/api';
import { defaultSecret, secretResource, validateSecret, validateSecretUpdate } from './secret.js';

const KEY_MSG =
  "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')";

const messages = (errs: FieldError[]) => errs.map((e) => e.toString());
const secret = (fields: Record<string, unknown>, annotations?: Record<string, string>): KubeObject => ({
  metadata: annotations === undefined ? { name: 's', namespace: 'default' } : { name: 's', namespace: 'default', annotations },
  ...fields,
});
const b64 = (s: string) => Buffer.from(s).toString('base64');

describe('defaultSecret', () => {
  it('defaults type to Opaque', () => {
    const s = secret({});
    defaultSecret(s);
    assert.equal(s['type'], 'Opaque');
  });

  it('keeps a type', () => {
    const s = secret({ type: 'kubernetes.io/tls' });
    defaultSecret(s);
    assert.equal(s['type'], 'kubernetes.io/tls');
  });

  it('merges stringData into data as base64, overriding, and drops it', () => {
    const s = secret({ data: { a: b64('old'), b: b64('kept') }, stringData: { a: 'new', 'c.txt': 'héllo' } });
    defaultSecret(s);
    assert.deepEqual(s['data'], { a: b64('new'), b: b64('kept'), 'c.txt': b64('héllo') });
    assert.equal('stringData' in s, false);
  });

  it('drops an empty stringData', () => {
    const s = secret({ stringData: {} });
    defaultSecret(s);
    assert.equal('stringData' in s, false);
    assert.equal('data' in s, false);
  });
});

describe('validateSecret', () => {
  const cases: Array<{ name: string; obj: KubeObject; want: string[] }> = [
    { name: 'valid opaque', obj: secret({ type: 'Opaque', data: { password: b64('x') } }), want: [] },
    { name: 'bad key', obj: secret({ type: 'Opaque', data: { 'a/b': b64('x') } }), want: [`data[a/b]: Invalid value: "a/b": ${KEY_MSG}`] },
    {
      name: 'value not base64',
      obj: secret({ type: 'Opaque', data: { a: 'not base64!' } }),
      want: ['data[a]: Invalid value: "<secret contents redacted>": illegal base64 data at input byte 3'],
    },
    {
      name: 'more than 1 MiB decoded',
      obj: secret({ type: 'Opaque', data: { a: Buffer.alloc(1024 * 1024 + 1).toString('base64') } }),
      want: ['data: Too long: may not be more than 1048576 bytes'],
    },
    {
      name: 'service account token needs the account name annotation',
      obj: secret({ type: 'kubernetes.io/service-account-token' }),
      want: ['metadata.annotations[kubernetes.io/service-account.name]: Required value'],
    },
    {
      name: 'service account token with the annotation',
      obj: secret({ type: 'kubernetes.io/service-account-token' }, { 'kubernetes.io/service-account.name': 'default' }),
      want: [],
    },
    { name: 'tls needs cert and key', obj: secret({ type: 'kubernetes.io/tls', data: {} }), want: ['data[tls.crt]: Required value', 'data[tls.key]: Required value'] },
    { name: 'tls complete', obj: secret({ type: 'kubernetes.io/tls', data: { 'tls.crt': b64('c'), 'tls.key': b64('k') } }), want: [] },
    {
      name: 'basic auth needs username or password (Kubernetes prints "data[%s]")',
      obj: secret({ type: 'kubernetes.io/basic-auth', data: {} }),
      want: ['data[%s][username]: Required value', 'data[%s][password]: Required value'],
    },
    { name: 'basic auth with a username', obj: secret({ type: 'kubernetes.io/basic-auth', data: { username: b64('u') } }), want: [] },
    {
      name: 'ssh auth needs a private key',
      obj: secret({ type: 'kubernetes.io/ssh-auth', data: { 'ssh-privatekey': '' } }),
      want: ['data[%s][ssh-privatekey]: Required value'],
    },
    {
      name: 'dockerconfigjson needs its key',
      obj: secret({ type: 'kubernetes.io/dockerconfigjson', data: {} }),
      want: ['data[.dockerconfigjson]: Required value'],
    },
    { name: 'dockerconfigjson valid', obj: secret({ type: 'kubernetes.io/dockerconfigjson', data: { '.dockerconfigjson': b64('{"auths":{}}') } }), want: [] },
    { name: 'unknown types are not checked', obj: secret({ type: 'example.com/custom', data: {} }), want: [] },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(messages(validateSecret(c.obj)), c.want));

  it('reports malformed docker config JSON', () => {
    const errs = validateSecret(secret({ type: 'kubernetes.io/dockerconfigjson', data: { '.dockerconfigjson': b64('{') } }));
    assert.equal(errs.length, 1);
    assert.equal(errs[0]!.field, 'data[.dockerconfigjson]');
    assert.equal(errs[0]!.value, '<secret contents redacted>');
  });
});

describe('validateSecretUpdate', () => {
  const old = secret({ type: 'Opaque', data: { a: b64('1') }, immutable: true });
  const cases: Array<{ name: string; obj: KubeObject; old?: KubeObject; want: string[] }> = [
    { name: 'unchanged', obj: secret({ type: 'Opaque', data: { a: b64('1') }, immutable: true }), want: [] },
    {
      name: 'type immutable',
      obj: secret({ type: 'kubernetes.io/tls', data: { a: b64('1') }, immutable: true }),
      want: ['type: Invalid value: "kubernetes.io/tls": field is immutable'],
    },
    {
      name: 'data immutable when immutable',
      obj: secret({ type: 'Opaque', data: { a: b64('2') }, immutable: true }),
      want: ['data: Forbidden: field is immutable when `immutable` is set'],
    },
    {
      name: 'immutable cannot be unset',
      obj: secret({ type: 'Opaque', data: { a: b64('1') }, immutable: false }),
      want: ['immutable: Forbidden: field is immutable when `immutable` is set'],
    },
    { name: 'mutable secrets change', obj: secret({ type: 'Opaque', data: { a: b64('2') } }), old: secret({ type: 'Opaque', data: { a: b64('1') } }), want: [] },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(messages(validateSecretUpdate(c.obj, c.old ?? old)), c.want));

  it('stringData on an immutable secret changes data', () => {
    const obj = secret({ type: 'Opaque', data: { a: b64('1') }, stringData: { a: '2' }, immutable: true });
    secretResource.strategy.defaults!(obj);
    assert.deepEqual(messages(validateSecretUpdate(obj, old)), ['data: Forbidden: field is immutable when `immutable` is set']);
  });
});

describe('secretResource', () => {
  it('selects by type', () => {
    assert.equal(secretResource.fieldSelectors!['type']!(secret({ type: 'kubernetes.io/tls' })), 'kubernetes.io/tls');
    assert.equal(secretResource.fieldSelectors!['type']!(secret({})), '');
  });
});
