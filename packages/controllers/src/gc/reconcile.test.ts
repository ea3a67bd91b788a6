import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { OwnerReference } from '@setpoint/api';
import { FOREGROUND_FINALIZER, ORPHAN_FINALIZER } from './graph.js';
import {
  classifyReference,
  decideDependent,
  invalidNamespaceMessage,
  ownerLookupNamespace,
  policyOfFinalizers,
  referencesWithout,
  unblockedReferences,
  type DependentFacts,
} from './reconcile.js';

const r = (uid: string, extra: Partial<OwnerReference> = {}): OwnerReference => ({ apiVersion: 'v1', kind: 'ConfigMap', name: `cm-${uid}`, uid, ...extra });
const leaf: DependentFacts = { finalizers: [], hasDependents: false, dependentDeletingDependents: false };

describe('gc decisions', () => {
  it('looks a namespaced owner up in the dependent’s namespace, a cluster-scoped one cluster-wide', () => {
    assert.equal(ownerLookupNamespace('team-a', true), 'team-a');
    assert.equal(ownerLookupNamespace('team-a', false), '');
    assert.equal(ownerLookupNamespace('', false), '');
    assert.equal(ownerLookupNamespace('', true), 'invalid', 'a cluster-scoped dependent cannot have a namespaced owner');
  });

  it('classifies a reference: absent or another uid is dangling', () => {
    assert.equal(classifyReference(r('1'), undefined), 'dangling');
    assert.equal(classifyReference(r('1'), { metadata: { uid: '2' } }), 'dangling');
    assert.equal(classifyReference(r('1'), { metadata: { uid: '1' } }), 'solid');
    assert.equal(classifyReference(r('1'), { metadata: { uid: '1', deletionTimestamp: 'x', finalizers: [FOREGROUND_FINALIZER] } }), 'waitingForDependentsDeletion');
    assert.equal(classifyReference(r('1'), { metadata: { uid: '1', deletionTimestamp: 'x', finalizers: ['other'] } }), 'solid');
  });

  it('keeps a dependent with a live owner and strips its dead references', () => {
    assert.deepEqual(decideDependent({ solid: [r('1')], dangling: [], waitingForDependentsDeletion: [] }, leaf), { action: 'keep' });
    assert.deepEqual(decideDependent({ solid: [r('1')], dangling: [r('2')], waitingForDependentsDeletion: [r('3')] }, leaf), { action: 'removeReferences', uids: ['2', '3'] });
  });

  it('deletes a dependent without live owners, with the policy its own finalizers ask for', () => {
    const none = { solid: [], dangling: [r('2')], waitingForDependentsDeletion: [] };
    assert.deepEqual(decideDependent(none, leaf), { action: 'delete', policy: 'Background', unblockFirst: false });
    assert.deepEqual(decideDependent(none, { ...leaf, finalizers: [ORPHAN_FINALIZER] }), { action: 'delete', policy: 'Orphan', unblockFirst: false });
    assert.deepEqual(decideDependent(none, { ...leaf, finalizers: [FOREGROUND_FINALIZER] }), { action: 'delete', policy: 'Foreground', unblockFirst: false });
    assert.equal(policyOfFinalizers([FOREGROUND_FINALIZER, ORPHAN_FINALIZER]), 'Orphan');
  });

  it('deletes the dependent of a foreground-deleting owner in the foreground when it has dependents of its own', () => {
    const waiting = { solid: [], dangling: [], waitingForDependentsDeletion: [r('1')] };
    assert.deepEqual(decideDependent(waiting, leaf), { action: 'delete', policy: 'Background', unblockFirst: false });
    assert.deepEqual(decideDependent(waiting, { ...leaf, hasDependents: true }), { action: 'delete', policy: 'Foreground', unblockFirst: false });
    assert.deepEqual(decideDependent(waiting, { ...leaf, hasDependents: true, dependentDeletingDependents: true }), { action: 'delete', policy: 'Foreground', unblockFirst: true });
  });

  it('edits references', () => {
    assert.deepEqual(referencesWithout([r('1'), r('2')], ['1']), [r('2')]);
    assert.deepEqual(unblockedReferences([r('1', { blockOwnerDeletion: true }), r('2')]), [r('1', { blockOwnerDeletion: false }), r('2')]);
  });

  it('words the OwnerRefInvalidNamespace message as Kubernetes does', () => {
    assert.equal(
      invalidNamespaceMessage({ apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: 'u1' }, 'ns-b'),
      'ownerRef [v1/ConfigMap, namespace: ns-b, name: owner, uid: u1] does not exist in namespace "ns-b"',
    );
  });
});
