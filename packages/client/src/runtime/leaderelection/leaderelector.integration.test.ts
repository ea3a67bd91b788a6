import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError, type Lease } from '@setpoint/api';
import { startControlPlane } from '@setpoint/testing';
import { LeaderElector } from './leaderelector.js';
import { LeaseLock, type LeaseClient } from './leaselock.js';

/** A LeaseClient over fetch: just enough of the Kubernetes API for a LeaseLock. */
function leaseClient(server: string): LeaseClient {
  const base = `${server}/apis/coordination.k8s.io/v1/namespaces`;
  const call = async (method: string, path: string, body?: Lease): Promise<Lease> => {
    const res = await fetch(base + path, {
      method,
      headers: { accept: 'application/json', 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const json: unknown = await res.json();
    if (!res.ok) throw ApiError.fromStatus(json as Parameters<typeof ApiError.fromStatus>[0], res.status);
    return json as Lease;
  };
  return {
    get: (name, { namespace }) => call('GET', `/${namespace}/leases/${name}`),
    create: (obj) => call('POST', `/${obj.metadata.namespace}/leases`, obj),
    update: (obj) => call('PUT', `/${obj.metadata.namespace}/leases/${obj.metadata.name}`, obj),
  };
}

function candidate(server: string, identity: string) {
  const controller = new AbortController();
  let resolveStarted: () => void = () => {};
  const started = new Promise<void>((resolve) => (resolveStarted = resolve));
  const elector = new LeaderElector({
    lock: new LeaseLock({ client: leaseClient(server), namespace: 'default', name: 'integration' }),
    identity,
    leaseDurationMs: 2_000,
    renewDeadlineMs: 1_500,
    retryPeriodMs: 250,
    callbacks: { onStartedLeading: () => resolveStarted(), onStoppedLeading: () => {} },
  });
  const run = elector.run(controller.signal);
  return { elector, controller, started, run };
}

function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`timed out: ${what}`)), ms)));
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

describe('LeaderElector against the API server', () => {
  it('elects one of two candidates, and hands over when the leader is cancelled', async () => {
    await using cp = await startControlPlane();
    const a = candidate(cp.config.server, 'a');
    await within(a.started, 5_000, 'a leads');
    const b = candidate(cp.config.server, 'b');
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    assert.equal(a.elector.isLeader(), true);
    assert.equal(b.elector.isLeader(), false);
    assert.equal(b.elector.getLeader(), 'a');

    const cancelledAt = Date.now();
    a.controller.abort();
    await within(a.run, 5_000, 'a stops');
    await within(b.started, 5_000, 'b leads');
    assert.ok(Date.now() - cancelledAt < 2_000, 'b took over before the lease could have expired');
    assert.equal(b.elector.isLeader(), true);

    const lease = await leaseClient(cp.config.server).get('integration', { namespace: 'default' });
    assert.equal(lease.spec?.holderIdentity, 'b');
    assert.equal(lease.spec?.leaseTransitions, 1);
    assert.equal(lease.spec?.leaseDurationSeconds, 2);
    assert.match(lease.spec?.renewTime ?? '', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    b.controller.abort();
    await within(b.run, 5_000, 'b stops');
  });
});
