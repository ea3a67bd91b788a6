import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Deployment } from '@setpoint/api';
import { makeDeployment, makeReplicaSet } from './fakecluster.test-support.js';
import { findActiveOrLatest, isSaturated, isScalingEvent, planProportionalScale } from './scale.js';

const d = (replicas: number, strategy: 'RollingUpdate' | 'Recreate' = 'RollingUpdate'): Deployment =>
  makeDeployment('web', { replicas, strategy: strategy === 'Recreate' ? { type: 'Recreate' } : { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } } });

const sizes = (changes: ReturnType<typeof planProportionalScale>) => Object.fromEntries(changes.map((c) => [c.rs.metadata.name, c.replicas]));

describe('isScalingEvent', () => {
  it('is true when an active ReplicaSet was sized for another spec.replicas', () => {
    assert.equal(isScalingEvent(d(5), [makeReplicaSet('a', { replicas: 3, desired: 3 })]), true);
    assert.equal(isScalingEvent(d(3), [makeReplicaSet('a', { replicas: 3, desired: 3 })]), false);
    assert.equal(isScalingEvent(d(5), [makeReplicaSet('a', { replicas: 0, desired: 3 })]), false, 'inactive ones do not count');
    assert.equal(isScalingEvent(d(5), [makeReplicaSet('a', { replicas: 3 })]), false, 'no annotation, no event');
  });
});

describe('findActiveOrLatest / isSaturated', () => {
  it('finds the only active ReplicaSet, else the new one, else the newest old one; none when several are active', () => {
    const old1 = makeReplicaSet('old1', { replicas: 0, created: 1 });
    const old2 = makeReplicaSet('old2', { replicas: 0, created: 2 });
    const neu = makeReplicaSet('new', { replicas: 0, created: 3 });
    assert.equal(findActiveOrLatest(neu, [old1, old2]), neu);
    assert.equal(findActiveOrLatest(undefined, [old1, old2]), old2);
    const active = makeReplicaSet('active', { replicas: 2, created: 0 });
    assert.equal(findActiveOrLatest(neu, [old1, active]), active);
    assert.equal(findActiveOrLatest(makeReplicaSet('n2', { replicas: 1 }), [active]), undefined);
  });

  it('saturated: the new ReplicaSet has, wants and has available all of spec.replicas', () => {
    assert.equal(isSaturated(d(3), makeReplicaSet('n', { replicas: 3, desired: 3 })), true);
    assert.equal(isSaturated(d(3), makeReplicaSet('n', { replicas: 3, desired: 3, available: 2 })), false);
    assert.equal(isSaturated(d(3), makeReplicaSet('n', { replicas: 3 })), false);
  });
});

describe('planProportionalScale', () => {
  it('one active ReplicaSet: gets spec.replicas', () => {
    assert.deepEqual(sizes(planProportionalScale(d(7), makeReplicaSet('n', { replicas: 3, desired: 3, max: 4 }), [makeReplicaSet('o', { replicas: 0 })])), { n: 7 });
    assert.deepEqual(planProportionalScale(d(3), makeReplicaSet('n', { replicas: 3 }), []), []);
  });

  it('a saturated new ReplicaSet: the old active ones go to 0', () => {
    const neu = makeReplicaSet('n', { replicas: 3, desired: 3, created: 2 });
    assert.deepEqual(sizes(planProportionalScale(d(3), neu, [makeReplicaSet('o', { replicas: 1, created: 1 })])), { o: 0 });
  });

  // A rollout in flight (old 8, new 5, sized for 10 + 3 surge) when spec.replicas changes.
  const table: Array<[string, number, Record<string, number>]> = [
    ['scaled up 10 → 20 (25 allowed): +12 spread 7 / 5', 20, { old: 15, new: 10 }],
    ['scaled down 10 → 5 (7 allowed): −6 spread −4 / −2', 5, { old: 4, new: 3 }],
    ['scaled to 0: everything to 0', 0, { old: 0, new: 0 }],
    ['scaled 10 → 11 (14 allowed): the one extra to the largest', 11, { old: 9, new: 5 }],
  ];
  for (const [name, replicas, want] of table) {
    it(name, () => {
      const old = makeReplicaSet('old', { replicas: 8, desired: 10, max: 13, created: 1 });
      const neu = makeReplicaSet('new', { replicas: 5, desired: 10, max: 13, created: 2, available: 0 });
      const changes = planProportionalScale(d(replicas), neu, [old]);
      assert.deepEqual(sizes(changes), want);
      assert.ok(changes.every((c) => c.refreshAnnotations === true), 'annotations are refreshed on every active ReplicaSet');
    });
  }

  it('equal sizes: scaling up favours the newer ReplicaSet, scaling down the older one', () => {
    const old = makeReplicaSet('old', { replicas: 5, desired: 10, max: 10, created: 1 });
    const neu = makeReplicaSet('new', { replicas: 5, desired: 10, max: 10, created: 2, available: 0 });
    const up = (n: number) => makeDeployment('web', { replicas: n, strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 0, maxUnavailable: 1 } } });
    assert.deepEqual(sizes(planProportionalScale(up(11), neu, [old])), { new: 6, old: 5 });
    assert.deepEqual(sizes(planProportionalScale(up(9), neu, [old])), { old: 4, new: 5 });
  });

  it('Recreate with several active ReplicaSets: no proportional scaling', () => {
    const old = makeReplicaSet('old', { replicas: 2, desired: 3, created: 1 });
    const neu = makeReplicaSet('new', { replicas: 1, desired: 3, created: 2, available: 0 });
    assert.deepEqual(planProportionalScale(d(5, 'Recreate'), neu, [old]), []);
  });
});
