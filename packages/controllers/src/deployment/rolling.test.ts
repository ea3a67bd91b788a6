import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { Deployment, IntOrString } from '@setpoint/api';
import { FakeCluster, makeDeployment, makeReplicaSet } from './fakecluster.test-support.js';
import { maxSurge, maxUnavailable } from './fenceposts.js';
import { availableReplicaCount, specReplicaCount } from './replicasets.js';
import { capScaleUps, planNewReplicaSetScale, planOldReplicaSetsScaleDown, planUnhealthyCleanup, surgeHeadroom } from './rolling.js';

const rolling = (replicas: number, surge: IntOrString, unavailable: IntOrString): Deployment =>
  makeDeployment('web', { replicas, strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: surge, maxUnavailable: unavailable } } });

describe('planNewReplicaSetScale (reconcileNewReplicaSet)', () => {
  // [replicas, maxSurge, old replicas, new replicas] → new size (undefined: no change)
  const table: Array<[number, IntOrString, number, number, number | undefined]> = [
    [10, 0, 10, 0, undefined], // no room: 10 pods already
    [10, 2, 10, 0, 2], // the surge
    [10, 2, 5, 0, 7], // room of 7 under 12
    [10, 2, 10, 2, undefined], // at 12 already
    [2, 0, 0, 4, 2], // above spec.replicas: down to it
    [10, '25%', 2, 9, 10], // room 2 but only 1 missing
    [10, 2, 0, 10, undefined], // done
    [0, '25%', 3, 0, undefined], // 0 replicas: surge of 0 is 0
  ];
  for (const [replicas, surge, oldN, newN, want] of table) {
    it(`replicas ${replicas}, maxSurge ${surge}, old ${oldN}, new ${newN} → ${want ?? 'no change'}`, () => {
      const d = rolling(replicas, surge, 1);
      const old = makeReplicaSet('old', { replicas: oldN, created: 0 });
      const neu = makeReplicaSet('new', { replicas: newN, created: 1 });
      assert.equal(planNewReplicaSetScale(d, [old, neu], neu), want);
    });
  }
});

describe('planOldReplicaSetsScaleDown (reconcileOldReplicaSets)', () => {
  // [replicas, maxUnavailable, old, new, available old, available new] → old size (undefined: no change)
  const table: Array<[string, number, number, number, number, number, number, number | undefined]> = [
    ['no unavailability allowed (maxSurge 1)', 10, 0, 10, 0, 10, 0, undefined],
    ['maxSurge 0 and maxUnavailable 0 resolve to maxUnavailable 1', 10, 0, 10, 0, 10, 0, 9],
    ['down by maxUnavailable', 10, 2, 10, 0, 10, 0, 8],
    ['unhealthy old pods cleaned first', 10, 2, 10, 0, 8, 0, 8],
    ['one unhealthy cleaned, one available scaled down', 10, 2, 10, 0, 9, 0, 8],
    ['unavailable new pods block a further step', 10, 2, 8, 2, 8, 0, undefined],
    ['available new pods let old ones go', 10, 2, 8, 2, 8, 2, 6],
  ];
  for (const [name, replicas, unavailable, oldN, newN, oldAvail, newAvail, want] of table) {
    it(name, () => {
      const d = rolling(replicas, name.includes('maxSurge 1') ? 1 : 0, unavailable);
      const old = makeReplicaSet('old', { replicas: oldN, available: oldAvail, created: 0 });
      const neu = makeReplicaSet('new', { replicas: newN, available: newAvail, created: 1 });
      const changes = planOldReplicaSetsScaleDown(d, [old, neu], [old], neu);
      assert.equal(changes[0]?.replicas, want);
      assert.ok(changes.length <= 1 && changes.every((c) => c.rs === old), 'one change per ReplicaSet, on the object read');
    });
  }

  it('cleans unhealthy pods oldest ReplicaSet first, within the budget', () => {
    const a = makeReplicaSet('a', { replicas: 3, available: 1, created: 0 });
    const b = makeReplicaSet('b', { replicas: 3, available: 0, created: 5 });
    const { changes, count } = planUnhealthyCleanup([b, a], 3);
    assert.deepEqual(
      changes.map((c) => [c.rs.metadata.name, c.replicas]),
      [
        ['a', 1],
        ['b', 2],
      ],
    );
    assert.equal(count, 3);
  });
});

