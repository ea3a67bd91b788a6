/**
 * kubectl's client-side apply and edit on a Deployment: both send strategic merge patches built
 * from the schema's patch metadata (containers and env merged by name, $setElementOrder,
 * $retainKeys on the strategy), and the server must merge them as Kubernetes does — a field
 * removed from the manifest goes away, list items keep their identity, an edit changes one field.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { chmod, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { startTestServer } from './harness.js';
import { kubectlOk, manifest } from './kubectl-support.js';

interface DeploymentJson {
  metadata: { generation: number; annotations?: Record<string, string> };
  spec: {
    replicas: number;
    strategy: { type: string; rollingUpdate?: unknown };
    template: { spec: { containers: Array<{ name: string; image: string; env?: Array<{ name: string; value: string }>; ports?: Array<{ containerPort: number }> }> } };
  };
}

function deployment(opts: { replicas?: number; env: string[]; sidecarImage: string; recreate?: boolean }): string {
  return [
    'apiVersion: apps/v1',
    'kind: Deployment',
    'metadata:',
    '  name: web',
    'spec:',
    ...(opts.replicas !== undefined ? [`  replicas: ${opts.replicas}`] : []),
    '  selector: {matchLabels: {app: web}}',
    ...(opts.recreate ? ['  strategy: {type: Recreate}'] : []),
    '  template:',
    '    metadata: {labels: {app: web}}',
    '    spec:',
    '      containers:',
    '      - name: main',
    '        image: nginx:1',
    '        ports: [{containerPort: 80}]',
    '        env:',
    ...opts.env.map((e) => `        - {name: ${e}, value: "${e.toLowerCase()}"}`),
    '      - name: sidecar',
    `        image: ${opts.sidecarImage}`,
    '',
  ].join('\n');
}

test('kubectl apply and edit of a Deployment (strategic merge patch)', async (t: TestContext) => {
  await using srv = await startTestServer({ secure: true });
  const get = async () => JSON.parse(await kubectlOk(srv, 'get', 'deployment', 'web', '-o', 'json')) as DeploymentJson;

  await t.test('apply, change and apply again, remove fields and apply again', async () => {
    const file = await manifest(srv, 'web.yaml', deployment({ replicas: 3, env: ['A', 'B', 'C'], sidecarImage: 'busybox:1' }));
    assert.match(await kubectlOk(srv, 'apply', '-f', file), /deployment.apps\/web created/);
    await manifest(srv, 'web.yaml', deployment({ replicas: 3, env: ['A', 'C'], sidecarImage: 'busybox:2' }));
    assert.match(await kubectlOk(srv, 'apply', '-f', file), /deployment.apps\/web configured/);
    let d = await get();
    const [main, sidecar] = d.spec.template.spec.containers;
    assert.deepEqual(main!.env, [
      { name: 'A', value: 'a' },
      { name: 'C', value: 'c' },
    ]);
    assert.deepEqual(main!.ports, [{ containerPort: 80, protocol: 'TCP' }]);
    assert.equal(sidecar!.image, 'busybox:2');
    assert.equal(d.metadata.generation, 2);

    // replicas removed from the manifest: dropped, then defaulted to 1; the strategy becomes Recreate
    // (kubectl sends $retainKeys, so rollingUpdate goes).
    await manifest(srv, 'web.yaml', deployment({ env: ['A', 'C'], sidecarImage: 'busybox:2', recreate: true }));
    await kubectlOk(srv, 'apply', '-f', file);
    d = await get();
    assert.equal(d.spec.replicas, 1);
    assert.deepEqual(d.spec.strategy, { type: 'Recreate' });
    const applied = JSON.parse(d.metadata.annotations!['kubectl.kubernetes.io/last-applied-configuration']!) as { spec: Record<string, unknown> };
    assert.equal(applied.spec.replicas, undefined, 'last-applied-configuration is the manifest as applied');
    assert.match(await kubectlOk(srv, 'apply', '-f', file), /deployment.apps\/web unchanged/);
  });

  await t.test('edit through KUBE_EDITOR changes one image, nothing else', async () => {
    const editor = join(srv.dir, 'edit-image.sh');
    await writeFile(editor, `#!/bin/sh\nsed -i 's/image: nginx:1$/image: nginx:2/' "$1"\n`);
    await chmod(editor, 0o755);
    const before = await get();
    const out = await new Promise<string>((resolve, reject) => {
      const args = [`--kubeconfig=${srv.kubeconfig!}`, `--cache-dir=${join(srv.dir, 'kube-cache')}`, 'edit', 'deployment', 'web'];
      execFile('kubectl', args, { env: { ...process.env, KUBE_EDITOR: editor }, timeout: 15_000 }, (err, stdout, stderr) => (err ? reject(new Error(`${err.message}: ${stderr}`)) : resolve(stdout)));
    });
    assert.match(out, /deployment.apps\/web edited/);
    const after = await get();
    assert.equal(after.spec.template.spec.containers[0]!.image, 'nginx:2');
    assert.deepEqual(after.spec.template.spec.containers[0]!.env, before.spec.template.spec.containers[0]!.env);
    assert.equal(after.spec.template.spec.containers[1]!.image, 'busybox:2');
    assert.equal(after.metadata.generation, before.metadata.generation + 1);
  });
});
