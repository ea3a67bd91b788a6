/**
 * kubectl against a real API server (HTTPS, generated CA, admin token), through the kubeconfig
 * the harness writes. Each test proves one thing kubectl users do works end to end: the requests
 * kubectl sends (discovery, OpenAPI, tables, patches, watches) and the answers it expects.
 *
 * The server runs in this process, so kubectl always runs asynchronously (never execFileSync) and
 * every call has a deadline: `--request-timeout` for its requests and a kill timer for the process.
 */
import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import { parse as parseYaml } from 'yaml';
import { startTestServer, type TestServer } from './harness.js';
import { kubectl, kubectlOk, manifest, startKubectl, waitFor, type ObjectJson } from './kubectl-support.js';

async function getJson(srv: TestServer, ...args: string[]): Promise<ObjectJson> {
  return JSON.parse(await kubectlOk(srv, 'get', ...args, '-o', 'json')) as ObjectJson;
}

const cmPath = (name: string) => `/api/v1/namespaces/default/configmaps/${name}`;

test('kubectl against the API server', async (t: TestContext) => {
  await using srv = await startTestServer({ secure: true });

  await t.test('create -f a ConfigMap, then get -o json and -o yaml', async () => {
    const file = await manifest(
      srv,
      'cm-create.yaml',
      ['apiVersion: v1', 'kind: ConfigMap', 'metadata:', '  name: created', '  labels:', '    app: demo', 'data:', '  a: "1"', '  b: two', ''].join('\n'),
    );
    assert.match(await kubectlOk(srv, 'create', '-f', file), /^configmap\/created created$/m);

    const json = await getJson(srv, 'configmap', 'created');
    assert.equal(json.apiVersion, 'v1');
    assert.equal(json.kind, 'ConfigMap');
    assert.equal(json.metadata.name, 'created');
    assert.equal(json.metadata.namespace, 'default');
    assert.deepEqual(json.metadata.labels, { app: 'demo' });
    assert.deepEqual(json.data, { a: '1', b: 'two' });
    assert.match(json.metadata.uid ?? '', /^[0-9a-f-]{36}$/);
    assert.match(json.metadata.resourceVersion ?? '', /^\d+$/);
    assert.match(json.metadata.creationTimestamp ?? '', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);

    const yaml = parseYaml(await kubectlOk(srv, 'get', 'cm', 'created', '-o', 'yaml')) as ObjectJson;
    assert.equal(yaml.kind, 'ConfigMap');
    assert.equal(yaml.metadata.uid, json.metadata.uid);
    assert.deepEqual(yaml.data, { a: '1', b: 'two' });

    const table = await kubectlOk(srv, 'get', 'cm', 'created');
    assert.match(table, /^NAME\s+.*AGE/);
    assert.match(table, /^created\s/m);

    const again = await kubectl(srv, 'create', '-f', file);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /configmaps "created" already exists/);
  });

  await t.test('get -w prints the current object, then an update made meanwhile', async () => {
    await kubectlOk(srv, 'create', '-f', await manifest(srv, 'cm-watched.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: watched\ndata:\n  v: one\n'));
    const watch = startKubectl(srv, 'get', 'cm', 'watched', '-w', '--output-watch-events', '-o', 'jsonpath={.type} {.object.data.v}{"\\n"}');
    try {
      await waitFor('the initial ADDED line', () => watch.stdout().includes('ADDED one\n') || !watch.running());
      assert.ok(watch.running(), `kubectl get -w exited early: ${watch.stdout()}`);
      await kubectlOk(srv, 'patch', 'cm', 'watched', '--type', 'merge', '-p', '{"data":{"v":"two"}}');
      await waitFor('the MODIFIED line', () => watch.stdout().includes('MODIFIED two\n') || !watch.running());
      assert.equal(watch.stdout(), 'ADDED one\nMODIFIED two\n');
      const res = await srv.request('PATCH', cmPath('watched'), { data: { v: 'three' } }, { 'content-type': 'application/merge-patch+json' });
      assert.equal(res.status, 200);
      await waitFor('the second MODIFIED line', () => watch.stdout().includes('MODIFIED three\n') || !watch.running());
      assert.equal(watch.stdout(), 'ADDED one\nMODIFIED two\nMODIFIED three\n');
    } finally {
      await watch.stop();
    }
  });

  await t.test('apply -f twice keeps last-applied-configuration verbatim; a removed key goes away', async () => {
    const applied = (data: Record<string, string>) => ({ apiVersion: 'v1', data, kind: 'ConfigMap', metadata: { annotations: {}, name: 'applied', namespace: 'default' } });
    const write = (data: Record<string, string>) =>
      manifest(srv, 'cm-applied.yaml', `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: applied\n  namespace: default\ndata:\n${Object.entries(data).map(([k, v]) => `  ${k}: "${v}"\n`).join('')}`);
    const lastApplied = (obj: ObjectJson) => obj.metadata.annotations?.['kubectl.kubernetes.io/last-applied-configuration'];

    assert.match(await kubectlOk(srv, 'apply', '-f', await write({ a: '1', b: '2' })), /^configmap\/applied created$/m);
    let obj = await getJson(srv, 'cm', 'applied');
    assert.deepEqual(obj.data, { a: '1', b: '2' });
    // kubectl writes the annotation as Go's json.Marshal of the manifest (sorted keys) plus "\n".
    assert.equal(lastApplied(obj), `${JSON.stringify(applied({ a: '1', b: '2' }))}\n`);

    assert.match(await kubectlOk(srv, 'apply', '-f', await write({ a: '10', b: '2' })), /^configmap\/applied configured$/m);
    obj = await getJson(srv, 'cm', 'applied');
    assert.deepEqual(obj.data, { a: '10', b: '2' });
    assert.equal(lastApplied(obj), `${JSON.stringify(applied({ a: '10', b: '2' }))}\n`);

    assert.match(await kubectlOk(srv, 'apply', '-f', await write({ a: '10', b: '2' })), /^configmap\/applied unchanged$/m);

    assert.match(await kubectlOk(srv, 'apply', '-f', await write({ a: '10' })), /^configmap\/applied configured$/m);
    obj = await getJson(srv, 'cm', 'applied');
    assert.deepEqual(obj.data, { a: '10' });
    assert.equal(lastApplied(obj), `${JSON.stringify(applied({ a: '10' }))}\n`);
  });

  await t.test('label and annotate, and remove them with key-', async () => {
    await kubectlOk(srv, 'create', '-f', await manifest(srv, 'cm-labelled.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: labelled\n'));
    assert.match(await kubectlOk(srv, 'label', 'cm', 'labelled', 'tier=web', 'team=a'), /configmap\/labelled labeled/);
    assert.match(await kubectlOk(srv, 'annotate', 'cm', 'labelled', 'example.com/note=hello world'), /configmap\/labelled annotated/);
    let obj = await getJson(srv, 'cm', 'labelled');
    assert.deepEqual(obj.metadata.labels, { tier: 'web', team: 'a' });
    assert.deepEqual(obj.metadata.annotations, { 'example.com/note': 'hello world' });

    const clash = await kubectl(srv, 'label', 'cm', 'labelled', 'tier=db');
    assert.notEqual(clash.code, 0, 'relabelling without --overwrite must fail');
    await kubectlOk(srv, 'label', 'cm', 'labelled', 'tier=db', '--overwrite');
    assert.equal((await getJson(srv, 'cm', 'labelled')).metadata.labels?.tier, 'db');

    // The selector finds it by the new label only.
    assert.match(await kubectlOk(srv, 'get', 'cm', '-l', 'tier=db', '-o', 'name'), /^configmap\/labelled$/m);
    assert.equal(await kubectlOk(srv, 'get', 'cm', '-l', 'tier=web', '-o', 'name'), '');

    assert.match(await kubectlOk(srv, 'label', 'cm', 'labelled', 'tier-'), /configmap\/labelled unlabeled/);
    assert.match(await kubectlOk(srv, 'annotate', 'cm', 'labelled', 'example.com/note-'), /configmap\/labelled annotated/);
    obj = await getJson(srv, 'cm', 'labelled');
    assert.deepEqual(obj.metadata.labels ?? {}, { team: 'a' });
    assert.deepEqual(obj.metadata.annotations ?? {}, {});
  });

  await t.test('patch --type merge and --type json', async () => {
    await kubectlOk(srv, 'create', '-f', await manifest(srv, 'cm-patched.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: patched\ndata:\n  keep: "1"\n  drop: "2"\n'));
    assert.match(await kubectlOk(srv, 'patch', 'cm', 'patched', '--type', 'merge', '-p', '{"data":{"added":"3","drop":null}}'), /configmap\/patched patched/);
    assert.deepEqual((await getJson(srv, 'cm', 'patched')).data, { keep: '1', added: '3' });

    const ops = [
      { op: 'replace', path: '/data/keep', value: 'one' },
      { op: 'add', path: '/metadata/labels', value: { via: 'json-patch' } },
      { op: 'remove', path: '/data/added' },
    ];
    await kubectlOk(srv, 'patch', 'cm', 'patched', '--type', 'json', '-p', JSON.stringify(ops));
    const obj = await getJson(srv, 'cm', 'patched');
    assert.deepEqual(obj.data, { keep: 'one' });
    assert.deepEqual(obj.metadata.labels, { via: 'json-patch' });

    // A JSON patch whose test fails changes nothing and kubectl reports the failure.
    const failed = await kubectl(srv, 'patch', 'cm', 'patched', '--type', 'json', '-p', '[{"op":"test","path":"/data/keep","value":"other"},{"op":"remove","path":"/data/keep"}]');
    assert.notEqual(failed.code, 0);
    assert.deepEqual((await getJson(srv, 'cm', 'patched')).data, { keep: 'one' });

    // kubectl patch without --type sends a strategic merge patch (built-in kind).
    await kubectlOk(srv, 'patch', 'cm', 'patched', '-p', '{"data":{"smp":"yes"}}');
    assert.deepEqual((await getJson(srv, 'cm', 'patched')).data, { keep: 'one', smp: 'yes' });
  });

  await t.test('delete of an object without finalizers removes it', async () => {
    await kubectlOk(srv, 'create', '-f', await manifest(srv, 'cm-doomed.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: doomed\n'));
    assert.match(await kubectlOk(srv, 'delete', 'cm', 'doomed'), /^configmap "doomed" deleted$/m);
    const res = await kubectl(srv, 'get', 'cm', 'doomed');
    assert.equal(res.code, 1);
    assert.match(res.stderr, /configmaps "doomed" not found/);
    assert.equal((await srv.request('GET', cmPath('doomed'))).status, 404);
  });

  await t.test('delete --wait=false of an object with finalizers leaves it terminating; clearing them removes it', async () => {
    await kubectlOk(srv, 'create', '-f', await manifest(srv, 'cm-held.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: held\n  finalizers:\n  - example.com/hold\n'));
    assert.match(await kubectlOk(srv, 'delete', 'cm', 'held', '--wait=false'), /^configmap "held" deleted$/m);
    const obj = await getJson(srv, 'cm', 'held');
    assert.match(obj.metadata.deletionTimestamp ?? '', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    assert.deepEqual(obj.metadata.finalizers, ['example.com/hold']);

    await kubectlOk(srv, 'patch', 'cm', 'held', '--type', 'merge', '-p', '{"metadata":{"finalizers":null}}');
    const res = await kubectl(srv, 'get', 'cm', 'held');
    assert.equal(res.code, 1);
    assert.match(res.stderr, /configmaps "held" not found/);
  });

  await t.test('delete waits until a finalizer removed meanwhile lets the object go', async () => {
    await kubectlOk(srv, 'create', '-f', await manifest(srv, 'cm-awaited.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: awaited\n  finalizers:\n  - example.com/hold\n'));
    const del = startKubectl(srv, 'delete', 'cm', 'awaited', '--timeout=10s');
    try {
      await waitFor('the deletionTimestamp', async () => {
        const res = await srv.request('GET', cmPath('awaited'));
        return res.body?.metadata?.deletionTimestamp !== undefined || !del.running();
      });
      // kubectl is now waiting with a watch on metadata.name=awaited; give it the watch before it can finish.
      await waitFor('kubectl to print that it deleted', () => del.stdout().includes('configmap "awaited" deleted') || !del.running());
      assert.ok(del.running(), 'kubectl delete must wait while the finalizer holds the object');
      const res = await srv.request('PATCH', cmPath('awaited'), { metadata: { finalizers: null } }, { 'content-type': 'application/merge-patch+json' });
      assert.equal(res.status, 200);
      const done = await del.exited;
      assert.equal(done.code, 0, done.stderr);
      assert.equal(done.stderr, '');
      assert.match(done.stdout, /^configmap "awaited" deleted$/m);
    } finally {
      await del.stop();
    }
    assert.equal((await srv.request('GET', cmPath('awaited'))).status, 404);
  });

  await t.test('api-resources lists configmaps, namespaces and leases with their short names', async () => {
    const out = await kubectlOk(srv, 'api-resources');
    assert.match(out, /^NAME\s+SHORTNAMES\s+APIVERSION\s+NAMESPACED\s+KIND$/m);
    assert.match(out, /^configmaps\s+cm\s+v1\s+true\s+ConfigMap$/m);
    assert.match(out, /^namespaces\s+ns\s+v1\s+false\s+Namespace$/m);
    // Leases have no short name in Kubernetes.
    assert.match(out, /^leases\s+coordination\.k8s\.io\/v1\s+true\s+Lease$/m);
    assert.equal(await kubectlOk(srv, 'api-resources', '--api-group=coordination.k8s.io', '-o', 'name'), 'leases.coordination.k8s.io\n');
    // Short names resolve.
    assert.match(await kubectlOk(srv, 'get', 'ns', 'default', '-o', 'name'), /^namespace\/default$/m);
  });

  await t.test('explain configmap and configmap.data', async () => {
    const kind = await kubectlOk(srv, 'explain', 'configmap');
    assert.match(kind, /^KIND:\s+ConfigMap$/m);
    assert.match(kind, /^VERSION:\s+v1$/m);
    assert.match(kind, /^FIELDS:$/m);
    for (const field of ['apiVersion', 'binaryData', 'data', 'immutable', 'kind', 'metadata']) assert.match(kind, new RegExp(`^ {2}${field}\\s+<`, 'm'), field);
    const data = await kubectlOk(srv, 'explain', 'configmap.data');
    assert.match(data, /^FIELD:\s+data <map\[string\]string>$/m);
    const lease = await kubectlOk(srv, 'explain', 'lease.spec');
    assert.match(lease, /^GROUP:\s+coordination\.k8s\.io$/m);
    assert.match(lease, /holderIdentity/);
  });

  await t.test('get ns shows the namespaces every cluster has', async () => {
    const out = await kubectlOk(srv, 'get', 'ns');
    const names = out
      .trim()
      .split('\n')
      .slice(1)
      .map((line) => line.split(/\s+/)[0]);
    for (const ns of ['default', 'kube-system', 'kube-public', 'kube-node-lease']) assert.ok(names.includes(ns), `${ns} missing from:\n${out}`);
  });

  await t.test('get --raw /version and version report the server version', async () => {
    const raw = JSON.parse(await kubectlOk(srv, 'get', '--raw', '/version')) as Record<string, string>;
    assert.equal(raw.major, '1');
    assert.equal(raw.minor, '32');
    assert.match(raw.gitVersion ?? '', /^v1\.32\.\d+$/);
    assert.match(raw.platform ?? '', /^\w+\/\w+$/);
    assert.match(await kubectlOk(srv, 'version'), /^Server Version: v1\.32\.\d+$/m);
    const json = JSON.parse(await kubectlOk(srv, 'version', '-o', 'json')) as { serverVersion?: { gitVersion?: string } };
    assert.equal(json.serverVersion?.gitVersion, raw.gitVersion);
  });

  await t.test('errors: a missing object and an unknown resource type', async () => {
    const missing = await kubectl(srv, 'get', 'cm', 'nosuch');
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /^Error from server \(NotFound\): configmaps "nosuch" not found$/m);
    const unknown = await kubectl(srv, 'get', 'nosuchkinds');
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /the server doesn't have a resource type "nosuchkinds"/);
  });

  await t.test('a Lease through create -f and get', async () => {
    const file = await manifest(
      srv,
      'lease.yaml',
      [
        'apiVersion: coordination.k8s.io/v1',
        'kind: Lease',
        'metadata:',
        '  name: holder',
        '  namespace: kube-node-lease',
        'spec:',
        '  holderIdentity: node-a',
        '  leaseDurationSeconds: 40',
        '  renewTime: "2026-01-02T03:04:05.000000Z"',
        '',
      ].join('\n'),
    );
    assert.match(await kubectlOk(srv, 'create', '-f', file), /^lease\.coordination\.k8s\.io\/holder created$/m);
    const lease = await getJson(srv, 'lease', 'holder', '-n', 'kube-node-lease');
    assert.equal(lease.apiVersion, 'coordination.k8s.io/v1');
    assert.equal(lease.kind, 'Lease');
    assert.equal(lease.metadata.namespace, 'kube-node-lease');
    assert.deepEqual(lease.spec, { holderIdentity: 'node-a', leaseDurationSeconds: 40, renewTime: '2026-01-02T03:04:05.000000Z' });
    assert.match(await kubectlOk(srv, 'get', 'leases.coordination.k8s.io', '-A', '-o', 'name'), /^lease\.coordination\.k8s\.io\/holder$/m);
    assert.match(await kubectlOk(srv, 'get', 'lease', '-n', 'kube-node-lease'), /^holder\s/m);
  });
});
