import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FakeClock, type Node, type Pod, type PodCondition } from '@setpoint/api';
import { builtin, Client, Manager } from '@setpoint/client';
import { startControlPlane } from '@setpoint/testing';
import { addNode, apiPod, eventually, seededRandom } from './fixtures.test-support.js';
import { registerScheduler, Scheduler } from './index.js';

const scheduled = (pod: Pod | undefined): PodCondition | undefined => pod?.status?.conditions?.find((c) => c.type === 'PodScheduled');

describe('scheduler against the in-process control plane', () => {
  it('reports an unschedulable pod, leaves it alone while nothing changes, and places it once a fitting node appears', async () => {
    await using cp = await startControlPlane();
    const client = new Client(cp.config, { qps: 10_000, burst: 10_000 });
    const clock = new FakeClock(Date.now()); // the scheduler's backoff and 5-minute timers run in virtual time
    const manager = new Manager({ client });
    const scheduler = registerScheduler(manager, { clock, random: seededRandom(1) });
    const nodes = manager.informer<Node>(builtin.nodes);
    const stop = new AbortController();
    const running = manager.start(stop.signal);
    const pods = client.pods();
    const get = () => pods.get('big', { namespace: 'default' });
    try {
      await addNode(client, 'small', { cpu: '1', memory: '4Gi' });
      await eventually('the scheduler to see the node', () => nodes.store.get('small')?.status?.allocatable !== undefined);
      await pods.create(apiPod('big', { cpu: '2', memory: '1Gi' }));

      await eventually('PodScheduled=False, reason Unschedulable', async () => scheduled(await get())?.reason === 'Unschedulable');
      const condition = scheduled(await get())!;
      assert.equal(condition.status, 'False');
      assert.equal(condition.message, '0/1 nodes are available: 1 Insufficient cpu.');
      await eventually('a FailedScheduling event', async () =>
        (await client.events().list({ namespace: 'default' })).items.some(
          (e) => e.reason === 'FailedScheduling' && e.type === 'Warning' && e.involvedObject.name === 'big' && e.message === condition.message,
        ),
      );
      assert.equal(scheduler.stats.unschedulable, 1);

      // Nothing that matters changes: a heartbeat, and ten virtual minutes... The pod is retried
      // only at the 5-minute mark, and reported again without a second status write.
      const small = (await client.nodes().get('small'))!;
      const beat = await client.nodes().updateStatus({
        ...small,
        status: { ...small.status, conditions: [{ type: 'Ready', status: 'True', lastHeartbeatTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z') }] },
      });
      await eventually('the heartbeat in the cache', () => nodes.store.get('small')?.metadata.resourceVersion === beat.metadata.resourceVersion);
      const before = (await get()).metadata.resourceVersion;
      await clock.advance(60_000);
      assert.equal(scheduler.stats.unschedulable, 1, 'a heartbeat does not wake an unschedulable pod');
      await clock.advance(240_000);
      await eventually('the 5-minute retry', () => scheduler.stats.unschedulable === 2);
      await clock.advance(240_000);
      assert.equal(scheduler.stats.unschedulable, 2, 'no busy loop: one retry per 5 minutes');
      assert.equal((await get()).metadata.resourceVersion, before, 'the same message is not written again');

      await addNode(client, 'large', { cpu: '4', memory: '8Gi' });
      await eventually(
        'the pod to be bound to the new node',
        async () => {
          if ((await get()).spec?.nodeName !== undefined) return true;
          await clock.advance(1000); // lets a pod in backoff (woken by the node's two writes) go on
          return false;
        },
        20_000,
      );
      const placed = await get();
      assert.equal(placed.spec?.nodeName, 'large');
      assert.equal(scheduled(placed)?.status, 'True', 'the binding turned PodScheduled True');
      const attempts = scheduler.stats.unschedulable + scheduler.stats.scheduled;
      assert.ok(attempts <= 4, `a few attempts in all, not a retry loop (got ${attempts})`);
      assert.equal(scheduler.stats.errors, 0);
      await eventually('a Scheduled event', async () =>
        (await client.events().list({ namespace: 'default' })).items.some((e) => e.reason === 'Scheduled' && e.message === 'Successfully assigned default/big to large'),
      );
      const metrics = await manager.metrics.registry.getSingleMetricAsString('scheduler_schedule_attempts_total');
      assert.match(metrics, /scheduler_schedule_attempts_total\{result="scheduled"\} 1/);
      assert.match(metrics, new RegExp(`scheduler_schedule_attempts_total\\{result="unschedulable"\\} ${scheduler.stats.unschedulable}`));
      assert.match(await manager.metrics.registry.getSingleMetricAsString('scheduler_pending_pods'), /scheduler_pending_pods\{queue="unschedulable"\} 0/);
    } finally {
      stop.abort();
      await running;
      client.close();
    }
  });

  it('two schedulers with leader election: exactly one binds', async () => {
    await using cp = await startControlPlane();
    // A lease long enough that a busy machine never makes the leader miss its renew deadline mid-run.
    const election = { name: 'setpoint-scheduler', namespace: 'default', leaseDurationMs: 5000, renewDeadlineMs: 4000, retryPeriodMs: 100 };
    const replicas = ['one', 'two'].map((identity, i) => {
      const client = new Client(cp.config, { qps: 10_000, burst: 10_000 });
      const manager = new Manager({ client, leaderElection: { ...election, identity } });
      const scheduler = registerScheduler(manager, { random: seededRandom(i) });
      const stop = new AbortController();
      return { identity, client, manager, scheduler, stop, running: manager.start(stop.signal) };
    });
    try {
      for (let i = 0; i < 3; i++) await addNode(cp.client, `node-${i}`, { cpu: '4', memory: '8Gi' });
      await eventually('a leader', () => replicas.some((r) => r.manager.leading));
      await Promise.all(Array.from({ length: 30 }, (_, i) => cp.client.pods().create(apiPod(`p${i}`, { cpu: '100m', memory: '64Mi' }))));
      await eventually('every pod bound', async () => (await cp.client.pods().list({ namespace: 'default' })).items.every((p) => p.spec?.nodeName !== undefined));
      const leader = replicas.find((r) => r.manager.leading)!;
      const follower = replicas.find((r) => r !== leader)!;
      assert.equal(leader.scheduler.stats.scheduled, 30, 'the leader bound every pod');
      assert.equal(follower.scheduler.stats.scheduled + follower.scheduler.stats.unschedulable + follower.scheduler.stats.errors, 0, 'the follower tried nothing');
      assert.equal(leader.scheduler.stats.errors, 0, 'no binding was refused (no one else bound first)');
    } finally {
      for (const r of replicas) {
        r.stop.abort();
        await r.running;
        r.client.close();
      }
    }
  });

  it('makes many decisions per turn of the event loop, not one (a busy process would throttle it to one pod per turn)', async () => {
    await using cp = await startControlPlane();
    const client = new Client(cp.config, { qps: 10_000, burst: 10_000 });
    // The turn of the event loop each binding request was sent in: `turn` counts setImmediate
    // callbacks, one per turn, for as long as the test runs.
    let turn = 0;
    let ticking = true;
    const tick = () => {
      turn++;
      if (ticking) setImmediate(tick);
    };
    tick();
    const bindTurns: number[] = [];
    const counting = new Proxy(client, {
      get(target, prop, receiver) {
        if (prop !== 'pods') return Reflect.get(target, prop, receiver) as unknown;
        return () => {
          const pods = target.pods();
          return new Proxy(pods, {
            get(p, name, r) {
              if (name !== 'createSubresource') return Reflect.get(p, name, r) as unknown;
              return (...args: Parameters<typeof pods.createSubresource>) => {
                bindTurns.push(turn);
                return pods.createSubresource(...args);
              };
            },
          });
        };
      },
    });
    const manager = new Manager({ client });
    const scheduler = new Scheduler(
      { client: counting, pods: manager.informer<Pod>(builtin.pods), nodes: manager.informer<Node>(builtin.nodes), events: manager.eventRecorder('default-scheduler') },
      { random: seededRandom(3) },
    );
    manager.add(scheduler);
    const stop = new AbortController();
    try {
      await addNode(client, 'roomy', { cpu: '64', memory: '64Gi' });
      const count = 40;
      await Promise.all(Array.from({ length: count }, (_, i) => client.pods().create(apiPod(`p${i}`, { cpu: '100m', memory: '64Mi' }))));
      const running = manager.start(stop.signal); // every pod is queued when the caches sync
      await eventually('every pod bound', () => scheduler.stats.scheduled === count);
      stop.abort();
      await running;
      assert.equal(bindTurns.length, count);
      const turns = new Set(bindTurns).size;
      assert.ok(turns <= count / 4, `${count} decisions took ${turns} turns of the event loop`);
    } finally {
      ticking = false;
      stop.abort();
      client.close();
    }
  });
});