describe('surgeHeadroom / capScaleUps (the pods that exist, not only the specs)', () => {
  const d = rolling(10, 3, 2); // at most 13 pods
  const none = new Map<string, number>();
  it('settled ReplicaSets: replicas + maxSurge − Σ spec.replicas, as Kubernetes counts', () => {
    assert.equal(surgeHeadroom(d, [makeReplicaSet('old', { replicas: 8 }), makeReplicaSet('new', { replicas: 3 })], none), 2);
  });
  it('a scaled-down ReplicaSet that still reports pods counts them', () => {
    assert.equal(surgeHeadroom(d, [makeReplicaSet('old', { replicas: 8, actual: 10 }), makeReplicaSet('new', { replicas: 3 })], none), 0);
  });
  it('pods read from the API that its status does not show yet count too', () => {
    const old = makeReplicaSet('old', { replicas: 8 });
    assert.equal(surgeHeadroom(d, [old, makeReplicaSet('new', { replicas: 3 })], new Map([[old.metadata.uid!, 9]])), 1);
  });
  it('no headroom while a ReplicaSet controller has not observed the last change', () => {
    const old = makeReplicaSet('old', { replicas: 8 });
    old.metadata.generation = 2;
    assert.equal(surgeHeadroom(d, [old, makeReplicaSet('new', { replicas: 3 })], none), 0);
  });
  it('capScaleUps cuts increases in order, leaves decreases alone', () => {
    const a = makeReplicaSet('a', { replicas: 2 });
    const b = makeReplicaSet('b', { replicas: 2 });
    const c = makeReplicaSet('c', { replicas: 5 });
    const capped = capScaleUps(
      [
        { rs: a, replicas: 4 },
        { rs: b, replicas: 5 },
        { rs: c, replicas: 1 },
      ],
      3,
    );
    assert.deepEqual(
      capped.map((x) => x.replicas),
      [4, 3, 1],
    );
  });
});

/** Syncs and settles until nothing changes; checks the rolling bounds after every sync. */
async function rollOut(c: FakeCluster, ready?: Parameters<FakeCluster['settle']>[0], maxSteps = 50): Promise<number> {
  for (let step = 0; step < maxSteps; step++) {
    const before = c.log.length;
    await c.sync('web');
    const d = c.deployment('web');
    const rss = c.rsList();
    assert.ok(specReplicaCount(rss) <= d.spec!.replicas! + maxSurge(d), `step ${step}: ${specReplicaCount(rss)} pods asked for, more than replicas + maxSurge`);
    c.settle(ready);
    if (c.log.length === before) return step;
  }
  throw new Error('did not settle');
}

