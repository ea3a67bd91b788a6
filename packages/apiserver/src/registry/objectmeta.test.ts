import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { nameIsDNSLabel, nameIsDNSSubdomain, validatePathSegmentName, type FieldError, type ObjectMeta } from '@setpoint/api';
import { formatMicroTime, goTimeString, validateImmutableField, validateObjectMeta, validateObjectMetaUpdate } from './objectmeta.js';

const LABEL_MSG =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const SUBDOMAIN_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const QUALIFIED_NAME_MSG =
  "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')";

const messages = (errs: FieldError[]) => errs.map((e) => e.toString());

const namespaced = { namespaced: true, nameValidator: nameIsDNSSubdomain };
const clusterScoped = { namespaced: false, nameValidator: nameIsDNSSubdomain };

describe('validateObjectMeta', () => {
  const cases: Array<{ name: string; meta: ObjectMeta; options?: Parameters<typeof validateObjectMeta>[1]; want: string[] }> = [
    { name: 'valid namespaced object', meta: { name: 'a', namespace: 'default' }, want: [] },
    { name: 'valid cluster-scoped object', meta: { name: 'a' }, options: clusterScoped, want: [] },
    {
      name: 'name or generateName required',
      meta: { namespace: 'default' },
      want: ['metadata.name: Required value: name or generateName is required'],
    },
    { name: 'name format', meta: { name: 'Foo', namespace: 'default' }, want: [`metadata.name: Invalid value: "Foo": ${SUBDOMAIN_MSG}`] },
    {
      name: 'generateName format (a trailing dash is fine)',
      meta: { name: 'x-abcde', generateName: 'Web-', namespace: 'default' },
      want: [`metadata.generateName: Invalid value: "Web-": ${SUBDOMAIN_MSG}`],
    },
    {
      name: 'path-segment names',
      meta: { name: 'a/b', namespace: 'default' },
      options: { namespaced: true, nameValidator: validatePathSegmentName },
      want: [`metadata.name: Invalid value: "a/b": may not contain '/'`],
    },
    {
      name: 'DNS-label names',
      meta: { name: 'a.b' },
      options: { namespaced: false, nameValidator: nameIsDNSLabel },
      want: ['metadata.name: Invalid value: "a.b": must not contain dots'],
    },
    { name: 'namespace required', meta: { name: 'a' }, want: ['metadata.namespace: Required value'] },
    { name: 'namespace a DNS label', meta: { name: 'a', namespace: 'Kube' }, want: [`metadata.namespace: Invalid value: "Kube": ${LABEL_MSG}`] },
    {
      name: 'namespace forbidden on cluster-scoped kinds',
      meta: { name: 'a', namespace: 'default' },
      options: clusterScoped,
      want: ['metadata.namespace: Forbidden: not allowed on this type'],
    },
    {
      name: 'generation not negative',
      meta: { name: 'a', namespace: 'default', generation: -1 },
      want: ['metadata.generation: Invalid value: -1: must be greater than or equal to 0'],
    },
    {
      name: 'owner reference fields required (the list path, no index)',
      meta: { name: 'a', namespace: 'default', ownerReferences: [{ apiVersion: '', kind: '', name: '', uid: '' }] },
      want: [
        'metadata.ownerReferences.apiVersion: Invalid value: "": version must not be empty',
        'metadata.ownerReferences.kind: Invalid value: "": must not be empty',
        'metadata.ownerReferences.name: Invalid value: "": must not be empty',
        'metadata.ownerReferences.uid: Invalid value: "": must not be empty',
      ],
    },
    {
      name: 'owner apiVersion with an empty version',
      meta: { name: 'a', namespace: 'default', ownerReferences: [{ apiVersion: 'apps/', kind: 'ReplicaSet', name: 'r', uid: 'u' }] },
      want: ['metadata.ownerReferences.apiVersion: Invalid value: "apps/": version must not be empty'],
    },
    {
      name: 'finalizers: unqualified names must be standard on built-in kinds',
      meta: { name: 'a', namespace: 'default', finalizers: ['kubernetes', 'orphan', 'example.com/x', 'foo'] },
      want: ['metadata.finalizers[3]: Invalid value: "foo": name is neither a standard finalizer name nor is it fully qualified'],
    },
    {
      name: 'finalizers: unqualified names allowed without the standard rule',
      meta: { name: 'a', namespace: 'default', finalizers: ['foo'] },
      options: { ...namespaced, standardFinalizers: false },
      want: [],
    },
    {
      name: 'finalizers: qualified names',
      meta: { name: 'a', namespace: 'default', finalizers: ['a/b/c'] },
      want: [`metadata.finalizers: Invalid value: "a/b/c": ${QUALIFIED_NAME_MSG}`],
    },
    {
      name: 'finalizers: orphan and foregroundDeletion exclusive',
      meta: { name: 'a', namespace: 'default', finalizers: ['orphan', 'foregroundDeletion'] },
      want: ['metadata.finalizers: Invalid value: []string{"orphan", "foregroundDeletion"}: finalizer orphan and foregroundDeletion cannot be both set'],
    },
    {
      name: 'labels and annotations',
      meta: { name: 'a', namespace: 'default', labels: { 'a b': 'x' }, annotations: { '/x': 'y' } },
      want: [
        `metadata.labels: Invalid value: "a b": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
        'metadata.annotations: Invalid value: "/x": prefix part must be non-empty',
      ],
    },
    {
      name: 'managedFields',
      meta: {
        name: 'a',
        namespace: 'default',
        managedFields: [{ manager: 'kubectl', operation: 'Apply', fieldsType: 'FieldsV1' }, { manager: 'm', fieldsType: 'FieldsV2' } as never],
      },
      want: [
        'metadata.managedFields[1].operation: Invalid value: "": must be `Apply` or `Update`',
        'metadata.managedFields[1].fieldsType: Invalid value: "FieldsV2": must be `FieldsV1`',
      ],
    },
    {
      name: 'errors in Kubernetes order',
      meta: { generation: -1, finalizers: ['foo'], labels: { '-': 'x' } },
      want: [
        'metadata.name: Required value: name or generateName is required',
        'metadata.namespace: Required value',
        'metadata.generation: Invalid value: -1: must be greater than or equal to 0',
        `metadata.labels: Invalid value: "-": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
        'metadata.finalizers[0]: Invalid value: "foo": name is neither a standard finalizer name nor is it fully qualified',
      ],
    },
  ];
  for (const c of cases) {
    it(c.name, () => assert.deepEqual(messages(validateObjectMeta(c.meta, c.options ?? namespaced)), c.want));
  }

  it('allows at most one controller reference', () => {
    const refs = [
      { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'a', uid: '1', controller: true },
      { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'b', uid: '2', controller: true },
    ];
    const errs = validateObjectMeta({ name: 'p', namespace: 'default', ownerReferences: refs }, namespaced);
    assert.equal(errs.length, 1);
    assert.equal(errs[0]!.field, 'metadata.ownerReferences');
    assert.equal(errs[0]!.type, 'FieldValueInvalid');
    assert.equal(errs[0]!.detail, 'Only one reference can have Controller set to true. Found "true" in references for ReplicaSet/a and ReplicaSet/b');
  });

  it('refuses an Event as owner', () => {
    const errs = validateObjectMeta(
      { name: 'p', namespace: 'default', ownerReferences: [{ apiVersion: 'v1', kind: 'Event', name: 'e', uid: '1' }] },
      namespaced,
    );
    assert.deepEqual(
      errs.map((e) => [e.field, e.detail]),
      [['metadata.ownerReferences', '/v1, Kind=Event is disallowed from being an owner']],
    );
  });

  it('checks field managers: length and printable characters', () => {
    const errs = validateObjectMeta(
      { name: 'a', namespace: 'default', managedFields: [{ manager: `é\u0007${'x'.repeat(130)}`, operation: 'Update' }] },
      namespaced,
    );
    assert.deepEqual(
      errs.map((e) => [e.field, e.type, e.detail]),
      [
        ['metadata.managedFields[0].manager', 'FieldValueTooLong', 'may not be more than 128 bytes'],
        ['metadata.managedFields[0].manager', 'FieldValueInvalid', 'invalid character U+0007 (at position 2)'],
      ],
    );
  });
});

