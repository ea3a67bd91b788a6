/**
 * kubectl with a custom resource, end to end: apply a CRD and wait for it to be Established, find
 * it in api-resources and explain, apply objects and apply them again changed and with a field
 * removed, get them with their printer columns (-o wide, --show-labels, -A), label, annotate,
 * scale, patch status, edit, see validation errors as kubectl prints them, and delete the CRD.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { chmod, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { startTestServer } from './harness.js';
import { kubectl, kubectlOk, manifest, waitFor } from './kubectl-support.js';

const CRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: crontabs.stable.example.com
spec:
  group: stable.example.com
  scope: Namespaced
  names:
    plural: crontabs
    singular: crontab
    kind: CronTab
    shortNames: [ct]
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        description: A schedule that runs an image.
        properties:
          spec:
            type: object
            description: What to run and when.
            properties:
              cronSpec:
                type: string
                description: The schedule, in cron format.
                pattern: '^(\\S+ ){4}\\S+$'
              image:
                type: string
                description: The image to run.
              replicas:
                type: integer
                minimum: 1
                maximum: 10
                default: 1
          status:
            type: object
            properties:
              replicas: {type: integer}
              lastRun: {type: string}
    subresources:
      status: {}
      scale:
        specReplicasPath: .spec.replicas
        statusReplicasPath: .status.replicas
    additionalPrinterColumns:
    - {name: Spec, type: string, jsonPath: .spec.cronSpec}
    - {name: Replicas, type: integer, jsonPath: .spec.replicas}
    - {name: Image, type: string, jsonPath: .spec.image, priority: 1}
    - {name: Age, type: date, jsonPath: .metadata.creationTimestamp}
`;

const cron = (fields: string[]) => ['apiVersion: stable.example.com/v1', 'kind: CronTab', 'metadata:', '  name: my-cron', 'spec:', ...fields.map((f) => `  ${f}`), ''].join('\n');

test('kubectl with a custom resource', async (t: TestContext) => {
  await using srv = await startTestServer({ secure: true });

  await t.test('apply the CRD; it is Established and listed by api-resources and explain', async () => {
    const file = await manifest(srv, 'crd.yaml', CRD);
    assert.match(await kubectlOk(srv, 'apply', '-f', file), /customresourcedefinition.apiextensions.k8s.io\/crontabs.stable.example.com created/);
    await kubectlOk(srv, 'wait', '--for=condition=Established', '--timeout=10s', 'crd/crontabs.stable.example.com');
    const resources = await kubectlOk(srv, 'api-resources', '--api-group=stable.example.com');
    assert.match(resources, /^crontabs\s+ct\s+stable.example.com\/v1\s+true\s+CronTab\s*$/m);
    const explain = await kubectlOk(srv, 'explain', 'crontab.spec');
    assert.match(explain, /cronSpec\s+<string>/);
    assert.match(explain, /The schedule, in cron format./);
    assert.match(await kubectlOk(srv, 'get', 'crd'), /^NAME\s+CREATED AT\ncrontabs.stable.example.com\s+\d{4}-\d\d-\d\dT/m);
  });

  await t.test('apply a CronTab, change it, remove a field; get shows the printer columns', async () => {
    let file = await manifest(srv, 'cron.yaml', cron(['cronSpec: "* * * * */5"', 'image: my-image', 'replicas: 2']));
    assert.match(await kubectlOk(srv, 'apply', '-f', file), /^crontab.stable.example.com\/my-cron created$/m);
    assert.match(await kubectlOk(srv, 'get', 'crontabs'), /^NAME\s+SPEC\s+REPLICAS\s+AGE\nmy-cron\s+\* \* \* \* \*\/5\s+2\s+\d+s$/m);
    assert.match(await kubectlOk(srv, 'get', 'ct', '-o', 'wide'), /^NAME\s+SPEC\s+REPLICAS\s+IMAGE\s+AGE\nmy-cron\s+.*\s+2\s+my-image\s+\d+s$/m);
    file = await manifest(srv, 'cron.yaml', cron(['cronSpec: "* * * * */10"', 'image: my-image']));
    assert.match(await kubectlOk(srv, 'apply', '-f', file), /configured/);
    const obj = JSON.parse(await kubectlOk(srv, 'get', 'crontab', 'my-cron', '-o', 'json')) as { spec: Record<string, unknown> };
    // replicas was removed from the applied manifest: dropped, then defaulted again by the schema.
    assert.deepEqual(obj.spec, { cronSpec: '* * * * */10', image: 'my-image', replicas: 1 });
    assert.match(await kubectlOk(srv, 'apply', '-f', file), /unchanged/);
  });

  await t.test('label, annotate, scale, patch status, edit', async () => {
    await kubectlOk(srv, 'label', 'crontab', 'my-cron', 'team=a');
    await kubectlOk(srv, 'annotate', 'crontab', 'my-cron', 'note=hello');
    assert.match(await kubectlOk(srv, 'get', 'crontabs', '--show-labels'), /my-cron\s+.*team=a$/m);
    assert.match(await kubectlOk(srv, 'get', 'crontabs', '-A'), /^NAMESPACE\s+NAME\s+SPEC\s+REPLICAS\s+AGE\ndefault\s+my-cron\s/m);
    assert.match(await kubectlOk(srv, 'scale', 'crontab', 'my-cron', '--replicas=3'), /crontab.stable.example.com\/my-cron scaled/);
    await kubectlOk(srv, 'patch', 'crontab', 'my-cron', '--subresource=status', '--type=merge', '-p', '{"status":{"replicas":3,"lastRun":"now"}}');
    const editor = join(srv.dir, 'editor.sh');
    await writeFile(editor, `#!/bin/sh\nsed -i 's/image: my-image/image: edited-image/' "$1"\n`);
    await chmod(editor, 0o755);
    const edited = await new Promise<string>((resolve, reject) => {
      const args = [`--kubeconfig=${srv.kubeconfig!}`, `--cache-dir=${join(srv.dir, 'kube-cache')}`, 'edit', 'crontab', 'my-cron'];
      execFile('kubectl', args, { env: { ...process.env, KUBE_EDITOR: editor }, timeout: 15_000 }, (err, stdout, stderr) => (err ? reject(new Error(`${err.message}: ${stderr}`)) : resolve(stdout)));
    });
    assert.match(edited, /crontab.stable.example.com\/my-cron edited/);
    const obj = JSON.parse(await kubectlOk(srv, 'get', 'crontab', 'my-cron', '-o', 'json')) as { metadata: { labels: Record<string, string>; annotations: Record<string, string> }; spec: Record<string, unknown>; status: Record<string, unknown> };
    assert.equal(obj.metadata.labels.team, 'a');
    assert.equal(obj.metadata.annotations.note, 'hello');
    assert.equal(obj.spec.replicas, 3);
    assert.equal(obj.spec.image, 'edited-image');
    assert.deepEqual(obj.status, { replicas: 3, lastRun: 'now' });
  });

  await t.test('an invalid CronTab is refused as kubectl prints it', async () => {
    const file = await manifest(srv, 'bad.yaml', cron(['cronSpec: "nope"', 'replicas: 20']).replace('my-cron', 'bad'));
    const res = await kubectl(srv, 'apply', '-f', file);
    assert.notEqual(res.code, 0);
    assert.match(res.stderr, /The CronTab "bad" is invalid:/);
    assert.match(res.stderr, /spec.cronSpec: Invalid value: "nope": spec.cronSpec in body should match/);
    assert.match(res.stderr, /spec.replicas: Invalid value: 20: spec.replicas in body should be less than or equal to 10/);
  });

  await t.test('deleting the CRD deletes its objects', async () => {
    await kubectlOk(srv, 'delete', 'crd', 'crontabs.stable.example.com', '--timeout=10s');
    await waitFor('the crontabs to stop being served', async () => (await srv.request('GET', '/apis/stable.example.com/v1')).status === 404, 10_000);
    const res = await kubectl(srv, 'get', 'crontabs');
    assert.notEqual(res.code, 0);
    // kubectl's cached discovery still knows the kind for a while: it then hears 404 from the list.
    assert.match(res.stderr, /the server doesn't have a resource type "crontabs"|the server could not find the requested resource/);
    const left = await srv.store.list('/registry/stable.example.com/');
    assert.equal(left.items.length, 0, 'no object of the kind is left in the store');
  });
});
