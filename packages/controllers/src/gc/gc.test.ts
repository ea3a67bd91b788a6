/**
 * The garbage collector against a real API server (startControlPlane), with kubectl for the
 * deletions users make with --cascade. kubectl runs asynchronously with a kill deadline; every wait
 * has a deadline; the manager and the server are always stopped.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { isApiError, type ConfigMap, type KubeObject, type OwnerReference, type Secret } from '@setpoint/api';
import { Manager, builtin } from '@setpoint/client';
import { FakeClock, startControlPlane, type ControlPlane } from '@setpoint/testing';
import { FOREGROUND_FINALIZER, readPreferredResources, registerGarbageCollector, type GarbageCollector } from './index.js';

async function eventually(what: string, check: () => Promise<boolean> | boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Runs kubectl to completion (killed after 20 s); resolves with its exit code and output. */
function kubectl(kubeconfig: string, cacheDir: string, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile('kubectl', [`--kubeconfig=${kubeconfig}`, `--cache-dir=${cacheDir}`, '--request-timeout=10s', ...args], { timeout: 20_000, killSignal: 'SIGKILL' }, (err, stdout, stderr) => {
      if (err === null) return resolve({ code: 0, stdout, stderr });
      if (typeof err.code === 'number') return resolve({ code: err.code, stdout, stderr });
      reject(new Error(`kubectl ${args.join(' ')} did not finish (${err.signal ?? err.message}): ${stderr}`, { cause: err }));
    });
  });
}

const ownerRef = (owner: KubeObject, extra: Partial<OwnerReference> = {}): OwnerReference => ({
  apiVersion: owner.apiVersion ?? 'v1',
  kind: owner.kind ?? 'ConfigMap',
  name: owner.metadata.name!,
  uid: owner.metadata.uid!,
  ...extra,
});