describe('validateObjectMetaUpdate', () => {
  const old: ObjectMeta = {
    name: 'a',
    namespace: 'default',
    uid: 'u1',
    resourceVersion: '5',
    generation: 2,
    creationTimestamp: '2024-01-01T00:00:00Z',
    finalizers: ['example.com/a'],
  };
  const cases: Array<{ name: string; meta: ObjectMeta; old?: ObjectMeta; want: string[] }> = [
    { name: 'unchanged', meta: { ...old }, want: [] },
    { name: 'fractional timestamps compare as instants', meta: { ...old, creationTimestamp: '2024-01-01T00:00:00.000Z' }, want: [] },
    { name: 'name immutable', meta: { ...old, name: 'b' }, want: ['metadata.name: Invalid value: "b": field is immutable'] },
    { name: 'namespace immutable', meta: { ...old, namespace: 'other' }, want: ['metadata.namespace: Invalid value: "other": field is immutable'] },
    { name: 'uid immutable', meta: { ...old, uid: 'u2' }, want: ['metadata.uid: Invalid value: "u2": field is immutable'] },
    {
      name: 'creationTimestamp immutable (printed as Go prints a time)',
      meta: { ...old, creationTimestamp: '2024-01-02T03:04:05+01:00' },
      want: ['metadata.creationTimestamp: Invalid value: 2024-01-02 02:04:05 +0000 UTC: field is immutable'],
    },
    {
      name: 'generation not decremented',
      meta: { ...old, generation: 1 },
      want: ['metadata.generation: Invalid value: 1: must not be decremented'],
    },
    {
      name: 'deletionTimestamp may not be set by an update',
      meta: { ...old, deletionTimestamp: '2024-06-01T10:00:00Z' },
      want: ['metadata.deletionTimestamp: Invalid value: 2024-06-01 10:00:00 +0000 UTC: field is immutable'],
    },
    {
      name: 'deletionTimestamp may not be removed by an update',
      meta: { ...old },
      old: { ...old, deletionTimestamp: '2024-06-01T10:00:00Z' },
      want: ['metadata.deletionTimestamp: Invalid value: "null": field is immutable'],
    },
    {
      name: 'deletionGracePeriodSeconds may not be set by an update',
      meta: { ...old, deletionGracePeriodSeconds: 30 },
      want: ['metadata.deletionGracePeriodSeconds: Invalid value: 30: field is immutable'],
    },
    {
      name: 'no new finalizers while deleting',
      meta: { ...old, deletionTimestamp: '2024-06-01T10:00:00Z', finalizers: ['example.com/a', 'example.com/c', 'example.com/b'] },
      old: { ...old, deletionTimestamp: '2024-06-01T10:00:00Z' },
      want: [
        'metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"example.com/b", "example.com/c"}',
      ],
    },
    { name: 'finalizers may be removed while deleting', meta: { ...old, deletionTimestamp: 'x', finalizers: [] }, old: { ...old, deletionTimestamp: 'x' }, want: [] },
    {
      name: 'standard finalizer names on the new metadata',
      meta: { ...old, finalizers: ['foo'] },
      want: ['metadata.finalizers[0]: Invalid value: "foo": name is neither a standard finalizer name nor is it fully qualified'],
    },
    {
      name: 'labels of the new metadata',
      meta: { ...old, labels: { a: '-x' } },
      want: [
        `metadata.labels: Invalid value: "-x": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`,
      ],
    },
  ];
  for (const c of cases) {
    it(c.name, () => assert.deepEqual(messages(validateObjectMetaUpdate(c.meta, c.old ?? old)), c.want));
  }
});

