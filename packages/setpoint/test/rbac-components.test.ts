/**
 * The built-in components under RBAC with their own least-privilege identities, not admin: the
 * controller-manager as system:kube-controller-manager, the scheduler as system:kube-scheduler
 * (both with leader election), a node agent as system:node:n1 (Node authorizer). A Deployment
 * becomes a running pod on n1, the namespace gets its default ServiceAccount, deleting the
 * namespace empties and removes it — and no component meets a 403 on the way, while what lies
 * outside their roles (creating secrets, reading another node) is refused.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { isApiError, silentLogger, type Logger } from '@setpoint/api';
import { runAgent, runSimulatedNodes } from '@setpoint/agent';
import { ApiServer, TokenAuthenticator } from '@setpoint/apiserver';
import { Client, Manager } from '@setpoint/client';
import { registerBuiltinControllers, registerScheduler } from '@setpoint/controllers';
import { MemoryStore } from '@setpoint/store';

/** A logger that keeps every warning and error mentioning a 403 (what a missing permission looks like). */
function forbiddenRecorder(seen: string[], bindings: object = {}): Logger {
  const note = (fields: object, message: string) => {
    const text = `${JSON.stringify(bindings)} ${message} ${JSON.stringify(fields, (_k, v: unknown) => (v instanceof Error ? `${v.message}` : v))}`;
    // NamespaceLifecycle's refusal of new objects in a namespace being deleted is no authorization
    // failure: a controller that recreates a pod just deleted with its namespace meets it, as in Kubernetes.
    if (/forbidden|403/i.test(text) && !/because it is being terminated/.test(text)) seen.push(text);
  };
  return { debug() {}, info() {}, warn: note, error: note, child: (b) => forbiddenRecorder(seen, { ...bindings, ...b }) };
}