describe('garbage collector', () => {
  let cp: ControlPlane;
  let gc: GarbageCollector;
  let kubeconfig: string;
  let cacheDir: string;
  const stop = new AbortController();
  let running: Promise<void> = Promise.resolve();

  before(async () => {
    cp = await startControlPlane();
    kubeconfig = await cp.kubeconfig();
    cacheDir = await mkdtemp(join(tmpdir(), 'gc-test-kube-cache-'));
    const manager = new Manager({ client: cp.client, gracefulShutdownMs: 2_000 });
    gc = registerGarbageCollector(manager);
    running = manager.start(stop.signal);
    await eventually('the collector to monitor secrets', () => gc.monitoredResources().some((r) => r.resource === 'secrets'));
  });

  after(async () => {
    stop.abort();
    await running;
    await cp.stop();
    await rm(cacheDir, { recursive: true, force: true });
  });

  const configMaps = () => cp.client.configMaps();
  const secrets = () => cp.client.secrets();
  const gone = (get: () => Promise<unknown>) => get().then(() => false, (err: unknown) => isApiError(err, 'NotFound'));
  const secret = (name: string, namespace: string, owners: OwnerReference[], more: Partial<Secret['metadata']> = {}): Secret => ({
    metadata: { name, namespace, ownerReferences: owners, ...more },
    data: {},
  });
  const createOwner = async (name: string, namespace = 'default') => {
    const cm = await configMaps().create({ metadata: { name, namespace }, data: {} } as ConfigMap);
    await eventually(`the collector to see ${name}`, () => gc.graphHas(cm.metadata.uid!));
    return cm;
  };

  it('background deletion: deleting a ConfigMap owner removes its Secret dependents', async () => {
    const owner = await createOwner('bg-owner');
    await secrets().create(secret('bg-dep-1', 'default', [ownerRef(owner)]));
    await secrets().create(secret('bg-dep-2', 'default', [ownerRef(owner, { controller: true })]));
    await configMaps().delete('bg-owner', { namespace: 'default' });
    await eventually('both dependents to be deleted', async () => (await gone(() => secrets().get('bg-dep-1', { namespace: 'default' }))) && gone(() => secrets().get('bg-dep-2', { namespace: 'default' })));
  });

  it('a dependent with two owners survives the death of one and loses only that reference', async () => {
    const dead = await createOwner('two-dead');
    const alive = await createOwner('two-alive');
    await secrets().create(secret('two-dep', 'default', [ownerRef(dead), ownerRef(alive)]));
    await configMaps().delete('two-dead', { namespace: 'default' });
    await eventually('the dead reference to be removed', async () => {
      const dep = await secrets().get('two-dep', { namespace: 'default' });
      return (dep.metadata.ownerReferences ?? []).length === 1;
    });
    const dep = await secrets().get('two-dep', { namespace: 'default' });
    assert.deepEqual(dep.metadata.ownerReferences, [ownerRef(alive)]);
  });

  it('a reference whose uid does not match the live owner counts as absent', async () => {
    const owner = await createOwner('uid-owner');
    await secrets().create(secret('uid-right', 'default', [ownerRef(owner)]));
    await secrets().create(secret('uid-wrong', 'default', [ownerRef(owner, { uid: 'not-the-owners-uid' })]));
    await eventually('the dependent with the wrong uid to be deleted', () => gone(() => secrets().get('uid-wrong', { namespace: 'default' })));
    assert.equal((await configMaps().get('uid-owner', { namespace: 'default' })).metadata.uid, owner.metadata.uid, 'the owner is untouched');
    assert.ok(await secrets().get('uid-right', { namespace: 'default' }), 'the dependent with the right uid stays');
  });

  it('a namespaced owner referenced from another namespace is absent (with an OwnerRefInvalidNamespace event); a cluster-scoped owner is valid', async () => {
    await cp.client.namespaces().create({ metadata: { name: 'gc-ns-a' } });
    await cp.client.namespaces().create({ metadata: { name: 'gc-ns-b' } });
    const owner = await createOwner('ns-owner', 'gc-ns-a');
    const node = await cp.client.nodes().create({ metadata: { name: 'gc-node' } });
    await eventually('the collector to see the node', () => gc.graphHas(node.metadata.uid!));
    const dead = await createOwner('ns-dead', 'gc-ns-b');
    const nodeRef: OwnerReference = { apiVersion: 'v1', kind: 'Node', name: 'gc-node', uid: node.metadata.uid! };
    await secrets().create(secret('cross-ns', 'gc-ns-b', [ownerRef(owner)]));
    await secrets().create(secret('node-owned', 'gc-ns-b', [nodeRef, ownerRef(dead)]));
    await configMaps().delete('ns-dead', { namespace: 'gc-ns-b' });
    await eventually('the cross-namespace dependent to be deleted', () => gone(() => secrets().get('cross-ns', { namespace: 'gc-ns-b' })));
    await eventually('the OwnerRefInvalidNamespace event', async () =>
      (await cp.client.events().list({ namespace: 'gc-ns-b' })).items.some(
        (e) =>
          e.reason === 'OwnerRefInvalidNamespace' &&
          e.type === 'Warning' &&
          e.involvedObject?.name === 'cross-ns' &&
          e.message === `ownerRef [v1/ConfigMap, namespace: gc-ns-b, name: ns-owner, uid: ${owner.metadata.uid}] does not exist in namespace "gc-ns-b"`,
      ),
    );
    await eventually('the node-owned dependent to lose only its dead reference', async () => {
      const dep = await secrets().get('node-owned', { namespace: 'gc-ns-b' });
      return jsonRefs(dep.metadata.ownerReferences) === jsonRefs([nodeRef]);
    });
    assert.ok(await configMaps().get('ns-owner', { namespace: 'gc-ns-a' }), 'the owner in the other namespace is untouched');
  });

  it('foreground (kubectl --cascade=foreground): the owner keeps foregroundDeletion until its blocking dependents are gone', async () => {
    const owner = await createOwner('fg-owner');
    await secrets().create(secret('fg-blocker', 'default', [ownerRef(owner, { blockOwnerDeletion: true })], { finalizers: ['example.com/hold'] }));
    await secrets().create(secret('fg-free', 'default', [ownerRef(owner)]));
    const res = await kubectl(kubeconfig, cacheDir, 'delete', 'configmap', 'fg-owner', '-n', 'default', '--cascade=foreground', '--wait=false');
    assert.equal(res.code, 0, res.stderr);
    await eventually('the non-blocking dependent to go and the blocking one to be deleting', async () => {
      const blocker = await secrets().get('fg-blocker', { namespace: 'default' });
      return blocker.metadata.deletionTimestamp !== undefined && gone(() => secrets().get('fg-free', { namespace: 'default' }));
    });
    const waiting = await configMaps().get('fg-owner', { namespace: 'default' });
    assert.ok(waiting.metadata.deletionTimestamp, 'the owner is being deleted');
    assert.deepEqual(waiting.metadata.finalizers, [FOREGROUND_FINALIZER], 'and waits for its blocking dependent');
    await secrets().patch('fg-blocker', { metadata: { finalizers: null } }, { type: 'merge', namespace: 'default' });
    await eventually('the owner to go once its blocking dependent is gone', () => gone(() => configMaps().get('fg-owner', { namespace: 'default' })));
  });

  it('orphan (kubectl --cascade=orphan): the owner goes and its dependents stay without the reference', async () => {
    const owner = await createOwner('or-owner');
    const keeper = await createOwner('or-keeper');
    await secrets().create(secret('or-dep-1', 'default', [ownerRef(owner, { controller: true, blockOwnerDeletion: true })]));
    await secrets().create(secret('or-dep-2', 'default', [ownerRef(owner), ownerRef(keeper)]));
    await eventually('the collector to see the dependents', () => gc.graphHas(owner.metadata.uid!) && secretsSeen('or-dep-1', 'or-dep-2'));
    // kubectl waits for the owner to be gone, which needs the collector to remove the orphan finalizer.
    const res = await kubectl(kubeconfig, cacheDir, 'delete', 'configmap', 'or-owner', '-n', 'default', '--cascade=orphan', '--timeout=15s');
    assert.equal(res.code, 0, res.stderr);
    assert.ok(await gone(() => configMaps().get('or-owner', { namespace: 'default' })));
    const dep1 = await secrets().get('or-dep-1', { namespace: 'default' });
    assert.equal(dep1.metadata.ownerReferences, undefined);
    const dep2 = await secrets().get('or-dep-2', { namespace: 'default' });
    assert.deepEqual(dep2.metadata.ownerReferences, [ownerRef(keeper)], 'other references stay');
  });

  /** Whether the collector's graph holds the named secrets in default. */
  async function secretsSeen(...names: string[]): Promise<boolean> {
    for (const name of names) {
      const s = await secrets().get(name, { namespace: 'default' });
      if (!gc.graphHas(s.metadata.uid!)) return false;
    }
    return true;
  }
});

