/**
 * The ReplicaSet controller when things go wrong, against Setpoint's API server (in process): a
 * create the server always rejects, a manager restarted in the middle of scaling, and random
 * sequences of scaling, pod deletions and restarts. Pod counts are taken from a watch of the API,
 * so every state the API holds is checked, not a sample.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { isApiError, type Pod, type ReplicaSet } from '@setpoint/api';
import { Manager, type Client, type ResourceRef, type WatchOptions } from '@setpoint/client';
import { startControlPlane, type ControlPlane } from '@setpoint/testing';
import { registerReplicaSetController } from './index.js';
import { isPodActive } from './pods.js';

let cp: ControlPlane;
let client: Client;
before(async () => {
  cp = await startControlPlane();
  client = cp.client;
});
after(async () => {
  await cp.stop();
});

async function eventually<T>(what: string, check: () => Promise<T | undefined | false> | T | undefined | false, ms = 15_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

interface Running extends AsyncDisposable {
  stop(): Promise<void>;
}

function runController(namespace: string, api: Client = client): Running {
  const manager = new Manager({ client: api, namespace });
  registerReplicaSetController(manager);
  const abort = new AbortController();
  const done = manager.start(abort.signal);
  const stop = async () => {
    abort.abort();
    await done;
  };
  return { stop, [Symbol.asyncDispose]: stop };
}

function replicaSet(ns: string, name: string, replicas: number, image = 'nginx'): ReplicaSet {
  return {
    metadata: { name, namespace: ns },
    spec: { replicas, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'main', image }] } } },
  };
}

const getRs = (ns: string, name: string) => client.replicaSets().get(name, { namespace: ns });
const scale = (ns: string, name: string, replicas: number) => client.replicaSets().patch(name, { spec: { replicas } }, { type: 'merge', namespace: ns });
const listActive = async (ns: string) => {
  const list = await client.pods().list({ namespace: ns });
  return { pods: list.items.filter(isPodActive), resourceVersion: Number(list.metadata.resourceVersion) };
};

interface PodTally extends AsyncDisposable {
  /** Resolves once the initial list is in and the watch is running. */
  readonly ready: Promise<void>;
  /** Active pods as the watch has seen them so far. */
  active(): Pod[];
  /** Every state seen that broke the limit, and anything that stopped the watch early. */
  readonly problems: string[];
}

/**
 * Watches the pods of a namespace; after every change, checks the number of active pods against
 * `limit(resourceVersion)` (the limit in force when the API held that state) and `floor` likewise.
 */
function tallyPods(ns: string, limit: (resourceVersion: number) => number, floor: (resourceVersion: number) => number = () => 0): PodTally {
  const abort = new AbortController();
  const pods = new Map<string, Pod>();
  const problems: string[] = [];
  const active = () => [...pods.values()].filter(isPodActive);
  let started!: () => void;
  const ready = new Promise<void>((resolve) => (started = resolve));
  const run = (async () => {
    const list = await client.pods().list({ namespace: ns });
    for (const p of list.items) pods.set(p.metadata.uid!, p);
    started();
    for await (const event of client.pods().watch({ namespace: ns, resourceVersion: list.metadata.resourceVersion, signal: abort.signal })) {
      if (event.type === 'DELETED') pods.delete(event.object.metadata.uid!);
      else if (event.type === 'ADDED' || event.type === 'MODIFIED') pods.set(event.object.metadata.uid!, event.object);
      else continue;
      const rv = Number(event.object.metadata.resourceVersion);
      const count = active().length;
      if (count > limit(rv)) problems.push(`at resourceVersion ${rv}: ${count} active pods, more than ${limit(rv)}`);
      if (count < floor(rv)) problems.push(`at resourceVersion ${rv}: ${count} active pods, fewer than ${floor(rv)}`);
    }
    if (!abort.signal.aborted) problems.push('the watch ended early');
  })().catch((err: unknown) => {
    if (!abort.signal.aborted) problems.push(`the watch failed: ${String(err)}`);
    started();
  });
  return {
    ready,
    active,
    problems,
    [Symbol.asyncDispose]: async () => {
      abort.abort();
      await run;
    },
  };
}

/** A Client whose pods().create calls are reported (start, and end through the returned function). */
function reportingPodCreates(api: Client, onCreate: () => () => void): Client {
  const member = (target: object, prop: string | symbol): unknown => {
    const value: unknown = Reflect.get(target, prop, target);
    return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
  };
  return new Proxy(api, {
    get(target, prop) {
      if (prop !== 'pods') return member(target, prop);
      return () => {
        const pods = target.pods();
        return new Proxy(pods, {
          get(resource, name) {
            if (name !== 'create') return member(resource, name);
            return async (...args: Parameters<typeof pods.create>) => {
              const end = onCreate();
              try {
                return await pods.create(...args);
              } finally {
                end();
              }
            };
          },
        });
      };
    },
  });
}