async function waitFor<T>(what: string, check: () => Promise<T | undefined | false>, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined && value !== false) return value;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`, { cause: last });
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('components with least-privilege identities', () => {
  const store = new MemoryStore();
  const stop = new AbortController();
  const forbidden: string[] = [];
  let server: ApiServer;
  let dir: string;
  let admin: Client;
  let cm: Client;
  let scheduler: Client;
  let node: Client;
  let sim: Client;
  let running: Promise<unknown>[] = [];

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'setpoint-rbac-components-'));
    const authenticator = new TokenAuthenticator({
      adminToken: 'admin',
      tokens: [
        ['cm', { name: 'system:kube-controller-manager', groups: ['system:authenticated'] }],
        ['sched', { name: 'system:kube-scheduler', groups: ['system:authenticated'] }],
        ['n1', { name: 'system:node:n1', groups: ['system:nodes', 'system:authenticated'] }],
        ['sim', { name: 'setpoint:simulated-nodes', groups: ['system:authenticated'] }],
      ],
    });
    server = await ApiServer.start({ store, port: 0, compaction: false, authenticator, logger: silentLogger });
    const client = (token: string) => new Client({ server: server.url, token }, { qps: 1000, burst: 1000 });
    admin = client('admin');
    cm = client('cm');
    scheduler = client('sched');
    node = client('n1');
    sim = client('sim');
    const election = (name: string) => ({ name, namespace: 'kube-system', leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 500 });
    const cmManager = new Manager({ client: cm, logger: forbiddenRecorder(forbidden, { component: 'controller-manager' }), leaderElection: election('setpoint-controller-manager'), gracefulShutdownMs: 2000 });
    registerBuiltinControllers(cmManager);
    const schedManager = new Manager({ client: scheduler, logger: forbiddenRecorder(forbidden, { component: 'scheduler' }), leaderElection: election('setpoint-scheduler'), gracefulShutdownMs: 2000 });
    registerScheduler(schedManager);
    running = [
      cmManager.start(stop.signal),
      schedManager.start(stop.signal),
      runAgent({ client: node, nodeName: 'n1', dataDir: join(dir, 'n1'), runtime: 'simulated', signal: stop.signal, logger: forbiddenRecorder(forbidden, { component: 'agent' }) }),
    ];
  });

  after(async () => {
    stop.abort();
    await Promise.allSettled(running);
    for (const c of [admin, cm, scheduler, node, sim]) c?.close();
    await server?.stop();
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('runs a Deployment to a running pod on n1, and deletes its namespace, with no 403 met', async () => {
    await admin.namespaces().create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'apps' } });
    await admin.deployments().create(
      {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'web', namespace: 'apps' },
        spec: { replicas: 1, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'web:1' }] } } },
      },
      { namespace: 'apps' },
    );
    const pod = await waitFor('a running pod on n1', async () => {
      const pods = await admin.pods().list({ namespace: 'apps' });
      return pods.items.find((p) => p.spec?.nodeName === 'n1' && p.status?.phase === 'Running');
    });
    assert.equal(pod.metadata.namespace, 'apps');
    await waitFor('the default ServiceAccount', async () => (await admin.serviceAccounts().list({ namespace: 'apps' })).items.some((sa) => sa.metadata.name === 'default'));
    await waitFor('the Scheduled event', async () => (await admin.events().list({ namespace: 'apps' })).items.some((e) => e.reason === 'Scheduled'));
    await waitFor('the node lease', async () => (await admin.leases().list({ namespace: 'kube-node-lease' })).items.some((l) => l.metadata.name === 'n1'));
    const leases = (await admin.leases().list({ namespace: 'kube-system' })).items.map((l) => l.metadata.name).sort();
    assert.deepEqual(leases, ['setpoint-controller-manager', 'setpoint-scheduler']);
    await admin.namespaces().delete('apps');
    await waitFor(
      'the namespace to go',
      async () => {
        try {
          await admin.namespaces().get('apps');
          return false;
        } catch (err) {
          return isApiError(err, 'NotFound');
        }
      },
      60_000,
    );
    assert.deepEqual(forbidden, [], 'no component was refused anything');
  });

  it('refuses what lies outside each role', async () => {
    const refused = async (what: Promise<unknown>) => {
      await assert.rejects(what, (err: unknown) => isApiError(err, 'Forbidden'));
    };
    await refused(cm.secrets().create({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 's', namespace: 'default' } }, { namespace: 'default' }));
    await refused(cm.resource({ group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'clusterrolebindings', kind: 'ClusterRoleBinding', namespaced: false }).create({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: 'x' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' }, subjects: [{ kind: 'User', name: 'system:kube-controller-manager' }] } as never));
    await refused(scheduler.secrets().list({ namespace: 'default' }));
    await refused(scheduler.deployments().list({ namespace: 'default' }));
    await refused(node.pods().list());
    await refused(node.nodes().list());
    await refused(sim.secrets().list({ namespace: 'default' }));
    await refused(sim.deployments().create({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd', namespace: 'default' } } as never, { namespace: 'default' }));
  });

  it('simulated nodes run as setpoint:simulated-nodes (system:node\'s rules), not admin', async () => {
    const simStop = new AbortController();
    const seen: string[] = [];
    const simulated = runSimulatedNodes({ client: sim, count: 3, namePrefix: 'sim-', readyDelayMs: 10, signal: simStop.signal, logger: forbiddenRecorder(seen, { component: 'simulated-nodes' }) });
    try {
      await waitFor('three simulated nodes with leases', async () => {
        const leases = (await admin.leases().list({ namespace: 'kube-node-lease' })).items.map((l) => l.metadata.name);
        return ['sim-0', 'sim-1', 'sim-2'].every((n) => leases.includes(n));
      });
      await admin.pods().create({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'on-sim', namespace: 'default' }, spec: { nodeName: 'sim-1', containers: [{ name: 'c', image: 'c:1' }] } }, { namespace: 'default' });
      await waitFor('the pod Running on sim-1', async () => (await admin.pods().get('on-sim', { namespace: 'default' })).status?.phase === 'Running');
      await admin.pods().delete('on-sim', { namespace: 'default' });
      await waitFor('the pod gone', async () => admin.pods().get('on-sim', { namespace: 'default' }).then(() => false, (err: unknown) => isApiError(err, 'NotFound')));
      assert.deepEqual(seen, [], 'the simulated nodes were refused nothing');
    } finally {
      simStop.abort();
      await simulated;
    }
  });
});