function jsonRefs(refs: readonly OwnerReference[] | undefined): string {
  return JSON.stringify((refs ?? []).map((r) => [r.apiVersion, r.kind, r.name, r.uid]));
}

describe('garbage collector discovery refresh', () => {
  /*
   * A kind "served later" simulated through the discovery option (the CRD test below is the real case): the collector's
   * discovery function (an option) first reports only ConfigMaps, then ConfigMaps and Secrets.
   * The refresh runs on a FakeClock, advanced by the test past discoveryIntervalMs.
   */
  it('starts monitoring a kind discovery reports later, without a restart, and collects its garbage', async () => {
    await using cp = await startControlPlane();
    const clock = new FakeClock();
    let served = new Set(['configmaps']);
    const discover = async () => {
      const all = await readPreferredResources(cp.client.discovery);
      return { ...all, resources: all.resources.filter((r) => r.group === '' && served.has(r.resource)) };
    };
    const manager = new Manager({ client: cp.client, gracefulShutdownMs: 2_000 });
    const gc = registerGarbageCollector(manager, { discover, clock, discoveryIntervalMs: 30_000 });
    const stop = new AbortController();
    const running = manager.start(stop.signal);
    try {
      // Monitoring ConfigMaps, and waiting for the next discovery on the fake clock.
      await eventually('the first discovery', () => gc.collecting && clock.pending() > 0);
      assert.deepEqual(gc.monitoredResources().map((r) => r.resource), ['configmaps']);
      const owner = await cp.client.configMaps().create({ metadata: { name: 'later-owner', namespace: 'default' } });
      await cp.client.secrets().create({ metadata: { name: 'later-dep', namespace: 'default', ownerReferences: [ownerRef(owner)] } });
      await eventually('the collector to see the owner', () => gc.graphHas(owner.metadata.uid!));
      await cp.client.configMaps().delete('later-owner', { namespace: 'default' });
      await eventually('the collector to see the owner go', () => !gc.graphHas(owner.metadata.uid!));
      assert.ok(await cp.client.secrets().get('later-dep', { namespace: 'default' }), 'Secrets are not monitored yet: the dependent stays');
      assert.deepEqual(gc.monitoredResources().map((r) => r.resource), ['configmaps']);

      served = new Set(['configmaps', 'secrets']);
      await clock.advance(30_000);
      await eventually('Secrets to be monitored', () => gc.monitoredResources().some((r) => r.resource === 'secrets' && r.group === '' && r.kind === builtin.secrets.kind));
      await eventually('the dependent of the absent owner to be collected', () =>
        cp.client.secrets().get('later-dep', { namespace: 'default' }).then(() => false, (err: unknown) => isApiError(err, 'NotFound')),
      );
    } finally {
      stop.abort();
      await running;
    }
  });
});

