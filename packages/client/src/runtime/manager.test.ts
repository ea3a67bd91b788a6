/**
 * The seed's rules, end to end against a real API server (the in-process control plane):
 * coalescing, no duplicate children across restarts (cache-sync barrier and expectations),
 * optimistic concurrency between racing writers, and leader election between two managers.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isApiError, type ConfigMap, type KubeObject, type Secret } from '@setpoint/api';
import { startControlPlane } from '@setpoint/testing';
import { Client } from '../client/index.js';
import { builtin } from '../client/index.js';
import { retryOnConflict } from './helpers/conflict.js';
import { Expectations } from './helpers/expectations.js';
import { controllerOf, enqueueMapped } from './handlers.js';
import { Manager } from './manager.js';

/** Waits (polling every 5 ms) until `predicate` holds; fails after `ms`. */
async function waitFor(what: string, predicate: () => boolean | Promise<boolean>, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await predicate())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe('controller runtime against the API server', () => {
  it('1,000 updates to one object while its key is pending give one reconcile, which sees the last state', async () => {
    await using cp = await startControlPlane();
    const client = new Client(cp.config, { qps: 10_000, burst: 10_000 });
    const mgr = new Manager({ client });
    const cms = mgr.reader<ConfigMap>(builtin.configMaps);
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let blocking = false;
    const seen: Array<{ name: string; v: string | undefined }> = [];
    mgr
      .controller('coalesce')
      .for(builtin.configMaps)
      .reconcile(async ({ namespace, name }) => {
        if (name === 'blocker' && !blocking) {
          blocking = true;
          await gate; // the only worker is busy: every other key stays pending
          return;
        }
        seen.push({ name, v: cms.get(namespace, name)?.data?.v });
      });
    const stop = new AbortController();
    const running = mgr.start(stop.signal);
    try {
      const api = client.configMaps();
      await api.create({ metadata: { name: 'blocker', namespace: 'default' } });
      await waitFor('the blocker reconcile to start', () => blocking);
      let obj = await api.create({ metadata: { name: 'target', namespace: 'default' }, data: { v: '0' } });
      for (let i = 1; i <= 1000; i++) obj = await api.update({ ...obj, data: { v: String(i) } });
      await waitFor('the cache to hold the last update', () => cms.get('default', 'target')?.data?.v === '1000');
      release();
      await waitFor('the target reconcile', () => seen.some((s) => s.name === 'target'));
      // Give the queue every chance to deliver a second one: a later marker key is reconciled after it.
      await api.create({ metadata: { name: 'marker', namespace: 'default' } });
      await waitFor('the marker reconcile', () => seen.some((s) => s.name === 'marker'));
      assert.deepEqual(
        seen.filter((s) => s.name === 'target'),
        [{ name: 'target', v: '1000' }],
        'one reconcile for 1,001 events, reading the present',
      );
    } finally {
      release();
      stop.abort();
      await running;
      client.close();
    }
  });

  it('a controller that creates a missing child (generateName) never creates duplicates across 20 restarts', async () => {
    await using cp = await startControlPlane();
    const client = new Client(cp.config, { qps: 10_000, burst: 10_000 });
    const parents = 10;
    for (let i = 0; i < parents; i++) await client.configMaps().create({ metadata: { name: `parent-${i}`, namespace: 'default' } });
    let creates = 0;
    for (let restart = 0; restart < 20; restart++) {
      const mgr = new Manager({ client });
      const expectations = new Expectations();
      const owners = mgr.reader<ConfigMap>(builtin.configMaps);
      const children = mgr.reader<Secret>(builtin.secrets);
      const childInformer = mgr.informer<Secret>(builtin.secrets);
      childInformer.addEventHandler({
        onAdd: (obj) => {
          const owner = controllerOf(obj as KubeObject);
          if (owner) expectations.creationObserved(`${obj.metadata.namespace}/${owner.name}`);
        },
      });
      mgr
        .controller('parent')
        .for(builtin.configMaps)
        .owns(builtin.secrets)
        .withConcurrency(4)
        .reconcile(async ({ namespace, name }) => {
          const parent = owners.get(namespace, name);
          if (parent === undefined) return;
          const key = `${namespace}/${name}`;
          if (!expectations.satisfied(key)) return; // our last create is not in the cache yet
          const mine = children.list({ namespace }).filter((s) => controllerOf(s as KubeObject)?.uid === parent.metadata.uid);
          if (mine.length > 0) return;
          expectations.expectCreations(key, 1);
          try {
            creates++;
            await client.secrets().create({
              metadata: {
                generateName: `${name}-`,
                namespace,
                ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name, uid: parent.metadata.uid!, controller: true }],
              },
            });
          } catch (err) {
            expectations.creationObserved(key); // the create will never be seen
            throw err;
          }
        });
      const stop = new AbortController();
      const running = mgr.start(stop.signal);
      await waitFor('every parent to have its child in the cache', () => {
        const list = children.list({ namespace: 'default' });
        return list.length >= parents;
      });
      stop.abort();
      await running;
    }
    const secrets = await client.secrets().listAll({ namespace: 'default' });
    assert.equal(secrets.items.length, parents, 'exactly one child per parent');
    assert.equal(creates, parents, 'no create after the first run');
    client.close();
  });

  it('two writers racing on one object resolve through conflicts and never overwrite each other', async () => {
    await using cp = await startControlPlane();
    const a = new Client(cp.config, { qps: 10_000, burst: 10_000 });
    const b = new Client(cp.config, { qps: 10_000, burst: 10_000 });
    await a.configMaps().create({ metadata: { name: 'counter', namespace: 'default' }, data: { n: '0' } });
    let conflicts = 0;
    const increment = (client: Client) =>
      retryOnConflict(
        async () => {
          const current = await client.configMaps().get('counter', { namespace: 'default' });
          try {
            await client.configMaps().update({ ...current, data: { n: String(Number(current.data?.n ?? '0') + 1) } });
          } catch (err) {
            if (isApiError(err, 'Conflict')) conflicts++;
            throw err;
          }
        },
        { steps: 1000, initialMs: 1 },
      );
    const perWriter = 50;
    await Promise.all([
      (async () => {
        for (let i = 0; i < perWriter; i++) await increment(a);
      })(),
      (async () => {
        for (let i = 0; i < perWriter; i++) await increment(b);
      })(),
    ]);
    const final = await a.configMaps().get('counter', { namespace: 'default' });
    assert.equal(final.data?.n, String(2 * perWriter), 'no increment was lost');
    assert.ok(conflicts > 0, 'the writers did race (and resolved it through 409s)');
    a.close();
    b.close();
  });

  it('two managers with leader election: one reconciles at a time, and the other takes over when the leader dies', async () => {
    await using cp = await startControlPlane();
    const election = { name: 'race', namespace: 'default', leaseDurationMs: 1000, renewDeadlineMs: 700, retryPeriodMs: 100, releaseOnCancel: false };
    const reconciledBy: Array<{ who: string; name: string }> = [];
    const start = (who: string) => {
      const client = new Client(cp.config, { qps: 10_000, burst: 10_000 });
      const mgr = new Manager({ client, leaderElection: { ...election, identity: who } });
      mgr
        .controller('leader-only')
        .for(builtin.configMaps)
        .reconcile(async ({ name }) => {
          reconciledBy.push({ who, name });
        });
      const stop = new AbortController();
      const running = mgr.start(stop.signal);
      return { who, mgr, client, stop, running };
    };
    const one = start('one');
    const two = start('two');
    const api = one.client.configMaps();
    try {
      await waitFor('a leader', () => one.mgr.leading || two.mgr.leading);
      const leader = one.mgr.leading ? one : two;
      const follower = leader === one ? two : one;
      await waitFor('the follower to sync its caches while it waits', () => follower.mgr.ready());
      await api.create({ metadata: { name: 'first', namespace: 'default' } });
      await waitFor('first reconciled', () => reconciledBy.some((r) => r.name === 'first'));
      assert.equal(follower.mgr.leading, false);
      assert.deepEqual(new Set(reconciledBy.map((r) => r.who)), new Set([leader.who]), 'only the leader reconciles');
      // The leader dies without releasing its lease.
      leader.stop.abort();
      await leader.running;
      const diedAt = Date.now();
      assert.equal(follower.mgr.ready(), true, 'the follower kept its caches warm: no full sync needed');
      await waitFor('the follower to take over', () => follower.mgr.leading, 5000);
      assert.ok(Date.now() - diedAt >= 500, 'the follower waited for the lease to expire');
      await api.create({ metadata: { name: 'second', namespace: 'default' } });
      await waitFor('second reconciled', () => reconciledBy.some((r) => r.name === 'second'));
      assert.deepEqual(
        reconciledBy.filter((r) => r.name === 'second').map((r) => r.who),
        [follower.who],
        'the new leader reconciles',
      );
    } finally {
      for (const m of [one, two]) {
        m.stop.abort();
        await m.running;
        m.client.close();
      }
    }
  });

  it('fences its client: a write other than of its lease goes out only while the lease is held', async () => {
    // Found by the leader-election fault test: a leader frozen (SIGSTOP) past its lease and thawed
    // finished the reconciles in flight — and wrote — before its deadline timer ran.
    await using cp = await startControlPlane();
    const election = { name: 'fenced', namespace: 'default', leaseDurationMs: 1000, renewDeadlineMs: 700, retryPeriodMs: 100 };
    const start = (who: string) => {
      const client = new Client(cp.config, { qps: 10_000, burst: 10_000 });
      const mgr = new Manager({ client, leaderElection: { ...election, identity: who } });
      const stop = new AbortController();
      return { mgr, client, stop, running: mgr.start(stop.signal) };
    };
    const one = start('one');
    const two = start('two');
    try {
      await waitFor('a leader', () => one.mgr.leading || two.mgr.leading);
      const leader = one.mgr.leading ? one : two;
      const follower = leader === one ? two : one;
      await leader.client.configMaps().create({ metadata: { name: 'by-leader', namespace: 'default' } });
      await assert.rejects(
        follower.client.configMaps().create({ metadata: { name: 'by-follower', namespace: 'default' } }),
        (err: unknown) => isApiError(err, 'ServiceUnavailable') && /was not sent: this process does not hold the lease default\/fenced/.test((err as Error).message),
      );
      await assert.rejects(cp.client.configMaps().get('by-follower', { namespace: 'default' }), (err: unknown) => isApiError(err, 'NotFound'));
      assert.ok((await follower.client.leases().get('fenced', { namespace: 'default' })).spec?.holderIdentity, 'reads are not fenced');
      follower.stop.abort();
      await follower.running;
      await follower.client.configMaps().create({ metadata: { name: 'after-stop', namespace: 'default' } });
    } finally {
      for (const m of [one, two]) {
        m.stop.abort();
        await m.running;
        m.client.close();
      }
    }
  });

  it('watches added while running deliver keys; /readyz, /healthz and /metrics answer', async () => {
    await using cp = await startControlPlane();
    const client = new Client(cp.config, { qps: 10_000, burst: 10_000 });
    const mgr = new Manager({ client, httpAddress: { port: 0 } });
    const seen: string[] = [];
    const controller = mgr
      .controller('late')
      .for(builtin.configMaps)
      .reconcile(async ({ name }) => {
        seen.push(name);
      });
    const stop = new AbortController();
    const running = mgr.start(stop.signal);
    try {
      await waitFor('the caches', () => mgr.ready());
      const get = async (path: string) => {
        const res = await fetch(`http://127.0.0.1:${mgr.httpPort}${path}`);
        return { status: res.status, text: await res.text() };
      };
      assert.equal((await get('/readyz')).status, 200);
      assert.equal((await get('/healthz')).status, 200);
      // A kind the controller starts watching only now (as for a CRD that appears later):
      // each Secret maps to the ConfigMap of the same name.
      controller.watch(mgr.informer(builtin.secrets) as never, enqueueMapped((obj: KubeObject) => [{ namespace: obj.metadata.namespace ?? '', name: obj.metadata.name ?? '' }]));
      await client.secrets().create({ metadata: { name: 'from-a-secret', namespace: 'default' } });
      await waitFor('a key from the new watch', () => seen.includes('from-a-secret'));
      const metrics = await get('/metrics');
      assert.equal(metrics.status, 200);
      assert.match(metrics.text, /controller_runtime_reconcile_total\{controller="late",result="success"\} [1-9]/);
      assert.match(metrics.text, /workqueue_adds_total\{name="late"\} [1-9]/);
    } finally {
      stop.abort();
      await running;
      client.close();
    }
  });
});
