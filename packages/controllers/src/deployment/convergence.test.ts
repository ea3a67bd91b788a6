/**
 * Property: random sequences of scaling, template changes and controller restarts, applied to a
 * live Deployment (with or without waiting in between), always converge to the declared state —
 * one ReplicaSet with the current template holding spec.replicas ready pods, every other at 0 —
 * and the active pods never exceed replicas + maxSurge, where "replicas" is the largest size
 * declared since the pods were last settled (the ReplicaSet controller needs a moment to act on a
 * scale-down: no controller can delete pods at the instant a spec is written).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { startControlPlane, type ControlPlane } from '@setpoint/testing';
import { runFakeNode } from '../testing/node.js';
import { resolveFenceposts } from './fenceposts.js';
import { deployment, eventually, isActive, isPodReady, startHarness, waitRolledOut, watchPods, type Harness } from './harness.test-support.js';
import { equalIgnoreHash } from './replicasets.js';

type Op = { readonly kind: 'scale'; readonly replicas: number; readonly wait: boolean } | { readonly kind: 'image'; readonly image: string; readonly wait: boolean } | { readonly kind: 'restart'; readonly wait: boolean };

const MAX_SURGE = '50%';
const MAX_UNAVAILABLE = 1;
const ceiling = (replicas: number) => replicas + resolveFenceposts(MAX_SURGE, MAX_UNAVAILABLE, replicas).maxSurge;

const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('scale' as const), replicas: fc.integer({ min: 0, max: 4 }), wait: fc.boolean() }),
  fc.record({ kind: fc.constant('image' as const), image: fc.constantFrom('a', 'b', 'c'), wait: fc.boolean() }),
  fc.record({ kind: fc.constant('restart' as const), wait: fc.boolean() }),
);

let cp: ControlPlane;
before(async () => {
  cp = await startControlPlane();
});
after(async () => {
  await cp.stop();
});

/** The declared state reached: rolled out, and the pods are exactly the current template's, ready. */
async function converged(h: Harness): Promise<void> {
  const d = await waitRolledOut(h, 'web');
  const n = d.spec!.replicas!;
  await eventually(
    `${h.namespace}: one ReplicaSet with ${n} ready pods of the current template`,
    async () => {
      const rss = (await h.client.replicaSets().list({ namespace: h.namespace })).items;
      const current = rss.filter((rs) => equalIgnoreHash(rs.spec?.template, d.spec?.template));
      if (current.length !== 1 || current[0]!.spec?.replicas !== n) return false;
      if (rss.some((rs) => rs !== current[0] && rs.spec?.replicas !== 0)) return false;
      const pods = (await h.client.pods().list({ namespace: h.namespace })).items.filter(isActive);
      return pods.length === n && pods.every((p) => isPodReady(p) && p.metadata.ownerReferences?.[0]?.uid === current[0]!.metadata.uid);
    },
    20_000,
  );
}

let runs = 0;

describe('convergence under random scaling, template changes and controller restarts', () => {
  it('always converges and never runs more than replicas + maxSurge pods', async () => {
    await assertWithCause(
      fc.asyncProperty(fc.integer({ min: 1, max: 3 }), fc.array(opArb, { minLength: 1, maxLength: 6 }), async (initial, ops) => {
        await using h = await startHarness(cp.client, `prop-${++runs}`, runFakeNode);
        const strategy = { type: 'RollingUpdate' as const, rollingUpdate: { maxSurge: MAX_SURGE, maxUnavailable: MAX_UNAVAILABLE } };
        await h.client.deployments().create(deployment(h.namespace, 'web', initial, { strategy }));
        await converged(h);
        // One pod watcher per stretch between settled states, each with its own bound.
        let bound = ceiling(initial);
        let watch = await watchPods(h.client, h.namespace);
        const check = async () => {
          for (const s of await watch.stop()) assert.ok(s.active <= bound, `${s.active} active pods, bound ${bound}`);
        };
        let replicas = initial;
        for (const op of ops) {
          if (op.kind === 'scale') {
            replicas = op.replicas;
            bound = Math.max(bound, ceiling(replicas));
            await h.client.deployments().patch('web', { spec: { replicas } }, { type: 'merge', namespace: h.namespace });
          } else if (op.kind === 'image') {
            await h.client.deployments().patch('web', { spec: { template: { spec: { containers: [{ name: 'main', image: op.image }] } } } }, { type: 'strategic', namespace: h.namespace });
          } else {
            await h.stopControllers();
            h.startControllers();
          }
          if (op.wait) {
            await converged(h);
            await check();
            bound = ceiling(replicas);
            watch = await watchPods(h.client, h.namespace);
          }
        }
        await converged(h);
        await check();
      }),
      { numRuns: 25, endOnFailure: true },
    );
  });
});

/** fc.assert, with the failing run's own error in the message (the test runner prints no cause). */
async function assertWithCause<Ts>(property: fc.IAsyncProperty<Ts>, params: fc.Parameters<Ts>): Promise<void> {
  try {
    await fc.assert(property, params);
  } catch (err) {
    const cause = (err as Error).cause;
    throw new Error(`${(err as Error).message}\nCaused by: ${cause instanceof Error ? (cause.stack ?? cause.message) : String(cause)}`, { cause });
  }
}
