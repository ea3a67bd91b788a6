import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { bodiesAllowed, microTime, responseStatusOf, sourceIPs, withoutManagedFields } from './event.js';

describe('audit events', () => {
  it('never allow bodies for Secrets, TokenRequests and authentication.k8s.io', () => {
    assert.equal(bodiesAllowed('', 'secrets', ''), false);
    assert.equal(bodiesAllowed('', 'secrets', 'status'), false);
    assert.equal(bodiesAllowed('', 'serviceaccounts', 'token'), false);
    assert.equal(bodiesAllowed('authentication.k8s.io', 'tokenreviews', ''), false);
    assert.equal(bodiesAllowed('authentication.k8s.io', 'selfsubjectreviews', ''), false);
    assert.equal(bodiesAllowed('', 'serviceaccounts', ''), true);
    assert.equal(bodiesAllowed('', 'configmaps', ''), true);
    assert.equal(bodiesAllowed('example.com', 'secrets', ''), true, 'a custom resource named secrets is the policy\'s business');
  });

  it("print times as Kubernetes' MicroTime", () => {
    assert.equal(microTime(Date.UTC(2026, 4, 1, 10, 0, 0, 123) * 1000 + 456), '2026-05-01T10:00:00.123456Z');
    assert.equal(microTime(Date.UTC(2026, 4, 1) * 1000), '2026-05-01T00:00:00.000000Z');
  });

  it('record a success by its code, a failure by its Status', () => {
    assert.deepEqual(responseStatusOf(200, { kind: 'ConfigMap' }), { metadata: {}, code: 200 });
    assert.deepEqual(responseStatusOf(404, { kind: 'Status', status: 'Failure', message: 'configmaps "x" not found', reason: 'NotFound', code: 404 }), {
      metadata: {},
      status: 'Failure',
      message: 'configmaps "x" not found',
      reason: 'NotFound',
      code: 404,
    });
    assert.deepEqual(responseStatusOf(404, '404 page not found'), { metadata: {}, code: 404 });
  });

  it('list valid forwarded addresses, then the connection\'s, each once', () => {
    assert.deepEqual(sourceIPs('::ffff:127.0.0.1', '10.0.0.1, garbage, 10.0.0.2', '10.0.0.1'), ['10.0.0.1', '10.0.0.2', '127.0.0.1']);
    assert.deepEqual(sourceIPs('::1', undefined, undefined), ['::1']);
    assert.deepEqual(sourceIPs(undefined, ['<script>', '2001:db8::1'], undefined), ['2001:db8::1']);
  });

  it('leave managedFields out of objects and list items', () => {
    const obj = { metadata: { name: 'a', managedFields: [{ manager: 'x' }] }, data: { k: 'v' } };
    assert.deepEqual(withoutManagedFields(obj), { metadata: { name: 'a' }, data: { k: 'v' } });
    assert.equal(obj.metadata.managedFields.length, 1, 'the original is not changed');
    assert.deepEqual(withoutManagedFields({ kind: 'ConfigMapList', metadata: {}, items: [obj] }), { kind: 'ConfigMapList', metadata: {}, items: [{ metadata: { name: 'a' }, data: { k: 'v' } }] });
  });
});
