import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { NamespaceCondition } from '@setpoint/api';
import { failingConditions, groupDiscoveryFailureMessage, mergeNamespaceConditions, namespaceConditionTypes, type ContentObservation } from './conditions.js';

const clean: ContentObservation = { contentFailures: [], remaining: [], finalizers: new Map() };

describe('namespace conditions', () => {
  it('reports nothing failing for a clean pass, and all five ok conditions once merged', () => {
    assert.deepEqual(failingConditions(clean), []);
    const { conditions, changed } = mergeNamespaceConditions(undefined, [], 'T1');
    assert.equal(changed, true);
    assert.deepEqual(
      conditions.map((c) => [c.type, c.status, c.reason, c.message]),
      [
        ['NamespaceDeletionDiscoveryFailure', 'False', 'ResourcesDiscovered', 'All resources successfully discovered'],
        ['NamespaceDeletionGroupVersionParsingFailure', 'False', 'ParsedGroupVersions', 'All legacy kube types successfully parsed'],
        ['NamespaceDeletionContentFailure', 'False', 'ContentDeleted', 'All content successfully deleted, may be waiting on finalization'],
        ['NamespaceContentRemaining', 'False', 'ContentRemoved', 'All content successfully removed'],
        ['NamespaceFinalizersRemaining', 'False', 'ContentRemoved', 'All content successfully removed'],
      ],
    );
  });

  it('words remaining content, finalizers and failures as Kubernetes does', () => {
    const failing = failingConditions({
      discoveryFailure: groupDiscoveryFailureMessage(new Map([['metrics.k8s.io/v1beta1', new Error('the server is currently unable to handle the request')]])),
      groupVersionFailure: 'unexpected GroupVersion string: a/b/c',
      contentFailures: ['z failed', 'a failed'],
      remaining: [
        { resource: 'pods', group: '', count: 2 },
        { resource: 'configmaps', group: '', count: 1 },
        { resource: 'deployments', group: 'apps', count: 0 },
      ],
      finalizers: new Map([
        ['example.com/b', 1],
        ['example.com/a', 2],
      ]),
    });
    assert.deepEqual(
      failing.map((c) => [c.type, c.status, c.reason, c.message]),
      [
        [
          'NamespaceDeletionDiscoveryFailure',
          'True',
          'DiscoveryFailed',
          'Discovery failed for some groups, 1 failing: unable to retrieve the complete list of server APIs: metrics.k8s.io/v1beta1: the server is currently unable to handle the request',
        ],
        ['NamespaceDeletionGroupVersionParsingFailure', 'True', 'GroupVersionParsingFailed', 'unexpected GroupVersion string: a/b/c'],
        ['NamespaceDeletionContentFailure', 'True', 'ContentDeletionFailed', 'Failed to delete all resource types, 2 remaining: a failed, z failed'],
        ['NamespaceContentRemaining', 'True', 'SomeResourcesRemain', 'Some resources are remaining: configmaps. has 1 resource instances, pods. has 2 resource instances'],
        ['NamespaceFinalizersRemaining', 'True', 'SomeFinalizerRemain', 'Some finalizers are remaining: example.com/a in 2 resource instances, example.com/b in 1 resource instances'],
      ],
    );
  });

  it('changes nothing when nothing changed; moves lastTransitionTime only on a status flip; keeps foreign conditions', () => {
    const foreign: NamespaceCondition = { type: 'example.com/Other', status: 'True', lastTransitionTime: 'T0' };
    const first = mergeNamespaceConditions([foreign], failingConditions({ ...clean, remaining: [{ resource: 'configmaps', group: '', count: 1 }] }), 'T1');
    assert.equal(first.conditions.length, 1 + namespaceConditionTypes.length);
    assert.deepEqual(first.conditions[0], foreign);

    const again = mergeNamespaceConditions(first.conditions, failingConditions({ ...clean, remaining: [{ resource: 'configmaps', group: '', count: 1 }] }), 'T2');
    assert.equal(again.changed, false, 'the same observation is not written again');

    const fewer = mergeNamespaceConditions(first.conditions, failingConditions({ ...clean, remaining: [{ resource: 'configmaps', group: '', count: 2 }] }), 'T3');
    const remaining = fewer.conditions.find((c) => c.type === 'NamespaceContentRemaining')!;
    assert.equal(fewer.changed, true);
    assert.equal(remaining.lastTransitionTime, 'T1', 'a message change is not a transition');

    const done = mergeNamespaceConditions(fewer.conditions, [], 'T4');
    assert.equal(done.conditions.find((c) => c.type === 'NamespaceContentRemaining')?.lastTransitionTime, 'T4');
    assert.equal(done.conditions.find((c) => c.type === 'NamespaceDeletionDiscoveryFailure')?.lastTransitionTime, 'T1');
  });
});