describe('helpers', () => {
  it('goTimeString renders times as Go does', () => {
    assert.equal(goTimeString('2026-11-29T15:47:44Z'), '2026-11-29 15:47:44 +0000 UTC');
    assert.equal(goTimeString('2026-11-29T15:47:44.120000Z'), '2026-11-29 15:47:44.12 +0000 UTC');
    assert.equal(goTimeString('2026-11-29T15:47:44.000Z'), '2026-11-29 15:47:44 +0000 UTC');
    assert.equal(goTimeString('2026-11-30T00:47:44+09:00'), '2026-11-29 15:47:44 +0000 UTC');
    assert.equal(goTimeString('not a time'), 'not a time');
  });

  it('formatMicroTime writes six fractional digits in UTC', () => {
    assert.equal(formatMicroTime('2026-11-29T15:47:44Z'), '2026-11-29T15:47:44.000000Z');
    assert.equal(formatMicroTime('2026-11-29T15:47:44.5Z'), '2026-11-29T15:47:44.500000Z');
    assert.equal(formatMicroTime('2026-11-29T15:47:44.123456789Z'), '2026-11-29T15:47:44.123456Z');
    assert.equal(formatMicroTime('2026-11-30T00:47:44.25+09:00'), '2026-11-29T15:47:44.250000Z');
    assert.equal(formatMicroTime('yesterday'), 'yesterday');
  });

  it('validateImmutableField compares deeply', () => {
    assert.deepEqual(validateImmutableField({ a: [1, { b: 2 }] }, { a: [1, { b: 2 }] }, 'spec'), []);
    assert.deepEqual(messages(validateImmutableField('x', 'y', 'type')), ['type: Invalid value: "x": field is immutable']);
  });
});
