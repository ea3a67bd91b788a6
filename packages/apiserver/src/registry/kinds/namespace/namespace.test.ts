import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FieldError, KubeObject } from '@setpoint/api';
import { namespaceResource, validateNamespace, validateNamespaceStatusUpdate } from './namespace.js';

const QUALIFIED_NAME_MSG =
  "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')";

const ctx = { now: '2026-01-01T00:00:00Z', namespace: '' };
const messages = (errs: FieldError[]) => errs.map((e) => e.toString());
const ns = (fields: Record<string, unknown> = {}, meta: Record<string, unknown> = {}): KubeObject => ({ metadata: { name: 'team-a', ...meta }, ...fields });
const { strategy } = namespaceResource;

describe('namespace defaults', () => {
  it('labels the namespace with its name and defaults the phase', () => {
    const obj = ns({}, { labels: { a: 'b', 'kubernetes.io/metadata.name': 'wrong' } });
    strategy.defaults!(obj);
    assert.deepEqual(obj.metadata.labels, { a: 'b', 'kubernetes.io/metadata.name': 'team-a' });
    assert.deepEqual(obj['status'], { phase: 'Active' });
  });

  it('keeps a phase', () => {
    const obj = ns({ status: { phase: 'Terminating' } });
    strategy.defaults!(obj);
    assert.deepEqual(obj['status'], { phase: 'Terminating' });
  });

  it('starts Active with the kubernetes finalizer', () => {
    const obj = ns({ status: { phase: 'Terminating', conditions: [] } });
    strategy.prepareForCreate!(obj, ctx);
    assert.deepEqual(obj['spec'], { finalizers: ['kubernetes'] });
    assert.deepEqual(obj['status'], { phase: 'Active' });
    assert.equal(obj.metadata.labels?.['kubernetes.io/metadata.name'], 'team-a');
  });

  it('appends the kubernetes finalizer to others, once', () => {
    const a = ns({ spec: { finalizers: ['example.com/x'] } });
    strategy.prepareForCreate!(a, ctx);
    assert.deepEqual(a['spec'], { finalizers: ['example.com/x', 'kubernetes'] });
    const b = ns({ spec: { finalizers: ['kubernetes'] } });
    strategy.prepareForCreate!(b, ctx);
    assert.deepEqual(b['spec'], { finalizers: ['kubernetes'] });
  });

  it('keeps spec.finalizers on update', () => {
    const old = ns({ spec: { finalizers: ['kubernetes'] }, status: { phase: 'Active' } });
    const obj = ns({ spec: { finalizers: [] } });
    strategy.prepareForUpdate!(obj, old, ctx);
    assert.deepEqual(obj['spec'], { finalizers: ['kubernetes'] });
    const none = ns({ spec: { finalizers: ['kubernetes'] } });
    strategy.prepareForUpdate!(none, ns(), ctx);
    assert.deepEqual(none['spec'], {});
  });
});

describe('validateNamespace', () => {
  const cases: Array<{ name: string; obj: KubeObject; want: string[] }> = [
    { name: 'standard and qualified finalizers', obj: ns({ spec: { finalizers: ['kubernetes', 'example.com/x'] } }), want: [] },
    {
      name: 'unqualified non-standard finalizer',
      obj: ns({ spec: { finalizers: ['custom'] } }),
      want: ['spec.finalizers: Invalid value: "custom": name is neither a standard finalizer name nor is it fully qualified'],
    },
    {
      name: 'finalizer not a qualified name',
      obj: ns({ spec: { finalizers: ['a/b/c'] } }),
      want: [`spec.finalizers: Invalid value: "a/b/c": ${QUALIFIED_NAME_MSG}`],
    },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(messages(validateNamespace(c.obj)), c.want));
});

describe('validateNamespaceStatusUpdate', () => {
  const cases: Array<{ name: string; obj: KubeObject; want: string[] }> = [
    { name: 'active', obj: ns({ status: { phase: 'Active' } }), want: [] },
    { name: 'terminating while deleted', obj: ns({ status: { phase: 'Terminating' } }, { deletionTimestamp: '2026-01-01T00:00:00Z' }), want: [] },
    {
      name: 'terminating without deletionTimestamp',
      obj: ns({ status: { phase: 'Terminating' } }),
      want: ["status.Phase: Invalid value: \"Terminating\": may only be 'Active' if `deletionTimestamp` is empty"],
    },
    {
      name: 'active while deleted',
      obj: ns({ status: { phase: 'Active' } }, { deletionTimestamp: '2026-01-01T00:00:00Z' }),
      want: ["status.Phase: Invalid value: \"Active\": may only be 'Terminating' if `deletionTimestamp` is not empty"],
    },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(messages(validateNamespaceStatusUpdate(c.obj)), c.want));
});

describe('namespaceResource', () => {
  it('is cluster-scoped, with DNS-label names and a phase field selector', () => {
    assert.equal(namespaceResource.namespaced, false);
    assert.deepEqual(namespaceResource.shortNames, ['ns']);
    const { more, ...subresources } = namespaceResource.subresources!;
    assert.deepEqual(subresources, { status: true });
    assert.deepEqual(Object.keys(more ?? {}), ['finalize']);
    assert.deepEqual([more!.finalize!.verbs, more!.finalize!.handler], [['update'], undefined]);
    assert.deepEqual(namespaceResource.verbs, ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch']);
    assert.deepEqual(namespaceResource.nameValidator!('a.b', false), ['must not contain dots']);
    assert.equal(namespaceResource.fieldSelectors!['status.phase']!(ns({ status: { phase: 'Active' } })), 'Active');
    assert.equal(namespaceResource.fieldSelectors!['status.phase']!(ns()), '');
  });

  it('spec.finalizers hold a namespace being deleted; a pending deletion makes it Terminating; finalize changes only spec.finalizers', () => {
    assert.deepEqual(namespaceResource.blockingFinalizers!(ns({ spec: { finalizers: ['kubernetes', 'example.com/x'] } })), ['kubernetes', 'example.com/x']);
    assert.deepEqual(namespaceResource.blockingFinalizers!(ns({ spec: {} })), []);
    assert.deepEqual(namespaceResource.blockingFinalizers!(ns()), []);
    const deleting = ns({ status: { phase: 'Active', conditions: [] } });
    namespaceResource.strategy.prepareForDelete!(deleting);
    assert.deepEqual(deleting.status, { phase: 'Terminating', conditions: [] });
    const old = ns({ metadata: { name: 'a', labels: { x: 'y' } }, spec: { finalizers: ['kubernetes'], other: 1 }, status: { phase: 'Terminating' } });
    const merge = namespaceResource.subresources!.more!.finalize!.merge!;
    const next = merge(ns({ metadata: { name: 'a', labels: { x: 'changed' } }, spec: { finalizers: [] }, status: { phase: 'Active' } }), old);
    assert.deepEqual(next, { ...old, spec: { finalizers: [], other: 1 } });
    assert.deepEqual(merge(ns({ metadata: { name: 'a' } }), old).spec, { finalizers: [], other: 1 });
    assert.deepEqual(old.spec, { finalizers: ['kubernetes'], other: 1 }, 'the stored object is not changed');
  });
});
