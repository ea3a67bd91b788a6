/**
 * A user's session with kubectl against the control plane, with every built-in controller running
 * (registerBuiltinControllers: garbage collector, namespaces, ReplicaSets, Deployments) and the
 * fake node making pods Running and Ready: create a Deployment, scale it, roll a new image out and
 * back, delete Deployments with each cascade mode, and delete a namespace held by a custom
 * resource's finalizer.
 *
 * The steps run in order on one control plane and one manager. kubectl runs asynchronously (the API
 * server is in this process) with a kill deadline; every wait has a deadline; the manager, the
 * fake node and the control plane are always stopped.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { isApiError, type Deployment, type KubeObject, type Namespace, type Pod, type ReplicaSet } from '@setpoint/api';
import { Manager, type ResourceClient, type WatchEvent } from '@setpoint/client';
import { startControlPlane, type ControlPlane } from '@setpoint/testing';
import { eventually, isActive, isPodReady, watchPods } from './deployment/harness.test-support.js';
import { FOREGROUND_FINALIZER } from './gc/index.js';
import { registerBuiltinControllers } from './index.js';
import { runFakeNode } from './testing/node.js';

const NS = 'shop';
const OLD_IMAGE = 'nginx:1.25';
const NEW_IMAGE = 'nginx:1.26';

/** A Deployment manifest: `replicas` pods of one container `web`, labelled app=<name>, rolling 1 up, 0 down. */
function deploymentYaml(namespace: string, name: string, replicas: number): string {
  return `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${name}
  namespace: ${namespace}
  labels:
    app: ${name}
spec:
  replicas: ${replicas}
  selector:
    matchLabels:
      app: ${name}
  strategy:
    type: RollingUpdate
    rollingUpdate:
      maxSurge: 1
      maxUnavailable: 0
  template:
    metadata:
      labels:
        app: ${name}
    spec:
      containers:
      - name: web
        image: ${OLD_IMAGE}
`;
}

