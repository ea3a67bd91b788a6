import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Pod, ReplicaSet } from '@setpoint/api';
import { compareForDeletion, podDeletionCost, podsToDelete, POD_DELETION_COST } from './ranking.js';
import { isPodActive, isPodAvailable } from './pods.js';
import {
  adoptionPatch,
  calculateStatus,
  claimDecision,
  nextAvailableAfterMs,
  podFromTemplate,
  relatedPods,
  releasePatch,
  replicaAction,
  replicaSetsForOrphan,
  rfc3339,
  selectorOf,
  slowStartBatch,
  slowStartBatches,
} from './reconcile.js';

const NOW = Date.parse('2026-01-10T12:00:00Z');
const ago = (s: number) => rfc3339(NOW - s * 1000);

interface PodSpecOptions {
  name?: string;
  uid?: string;
  node?: string;
  phase?: 'Pending' | 'Running' | 'Unknown' | 'Succeeded' | 'Failed';
  /** Seconds ago it became ready; undefined: not ready. */
  readyFor?: number;
  /** Seconds ago it was created; null: no creationTimestamp. */
  age?: number | null;
  restarts?: number;
  sidecarRestarts?: number;
  cost?: string;
  labels?: Record<string, string>;
  owner?: string;
  deleting?: boolean;
}

function pod(o: PodSpecOptions = {}): Pod {
  const name = o.name ?? o.uid ?? 'p';
  return {
    metadata: {
      name,
      namespace: 'ns',
      uid: o.uid ?? name,
      resourceVersion: '7',
      labels: o.labels ?? { app: 'web' },
      ...(o.age === null ? {} : { creationTimestamp: ago(o.age ?? 100) }),
      ...(o.cost !== undefined ? { annotations: { [POD_DELETION_COST]: o.cost } } : {}),
      ...(o.owner !== undefined ? { ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'x', uid: o.owner, controller: true }] } : {}),
      ...(o.deleting ? { deletionTimestamp: ago(0) } : {}),
    },
    spec: {
      containers: [{ name: 'c', image: 'i' }],
      initContainers: [{ name: 'side', image: 'i', restartPolicy: 'Always' }],
      ...(o.node !== undefined ? { nodeName: o.node } : { nodeName: 'n1' }),
    },
    status: {
      phase: o.phase ?? 'Running',
      conditions: o.readyFor === undefined ? [{ type: 'Ready', status: 'False' }] : [{ type: 'Ready', status: 'True', lastTransitionTime: ago(o.readyFor) }],
      containerStatuses: [{ name: 'c', ready: true, restartCount: o.restarts ?? 0, image: 'i', imageID: '' }],
      initContainerStatuses: [{ name: 'side', ready: true, restartCount: o.sidecarRestarts ?? 0, image: 'i', imageID: '' }],
    },
  };
}

function replicaSet(o: { replicas?: number; minReadySeconds?: number; generation?: number; status?: ReplicaSet['status']; deleting?: boolean; controller?: string; name?: string; selector?: Record<string, string> } = {}): ReplicaSet {
  return {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: {
      name: o.name ?? 'web',
      namespace: 'ns',
      uid: `uid-${o.name ?? 'web'}`,
      generation: o.generation ?? 3,
      ...(o.deleting ? { deletionTimestamp: ago(0) } : {}),
      ...(o.controller ? { ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'd', uid: o.controller, controller: true }] } : {}),
    },
    spec: {
      replicas: o.replicas ?? 3,
      minReadySeconds: o.minReadySeconds ?? 0,
      selector: { matchLabels: o.selector ?? { app: 'web' } },
      template: { metadata: { labels: { app: 'web', tier: 'front' }, annotations: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
    },
    ...(o.status ? { status: o.status } : {}),
  };
}

