import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { Deployment, IntOrString } from '@setpoint/api';
import { maxSurge, maxUnavailable, minAvailable, resolveFenceposts, scaledValue } from './fenceposts.js';

/** What every Deployment has and these functions do not read. */
const required = { selector: { matchLabels: { app: 'd' } }, template: { spec: { containers: [] } } };

const rolling = (replicas: number, surge: IntOrString, unavailable: IntOrString): Deployment => ({
  metadata: { name: 'd' },
  spec: { replicas, ...required, strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: surge, maxUnavailable: unavailable } } },
});

describe('resolveFenceposts', () => {
  // [maxSurge, maxUnavailable, replicas] → [surge, unavailable]
  const table: Array<[IntOrString, IntOrString, number, number, number]> = [
    ['25%', '25%', 10, 3, 2], // 2.5 → surge up, unavailable down
    ['25%', '25%', 4, 1, 1],
    ['25%', '25%', 1, 1, 0],
    ['25%', '25%', 0, 0, 1], // both 0 → unavailable 1
    ['30%', '30%', 7, 3, 2], // 2.1
    ['50%', '50%', 3, 2, 1], // 1.5
    ['33%', '33%', 100, 33, 33],
    ['33%', '33%', 101, 34, 33], // 33.33
    ['10%', '10%', 99, 10, 9], // 9.9
    ['100%', '100%', 5, 5, 5],
    ['0%', '1%', 2, 0, 1], // Kubernetes' comment: "should scale old(-1), then new(+1)"
    ['0%', '1%', 1, 0, 1],
    ['1%', '25%', 2, 1, 0],
    ['1%', '0%', 1, 1, 0],
    [3, 2, 10, 3, 2],
    [0, 1, 10, 0, 1],
    [1, 0, 10, 1, 0],
    [0, 0, 10, 0, 1],
    ['1%', '1%', 1000, 10, 10],
    ['1%', '1%', 1050, 11, 10],
  ];
  for (const [s, u, n, wantSurge, wantUnavailable] of table) {
    it(`maxSurge ${s}, maxUnavailable ${u} of ${n} → +${wantSurge} / -${wantUnavailable}`, () => {
      assert.deepEqual(resolveFenceposts(s, u, n), { maxSurge: wantSurge, maxUnavailable: wantUnavailable });
    });
  }

  it('property: surge rounds up, unavailable rounds down, never both 0', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 100 }), fc.integer({ min: 0, max: 100 }), fc.integer({ min: 0, max: 5000 }), (ps, pu, n) => {
        const { maxSurge: s, maxUnavailable: u } = resolveFenceposts(`${ps}%`, `${pu}%`, n);
        assert.ok(s * 100 >= ps * n && (s - 1) * 100 < ps * n, 'surge is the ceiling');
        if (!(s === 0 && u === 1 && Math.floor((pu * n) / 100) === 0)) assert.ok(u * 100 <= pu * n && (u + 1) * 100 > pu * n, 'unavailable is the floor');
        assert.ok(s + u > 0);
      }),
    );
  });

  it('refuses a string that is not a percentage', () => {
    assert.throws(() => scaledValue('5', 10, true), { name: 'TerminalError' });
  });
});

describe('maxSurge / maxUnavailable / minAvailable of a Deployment', () => {
  it('caps maxUnavailable at spec.replicas and gives minAvailable = replicas − maxUnavailable', () => {
    const d = rolling(3, 0, 10);
    assert.equal(maxUnavailable(d), 3);
    assert.equal(minAvailable(d), 0);
    assert.equal(maxSurge(d), 0);
  });

  it('is 0 / 0 / 0 for Recreate, and maxUnavailable 0 for 0 replicas', () => {
    const d: Deployment = { metadata: { name: 'd' }, spec: { replicas: 5, ...required, strategy: { type: 'Recreate' } } };
    assert.deepEqual([maxSurge(d), maxUnavailable(d), minAvailable(d)], [0, 0, 0]);
    assert.equal(maxUnavailable(rolling(0, '25%', '25%')), 0);
  });

  it('defaults to 25% / 25% when rollingUpdate is missing (as the API server defaults it)', () => {
    const d: Deployment = { metadata: { name: 'd' }, spec: { replicas: 10, ...required } };
    assert.deepEqual([maxSurge(d), maxUnavailable(d), minAvailable(d)], [3, 2, 8]);
  });
});