/** A namespaced custom resource kind, example.com/v1 Widget. */
const widgetCrdYaml = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              size: {type: string}
`;

const namespaceYaml = (name: string) => `apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ${name}\n`;

/** `get` that answers undefined for NotFound. */
const orAbsent = <T>(p: Promise<T>): Promise<T | undefined> => p.catch((err: unknown) => (isApiError(err, 'NotFound') ? undefined : Promise.reject(err)));

/** Numeric order of resourceVersions: in Setpoint (as on etcd) they are one store-wide revision. */
const rvOf = (obj: KubeObject): number => Number(obj.metadata.resourceVersion);

/** Every event of one kind in one namespace from the moment `record` resolves; `stop()` returns them. */
interface Recording<T extends KubeObject> {
  stop(): Promise<WatchEvent<T>[]>;
}

async function record<T extends KubeObject>(api: ResourceClient<T>, namespace: string): Promise<Recording<T>> {
  const abort = new AbortController();
  const events: WatchEvent<T>[] = [];
  const list = await api.list({ namespace });
  let failure: unknown;
  const done = (async () => {
    try {
      for await (const event of api.watch({ namespace, resourceVersion: list.metadata.resourceVersion, signal: abort.signal })) events.push(event);
    } catch (err) {
      if (!abort.signal.aborted) failure = err;
    }
  })();
  return {
    async stop() {
      abort.abort();
      await done;
      if (failure !== undefined) throw failure;
      return events;
    },
  };
}

describe('a kubectl session: Deployments, rollouts, cascading deletion, namespace deletion', () => {
  let cp: ControlPlane;
  let kubeconfig: string;
  let workDir: string;
  const stopManager = new AbortController();
  const stopNode = new AbortController();
  let managerDone: Promise<void> = Promise.resolve();
  let nodeDone: Promise<void> = Promise.resolve();

  before(async () => {
    cp = await startControlPlane();
    kubeconfig = await cp.kubeconfig();
    workDir = await mkdtemp(join(tmpdir(), 'setpoint-scenario-'));
    const manager = new Manager({ client: cp.client, gracefulShutdownMs: 2_000 });
    registerBuiltinControllers(manager);
    managerDone = manager.start(stopManager.signal);
    nodeDone = runFakeNode(cp.client, stopNode.signal, { nodeName: 'node-1' });
  });

  after(async () => {
    stopManager.abort();
    stopNode.abort();
    try {
      await Promise.all([managerDone, nodeDone]);
    } finally {
      await cp.stop();
      await rm(workDir, { recursive: true, force: true });
    }
  });

  /** Runs kubectl to completion (killed after 20 s); throws with its stderr when it fails. */
  function kubectl(...args: string[]): Promise<string> {
    return new Promise((resolve, reject) => {
      execFile(
        'kubectl',
        [`--kubeconfig=${kubeconfig}`, `--cache-dir=${join(workDir, 'cache')}`, '--request-timeout=10s', ...args],
        { timeout: 20_000, killSignal: 'SIGKILL' },
        (err, stdout, stderr) => (err === null ? resolve(stdout) : reject(new Error(`kubectl ${args.join(' ')} failed (${err.code ?? err.signal}): ${stderr}`, { cause: err }))),
      );
    });
  }

  /** Writes `yaml` to a temp file and `kubectl apply -f`s it. */
  let manifests = 0;
  async function apply(yaml: string): Promise<string> {
    const file = join(workDir, `manifest-${++manifests}.yaml`);
    await writeFile(file, yaml);
    return kubectl('apply', '-f', file);
  }

  const getDeployment = (name: string, namespace = NS) => orAbsent(cp.client.deployments().get(name, { namespace }));
  const podsOf = async (app: string, namespace = NS): Promise<Pod[]> => (await cp.client.pods().list({ namespace, labelSelector: `app=${app}` })).items;
  const replicaSetsOf = async (app: string, namespace = NS): Promise<ReplicaSet[]> => (await cp.client.replicaSets().list({ namespace, labelSelector: `app=${app}` })).items;
  const podImage = (pod: Pod) => pod.spec?.containers?.[0]?.image;
  const deploymentImage = (d: Deployment | undefined) => d?.spec?.template?.spec?.containers?.[0]?.image;
  const revisions = (history: string) => [...history.matchAll(/^(\d+)\s/gm)].map((m) => m[1]);

  /** Waits until `app` has exactly `n` active pods, every one ready and running `image`. */
  const waitPods = (app: string, n: number, image: string, namespace = NS) =>
    eventually(`${n} ready ${image} pods of ${app}`, async () => {
      const pods = (await podsOf(app, namespace)).filter(isActive);
      return pods.length === n && pods.every((p) => isPodReady(p) && podImage(p) === image) ? pods : undefined;
    });

  it('creates a Deployment and rolls it out', async () => {
    // `kubectl create deployment web --image=nginx:1.25 --replicas=3` is what a user would type,
    // but imperative `kubectl create` sends protobuf, which the API server refuses (415) until the
    // kubectl-parity work; `kubectl apply -f` of the same Deployment sends JSON.
    await apply(`${namespaceYaml(NS)}---\n${deploymentYaml(NS, 'web', 3)}`);
    assert.match(await kubectl('-n', NS, 'rollout', 'status', 'deployment/web', '--timeout=60s'), /deployment "web" successfully rolled out/);
    await waitPods('web', 3, OLD_IMAGE);
  });

  it('kubectl scale: 5 ready pods', async () => {
    assert.match(await kubectl('-n', NS, 'scale', 'deployment', 'web', '--replicas=5'), /scaled/);
    await kubectl('-n', NS, 'rollout', 'status', 'deployment/web', '--timeout=60s');
    await waitPods('web', 5, OLD_IMAGE);
    assert.equal((await replicaSetsOf('web')).length, 1, 'scaling makes no new ReplicaSet');
  });

  it('kubectl set image: a rolling update within maxSurge 1 / maxUnavailable 0; two revisions', async () => {
    const watch = await watchPods(cp.client, NS);
    await kubectl('-n', NS, 'set', 'image', 'deployment/web', `web=${NEW_IMAGE}`);
    await kubectl('-n', NS, 'rollout', 'status', 'deployment/web', '--timeout=60s');
    await waitPods('web', 5, NEW_IMAGE);
    const samples = await watch.stop();
    for (const s of samples) {
      assert.ok(s.active <= 5 + 1, `${s.active} active pods: more than replicas + maxSurge`);
      assert.ok(s.ready >= 5 - 0, `${s.ready} ready pods: fewer than replicas − maxUnavailable`);
    }
    assert.ok(samples.some((s) => s.hashes.length === 2), 'old and new pods ran side by side');
    assert.ok(samples.some((s) => s.active === 6), 'the surge was used');
    assert.equal(deploymentImage(await getDeployment('web')), NEW_IMAGE);
    assert.deepEqual(revisions(await kubectl('-n', NS, 'rollout', 'history', 'deployment/web')), ['1', '2']);
  });

  it('kubectl rollout undo: back to the old image as revision 3', async () => {
    assert.match(await kubectl('-n', NS, 'rollout', 'undo', 'deployment/web'), /rolled back/);
    await eventually('the old image back in the Deployment', async () => deploymentImage(await getDeployment('web')) === OLD_IMAGE);
    await kubectl('-n', NS, 'rollout', 'status', 'deployment/web', '--timeout=60s');
    await waitPods('web', 5, OLD_IMAGE);
    const d = await eventually('revision 3', async () => {
      const d = await getDeployment('web');
      return d?.metadata.annotations?.['deployment.kubernetes.io/revision'] === '3' ? d : undefined;
    });
    assert.equal(deploymentImage(d), OLD_IMAGE);
    const history = revisions(await kubectl('-n', NS, 'rollout', 'history', 'deployment/web'));
    assert.ok(history.includes('2') && history.includes('3'), `revisions 2 and 3 in the history (${history.join(', ')})`);
  });

  it(
    // kubectl rollout undo copies the template with metadata.creationTimestamp: null (Go's
    // serialisation); the controller must treat that null as absent to recognise revision 1.
    'kubectl rollout undo: the revision-1 ReplicaSet is reused, so history shows revisions 2 and 3',
    async () => {
      const rss = await replicaSetsOf('web');
      assert.deepEqual(rss.map((rs) => rs.metadata.annotations?.['deployment.kubernetes.io/revision']).sort(), ['2', '3'], 'two ReplicaSets, revisions 2 and 3');
      assert.deepEqual(revisions(await kubectl('-n', NS, 'rollout', 'history', 'deployment/web')), ['2', '3'], 'revision 1 became revision 3');
    },
  );

  it('kubectl delete --cascade=orphan | background | foreground', async () => {
    const names = ['web-orphan', 'web-bg', 'web-fg'];
    await apply(names.map((n) => deploymentYaml(NS, n, 2)).join('---\n'));
    await Promise.all(names.map((n) => kubectl('-n', NS, 'rollout', 'status', `deployment/${n}`, '--timeout=60s')));
    await Promise.all(names.map((n) => waitPods(n, 2, OLD_IMAGE)));

    // orphan: the Deployment goes; its ReplicaSet and pods stay, no longer owned by it.
    const orphanOwner = (await getDeployment('web-orphan'))!;
    const [orphanRs, ...otherRss] = await replicaSetsOf('web-orphan');
    assert.equal(otherRss.length, 0);
    const orphanPods = new Set((await podsOf('web-orphan')).map((p) => p.metadata.uid));
    await kubectl('-n', NS, 'delete', 'deployment', 'web-orphan', '--cascade=orphan');
    assert.equal(await getDeployment('web-orphan'), undefined, 'the Deployment is gone once kubectl returns');
    const checkOrphans = async () => {
      const rss = await replicaSetsOf('web-orphan');
      assert.deepEqual(rss.map((rs) => rs.metadata.uid), [orphanRs!.metadata.uid], 'the ReplicaSet stays');
      assert.ok(!(rss[0]!.metadata.ownerReferences ?? []).some((r) => r.uid === orphanOwner.metadata.uid), 'no ownerReference to the deleted Deployment');
      const pods = await podsOf('web-orphan');
      assert.deepEqual(new Set(pods.map((p) => p.metadata.uid)), orphanPods, 'the pods stay');
      assert.ok(pods.every((p) => p.metadata.deletionTimestamp === undefined && p.metadata.ownerReferences?.[0]?.uid === orphanRs!.metadata.uid));
    };
    await checkOrphans();

    // background: the Deployment goes at once, then the collector deletes its ReplicaSet and pods.
    let deployments = await record<Deployment>(cp.client.deployments(), NS);
    let replicaSets = await record<ReplicaSet>(cp.client.replicaSets(), NS);
    let pods = await record<Pod>(cp.client.pods(), NS);
    await kubectl('-n', NS, 'delete', 'deployment', 'web-bg', '--cascade=background');
    assert.equal(await getDeployment('web-bg'), undefined, 'the Deployment is gone once kubectl returns');
    await eventually('no ReplicaSet or pod of web-bg', async () => (await replicaSetsOf('web-bg')).length === 0 && (await podsOf('web-bg')).length === 0);
    const ofApp = (app: string) => (e: WatchEvent) => e.type === 'DELETED' && e.object.metadata.labels?.['app'] === app;
    {
      const [gone] = (await deployments.stop()).filter(ofApp('web-bg'));
      const dependents = [...(await replicaSets.stop()), ...(await pods.stop())].filter(ofApp('web-bg'));
      assert.ok(gone !== undefined);
      assert.equal(dependents.length, 1 + 2, 'its ReplicaSet and its 2 pods deleted');
      assert.ok(
        dependents.every((e) => rvOf(e.object) > rvOf(gone.object)),
        'background: the Deployment is deleted before its dependents',
      );
    }

    // foreground: the Deployment stays, with the foregroundDeletion finalizer, until its
    // ReplicaSet and pods are gone.
    deployments = await record<Deployment>(cp.client.deployments(), NS);
    replicaSets = await record<ReplicaSet>(cp.client.replicaSets(), NS);
    pods = await record<Pod>(cp.client.pods(), NS);
    await kubectl('-n', NS, 'delete', 'deployment', 'web-fg', '--cascade=foreground');
    assert.equal(await getDeployment('web-fg'), undefined, 'kubectl waited for the Deployment to go');
    assert.equal((await replicaSetsOf('web-fg')).length + (await podsOf('web-fg')).length, 0, 'nothing of it remains');
    {
      const events = (await deployments.stop()).filter((e) => e.object.metadata.name === 'web-fg');
      const held = events.find((e) => e.type === 'MODIFIED' && e.object.metadata.deletionTimestamp !== undefined);
      assert.ok(held !== undefined, 'the Deployment was seen being deleted');
      assert.ok(held.object.metadata.finalizers?.includes(FOREGROUND_FINALIZER), 'with the foregroundDeletion finalizer');
      const gone = events.find((e) => e.type === 'DELETED');
      assert.ok(gone !== undefined);
      const dependents = [...(await replicaSets.stop()), ...(await pods.stop())].filter(ofApp('web-fg'));
      assert.equal(dependents.length, 1 + 2, 'its ReplicaSet and its 2 pods deleted');
      assert.ok(
        dependents.every((e) => rvOf(e.object) < rvOf(gone.object)),
        'foreground: every dependent is deleted before the Deployment',
      );
    }

    await checkOrphans();
  });

  it('kubectl delete namespace: content deleted, held by a custom resource\'s finalizer until it is removed', async () => {
    await apply(widgetCrdYaml);
    await kubectl('wait', '--for=condition=Established', '--timeout=10s', 'crd/widgets.example.com');
    await apply(
      [
        namespaceYaml('doomed'),
        deploymentYaml('doomed', 'site', 2),
        'apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: held\n  namespace: doomed\n  finalizers:\n  - example.com/hold\nspec:\n  size: small\n',
      ].join('---\n'),
    );
    await kubectl('-n', 'doomed', 'rollout', 'status', 'deployment/site', '--timeout=60s');
    await waitPods('site', 2, OLD_IMAGE, 'doomed');
    const widgets = cp.client.resource({ group: 'example.com', version: 'v1', resource: 'widgets', kind: 'Widget', namespaced: true });

    await kubectl('delete', 'namespace', 'doomed', '--wait=false');
    const getNs = () => orAbsent(cp.client.namespaces().get('doomed'));
    const finalizersRemaining = (ns: Namespace | undefined) => ns?.status?.conditions?.find((c) => c.type === 'NamespaceFinalizersRemaining');
    const held = await eventually('the namespace emptied but for the held Widget', async () => {
      const ns = await getNs();
      if (ns?.status?.phase !== 'Terminating' || finalizersRemaining(ns)?.status !== 'True') return undefined;
      const [deployments, rss, pods] = await Promise.all([
        cp.client.deployments().list({ namespace: 'doomed' }),
        cp.client.replicaSets().list({ namespace: 'doomed' }),
        cp.client.pods().list({ namespace: 'doomed' }),
      ]);
      return deployments.items.length + rss.items.length + pods.items.length === 0 ? ns : undefined;
    });
    assert.equal(finalizersRemaining(held)?.reason, 'SomeFinalizerRemain');
    assert.match(finalizersRemaining(held)?.message ?? '', /example\.com\/hold in 1 resource instances/);
    assert.match(await kubectl('get', 'namespace', 'doomed'), /^doomed\s+Terminating\s/m);
    const widget = await widgets.get('held', { namespace: 'doomed' });
    assert.ok(widget.metadata.deletionTimestamp !== undefined, 'the Widget is being deleted, held by its finalizer');

    await kubectl('-n', 'doomed', 'patch', 'widget', 'held', '--type', 'merge', '-p', '{"metadata":{"finalizers":null}}');
    await eventually('the namespace gone', async () => (await getNs()) === undefined);
    assert.equal(await orAbsent(widgets.get('held', { namespace: 'doomed' })), undefined);
  });
});