describe('replicaAction: the difference, bounded by burstReplicas', () => {
  const table: Array<[desired: number, active: number, burst: number | undefined, want: ReturnType<typeof replicaAction>]> = [
    [3, 3, undefined, { kind: 'none' }],
    [3, 0, undefined, { kind: 'create', count: 3 }],
    [0, 4, undefined, { kind: 'delete', count: 4 }],
    [5, 2, undefined, { kind: 'create', count: 3 }],
    [1000, 0, undefined, { kind: 'create', count: 500 }],
    [0, 1000, undefined, { kind: 'delete', count: 500 }],
    [10, 0, 4, { kind: 'create', count: 4 }],
    [0, 10, 4, { kind: 'delete', count: 4 }],
  ];
  for (const [desired, active, burst, want] of table) {
    it(`desired ${desired}, active ${active}, burst ${burst ?? 'default'} → ${JSON.stringify(want)}`, () => {
      assert.deepEqual(replicaAction(desired, active, burst), want);
    });
  }
});

describe('slow start', () => {
  const table: Array<[count: number, initial: number, want: number[]]> = [
    [0, 1, []],
    [1, 1, [1]],
    [2, 1, [1, 1]],
    [3, 1, [1, 2]],
    [7, 1, [1, 2, 4]],
    [10, 1, [1, 2, 4, 3]],
    [10, 3, [3, 6, 1]],
    [500, 1, [1, 2, 4, 8, 16, 32, 64, 128, 245]],
  ];
  for (const [count, initial, want] of table) {
    it(`batches of ${count} from ${initial}: ${want.join(', ') || 'none'}`, () => {
      assert.deepEqual(slowStartBatches(count, initial), want);
    });
  }

  const runs: Array<[name: string, count: number, failOnCall: (n: number) => boolean, calls: number, successes: number, failed: boolean]> = [
    ['every call succeeds', 10, () => false, 10, 10, false],
    ['every call fails: one call only', 10, () => true, 1, 0, true],
    ['the 4th call fails: its batch (calls 4-7) finishes, no later batch runs', 10, (n) => n === 4, 7, 6, true],
    ['the last call fails', 7, (n) => n === 7, 7, 6, true],
  ];
  for (const [name, count, failOnCall, calls, successes, failed] of runs) {
    it(name, async () => {
      let made = 0;
      const result = await slowStartBatch(count, 1, async () => {
        made++;
        if (failOnCall(made)) throw new Error(`call ${made} failed`);
      });
      assert.equal(made, calls);
      assert.equal(result.successes, successes);
      assert.equal(result.error !== undefined, failed);
    });
  }

  it('stops before a batch when told to', async () => {
    let made = 0;
    const result = await slowStartBatch(10, 1, async () => void made++, () => made < 3);
    assert.deepEqual([made, result.successes, result.error], [3, 3, undefined]);
  });
});

