/**
 * Issue 19, "failures are contained per key": for every built-in controller, objects of a shape
 * the API would refuse (wrong JSON types where the controller's code expects others), written
 * straight into the store as an older version or a buggy API server could have stored them, are
 * reported (a warning or error naming the object, and a counter) and skipped, while an object
 * created after them is reconciled as usual — and nothing escapes as an uncaught exception or an
 * unhandled rejection (node:test fails the test on either).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isApiError, recordingLogger, type ConfigMap, type Deployment, type LogLine, type Node, type Pod, type ReplicaSet } from '@setpoint/api';
import { Manager, builtin, type Client } from '@setpoint/client';
import { startControlPlaneServingStoreAsIs, writeRaw, type ControlPlane } from '@setpoint/testing';
import { registerDeploymentController } from './deployment/index.js';
import { registerGarbageCollector } from './gc/index.js';
import { registerNamespaceController } from './namespace/index.js';
import { registerNodeLifecycleController, type NodeLifecycleOptions } from './nodelifecycle/index.js';
import { registerReplicaSetController } from './replicaset/index.js';
import { addNode, apiPod } from './scheduler/fixtures.test-support.js';
import { registerScheduler } from './scheduler/index.js';
import { registerServiceAccountController } from './serviceaccount/index.js';

interface Harness extends AsyncDisposable {
  readonly cp: ControlPlane;
  readonly client: Client;
  readonly manager: Manager;
  readonly lines: readonly LogLine[];
}

/** A control plane serving its store as is, and a manager running what `register` adds; both stopped on dispose. */
async function start(setup: (cp: ControlPlane) => Promise<void>, register: (manager: Manager) => void): Promise<Harness> {
  const cp = await startControlPlaneServingStoreAsIs();
  try {
    await setup(cp);
  } catch (err) {
    await cp.stop();
    throw err;
  }
  const logger = recordingLogger();
  const manager = new Manager({ client: cp.client, logger, gracefulShutdownMs: 2_000 });
  register(manager);
  const abort = new AbortController();
  const running = manager.start(abort.signal);
  return {
    cp,
    client: cp.client,
    manager,
    lines: logger.lines,
    async [Symbol.asyncDispose]() {
      abort.abort();
      await running;
      await cp.stop();
    },
  };
}