/** `source`, each item delivered `ms` after it arrived (in order): a watch, and so a cache, that lags. */
async function* lagging<T>(source: AsyncIterable<T>, ms: number): AsyncGenerator<T> {
  const queue: Array<{ at: number; item: T }> = [];
  let finished = false;
  let failure: unknown;
  let wake: (() => void) | undefined;
  void (async () => {
    try {
      for await (const item of source) {
        queue.push({ at: Date.now() + ms, item });
        wake?.();
      }
    } catch (err) {
      failure = err;
    } finally {
      finished = true;
      wake?.();
    }
  })();
  for (;;) {
    const next = queue.shift();
    if (next !== undefined) {
      const wait = next.at - Date.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      yield next.item;
    } else if (finished) {
      if (failure !== undefined) throw failure;
      return;
    } else {
      await new Promise<void>((resolve) => (wake = resolve));
      wake = undefined;
    }
  }
}

/** A Client whose watches of pods deliver every event `ms` late: informers built on it lag behind the API. */
function laggingPodWatches(api: Client, ms: number): Client {
  return new Proxy(api, {
    get(target, prop) {
      const value: unknown = Reflect.get(target, prop, target);
      if (prop !== 'resource') return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      return (ref: ResourceRef) => {
        const resource = target.resource(ref);
        if (ref.resource !== 'pods') return resource;
        return new Proxy(resource, {
          get(r, name) {
            const member: unknown = Reflect.get(r, name, r);
            if (name === 'watch') return (options: WatchOptions) => lagging(r.watch(options), ms);
            return typeof member === 'function' ? (member as (...args: unknown[]) => unknown).bind(r) : member;
          },
        });
      };
    },
  });
}