describe('garbage collector and custom resources', () => {
  it('a CRD created while the collector runs joins at the next discovery; its objects are owners and dependents', async () => {
    await using cp = await startControlPlane();
    const clock = new FakeClock();
    const manager = new Manager({ client: cp.client, gracefulShutdownMs: 2_000 });
    const gc = registerGarbageCollector(manager, { clock, discoveryIntervalMs: 30_000 });
    const stop = new AbortController();
    const running = manager.start(stop.signal);
    try {
      await eventually('the first discovery', () => gc.collecting && clock.pending() > 0);
      assert.ok(!gc.monitoredResources().some((r) => r.group === 'example.com'));
      const crds = cp.client.resource({ group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions', kind: 'CustomResourceDefinition', namespaced: false });
      await crds.create({
        metadata: { name: 'gizmos.example.com' },
        spec: {
          group: 'example.com',
          scope: 'Namespaced',
          names: { plural: 'gizmos', kind: 'Gizmo' },
          versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
        },
      } as KubeObject);
      const gizmos = cp.client.resource({ group: 'example.com', version: 'v1', resource: 'gizmos', kind: 'Gizmo', namespaced: true });
      await eventually('the Gizmo kind to be served', () => gizmos.list({ namespace: 'default' }).then(() => true, () => false));

      await clock.advance(30_000);
      await eventually('Gizmos to be monitored', () => gc.monitoredResources().some((r) => r.group === 'example.com' && r.resource === 'gizmos'));
      // A Gizmo owning a ConfigMap, and a Gizmo owned by a ConfigMap.
      const owner = await gizmos.create({ metadata: { name: 'owner', namespace: 'default' } });
      await cp.client.configMaps().create({ metadata: { name: 'owned-by-gizmo', namespace: 'default', ownerReferences: [ownerRef(owner)] } });
      const cmOwner = await cp.client.configMaps().create({ metadata: { name: 'gizmo-owner', namespace: 'default' } });
      await gizmos.create({ metadata: { name: 'owned', namespace: 'default', ownerReferences: [ownerRef(cmOwner)] } });
      await eventually('the collector to see both owners', () => gc.graphHas(owner.metadata.uid!) && gc.graphHas(cmOwner.metadata.uid!));

      await gizmos.delete('owner', { namespace: 'default' });
      await cp.client.configMaps().delete('gizmo-owner', { namespace: 'default' });
      const gone = (p: Promise<unknown>) => p.then(() => false, (err: unknown) => isApiError(err, 'NotFound'));
      await eventually('the ConfigMap owned by the Gizmo to be collected', () => gone(cp.client.configMaps().get('owned-by-gizmo', { namespace: 'default' })));
      await eventually('the Gizmo owned by the ConfigMap to be collected', () => gone(gizmos.get('owned', { namespace: 'default' })));
    } finally {
      stop.abort();
      await running;
    }
  });
});