describe('a rolling update, step by step', () => {
  it('10 replicas, maxSurge 3, maxUnavailable 2: new +3 / old −2, then alternating, as Kubernetes does', async () => {
    const c = new FakeCluster();
    c.putDeployment(rolling(10, 3, 2));
    await rollOut(c);
    c.log.length = 0;
    c.editDeployment('web', (d) => (d.spec!.template!.spec!.containers![0]!.image = 'nginx:2'));
    const floor: number[] = [];
    for (let i = 0; i < 8; i++) {
      await c.sync('web');
      floor.push(availableReplicaCount(c.rsList()));
      c.settle();
    }
    const steps = c.log.filter((l) => l.startsWith('create') || l.startsWith('scale')).map((l) => l.replace(/web-\w+/, (n) => (n === c.rsList().find((r) => r.spec?.replicas === 10)?.metadata.name ? 'new' : 'old')));
    assert.deepEqual(steps, ['create new 3', 'scale old 10->8', 'scale new 3->5', 'scale old 8->3', 'scale new 5->10', 'scale old 3->0']);
    assert.ok(floor.every((n) => n >= 8), `available pods stayed ≥ 8: ${floor.join(',')}`);
  });

  it('property: any size and bounds converge, never above replicas + maxSurge nor below replicas − maxUnavailable available', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 30 }),
        fc.oneof(fc.integer({ min: 0, max: 5 }), fc.integer({ min: 0, max: 100 }).map((p) => `${p}%`)),
        fc.oneof(fc.integer({ min: 0, max: 5 }), fc.integer({ min: 0, max: 100 }).map((p) => `${p}%`)),
        async (replicas, surge, unavailable) => {
          fc.pre(!(String(surge).replace('%', '') === '0' && String(unavailable).replace('%', '') === '0'));
          const c = new FakeCluster();
          const d = rolling(replicas, surge, unavailable);
          c.putDeployment(d);
          await rollOut(c);
          c.editDeployment('web', (x) => (x.spec!.template!.spec!.containers![0]!.image = 'nginx:2'));
          const floor = replicas - maxUnavailable(d);
          for (let step = 0; step < 60; step++) {
            const before = c.log.length;
            await c.sync('web');
            assert.ok(availableReplicaCount(c.rsList()) >= floor, 'availability kept');
            assert.ok(specReplicaCount(c.rsList()) <= replicas + maxSurge(d), 'surge kept');
            c.settle();
            if (c.log.length === before) break;
          }
          const rss = c.rsList();
          const current = rss.filter((rs) => rs.spec?.template?.spec?.containers?.[0]?.image === 'nginx:2');
          assert.equal(current.length, 1);
          assert.equal(current[0]!.spec!.replicas, replicas);
          assert.equal(specReplicaCount(rss), replicas);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('waits for the ReplicaSet controller: no scale-up before the old pods are really gone', async () => {
    const c = new FakeCluster();
    c.putDeployment(rolling(10, 3, 2));
    await rollOut(c);
    const old = c.rsList()[0]!;
    c.editDeployment('web', (d) => (d.spec!.template!.spec!.containers![0]!.image = 'nginx:2'));
    await c.sync('web'); // new +3, old 10 → 8
    const neu = c.rsList().find((rs) => rs.metadata.uid !== old.metadata.uid)!;
    c.setStatus(neu.metadata.name!, { replicas: 3, readyReplicas: 3, availableReplicas: 3, observedGeneration: 1 });
    const sync = async () => {
      await c.sync('web');
      const o = c.replicaSets.get(old.metadata.name!)!;
      return { neu: c.replicaSets.get(neu.metadata.name!)!.spec?.replicas, old: o.spec?.replicas, generation: o.metadata.generation! };
    };
    const oldStatus = (replicas: number, observedGeneration: number) =>
      c.setStatus(old.metadata.name!, { replicas, readyReplicas: replicas, availableReplicas: replicas, observedGeneration });
    oldStatus(10, 1); // the ReplicaSet controller has not seen 10 → 8 yet
    let s = await sync();
    assert.equal(s.neu, 3, 'no scale-up while the old ReplicaSet lags');
    assert.equal(s.old, 5, 'scaling old pods down (within availability) goes on');
    oldStatus(8, s.generation); // it has seen 8 → 5, but 8 of its pods are still there
    s = await sync();
    assert.equal(s.neu, 5, 'room for 2 only: 13 − (8 + 3), not 13 − (5 + 3)');
  });

  it('new pods that never become ready stall the rollout without going under minAvailable', async () => {
    const c = new FakeCluster();
    c.putDeployment(rolling(4, 1, 1));
    await rollOut(c);
    const oldName = c.rsList()[0]!.metadata.name!;
    c.editDeployment('web', (d) => (d.spec!.template!.spec!.containers![0]!.image = 'broken'));
    await rollOut(c, (rs) => (rs.metadata.name === oldName ? 4 : 0));
    const old = c.rsList().find((rs) => rs.metadata.name === oldName)!;
    assert.equal(old.spec?.replicas, 3, 'old ReplicaSet keeps replicas − maxUnavailable');
    assert.equal(specReplicaCount(c.rsList()), 5);
  });
});
