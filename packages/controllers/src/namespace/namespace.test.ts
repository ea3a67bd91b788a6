/**
 * The namespace controller against a real API server (startControlPlane), and kubectl's
 * `delete namespace`. kubectl runs asynchronously with a kill deadline; every wait has a deadline;
 * the manager and the server are always stopped.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { isApiError, silentLogger, type Namespace, type NamespaceCondition } from '@setpoint/api';
import { Manager } from '@setpoint/client';
import { startControlPlane, type ControlPlane } from '@setpoint/testing';
import { readPreferredResources } from '../gc/discovery.js';
import { registerNamespaceController, syncNamespace } from './index.js';

async function eventually(what: string, check: () => Promise<boolean> | boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

function kubectl(kubeconfig: string, cacheDir: string, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile('kubectl', [`--kubeconfig=${kubeconfig}`, `--cache-dir=${cacheDir}`, '--request-timeout=10s', ...args], { timeout: 20_000, killSignal: 'SIGKILL' }, (err, stdout, stderr) => {
      if (err === null) return resolve({ code: 0, stdout, stderr });
      if (typeof err.code === 'number') return resolve({ code: err.code, stdout, stderr });
      reject(new Error(`kubectl ${args.join(' ')} did not finish (${err.signal ?? err.message}): ${stderr}`, { cause: err }));
    });
  });
}

const condition = (ns: Namespace | undefined, type: string): NamespaceCondition | undefined => ns?.status?.conditions?.find((c) => c.type === type);

describe('namespace controller', () => {
  let cp: ControlPlane;
  let cacheDir: string;
  const stop = new AbortController();
  let running: Promise<void> = Promise.resolve();

  before(async () => {
    cp = await startControlPlane();
    cacheDir = await mkdtemp(join(tmpdir(), 'ns-test-kube-cache-'));
    const manager = new Manager({ client: cp.client, gracefulShutdownMs: 2_000 });
    registerNamespaceController(manager, { maxRetryDelayMs: 500 });
    running = manager.start(stop.signal);
  });

  after(async () => {
    stop.abort();
    await running;
    await cp.stop();
    await rm(cacheDir, { recursive: true, force: true });
  });

  const getNs = (name: string) => cp.client.namespaces().get(name).catch((err: unknown) => (isApiError(err, 'NotFound') ? undefined : Promise.reject(err)));

  it('empties a terminating namespace, reports what holds it, and releases it once the last finalizer goes', async () => {
    const ns = 'team-a';
    await cp.client.namespaces().create({ metadata: { name: ns } });
    await cp.client.configMaps().create({ metadata: { name: 'one', namespace: ns }, data: { a: '1' } });
    await cp.client.configMaps().create({ metadata: { name: 'two', namespace: ns } });
    await cp.client.secrets().create({ metadata: { name: 'token', namespace: ns }, data: {} });
    await cp.client.configMaps().create({ metadata: { name: 'held', namespace: ns, finalizers: ['example.com/hold'] } });
    await cp.client.namespaces().delete(ns);

    await eventually('the conditions to name what remains', async () => {
      const current = await getNs(ns);
      return condition(current, 'NamespaceFinalizersRemaining')?.status === 'True' && condition(current, 'NamespaceContentRemaining')?.status === 'True';
    });
    const terminating = (await getNs(ns))!;
    assert.equal(terminating.status?.phase, 'Terminating');
    assert.deepEqual(terminating.spec?.finalizers, ['kubernetes'], 'the kubernetes finalizer stays while content remains');
    const brief = (type: string) => {
      const c = condition(terminating, type);
      return [c?.status, c?.reason, c?.message];
    };
    assert.deepEqual(brief('NamespaceContentRemaining'), ['True', 'SomeResourcesRemain', 'Some resources are remaining: configmaps. has 1 resource instances']);
    assert.deepEqual(brief('NamespaceFinalizersRemaining'), ['True', 'SomeFinalizerRemain', 'Some finalizers are remaining: example.com/hold in 1 resource instances']);
    assert.deepEqual(brief('NamespaceDeletionDiscoveryFailure'), ['False', 'ResourcesDiscovered', 'All resources successfully discovered']);
    assert.deepEqual(brief('NamespaceDeletionContentFailure'), ['False', 'ContentDeleted', 'All content successfully deleted, may be waiting on finalization']);
    assert.deepEqual(brief('NamespaceDeletionGroupVersionParsingFailure'), ['False', 'ParsedGroupVersions', 'All legacy kube types successfully parsed']);
    assert.deepEqual((await cp.client.configMaps().list({ namespace: ns })).items.map((c) => c.metadata.name), ['held']);
    assert.deepEqual((await cp.client.secrets().list({ namespace: ns })).items, []);
    assert.ok((await cp.client.configMaps().get('held', { namespace: ns })).metadata.deletionTimestamp, 'the held ConfigMap is being deleted');

    await cp.client.configMaps().patch('held', { metadata: { finalizers: null } }, { type: 'merge', namespace: ns });
    await eventually('the namespace to be gone', async () => (await getNs(ns)) === undefined);
  });

  it('kubectl delete namespace completes', async () => {
    await cp.client.namespaces().create({ metadata: { name: 'kx' } });
    await cp.client.configMaps().create({ metadata: { name: 'c', namespace: 'kx' } });
    await cp.client.secrets().create({ metadata: { name: 's', namespace: 'kx' } });
    const res = await kubectl(await cp.kubeconfig(), cacheDir, 'delete', 'namespace', 'kx', '--timeout=15s');
    assert.equal(res.code, 0, res.stderr);
    assert.match(res.stdout, /namespace "kx" deleted/);
    assert.equal(await getNs('kx'), undefined);
  });
});

describe('syncNamespace (one pass, no controller running)', () => {
  it('reports a discovery failure in the conditions and keeps the namespace; a clean pass then releases it', async () => {
    await using cp = await startControlPlane();
    const ns = 'disc';
    await cp.client.namespaces().create({ metadata: { name: ns } });
    await cp.client.configMaps().create({ metadata: { name: 'c', namespace: ns } });
    await cp.client.namespaces().delete(ns);
    const failing = async () => {
      const all = await readPreferredResources(cp.client.discovery);
      return { ...all, failedGroupVersions: new Map([['metrics.k8s.io/v1beta1', new Error('the server could not find the requested resource')]]) };
    };
    const ctx = { now: () => Date.now(), logger: silentLogger };
    await assert.rejects(syncNamespace(cp.client, ns, { ...ctx, discover: failing }), /Discovery failed for some groups, 1 failing/);
    const current = await cp.client.namespaces().get(ns);
    const failure = condition(current, 'NamespaceDeletionDiscoveryFailure');
    assert.equal(failure?.status, 'True');
    assert.equal(failure?.reason, 'DiscoveryFailed');
    assert.equal(
      failure?.message,
      'Discovery failed for some groups, 1 failing: unable to retrieve the complete list of server APIs: metrics.k8s.io/v1beta1: the server could not find the requested resource',
    );
    assert.deepEqual(current.spec?.finalizers, ['kubernetes'], 'not finalized while discovery fails');
    assert.deepEqual((await cp.client.configMaps().list({ namespace: ns })).items, [], 'what was discovered is deleted all the same');

    const result = await syncNamespace(cp.client, ns, { ...ctx, discover: () => readPreferredResources(cp.client.discovery) });
    assert.equal(result, undefined);
    await assert.rejects(cp.client.namespaces().get(ns), (err: unknown) => isApiError(err, 'NotFound'));
  });
});
