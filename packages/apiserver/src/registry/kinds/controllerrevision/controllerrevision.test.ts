/** ControllerRevision's rules: validation on create and update, and the CONTROLLER cell. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '@setpoint/api';
import { validateControllerRevision, validateControllerRevisionUpdate } from './controllerrevision.js';
import { controllerName } from './table.js';

const rev = (fields: Record<string, unknown>): KubeObject => ({ apiVersion: 'apps/v1', kind: 'ControllerRevision', metadata: { name: 'r' }, ...fields });
const messages = (errs: { toString(): string }[]) => errs.map((e) => e.toString());

describe('validateControllerRevision', () => {
  it('wants data (null counts as none; {} is data) and a revision not below 0', () => {
    assert.deepEqual(messages(validateControllerRevision(rev({ revision: 0 }))), ['data: Required value: data is mandatory']);
    assert.deepEqual(messages(validateControllerRevision(rev({ data: null, revision: 0 }))), ['data: Required value: data is mandatory']);
    assert.deepEqual(messages(validateControllerRevision(rev({ data: {}, revision: 0 }))), []);
    assert.deepEqual(messages(validateControllerRevision(rev({ data: 'x', revision: -2 }))), ['revision: Invalid value: -2: must be greater than or equal to 0']);
  });

  it('keeps data immutable on update, whatever its shape; the revision may change', () => {
    const old = rev({ data: { a: [1, 2] }, revision: 1 });
    assert.deepEqual(validateControllerRevisionUpdate(rev({ data: { a: [1, 2] }, revision: 5 }), old), []);
    const errs = validateControllerRevisionUpdate(rev({ data: { a: [2, 1] }, revision: 1 }), old);
    assert.deepEqual(
      errs.map((e) => [e.field, e.detail]),
      [['data', 'field is immutable']],
    );
    assert.equal(validateControllerRevisionUpdate(rev({ revision: 1 }), old).length, 1, 'removing data changes it');
  });
});

describe('controllerName (the CONTROLLER column)', () => {
  const cases: Array<[string, unknown, string]> = [
    ['no owners', undefined, '<none>'],
    ['owners but no controller', [{ apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'db' }], '<none>'],
    ['a controller in a group', [{ apiVersion: 'v1', kind: 'Pod', name: 'x' }, { apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'agent', controller: true }], 'daemonset.apps/agent'],
    ['a core controller', [{ apiVersion: 'v1', kind: 'Node', name: 'n1', controller: true }], 'node/n1'],
    ['an apiVersion that is no group version', [{ apiVersion: 'a/b/c', kind: 'Thing', name: 't', controller: true }], 'thing/t'],
    ['no kind and no group: the name alone', [{ apiVersion: 'v1', name: 'bare', controller: true }], 'bare'],
    ['garbage entries are skipped', [null, 'x', { apiVersion: 'example.com/v1', kind: 'Widget', name: 'w', controller: true }], 'widget.example.com/w'],
  ];
  for (const [name, owners, want] of cases) it(name, () => assert.equal(controllerName(owners), want));
});