describe('deletion ranking (ActivePodsWithRanks)', () => {
  // [why, the pod deleted first, the other]
  const table: Array<[string, PodSpecOptions, PodSpecOptions]> = [
    ['unassigned before assigned', { node: '', readyFor: 5, age: 1000 }, { node: 'n1', phase: 'Pending' }],
    ['Pending before Unknown', { phase: 'Pending' }, { phase: 'Unknown' }],
    ['Unknown before Running', { phase: 'Unknown' }, { phase: 'Running' }],
    ['Pending before Running', { phase: 'Pending', readyFor: 5 }, { phase: 'Running' }],
    ['not ready before ready', {}, { readyFor: 5 }],
    ['lower deletion cost before higher', { readyFor: 5, cost: '-5' }, { readyFor: 5, cost: '10' }],
    ['an invalid deletion cost counts as 0', { readyFor: 5, cost: 'x' }, { readyFor: 5, cost: '1' }],
    ['ready for less time before more (log scale)', { readyFor: 10, age: 2000 }, { readyFor: 1000, age: 10 }],
    ['more restarts before fewer', { readyFor: 100, restarts: 3, age: 1000 }, { readyFor: 100, restarts: 1, age: 10 }],
    ['then more sidecar restarts before fewer', { readyFor: 100, sidecarRestarts: 2, age: 1000 }, { readyFor: 100, age: 10 }],
    ['newer before older (log scale)', { age: 10 }, { age: 1000 }],
    ['no creationTimestamp before any', { age: null }, { age: 10 }],
    ['same log2 bucket: by uid', { uid: 'a', age: 100 }, { uid: 'b', age: 101 }],
  ];
  for (const [why, first, second] of table) {
    it(why, () => {
      const a = pod({ uid: 'a', ...first });
      const b = pod({ uid: 'b', ...second });
      assert.ok(compareForDeletion({ pod: a, rank: 0 }, { pod: b, rank: 0 }, NOW) < 0, 'a first');
      assert.ok(compareForDeletion({ pod: b, rank: 0 }, { pod: a, rank: 0 }, NOW) > 0, 'and symmetric');
      assert.deepEqual(podsToDelete([b, a], [], 1, NOW), [a]);
    });
  }

  it('doubled up (more related pods on its node) before not', () => {
    const crowded = pod({ uid: 'z', node: 'crowded', readyFor: 5 });
    const quiet = pod({ uid: 'b', node: 'quiet', readyFor: 5 });
    const related = [crowded, quiet, pod({ uid: 'c', node: 'crowded' }), pod({ uid: 'd', node: 'other' }), pod({ uid: 'e', node: 'quiet', deleting: true })];
    assert.deepEqual(podsToDelete([quiet, crowded], related, 1, NOW), [crowded]);
    assert.deepEqual(podsToDelete([quiet, crowded], [], 1, NOW), [quiet], 'without related pods the uid decides');
  });

  it('returns every pod, unsorted, when asked for as many or more; none for 0', () => {
    const pods = [pod({ uid: 'x' }), pod({ uid: 'y', node: '' })];
    assert.deepEqual(podsToDelete(pods, [], 5, NOW), pods);
    assert.deepEqual(podsToDelete(pods, [], 0, NOW), []);
  });

  it('orders a mixed set as Kubernetes would', () => {
    const pods = [
      pod({ uid: 'ready-old', readyFor: 5000, age: 6000 }),
      pod({ uid: 'pending', phase: 'Pending' }),
      pod({ uid: 'unassigned', node: '', phase: 'Pending' }),
      pod({ uid: 'not-ready', phase: 'Running' }),
      pod({ uid: 'ready-new', readyFor: 5, age: 6 }),
    ];
    assert.deepEqual(
      podsToDelete(pods, [], 4, NOW).map((p) => p.metadata.uid),
      ['unassigned', 'pending', 'not-ready', 'ready-new'],
    );
  });

  it('parses pod-deletion-cost as an int32', () => {
    const table: Array<[string | undefined, number]> = [[undefined, 0], ['12', 12], ['-3', -3], ['+4', 4], ['2147483648', 0], ['1.5', 0], ['', 0]];
    for (const [value, want] of table) assert.equal(podDeletionCost(pod(value === undefined ? {} : { cost: value })), want, String(value));
  });
});

describe('pods', () => {
  it('active: not finished, not being deleted', () => {
    assert.equal(isPodActive(pod()), true);
    assert.equal(isPodActive(pod({ phase: 'Pending' })), true);
    assert.equal(isPodActive(pod({ phase: 'Succeeded' })), false);
    assert.equal(isPodActive(pod({ phase: 'Failed' })), false);
    assert.equal(isPodActive(pod({ deleting: true })), false);
  });
  it('available: ready for strictly more than minReadySeconds', () => {
    const table: Array<[readyFor: number | undefined, minReady: number, want: boolean]> = [
      [undefined, 0, false],
      [0, 0, true],
      [10, 5, true],
      [5, 5, false],
      [4, 5, false],
    ];
    for (const [readyFor, minReady, want] of table) assert.equal(isPodAvailable(pod(readyFor === undefined ? {} : { readyFor }), minReady, NOW), want, `${readyFor}/${minReady}`);
  });
});