describe('ReplicaSet controller, when things go wrong', () => {
  it('a template the server rejects: ReplicaFailure, one create per backoff step, cleared once fixed', async () => {
    const ns = 'failing';
    await client.namespaces().create({ metadata: { name: ns } });
    const attempts: number[] = [];
    let inFlight = 0;
    let maxInFlight = 0;
    const api = reportingPodCreates(client, () => {
      attempts.push(Date.now());
      maxInFlight = Math.max(maxInFlight, ++inFlight);
      return () => void inFlight--;
    });
    await using _ctrl = runController(ns, api);
    // The ReplicaSet's template passes validation; a pod's image may not have surrounding spaces.
    await client.replicaSets().create(replicaSet(ns, 'bad', 5, ' nginx '));
    const failure = await eventually('ReplicaFailure', async () => (await getRs(ns, 'bad')).status?.conditions?.find((c) => c.type === 'ReplicaFailure'));
    assert.equal(failure.status, 'True');
    assert.equal(failure.reason, 'FailedCreate');
    assert.match(failure.message ?? '', /must not have leading or trailing whitespace/);

    await eventually('8 attempts', () => attempts.length >= 8);
    // Backoff 5 ms, 10, 20, …: even allowing the one extra attempt the condition's write causes
    // (a second chain of retries), 8 attempts span at least 5+10+20+40+80 ms. A flood spans none.
    const span = attempts[7]! - attempts[0]!;
    assert.ok(span >= 155, `8 create attempts in ${span} ms: not backing off`);
    assert.equal(maxInFlight, 1, 'never two creates at once: the slow start stops at its first failed batch');
    assert.equal((await client.pods().list({ namespace: ns })).items.length, 0);
    const reasons = (await client.events().list({ namespace: ns })).items.map((e) => e.reason);
    assert.ok(reasons.includes('FailedCreate'), `events: ${reasons.join(', ')}`);

    await client.replicaSets().patch('bad', { spec: { template: { spec: { containers: [{ name: 'main', image: 'nginx' }] } } } }, { type: 'merge', namespace: ns });
    await eventually('5 pods, the failure cleared', async () => {
      const s = (await getRs(ns, 'bad')).status;
      return s?.replicas === 5 && s.conditions === undefined && s.observedGeneration === 2;
    });
  });

  it('with a pod cache 100 ms behind the API, makes no extra pods and deletes no extra pods', async () => {
    const ns = 'lagging';
    await client.namespaces().create({ metadata: { name: ns } });
    let floorFrom = Infinity;
    await using tally = tallyPods(ns, () => 10, (rv) => (rv >= floorFrom ? 2 : 0));
    await tally.ready;
    await using _ctrl = runController(ns, laggingPodWatches(client, 100));
    await client.replicaSets().create(replicaSet(ns, 'late', 10));
    const full = await eventually('10 pods', async () => {
      const now = await listActive(ns);
      return now.pods.length === 10 && (await getRs(ns, 'late')).status?.replicas === 10 ? now : undefined;
    });
    floorFrom = full.resourceVersion;
    await scale(ns, 'late', 2);
    await eventually('2 pods', async () => (await listActive(ns)).pods.length === 2 && (await getRs(ns, 'late')).status?.replicas === 2);
    assert.deepEqual(tally.problems, []);
  });

  it('restarted 10 times while scaling, never holds more pods than replicas', async () => {
    const ns = 'restarts';
    await client.namespaces().create({ metadata: { name: ns } });
    let limit = 0;
    await using tally = tallyPods(ns, () => limit);
    await tally.ready;
    await client.replicaSets().create(replicaSet(ns, 'grow', 0));
    for (const replicas of [2, 5, 7, 10, 12, 15, 17, 20, 22, 25]) {
      limit = replicas; // before the write: no pod can be made for it earlier
      await scale(ns, 'grow', replicas);
      const before = tally.active().length;
      const ctrl = runController(ns);
      await eventually('the controller to start creating', () => tally.active().length > before);
      await ctrl.stop(); // in the middle of its slow start
      const held = (await listActive(ns)).pods.length;
      assert.ok(held <= replicas, `the API holds ${held} pods; ${replicas} wanted`);
    }
    {
      await using _ctrl = runController(ns);
      await eventually('25 pods', async () => (await listActive(ns)).pods.length === 25 && (await getRs(ns, 'grow')).status?.replicas === 25);
      await scale(ns, 'grow', 3);
      await eventually('3 pods', async () => (await listActive(ns)).pods.length === 3);
    }
    assert.deepEqual(tally.problems, []);
  });

  type Step = { kind: 'scale'; replicas: number; settle: boolean } | { kind: 'deletePod'; index: number; settle: boolean } | { kind: 'restart'; settle: boolean };
  const step: fc.Arbitrary<Step> = fc.oneof(
    fc.record({ kind: fc.constant('scale' as const), replicas: fc.integer({ min: 0, max: 6 }), settle: fc.boolean() }),
    fc.record({ kind: fc.constant('deletePod' as const), index: fc.nat(9), settle: fc.boolean() }),
    fc.record({ kind: fc.constant('restart' as const), settle: fc.boolean() }),
  );

  it('random scaling, pod deletions and restarts converge to spec.replicas and never exceed it', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 5 }), fc.array(step, { minLength: 1, maxLength: 6 }), async (initial, steps) => {
        const ns = `prop-${run++}`;
        await client.namespaces().create({ metadata: { name: ns } });
        // The limit in force from a resourceVersion on: raised at once by a scale-up (a pod may be
        // made for it as soon as it is written), lowered only after the pods are seen to converge.
        const limits = [{ from: 0, limit: initial }];
        const limitAt = (rv: number) => limits.filter((l) => l.from <= rv).at(-1)!.limit;
        await using tally = tallyPods(ns, limitAt);
        await tally.ready;
        let desired = initial;
        await client.replicaSets().create(replicaSet(ns, 'app', initial));
        let ctrl = runController(ns);
        const settle = async () => {
          const converged = await eventually(`${desired} pods in ${ns}`, async () => {
            const rs = await getRs(ns, 'app');
            if (rs.status?.observedGeneration !== rs.metadata.generation || rs.status?.replicas !== desired) return undefined;
            const now = await listActive(ns);
            return now.pods.length === desired ? now : undefined;
          });
          limits.push({ from: converged.resourceVersion + 1, limit: desired });
        };
        try {
          for (const s of steps) {
            if (s.kind === 'scale') {
              for (const l of limits) l.limit = Math.max(l.limit, s.replicas);
              desired = s.replicas;
              await scale(ns, 'app', s.replicas);
            } else if (s.kind === 'deletePod') {
              const pods = tally.active().sort((a, b) => a.metadata.name!.localeCompare(b.metadata.name!));
              const victim = pods[s.index % Math.max(1, pods.length)];
              if (victim) await client.pods().delete(victim.metadata.name!, { namespace: ns }).catch((err: unknown) => assert.ok(isApiError(err, 'NotFound'), String(err)));
            } else {
              await ctrl.stop();
              ctrl = runController(ns);
            }
            if (s.settle) await settle();
          }
          await settle();
        } finally {
          await ctrl.stop();
        }
        assert.deepEqual(tally.problems, []);
      }),
      { numRuns: 15 },
    );
  });
});
