/**
 * kubectl's server-side apply against a real API server (HTTPS, admin token): create, conflicts
 * between field managers, --force-conflicts, fields dropped from a manifest, the migration from
 * client-side apply, and --show-managed-fields. kubectl always runs asynchronously with a
 * deadline (the server runs in this process).
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import type { KubeObject, ManagedFieldsEntry } from '@setpoint/api';
import { parse as parseYaml } from 'yaml';
import { startTestServer, type TestServer } from './harness.js';

const KUBECTL_DEADLINE_MS = 15_000;

interface KubectlResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

function kubectl(srv: TestServer, ...args: string[]): Promise<KubectlResult> {
  const base = [`--kubeconfig=${srv.kubeconfig!}`, `--cache-dir=${join(srv.dir, 'kube-cache')}`, '--request-timeout=10s'];
  return new Promise((resolve, reject) => {
    execFile('kubectl', [...base, ...args], { timeout: KUBECTL_DEADLINE_MS, killSignal: 'SIGKILL' }, (err, stdout, stderr) => {
      if (err === null) return resolve({ code: 0, stdout, stderr });
      if (typeof err.code === 'number') return resolve({ code: err.code, stdout, stderr });
      reject(new Error(`kubectl ${args.join(' ')} did not finish (${err.signal ?? err.message}): ${stderr}`, { cause: err }));
    });
  });
}

/** kubectl must exit 0 and write nothing to stderr. */
async function kubectlOk(srv: TestServer, ...args: string[]): Promise<string> {
  const res = await kubectl(srv, ...args);
  assert.equal(res.code, 0, `kubectl ${args.join(' ')} exited ${res.code}: ${res.stderr}`);
  assert.equal(res.stderr, '', `kubectl ${args.join(' ')} wrote to stderr`);
  return res.stdout;
}

async function manifest(srv: TestServer, name: string, text: string): Promise<string> {
  const dir = join(srv.dir, 'manifests');
  await mkdir(dir, { recursive: true });
  const file = join(dir, name);
  await writeFile(file, text);
  return file;
}

function configMapYaml(name: string, data: Record<string, string>, labels: Record<string, string> = {}): string {
  const lines = ['apiVersion: v1', 'kind: ConfigMap', 'metadata:', `  name: ${name}`];
  if (Object.keys(labels).length > 0) lines.push('  labels:', ...Object.entries(labels).map(([k, v]) => `    ${k}: "${v}"`));
  if (Object.keys(data).length > 0) lines.push('data:', ...Object.entries(data).map(([k, v]) => `  ${k}: "${v}"`));
  return `${lines.join('\n')}\n`;
}

/** The object as `kubectl get -o json --show-managed-fields` prints it. */
async function getWithFields(srv: TestServer, ...what: string[]): Promise<KubeObject & { data?: Record<string, string> }> {
  return JSON.parse(await kubectlOk(srv, 'get', ...what, '-o', 'json', '--show-managed-fields')) as KubeObject & { data?: Record<string, string> };
}

function entries(obj: KubeObject): Array<[string | undefined, string | undefined]> {
  return (obj.metadata.managedFields ?? []).map((e) => [e.manager, e.operation]);
}

function entryOf(obj: KubeObject, manager: string, operation = 'Apply'): ManagedFieldsEntry | undefined {
  return obj.metadata.managedFields?.find((e) => e.manager === manager && e.operation === operation);
}