describe('calculateStatus', () => {
  const failing = new Error('pods "web-" is forbidden: quota');
  const failure = { type: 'ReplicaFailure', status: 'True' as const, reason: 'FailedCreate', message: 'old', lastTransitionTime: ago(600) };
  const table: Array<[string, ReplicaSet, Pod[], unknown, Record<string, unknown>]> = [
    ['no pods: replicas 0, the rest left out', replicaSet(), [], undefined, { replicas: 0, observedGeneration: 3 }],
    [
      'counts ready, available and fully labelled pods',
      replicaSet({ minReadySeconds: 10 }),
      [pod({ uid: 'a', readyFor: 60, labels: { app: 'web', tier: 'front' } }), pod({ uid: 'b', readyFor: 5, labels: { app: 'web', tier: 'front' } }), pod({ uid: 'c' })],
      undefined,
      { replicas: 3, fullyLabeledReplicas: 2, readyReplicas: 2, availableReplicas: 1, observedGeneration: 3 },
    ],
    [
      'a failed create adds ReplicaFailure/FailedCreate with the message',
      replicaSet({ replicas: 3 }),
      [pod()],
      failing,
      { replicas: 1, observedGeneration: 3, conditions: [{ type: 'ReplicaFailure', status: 'True', reason: 'FailedCreate', message: failing.message, lastTransitionTime: rfc3339(NOW) }] },
    ],
    [
      'a failed delete adds ReplicaFailure/FailedDelete',
      replicaSet({ replicas: 0 }),
      [pod()],
      failing,
      { replicas: 1, observedGeneration: 3, conditions: [{ type: 'ReplicaFailure', status: 'True', reason: 'FailedDelete', message: failing.message, lastTransitionTime: rfc3339(NOW) }] },
    ],
    [
      'an existing ReplicaFailure is kept as it is while failures go on',
      replicaSet({ replicas: 2, status: { replicas: 0, conditions: [failure] } }),
      [],
      failing,
      { replicas: 0, observedGeneration: 3, conditions: [failure] },
    ],
    [
      'ReplicaFailure is removed once syncing succeeds; other conditions stay',
      replicaSet({ status: { replicas: 3, readyReplicas: 3, conditions: [failure, { type: 'Other', status: 'True' }] } }),
      [],
      undefined,
      { replicas: 0, observedGeneration: 3, conditions: [{ type: 'Other', status: 'True' }] },
    ],
    [
      'counts that fall to 0 are removed, unknown fields kept',
      replicaSet({ status: { replicas: 2, readyReplicas: 2, availableReplicas: 2, extra: 'kept' } }),
      [pod(), pod({ uid: 'b' })],
      undefined,
      { replicas: 2, observedGeneration: 3, extra: 'kept' },
    ],
  ];
  for (const [name, rs, pods, err, want] of table) {
    it(name, () => {
      assert.deepEqual(calculateStatus(rs, pods, err, NOW), want);
    });
  }

  it('asks to look again when the next ready pod becomes available', () => {
    const pods = [pod({ uid: 'a', readyFor: 2 }), pod({ uid: 'b', readyFor: 7 }), pod({ uid: 'c', readyFor: 60 }), pod({ uid: 'd' })];
    assert.equal(nextAvailableAfterMs(pods, 10, NOW), 3001);
    assert.equal(nextAvailableAfterMs(pods, 0, NOW), undefined);
    assert.equal(nextAvailableAfterMs([pod({ readyFor: 60 })], 10, NOW), undefined);
  });
});

