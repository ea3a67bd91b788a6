/**
 * @kubernetes/client-node 1.4 against a real API server (HTTPS, generated CA, admin token), loaded
 * from the kubeconfig the harness writes: the typed APIs (which send bodies without apiVersion/kind,
 * ask for protobuf before JSON and patch with JSON patch by default), its Watch, and its informer
 * (list, then watch from the list's resourceVersion).
 */
import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import {
  ApiException,
  AppsV1Api,
  CoordinationV1Api,
  CoreV1Api,
  KubeConfig,
  PatchStrategy,
  V1MicroTime,
  Watch,
  makeInformer,
  setHeaderOptions,
  type V1ConfigMap,
} from '@kubernetes/client-node';
import { startTestServer } from './harness.js';

/** Polls `predicate` (every 5 ms) until it holds; throws after `ms`. */
async function waitFor(what: string, predicate: () => boolean, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** The ApiException a call rejects with (fails the test when it resolves or throws something else). */
async function apiError(call: Promise<unknown>): Promise<ApiException<string>> {
  try {
    await call;
  } catch (err) {
    assert.ok(err instanceof ApiException, `expected an ApiException, got ${String(err)}`);
    return err as ApiException<string>;
  }
  assert.fail('expected the call to fail');
}

/** The Status in an ApiException's body (client-node 1.4 keeps it as text). */
function statusOf(err: ApiException<string>): { reason?: string; message?: string; code?: number } {
  return JSON.parse(err.body) as { reason?: string; message?: string; code?: number };
}

test('@kubernetes/client-node against the API server', async (t: TestContext) => {
  await using srv = await startTestServer({ secure: true });
  const kc = new KubeConfig();
  kc.loadFromFile(srv.kubeconfig!);
  const core = kc.makeApiClient(CoreV1Api);
  const coordination = kc.makeApiClient(CoordinationV1Api);
  const apps = kc.makeApiClient(AppsV1Api);
  const namespace = 'default';

  await t.test('the kubeconfig points at the server', () => {
    assert.equal(kc.getCurrentCluster()?.server, srv.url);
    assert.ok(kc.getCurrentUser()?.token);
  });

  await t.test('ConfigMap create, read, list with a labelSelector', async () => {
    const created = await core.createNamespacedConfigMap({
      namespace,
      body: { metadata: { name: 'alpha', labels: { app: 'demo', tier: 'web' } }, data: { a: '1' } },
    });
    assert.equal(created.apiVersion, 'v1');
    assert.equal(created.kind, 'ConfigMap');
    assert.equal(created.metadata?.namespace, namespace);
    assert.match(created.metadata?.uid ?? '', /^[0-9a-f-]{36}$/);
    assert.ok(created.metadata?.creationTimestamp instanceof Date, 'creationTimestamp deserialises to a Date');
    await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'beta', labels: { app: 'demo', tier: 'db' } } } });
    await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'gamma', labels: { app: 'other' } } } });

    const read = await core.readNamespacedConfigMap({ name: 'alpha', namespace });
    assert.deepEqual(read.data, { a: '1' });
    assert.equal(read.metadata?.resourceVersion, created.metadata?.resourceVersion);

    const demo = await core.listNamespacedConfigMap({ namespace, labelSelector: 'app=demo' });
    assert.equal(demo.kind, 'ConfigMapList');
    assert.match(demo.metadata?.resourceVersion ?? '', /^\d+$/);
    assert.deepEqual(demo.items.map((i) => i.metadata?.name).sort(), ['alpha', 'beta']);
    const web = await core.listNamespacedConfigMap({ namespace, labelSelector: 'app=demo,tier!=db' });
    assert.deepEqual(web.items.map((i) => i.metadata?.name), ['alpha']);
    const none = await core.listNamespacedConfigMap({ namespace, labelSelector: 'app=nothing' });
    assert.deepEqual(none.items, []);

    const missing = await apiError(core.readNamespacedConfigMap({ name: 'nosuch', namespace }));
    assert.equal(missing.code, 404);
    assert.equal(statusOf(missing).message, 'configmaps "nosuch" not found');
    const dup = await apiError(core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'alpha' } } }));
    assert.equal(dup.code, 409);
    assert.equal(statusOf(dup).reason, 'AlreadyExists');
  });

  await t.test('ConfigMap replace, and 409 Conflict on a stale resourceVersion', async () => {
    const current = await core.readNamespacedConfigMap({ name: 'alpha', namespace });
    const replaced = await core.replaceNamespacedConfigMap({ name: 'alpha', namespace, body: { ...current, data: { a: '2' } } });
    assert.deepEqual(replaced.data, { a: '2' });
    assert.notEqual(replaced.metadata?.resourceVersion, current.metadata?.resourceVersion);

    const stale = await apiError(core.replaceNamespacedConfigMap({ name: 'alpha', namespace, body: { ...current, data: { a: '3' } } }));
    assert.equal(stale.code, 409);
    const status = statusOf(stale);
    assert.equal(status.reason, 'Conflict');
    assert.equal(status.message, 'Operation cannot be fulfilled on configmaps "alpha": the object has been modified; please apply your changes to the latest version and try again');
    assert.deepEqual((await core.readNamespacedConfigMap({ name: 'alpha', namespace })).data, { a: '2' });
  });

  await t.test('ConfigMap patch: JSON patch by default, merge patch through a header option', async () => {
    const patched = await core.patchNamespacedConfigMap({
      name: 'alpha',
      namespace,
      body: [
        { op: 'replace', path: '/data/a', value: 'json' },
        { op: 'add', path: '/data/b', value: 'added' },
      ],
    });
    assert.deepEqual(patched.data, { a: 'json', b: 'added' });

    const merged = await core.patchNamespacedConfigMap(
      { name: 'alpha', namespace, body: { data: { b: null, c: 'merged' } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    assert.deepEqual(merged.data, { a: 'json', c: 'merged' });

    const bad = await apiError(core.patchNamespacedConfigMap({ name: 'alpha', namespace, body: [{ op: 'remove', path: '/data/nosuch' }] }));
    // kube-apiserver answers a JSON patch that does not apply with 422 Invalid.
    assert.equal(bad.code, 422);
    assert.equal(statusOf(bad).reason, 'Invalid');
  });

  await t.test('ConfigMap delete', async () => {
    const status = await core.deleteNamespacedConfigMap({ name: 'gamma', namespace });
    assert.equal(status.status, 'Success');
    assert.equal((await apiError(core.readNamespacedConfigMap({ name: 'gamma', namespace }))).code, 404);
    assert.equal((await apiError(core.deleteNamespacedConfigMap({ name: 'gamma', namespace }))).code, 404);
  });

  await t.test('Namespace create and list', async () => {
    const ns = await core.createNamespace({ body: { metadata: { name: 'client-node' } } });
    assert.equal(ns.kind, 'Namespace');
    assert.equal(ns.status?.phase, 'Active');
    const names = (await core.listNamespace()).items.map((i) => i.metadata?.name);
    for (const name of ['default', 'kube-system', 'kube-public', 'kube-node-lease', 'client-node']) assert.ok(names.includes(name), `${name} in ${names.join(',')}`);
    await core.createNamespacedConfigMap({ namespace: 'client-node', body: { metadata: { name: 'inside' } } });
    const inside = await core.listNamespacedConfigMap({ namespace: 'client-node' });
    assert.deepEqual(inside.items.map((i) => i.metadata?.name), ['inside']);
  });

  await t.test('Lease create, read, list, replace, patch, delete', async () => {
    const renewTime = new V1MicroTime('2026-01-02T03:04:05.123Z');
    const created = await coordination.createNamespacedLease({
      namespace: 'kube-node-lease',
      body: { metadata: { name: 'node-a' }, spec: { holderIdentity: 'node-a', leaseDurationSeconds: 40, renewTime } },
    });
    assert.equal(created.apiVersion, 'coordination.k8s.io/v1');
    assert.equal(created.kind, 'Lease');
    assert.equal(created.spec?.holderIdentity, 'node-a');

    const read = await coordination.readNamespacedLease({ name: 'node-a', namespace: 'kube-node-lease' });
    assert.equal(read.spec?.leaseDurationSeconds, 40);
    assert.equal(new Date(read.spec?.renewTime as unknown as string).getTime(), renewTime.getTime());

    const list = await coordination.listNamespacedLease({ namespace: 'kube-node-lease' });
    assert.deepEqual(list.items.map((i) => i.metadata?.name), ['node-a']);

    const replaced = await coordination.replaceNamespacedLease({
      name: 'node-a',
      namespace: 'kube-node-lease',
      body: { ...read, spec: { ...read.spec, holderIdentity: 'node-b', leaseTransitions: 1 } },
    });
    assert.equal(replaced.spec?.holderIdentity, 'node-b');
    assert.equal(replaced.spec?.leaseTransitions, 1);

    const patched = await coordination.patchNamespacedLease({
      name: 'node-a',
      namespace: 'kube-node-lease',
      body: [{ op: 'replace', path: '/spec/leaseDurationSeconds', value: 15 }],
    });
    assert.equal(patched.spec?.leaseDurationSeconds, 15);

    await coordination.deleteNamespacedLease({ name: 'node-a', namespace: 'kube-node-lease' });
    assert.equal((await apiError(coordination.readNamespacedLease({ name: 'node-a', namespace: 'kube-node-lease' }))).code, 404);
  });

  await t.test('Deployment create (defaulted), read, list, replace, scale, delete through AppsV1Api', async () => {
    const created = await apps.createNamespacedDeployment({
      namespace,
      body: {
        metadata: { name: 'web', labels: { app: 'web' } },
        spec: {
          replicas: 2,
          selector: { matchLabels: { app: 'web' } },
          template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] } },
        },
      },
    });
    assert.equal(created.kind, 'Deployment');
    assert.equal(created.metadata?.generation, 1);
    assert.equal(created.spec?.strategy?.type, 'RollingUpdate', 'defaulted as Kubernetes defaults it');
    assert.equal(created.spec?.revisionHistoryLimit, 10);
    assert.equal(created.spec?.template.spec?.containers[0]?.imagePullPolicy, 'IfNotPresent');

    const read = await apps.readNamespacedDeployment({ name: 'web', namespace });
    assert.equal(read.metadata?.uid, created.metadata?.uid);
    const listed = await apps.listNamespacedDeployment({ namespace, labelSelector: 'app=web' });
    assert.deepEqual(listed.items.map((d) => d.metadata?.name), ['web']);

    read.spec!.template.spec!.containers[0]!.image = 'nginx:1.28';
    const replaced = await apps.replaceNamespacedDeployment({ name: 'web', namespace, body: read });
    assert.equal(replaced.metadata?.generation, 2, 'a template change moves generation');

    const scale = await apps.readNamespacedDeploymentScale({ name: 'web', namespace });
    assert.equal(scale.spec?.replicas, 2);
    scale.spec = { replicas: 5 };
    await apps.replaceNamespacedDeploymentScale({ name: 'web', namespace, body: scale });
    assert.equal((await apps.readNamespacedDeployment({ name: 'web', namespace })).spec?.replicas, 5);

    const invalid = await apiError(
      apps.createNamespacedDeployment({
        namespace,
        body: {
          metadata: { name: 'bad' },
          spec: { selector: { matchLabels: { app: 'x' } }, template: { metadata: { labels: { app: 'y' } }, spec: { containers: [{ name: 'c', image: 'i' }] } } },
        },
      }),
    );
    assert.equal(invalid.code, 422);
    assert.match(statusOf(invalid).message ?? '', /`selector` does not match template `labels`/);

    await apps.deleteNamespacedDeployment({ name: 'web', namespace });
    assert.equal((await apiError(apps.readNamespacedDeployment({ name: 'web', namespace }))).code, 404);
  });

  await t.test('Watch sees ADDED, MODIFIED and DELETED for changes made meanwhile', async () => {
    const events: Array<{ type: string; name: string; rv: string; data: unknown }> = [];
    let doneErr: unknown = 'not called';
    const controller = await new Watch(kc).watch(
      `/api/v1/namespaces/${namespace}/configmaps`,
      {},
      (type, obj: V1ConfigMap) => events.push({ type, name: obj.metadata?.name ?? '', rv: obj.metadata?.resourceVersion ?? '', data: obj.data }),
      (err) => (doneErr = err),
    );
    try {
      // Without a resourceVersion the watch starts with ADDED for what exists.
      await waitFor('the initial ADDED for alpha', () => events.some((e) => e.type === 'ADDED' && e.name === 'alpha'));

      const created = await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'watched' }, data: { v: '1' } } });
      const modified = await core.patchNamespacedConfigMap({ name: 'watched', namespace, body: [{ op: 'replace', path: '/data/v', value: '2' }] });
      await core.deleteNamespacedConfigMap({ name: 'watched', namespace });
      await waitFor('DELETED for watched', () => events.some((e) => e.type === 'DELETED' && e.name === 'watched'));

      const mine = events.filter((e) => e.name === 'watched');
      assert.deepEqual(
        mine.map((e) => [e.type, e.data]),
        [
          ['ADDED', { v: '1' }],
          ['MODIFIED', { v: '2' }],
          ['DELETED', { v: '2' }],
        ],
      );
      assert.equal(mine[0]!.rv, created.metadata?.resourceVersion);
      assert.equal(mine[1]!.rv, modified.metadata?.resourceVersion);
      assert.ok(BigInt(mine[2]!.rv) > BigInt(mine[1]!.rv), 'DELETED carries the deletion resourceVersion');
      assert.equal(doneErr, 'not called', 'the watch stays open');
    } finally {
      controller.abort();
    }
    await waitFor('done after abort', () => doneErr !== 'not called');
  });

  await t.test('makeInformer syncs its cache, then sees adds, updates and deletes', async () => {
    const ns = 'informed';
    await core.createNamespace({ body: { metadata: { name: ns } } });
    await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'one' }, data: { n: '1' } } });
    await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'two' }, data: { n: '2' } } });

    const informer = makeInformer<V1ConfigMap>(kc, `/api/v1/namespaces/${ns}/configmaps`, () => core.listNamespacedConfigMap({ namespace: ns }));
    const log: string[] = [];
    const errors: unknown[] = [];
    let stopped = false;
    informer.on('add', (obj) => log.push(`add ${obj.metadata?.name} ${obj.data?.n}`));
    informer.on('update', (obj) => log.push(`update ${obj.metadata?.name} ${obj.data?.n}`));
    informer.on('delete', (obj) => log.push(`delete ${obj.metadata?.name}`));
    informer.on('error', (err) => {
      if (!stopped) errors.push(err);
    });
    await informer.start();
    try {
      // start() resolves after the list (the adds) and once the watch is open.
      assert.deepEqual([...log].sort(), ['add one 1', 'add two 2']);
      assert.deepEqual(informer.list(ns).map((o) => o.metadata?.name).sort(), ['one', 'two']);
      assert.equal(informer.get('one', ns)?.data?.n, '1');

      await core.patchNamespacedConfigMap({ name: 'one', namespace: ns, body: [{ op: 'replace', path: '/data/n', value: '11' }] });
      await waitFor('the update of one', () => log.includes('update one 11'));
      assert.equal(informer.get('one', ns)?.data?.n, '11');

      await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'three' }, data: { n: '3' } } });
      await core.deleteNamespacedConfigMap({ name: 'two', namespace: ns });
      await waitFor('the delete of two', () => log.includes('delete two'));
      assert.equal(informer.get('two', ns), undefined);
      assert.deepEqual(informer.list(ns).map((o) => `${o.metadata?.name} ${o.data?.n}`).sort(), ['one 11', 'three 3']);
      // Nothing was replayed: the watch started from the list's resourceVersion.
      assert.deepEqual(log.slice(2), ['update one 11', 'add three 3', 'delete two']);
      assert.deepEqual(errors, []);
    } finally {
      stopped = true;
      await informer.stop();
    }
  });
});