test('kubectl apply --server-side', async (t: TestContext) => {
  await using srv = await startTestServer({ secure: true });

  await t.test('creates, and get --show-managed-fields shows the Apply entry', async () => {
    const file = await manifest(srv, 'ssa.yaml', configMapYaml('ssa', { a: '1', b: '2' }, { app: 'demo' }));
    assert.match(await kubectlOk(srv, 'apply', '--server-side', '-f', file), /^configmap\/ssa serverside-applied$/m);
    const obj = await getWithFields(srv, 'cm', 'ssa');
    assert.deepEqual(obj.data, { a: '1', b: '2' });
    assert.deepEqual(entries(obj), [['kubectl', 'Apply']]);
    const entry = entryOf(obj, 'kubectl')!;
    assert.equal(entry.apiVersion, 'v1');
    assert.equal(entry.fieldsType, 'FieldsV1');
    assert.match(entry.time ?? '', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    assert.deepEqual(entry.fieldsV1, { 'f:data': { 'f:a': {}, 'f:b': {} }, 'f:metadata': { 'f:labels': { 'f:app': {} } } });

    // The YAML form too; without the flag kubectl hides managedFields.
    const yaml = parseYaml(await kubectlOk(srv, 'get', 'cm', 'ssa', '-o', 'yaml', '--show-managed-fields')) as KubeObject;
    assert.deepEqual(yaml.metadata.managedFields?.[0]?.fieldsV1, entry.fieldsV1);
    const hidden = parseYaml(await kubectlOk(srv, 'get', 'cm', 'ssa', '-o', 'yaml')) as KubeObject;
    assert.equal(hidden.metadata.managedFields, undefined);

    // Applying the same manifest again changes nothing.
    const before = obj.metadata.resourceVersion;
    assert.match(await kubectlOk(srv, 'apply', '--server-side', '-f', file), /^configmap\/ssa serverside-applied$/m);
    assert.equal((await getWithFields(srv, 'cm', 'ssa')).metadata.resourceVersion, before);
  });

  await t.test('another field manager setting a different value gets a conflict; --force-conflicts takes the field', async () => {
    const other = await manifest(srv, 'ssa-other.yaml', configMapYaml('ssa', { a: 'changed' }));
    const clash = await kubectl(srv, 'apply', '--server-side', '--field-manager=other', '-f', other);
    assert.equal(clash.code, 1);
    assert.match(clash.stderr, /Apply failed with 1 conflict: conflict with "kubectl": \.data\.a/);
    assert.equal((await getWithFields(srv, 'cm', 'ssa')).data?.a, '1');

    // The same value is shared without a conflict.
    const same = await manifest(srv, 'ssa-same.yaml', configMapYaml('ssa', { b: '2' }));
    await kubectlOk(srv, 'apply', '--server-side', '--field-manager=sharer', '-f', same);

    assert.match(await kubectlOk(srv, 'apply', '--server-side', '--field-manager=other', '--force-conflicts', '-f', other), /serverside-applied/);
    const obj = await getWithFields(srv, 'cm', 'ssa');
    assert.equal(obj.data?.a, 'changed');
    assert.deepEqual(entryOf(obj, 'other')?.fieldsV1, { 'f:data': { 'f:a': {} } });
    assert.deepEqual(entryOf(obj, 'kubectl')?.fieldsV1, { 'f:data': { 'f:b': {} }, 'f:metadata': { 'f:labels': { 'f:app': {} } } });
    assert.deepEqual(entryOf(obj, 'sharer')?.fieldsV1, { 'f:data': { 'f:b': {} } });
  });

  await t.test('a field removed from the manifest goes unless another manager owns it', async () => {
    const file = await manifest(srv, 'ssa-less.yaml', configMapYaml('ssa', {}));
    await kubectlOk(srv, 'apply', '--server-side', '-f', file);
    const obj = await getWithFields(srv, 'cm', 'ssa');
    // a is other's, b is also sharer's; the label was kubectl's alone.
    assert.deepEqual(obj.data, { a: 'changed', b: '2' });
    assert.equal(obj.metadata.labels, undefined);

    await kubectlOk(srv, 'apply', '--server-side', '--field-manager=sharer', '-f', await manifest(srv, 'ssa-sharer-none.yaml', configMapYaml('ssa', { c: '3' })));
    const after = await getWithFields(srv, 'cm', 'ssa');
    assert.deepEqual(after.data, { a: 'changed', c: '3' });
  });

  await t.test('kubectl edit-style writes (patch) record Update entries for their manager', async () => {
    await kubectlOk(srv, 'label', 'cm', 'ssa', 'tier=web');
    await kubectlOk(srv, 'patch', 'cm', 'ssa', '--type', 'merge', '-p', '{"data":{"d":"4"}}');
    const obj = await getWithFields(srv, 'cm', 'ssa');
    assert.deepEqual(entryOf(obj, 'kubectl-label', 'Update')?.fieldsV1, { 'f:metadata': { 'f:labels': { '.': {}, 'f:tier': {} } } });
    assert.deepEqual(entryOf(obj, 'kubectl-patch', 'Update')?.fieldsV1, { 'f:data': { 'f:d': {} } });
    // A conflict with an updater names its API version.
    const clash = await kubectl(srv, 'apply', '--server-side', '-f', await manifest(srv, 'ssa-tier.yaml', configMapYaml('ssa', {}, { tier: 'db' })));
    assert.equal(clash.code, 1);
    assert.match(clash.stderr, /Apply failed with 1 conflict: conflict with "kubectl-label" using v1: \.metadata\.labels\.tier/);
  });

  await t.test('migration from client-side apply: kubectl takes over the fields it applied before, without conflicts', async () => {
    const file = await manifest(srv, 'csa.yaml', configMapYaml('csa', { a: '1', b: '2', c: '3' }));
    assert.match(await kubectlOk(srv, 'apply', '-f', file), /^configmap\/csa created$/m);
    const csa = await getWithFields(srv, 'cm', 'csa');
    assert.deepEqual(entries(csa), [['kubectl-client-side-apply', 'Update']]);

    // The manifest changes a value kubectl-client-side-apply owns: no conflict for kubectl.
    const changed = await manifest(srv, 'csa.yaml', configMapYaml('csa', { a: '10', b: '2', c: '3' }));
    assert.match(await kubectlOk(srv, 'apply', '--server-side', '-f', changed), /serverside-applied/);
    const migrated = await getWithFields(srv, 'cm', 'csa');
    assert.deepEqual(migrated.data, { a: '10', b: '2', c: '3' });
    // kubectl keeps the annotation under its own applier, then folds the client-side entry into "kubectl".
    assert.deepEqual(entries(migrated), [
      ['kubectl-last-applied', 'Apply'],
      ['kubectl', 'Apply'],
    ]);
    assert.deepEqual(entryOf(migrated, 'kubectl-last-applied')?.fieldsV1, { 'f:metadata': { 'f:annotations': { 'f:kubectl.kubernetes.io/last-applied-configuration': {} } } });
    assert.deepEqual((entryOf(migrated, 'kubectl')?.fieldsV1 as Record<string, unknown>)['f:data'], { 'f:a': {}, 'f:b': {}, 'f:c': {} });
    const lastApplied = JSON.parse(migrated.metadata.annotations?.['kubectl.kubernetes.io/last-applied-configuration'] ?? '{}') as KubeObject;
    assert.deepEqual(lastApplied.data, { a: '10', b: '2', c: '3' }, 'the annotation follows the server-side applied configuration');

    // From now on, server-side apply removes what the manifest drops.
    await kubectlOk(srv, 'apply', '--server-side', '-f', await manifest(srv, 'csa.yaml', configMapYaml('csa', { a: '10' })));
    assert.deepEqual((await getWithFields(srv, 'cm', 'csa')).data, { a: '10' });
  });

  await t.test('a Deployment: containers are merged by name between managers', async () => {
    const deployment = (replicas: number, containers: Array<[string, string]>) =>
      [
        'apiVersion: apps/v1',
        'kind: Deployment',
        'metadata:',
        '  name: web',
        'spec:',
        `  replicas: ${replicas}`,
        '  selector:',
        '    matchLabels: {app: web}',
        '  template:',
        '    metadata:',
        '      labels: {app: web}',
        '    spec:',
        '      containers:',
        ...containers.flatMap(([name, image]) => [`      - name: ${name}`, `        image: ${image}`]),
        '',
      ].join('\n');
    await kubectlOk(srv, 'apply', '--server-side', '-f', await manifest(srv, 'deploy.yaml', deployment(2, [['app', 'nginx:1']])));
    const clash = await kubectl(srv, 'apply', '--server-side', '--field-manager=sidecar', '-f', await manifest(srv, 'deploy-sidecar.yaml', deployment(3, [['app', 'nginx:2']])));
    assert.equal(clash.code, 1);
    assert.match(clash.stderr, /Apply failed with 2 conflicts: conflicts with "kubectl":\n- \.spec\.replicas\n- \.spec\.template\.spec\.containers\[name="app"\]\.image/);

    const sidecar = ['apiVersion: apps/v1', 'kind: Deployment', 'metadata:', '  name: web', 'spec:', '  template:', '    spec:', '      containers:', '      - name: proxy', '        image: envoy:1', ''].join('\n');
    await kubectlOk(srv, 'apply', '--server-side', '--field-manager=sidecar', '-f', await manifest(srv, 'deploy-sidecar.yaml', sidecar));
    const obj = await getWithFields(srv, 'deployment', 'web');
    const names = (obj.spec as { template: { spec: { containers: Array<{ name: string }> } } }).template.spec.containers.map((c) => c.name);
    assert.deepEqual(names, ['app', 'proxy']);
    assert.deepEqual(entryOf(obj, 'sidecar')?.fieldsV1, { 'f:spec': { 'f:template': { 'f:spec': { 'f:containers': { 'k:{"name":"proxy"}': { '.': {}, 'f:image': {}, 'f:name': {} } } } } } });
  });
});