describe('claiming pods (ControllerRefManager)', () => {
  const rs = replicaSet();
  const deleting = replicaSet({ deleting: true });
  const selector = selectorOf(rs);
  const other = { labels: { app: 'db' } };
  const table: Array<[string, ReplicaSet, PodSpecOptions, ReturnType<typeof claimDecision>]> = [
    ['owned and matching', rs, { owner: 'uid-web' }, 'owned'],
    ['owned, no longer matching → release', rs, { owner: 'uid-web', ...other }, 'release'],
    ['owned, not matching, ReplicaSet being deleted → ignore', deleting, { owner: 'uid-web', ...other }, 'ignore'],
    ['orphan matching → adopt', rs, {}, 'adopt'],
    ['orphan matching, ReplicaSet being deleted → ignore', deleting, {}, 'ignore'],
    ['orphan being deleted → ignore', rs, { deleting: true }, 'ignore'],
    ['orphan not matching → ignore', rs, other, 'ignore'],
    ["someone else's → ignore", rs, { owner: 'uid-other' }, 'ignore'],
  ];
  for (const [name, owner, options, want] of table) {
    it(name, () => assert.equal(claimDecision(owner, selector, pod(options)), want));
  }

  it('adopts with a JSON patch testing uid and resourceVersion', () => {
    const ref = { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web', uid: 'uid-web', controller: true, blockOwnerDeletion: true };
    assert.deepEqual(adoptionPatch(rs, pod({ uid: 'p1' })), [
      { op: 'test', path: '/metadata/uid', value: 'p1' },
      { op: 'test', path: '/metadata/resourceVersion', value: '7' },
      { op: 'add', path: '/metadata/ownerReferences', value: [ref] },
    ]);
    const withRefs = pod({ uid: 'p2' });
    withRefs.metadata.ownerReferences = [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'c', uid: 'c1' }];
    assert.deepEqual(adoptionPatch(rs, withRefs)[2], { op: 'add', path: '/metadata/ownerReferences/-', value: ref });
  });

  it('releases with a JSON patch testing the reference it removes', () => {
    const owned = pod({ uid: 'p1', owner: 'uid-web' });
    owned.metadata.ownerReferences = [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'c', uid: 'c1' }, ...(owned.metadata.ownerReferences ?? [])];
    assert.deepEqual(releasePatch(rs, owned), [
      { op: 'test', path: '/metadata/uid', value: 'p1' },
      { op: 'test', path: '/metadata/ownerReferences/1/uid', value: 'uid-web' },
      { op: 'remove', path: '/metadata/ownerReferences/1' },
    ]);
    assert.equal(releasePatch(rs, pod()), undefined);
  });

  it('maps an orphan to the ReplicaSets selecting it, an owned pod to none', () => {
    const sets = [replicaSet({ name: 'a' }), replicaSet({ name: 'b', selector: { app: 'db' } }), replicaSet({ name: 'c' })];
    assert.deepEqual(replicaSetsForOrphan(pod(), sets), [
      { namespace: 'ns', name: 'a' },
      { namespace: 'ns', name: 'c' },
    ]);
    assert.deepEqual(replicaSetsForOrphan(pod({ owner: 'uid-a' }), sets), []);
  });

  it('relates the pods of every ReplicaSet with the same controller', () => {
    const mine = replicaSet({ name: 'new', controller: 'd1' });
    const sibling = replicaSet({ name: 'old', controller: 'd1', selector: { app: 'old' } });
    const stranger = replicaSet({ name: 'x', controller: 'd2', selector: { app: 'x' } });
    const pods = [pod({ uid: '1' }), pod({ uid: '2', labels: { app: 'old' } }), pod({ uid: '3', labels: { app: 'x' } })];
    assert.deepEqual(
      relatedPods(mine, [mine, sibling, stranger], pods).map((p) => p.metadata.uid),
      ['1', '2'],
    );
    assert.deepEqual(relatedPods(replicaSet(), [mine], pods), [], 'no controller, no related pods');
  });
});

describe('podFromTemplate', () => {
  it("makes the template's pod, named from the ReplicaSet, controlled by it", () => {
    const rs = replicaSet();
    const made = podFromTemplate(rs);
    assert.deepEqual(made, {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        generateName: 'web-',
        namespace: 'ns',
        labels: { app: 'web', tier: 'front' },
        annotations: { a: 'b' },
        ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web', uid: 'uid-web', controller: true, blockOwnerDeletion: true }],
      },
      spec: { containers: [{ name: 'c', image: 'nginx' }] },
    });
    made.spec!.containers![0]!.image = 'changed';
    assert.equal(rs.spec?.template?.spec?.containers?.[0]?.image, 'nginx', 'the template is copied, not shared');
  });
});