async function eventually(what: string, check: () => Promise<boolean> | boolean, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

const CONTAINMENT_COUNTERS = [
  'controller_runtime_reconcile_errors_total',
  'controller_runtime_event_handler_errors_total',
  'controller_runtime_informer_errors_total',
  'scheduler_schedule_attempts_total',
];

/** What the manager's registry counted of contained failures. */
async function failuresCounted(manager: Manager): Promise<number> {
  let total = 0;
  for (const name of CONTAINMENT_COUNTERS) {
    const metric = manager.metrics.registry.getSingleMetric(name);
    if (metric === undefined) continue;
    const { values } = await metric.get();
    for (const v of values) if (name !== 'scheduler_schedule_attempts_total' || v.labels.result === 'error') total += v.value;
  }
  return total;
}

/** Waits until a warning or error names `name` (as its key, name or pod) and a containment counter moved. */
async function reported(h: Harness, name: string): Promise<void> {
  const names = (l: LogLine) => Object.values({ ...l.bindings, ...l.fields }).some((v) => v === name || (typeof v === 'string' && v.endsWith(`/${name}`)));
  await eventually(`a report of ${name}`, async () => h.lines.some((l) => (l.level === 'warn' || l.level === 'error') && names(l)) && (await failuresCounted(h.manager)) > 0);
}

const template = (app: string) => ({ metadata: { labels: { app } }, spec: { containers: [{ name: 'main', image: 'busybox' }] } });
const notFound = <T>(p: Promise<T>) => p.then(() => false, (err: unknown) => isApiError(err, 'NotFound'));

describe('a malformed object in the store is reported and skipped; the others keep reconciling', () => {
  it('ReplicaSet controller: spec.replicas "x", 1.5 and an ownerReferences object', async () => {
    await using h = await start(
      async (cp) => {
        await cp.client.namespaces().create({ metadata: { name: 'rs' } });
        const selector = (app: string) => ({ matchLabels: { app } });
        await writeRaw(cp, builtin.replicaSets, { metadata: { name: 'bad', namespace: 'rs' }, spec: { replicas: 'x', selector: selector('bad'), template: template('bad') } });
        await writeRaw(cp, builtin.replicaSets, { metadata: { name: 'half', namespace: 'rs' }, spec: { replicas: 1.5, selector: selector('half'), template: template('half') } });
        await writeRaw(cp, builtin.pods, { metadata: { name: 'odd-pod', namespace: 'rs', labels: { app: 'other' }, ownerReferences: { kind: 'ReplicaSet' } }, spec: { containers: [null] } });
      },
      (m) => registerReplicaSetController(m),
    );
    const rs: ReplicaSet = { metadata: { name: 'good', namespace: 'rs' }, spec: { replicas: 2, selector: { matchLabels: { app: 'good' } }, template: template('good') } };
    await h.client.replicaSets().create(rs, { namespace: 'rs' });
    const pods = async (app: string) => (await h.client.pods().list({ namespace: 'rs', labelSelector: `app=${app}` })).items;
    await eventually('two pods of the healthy ReplicaSet', async () => (await pods('good')).length === 2);
    await reported(h, 'bad');
    await reported(h, 'half');
    assert.equal((await pods('bad')).length + (await pods('half')).length, 0, 'no pod was made for a malformed ReplicaSet');
  });

  it('Deployment controller: spec.selector.matchLabels an array, replicas "x"', async () => {
    await using h = await start(
      async (cp) => {
        await cp.client.namespaces().create({ metadata: { name: 'dep' } });
        await writeRaw(cp, builtin.deployments, { metadata: { name: 'bad', namespace: 'dep' }, spec: { replicas: 1, selector: { matchLabels: ['app'] }, template: template('bad') } });
        await writeRaw(cp, builtin.deployments, { metadata: { name: 'bad-replicas', namespace: 'dep' }, spec: { replicas: 'x', selector: { matchLabels: { app: 'br' } }, template: template('br') } });
      },
      (m) => registerDeploymentController(m),
    );
    const d: Deployment = { metadata: { name: 'good', namespace: 'dep' }, spec: { replicas: 1, selector: { matchLabels: { app: 'good' } }, template: template('good') } };
    await h.client.deployments().create(d, { namespace: 'dep' });
    const owned = async (name: string) => (await h.client.replicaSets().list({ namespace: 'dep' })).items.filter((r) => r.metadata.ownerReferences?.some((o) => o.name === name));
    await eventually('a ReplicaSet of the healthy Deployment', async () => (await owned('good')).length === 1);
    await reported(h, 'bad');
    await reported(h, 'bad-replicas');
    assert.equal((await owned('bad')).length + (await owned('bad-replicas')).length, 0);
  });

  it('garbage collector: ownerReferences entries of the wrong shape, and not an array', async () => {
    await using h = await start(
      async (cp) => {
        await writeRaw(cp, builtin.configMaps, { metadata: { name: 'bad', namespace: 'default', ownerReferences: [null, 5, { apiVersion: 7, kind: {}, name: [], uid: 9 }] } });
        await writeRaw(cp, builtin.configMaps, { metadata: { name: 'bad-object', namespace: 'default', ownerReferences: { apiVersion: 'v1' } } });
      },
      (m) => void registerGarbageCollector(m),
    );
    const owner = await h.client.configMaps().create({ metadata: { name: 'owner', namespace: 'default' } } as ConfigMap, { namespace: 'default' });
    const ref = { apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.metadata.uid! };
    await h.client.configMaps().create({ metadata: { name: 'dependent', namespace: 'default', ownerReferences: [ref] } } as ConfigMap, { namespace: 'default' });
    await reported(h, 'bad');
    await reported(h, 'bad-object');
    await h.client.configMaps().delete('owner', { namespace: 'default' });
    await eventually('the dependent collected', () => notFound(h.client.configMaps().get('dependent', { namespace: 'default' })));
    assert.equal(await notFound(h.client.configMaps().get('bad', { namespace: 'default' })), false, 'the malformed object is left alone');
  });

  it('namespace controller: a terminating Namespace with spec.finalizers a string', async () => {
    await using h = await start(
      async (cp) => {
        await writeRaw(cp, builtin.namespaces, {
          metadata: { name: 'bad', deletionTimestamp: new Date().toISOString().replace(/\.\d+Z$/, 'Z') },
          spec: { finalizers: 'kubernetes' },
          status: { phase: 'Terminating' },
        });
      },
      (m) => void registerNamespaceController(m),
    );
    await h.client.namespaces().create({ metadata: { name: 'doomed' } });
    await h.client.configMaps().create({ metadata: { name: 'content', namespace: 'doomed' } } as ConfigMap, { namespace: 'doomed' });
    await h.client.namespaces().delete('doomed');
    await eventually('the healthy namespace emptied and removed', () => notFound(h.client.namespaces().get('doomed')));
    await reported(h, 'bad');
  });

  it('ServiceAccount controller: a Namespace with status a string and metadata.labels null', async () => {
    await using h = await start(
      async (cp) => {
        await writeRaw(cp, builtin.namespaces, { metadata: { name: 'bad', labels: null }, status: 'Active' });
      },
      (m) => void registerServiceAccountController(m),
    );
    await h.client.namespaces().create({ metadata: { name: 'fresh' } });
    await eventually('the default ServiceAccount of a new namespace', async () => !(await notFound(h.client.serviceAccounts().get('default', { namespace: 'fresh' }))));
    await reported(h, 'bad');
    assert.equal(await notFound(h.client.serviceAccounts().get('default', { namespace: 'bad' })), true, 'the malformed namespace is skipped');
  });

  it('node lifecycle and taint eviction: a Node with status.conditions an object, Pods with spec.nodeName {}, 0 and ["x"]', async () => {
    const options: NodeLifecycleOptions = { nodeMonitorGracePeriodMs: 300, nodeStartupGracePeriodMs: 300, orphanQuarantineMs: 100 };
    await using h = await start(
      async (cp) => {
        await writeRaw(cp, builtin.nodes, { metadata: { name: 'bad' }, status: { conditions: { Ready: 'True' } } });
        await writeRaw(cp, builtin.pods, { metadata: { name: 'bad-pod', namespace: 'default' }, spec: { nodeName: {}, containers: [{ name: 'c', image: 'i' }] } });
        await writeRaw(cp, builtin.pods, { metadata: { name: 'zero-pod', namespace: 'default' }, spec: { nodeName: 0, containers: [{ name: 'c', image: 'i' }] } });
        await writeRaw(cp, builtin.pods, { metadata: { name: 'array-pod', namespace: 'default' }, spec: { nodeName: ['x'], containers: [null] } });
      },
      (m) => void registerNodeLifecycleController(m, options),
    );
    // A healthy node that never renews: Unknown after the grace period.
    await h.client.nodes().create({ metadata: { name: 'good' } });
    const created = await h.client.nodes().get('good');
    const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    await h.client.nodes().updateStatus({ ...created, status: { conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', lastHeartbeatTime: now, lastTransitionTime: now }] } });
    await eventually('the silent node marked Unknown', async () => {
      const node: Node = await h.client.nodes().get('good');
      return node.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'Unknown') === true;
    });
    // A pod bound to a node that does not exist: deleted after the quarantine.
    await h.client.pods().create({ metadata: { name: 'orphan', namespace: 'default' }, spec: { nodeName: 'ghost', containers: [{ name: 'c', image: 'i' }] } } as Pod, { namespace: 'default' });
    await eventually('the orphan pod deleted', () => notFound(h.client.pods().get('orphan', { namespace: 'default' })));
    await reported(h, 'bad');
    await reported(h, 'bad-pod');
  });

  it('scheduler: Pods with spec.containers [null], resources.requests a list, and spec.nodeName {}', async () => {
    await using h = await start(
      async (cp) => {
        await writeRaw(cp, builtin.pods, { metadata: { name: 'bad', namespace: 'default' }, spec: { containers: [null] } });
        await writeRaw(cp, builtin.pods, { metadata: { name: 'bad-requests', namespace: 'default' }, spec: { containers: [{ name: 'c', image: 'i', resources: { requests: ['cpu'] } }] } });
        await writeRaw(cp, builtin.pods, { metadata: { name: 'bad-node', namespace: 'default' }, spec: { nodeName: {}, containers: [{ name: 'c', image: 'i' }] } });
      },
      (m) => void registerScheduler(m),
    );
    await addNode(h.client, 'n1', { cpu: '4', memory: '8Gi' });
    await h.client.pods().create(apiPod('good', { cpu: '100m', memory: '64Mi' }), { namespace: 'default' });
    await eventually('the healthy pod bound', async () => (await h.client.pods().get('good', { namespace: 'default' })).spec?.nodeName === 'n1');
    await reported(h, 'bad');
    await reported(h, 'bad-requests');
  });
});
