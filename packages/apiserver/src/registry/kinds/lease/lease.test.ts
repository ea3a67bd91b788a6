import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FieldError, KubeObject } from '@setpoint/api';
import { leaseResource, normalizeLeaseTimes, validateLease } from './lease.js';

const messages = (errs: FieldError[]) => errs.map((e) => e.toString());
const lease = (spec?: Record<string, unknown>): KubeObject => ({ metadata: { name: 'n1', namespace: 'kube-node-lease' }, ...(spec ? { spec } : {}) });

describe('validateLease', () => {
  const cases: Array<{ name: string; obj: KubeObject; want: string[] }> = [
    { name: 'no spec', obj: lease(), want: [] },
    {
      name: 'node heartbeat lease',
      obj: lease({ holderIdentity: 'n1', leaseDurationSeconds: 40, renewTime: '2026-01-01T00:00:00.123456Z', leaseTransitions: 0 }),
      want: [],
    },
    { name: 'duration must be positive', obj: lease({ leaseDurationSeconds: 0 }), want: ['spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0'] },
    { name: 'negative duration', obj: lease({ leaseDurationSeconds: -5 }), want: ['spec.leaseDurationSeconds: Invalid value: -5: must be greater than 0'] },
    { name: 'transitions not negative', obj: lease({ leaseTransitions: -1 }), want: ['spec.leaseTransitions: Invalid value: -1: must be greater than or equal to 0'] },
    { name: 'known strategy', obj: lease({ strategy: 'OldestEmulationVersion', preferredHolder: 'a' }), want: [] },
    { name: 'prefixed strategy', obj: lease({ strategy: 'example.com/Mine' }), want: [] },
    {
      name: 'unknown strategy (Kubernetes\' doubled path)',
      obj: lease({ strategy: 'Newest' }),
      want: ['spec.strategy.strategy: Unsupported value: "Newest": supported values: "OldestEmulationVersion"'],
    },
    {
      name: 'preferredHolder needs a strategy',
      obj: lease({ preferredHolder: 'a' }),
      want: ['spec.preferredHolder: Forbidden: may only be specified if `strategy` is defined'],
    },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(messages(validateLease(c.obj)), c.want));
});

describe('leaseResource', () => {
  it('is a namespaced coordination.k8s.io/v1 kind without short names', () => {
    assert.equal(leaseResource.group, 'coordination.k8s.io');
    assert.equal(leaseResource.namespaced, true);
    assert.equal(leaseResource.shortNames, undefined);
    assert.equal(leaseResource.strategy.prepareForCreate, undefined);
  });

  it('defaults nothing but writes MicroTime with six fractional digits', () => {
    const obj = lease({ holderIdentity: 'n1', renewTime: '2026-01-01T00:00:00.123Z', acquireTime: '2026-01-01T09:00:00+09:00' });
    normalizeLeaseTimes(obj);
    assert.deepEqual(obj['spec'], { holderIdentity: 'n1', renewTime: '2026-01-01T00:00:00.123000Z', acquireTime: '2026-01-01T00:00:00.000000Z' });
    const bare = lease();
    leaseResource.strategy.defaults!(bare);
    assert.deepEqual(bare, lease());
  });
});
