/**
 * `setpoint get` against an in-process control plane: kubectl's table layout (headers, three-space
 * columns, -A's NAMESPACE column, -o wide's priority columns, several types with their kind
 * prefix), "No resources found" on stderr, -o yaml|json|name, -l, errors, and -w.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { parse } from 'yaml';
import type { ConfigMap, Namespace, Pod } from '@setpoint/api';
import { eventually, startCliFixture, type CliFixture } from './cli-support.js';

/** Ages of objects made a moment ago read "0s" or "1s": both two characters, so alignment holds. */
function ages(text: string): string {
  return text.replace(/\b\ds\b/g, '0s');
}

describe('setpoint get', () => {
  let f: CliFixture;
  before(async () => {
    f = await startCliFixture();
    const c = f.cp.client;
    await c.namespaces().create({ metadata: { name: 'shop' } } as Namespace);
    await c.configMaps().create({ metadata: { name: 'app-config', namespace: 'default', labels: { app: 'web' } }, data: { a: '1', b: '2' } } as ConfigMap);
    await c.configMaps().create({ metadata: { name: 'x', namespace: 'default' } } as ConfigMap);
    await c.configMaps().create({ metadata: { name: 'prices', namespace: 'shop', labels: { app: 'web' } }, data: { apple: '3' } } as ConfigMap);
    await c.pods().create({ metadata: { name: 'web-1', namespace: 'default' }, spec: { containers: [{ name: 'web', image: 'example/web:1' }] } } as Pod);
  });
  after(async () => {
    await f[Symbol.asyncDispose]();
  });

  it('prints the server table as kubectl does: upper-case headers, columns three spaces apart', async () => {
    const r = await f.run(['get', 'configmaps']);
    assert.equal(r.code, 0);
    assert.equal(r.stderr, '');
    // The root CA configmap (kube-root-ca.crt) is not made by Setpoint's server: only ours are listed.
    assert.equal(ages(r.stdout), ['NAME         DATA   AGE', 'app-config   2      0s', 'x            0      0s', ''].join('\n'));
  });

  it('resolves short names, singular names, kinds and group-qualified names alike', async () => {
    const expected = (await f.run(['get', 'configmaps'])).stdout;
    for (const type of ['cm', 'configmap', 'ConfigMap', 'CONFIGMAPS', 'configmaps.v1.']) {
      const r = await f.run(['get', type === 'configmaps.v1.' ? 'configmaps.v1' : type]);
      assert.equal(ages(r.stdout), ages(expected), type);
    }
    const deploy = await f.run(['get', 'deployments.apps']);
    assert.equal(deploy.code, 0);
    assert.equal(deploy.stderr, 'No resources found in default namespace.\n');
    const versioned = await f.run(['get', 'deployments.v1.apps']);
    assert.equal(versioned.stderr, 'No resources found in default namespace.\n');
  });

  it('adds a NAMESPACE column with -A, and only for namespaced types', async () => {
    const r = await f.run(['get', 'cm', '-A', '-l', 'app=web']);
    assert.equal(ages(r.stdout), ['NAMESPACE   NAME         DATA   AGE', 'default     app-config   2      0s', 'shop        prices       1      0s', ''].join('\n'));
    const ns = await f.run(['get', 'namespaces', '-A']);
    assert.match(ns.stdout, /^NAME {14}STATUS   AGE\n/);
  });

  it('shows priority columns only with -o wide', async () => {
    const narrow = await f.run(['get', 'pods']);
    assert.equal(ages(narrow.stdout), ['NAME    READY   STATUS    RESTARTS   AGE', 'web-1   0/1     Pending   0          0s', ''].join('\n'));
    const wide = await f.run(['get', 'pods', '-o', 'wide']);
    assert.equal(
      ages(wide.stdout),
      ['NAME    READY   STATUS    RESTARTS   AGE   IP       NODE     NOMINATED NODE   READINESS GATES', 'web-1   0/1     Pending   0          0s    <none>   <none>   <none>           <none>', ''].join('\n'),
    );
  });

  it('prints several types one table each, names prefixed with their type, a blank line between', async () => {
    const r = await f.run(['get', 'pods,cm', '--no-headers']);
    assert.equal(ages(r.stdout), ['pod/web-1   0/1   Pending   0     0s', 'configmap/app-config   2     0s', 'configmap/x            0     0s', ''].join('\n'));
    const pairs = await f.run(['get', 'cm/x', 'ns/shop', '--show-labels']);
    assert.equal(
      ages(pairs.stdout),
      ['NAME          DATA   AGE   LABELS', 'configmap/x   0      0s    <none>', '', 'NAME             STATUS   AGE   LABELS', 'namespace/shop   Active   0s    kubernetes.io/metadata.name=shop', ''].join('\n'),
    );
  });

  it('says "No resources found" on stderr, naming the namespace', async () => {
    const r = await f.run(['get', 'cm', '-n', 'empty']);
    assert.deepEqual([r.code, r.stdout, r.stderr], [0, '', 'No resources found in empty namespace.\n']);
    const all = await f.run(['get', 'cm', '-A', '-l', 'app=none']);
    assert.equal(all.stderr, 'No resources found\n');
  });

  it('prints -o yaml and -o json that read back as the objects, a List for collections', async () => {
    const one = await f.run(['get', 'cm', 'app-config', '-o', 'yaml']);
    const obj = parse(one.stdout) as ConfigMap;
    const { managedFields, ...metadata } = (await f.cp.client.configMaps().get('app-config')).metadata;
    const stored = await f.cp.client.configMaps().get('app-config');
    assert.deepEqual(obj, { ...stored, metadata }, 'the object, without managedFields (as kubectl prints it)');
    const full = parse((await f.run(['get', 'cm', 'app-config', '-o', 'yaml', '--show-managed-fields'])).stdout) as ConfigMap;
    assert.deepEqual(full.metadata.managedFields, managedFields);
    assert.match(one.stdout, /^apiVersion: v1\ndata:\n {2}a: "1"\n {2}b: "2"\nkind: ConfigMap\nmetadata:\n {2}creationTimestamp: "/);
    const list = await f.run(['get', 'cm', '-o', 'json', '-l', 'app=web']);
    const parsed = JSON.parse(list.stdout) as { kind: string; apiVersion: string; items: ConfigMap[]; metadata: unknown };
    assert.equal(parsed.kind, 'List');
    assert.deepEqual(parsed.metadata, { resourceVersion: '' });
    assert.deepEqual(parsed.items.map((i) => [i.apiVersion, i.kind, i.metadata.name]), [['v1', 'ConfigMap', 'app-config']]);
    assert.match(list.stdout, /^\{\n {4}"apiVersion": "v1",\n {4}"items": \[\n {8}\{\n {12}"apiVersion": "v1",/);
    const names = await f.run(['get', 'cm,deploy,pods', '-o', 'name']);
    assert.equal(names.stdout, 'configmap/app-config\nconfigmap/x\npod/web-1\n');
  });

  it('reports a missing object or type in one line and exits 1, printing the others', async () => {
    const r = await f.run(['get', 'cm', 'x', 'nope']);
    assert.equal(r.code, 1);
    assert.equal(ages(r.stdout), 'NAME   DATA   AGE\nx      0      0s\n');
    assert.equal(r.stderr, 'error: configmaps "nope" not found\n');
    const ignored = await f.run(['get', 'cm', 'nope', '--ignore-not-found']);
    assert.deepEqual([ignored.code, ignored.stdout, ignored.stderr], [0, '', '']);
    const type = await f.run(['get', 'gadgets']);
    assert.deepEqual([type.code, type.stderr], [1, 'error: the server doesn\'t have a resource type "gadgets"\n']);
    const format = await f.run(['get', 'cm', '-o', 'xml']);
    assert.equal(format.code, 1);
    assert.match(format.stderr, /^error: unable to match a printer suitable for the output format "xml"/);
    const both = await f.run(['get', 'cm', '-n', 'a', '-A']);
    assert.equal(both.stderr, 'error: --namespace and --all-namespaces cannot be used together\n');
    const named = await f.run(['get', 'cm', 'x', '-A']);
    assert.equal(named.stderr, 'error: a resource cannot be retrieved by name across all namespaces\n');
  });

  it('says which server it cannot reach', async () => {
    const { runSetpoint } = await import('./cli-support.js');
    const { writeFile } = await import('node:fs/promises');
    const { join } = await import('node:path');
    const kubeconfig = join(f.dir, 'dead.yaml');
    await writeFile(kubeconfig, 'apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: "http://127.0.0.1:9"}}]\nusers: [{name: u, user: {token: t}}]\ncontexts: [{name: x, context: {cluster: c, user: u}}]\ncurrent-context: x\n');
    const r = await runSetpoint(['get', 'pods', '--kubeconfig', kubeconfig]);
    assert.equal(r.code, 1);
    assert.equal(r.stderr, 'error: cannot reach the API server at http://127.0.0.1:9 (ECONNREFUSED); is it running (setpoint up)?\n');
    const missing = await runSetpoint(['get', 'pods', '--kubeconfig', join(f.dir, 'none.yaml')]);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /^error: .*none\.yaml: the kubeconfig file does not exist\n$/);
  });

  it('-w prints the table, then a row for each change, aligned with it, until interrupted', async () => {
    const stop = new AbortController();
    let seen = '';
    const running = f.run(['get', 'cm', '-w'], { signal: stop.signal, onStdout: (all) => (seen = all) });
    await eventually('the initial table', () => seen.includes('app-config'));
    await f.cp.client.configMaps().create({ metadata: { name: 'later', namespace: 'default' }, data: { k: 'v' } } as ConfigMap);
    await eventually('the new row', () => seen.includes('later'));
    await f.cp.client.configMaps().delete('later');
    await eventually('the deletion row', () => seen.split('later').length === 3);
    stop.abort();
    const r = await running;
    assert.equal(r.code, 0);
    assert.equal(
      ages(r.stdout),
      ['NAME         DATA   AGE', 'app-config   2      0s', 'x            0      0s', 'later        1      0s', 'later        1      0s', ''].join('\n'),
    );
  });
});
