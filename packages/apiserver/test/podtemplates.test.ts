/**
 * PodTemplate (v1) end to end, the kind added as the worked example of "adding a kind"
 * (docs/development.md): create, get, list and watch over JSON; the same object over protobuf;
 * defaults and validation as Kubernetes'; the table kubectl prints; and kubectl's apply, get,
 * explain and delete against it.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeProtobuf, encodeProtobuf } from '../src/http/protobuf/index.js';
import { openWatch, startTestServer } from './harness.js';
import { kubectlOk, manifest } from './kubectl-support.js';
import { assertStatus, ok, rawRequest as raw } from './support.js';

const PT = '/api/v1/namespaces/default/podtemplates';
const PROTOBUF = 'application/vnd.kubernetes.protobuf';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

function podTemplate(name: string, labels: Record<string, string> = { app: 'web' }): Json {
  return {
    apiVersion: 'v1',
    kind: 'PodTemplate',
    metadata: { name },
    template: {
      metadata: { labels },
      spec: { containers: [{ name: 'web', image: 'nginx:1.27' }, { name: 'log', image: 'fluentd:1' }] },
    },
  };
}

describe('podtemplates', () => {
  it('create, get, list and watch; the template gets the pod spec defaults; generation follows the template', async () => {
    await using srv = await startTestServer();
    const w = openWatch(srv.url, `${PT}?watch=true`);
    const created = ok(await srv.request('POST', PT, podTemplate('web')), 201);
    assert.equal(created.metadata.generation, 1);
    assert.equal(created.template.spec.restartPolicy, 'Always');
    assert.equal(created.template.spec.dnsPolicy, 'ClusterFirst');
    assert.equal(created.template.spec.containers[0].terminationMessagePath, '/dev/termination-log');
    assert.equal(created.template.spec.containers[0].imagePullPolicy, 'IfNotPresent');
    assert.deepEqual(ok(await srv.request('GET', `${PT}/web`)), created);
    const list = ok(await srv.request('GET', PT));
    assert.equal(list.kind, 'PodTemplateList');
    assert.deepEqual(
      list.items.map((i: Json) => i.metadata.name),
      ['web'],
    );
    const added = (await w.next()) as Json;
    assert.deepEqual([added.type, added.object.kind, added.object.metadata.name], ['ADDED', 'PodTemplate', 'web']);

    // A label change moves generation (the template is the kind's spec); a metadata change does not.
    const relabelled = ok(await srv.request('PATCH', `${PT}/web`, { template: { metadata: { labels: { app: 'web', tier: 'front' } } } }, { 'content-type': 'application/merge-patch+json' }));
    assert.equal(relabelled.metadata.generation, 2);
    const annotated = ok(await srv.request('PATCH', `${PT}/web`, { metadata: { annotations: { note: 'x' } } }, { 'content-type': 'application/merge-patch+json' }));
    assert.equal(annotated.metadata.generation, 2);
    const modified = (await w.next()) as Json;
    assert.deepEqual([modified.type, modified.object.template.metadata.labels.tier], ['MODIFIED', 'front']);
    w.close();
  });

  it('validates the template as ValidatePodTemplate does', async () => {
    await using srv = await startTestServer();
    const noContainers = { apiVersion: 'v1', kind: 'PodTemplate', metadata: { name: 'empty' }, template: { spec: { containers: [] } } };
    const status = assertStatus(await srv.request('POST', PT, noContainers), 422, 'Invalid');
    assert.equal(status.message, 'PodTemplate "empty" is invalid: template.spec.containers: Required value');
    const badLabel = podTemplate('bad', { 'a b': 'x' });
    const labelStatus = assertStatus(await srv.request('POST', PT, badLabel), 422, 'Invalid');
    assert.equal(labelStatus.details.causes[0].field, 'template.labels');
    const ephemeral = podTemplate('eph');
    ephemeral.template.spec.ephemeralContainers = [{ name: 'debug', image: 'busybox' }];
    const ephStatus = assertStatus(await srv.request('POST', PT, ephemeral), 422, 'Invalid');
    assert.match(ephStatus.message, /template\.spec\.ephemeralContainers: Forbidden: ephemeral containers not allowed in pod template/);
    assertStatus(await srv.request('POST', PT, podTemplate('Not_A_Name')), 422, 'Invalid');
    assertStatus(await srv.request('GET', `${PT}/bad`), 404, 'NotFound');
  });

  it('round-trips over protobuf', async () => {
    await using srv = await startTestServer();
    const body = encodeProtobuf(podTemplate('pb'));
    assert.ok(body !== undefined, 'PodTemplate has a protobuf message');
    const res = await raw(srv, 'POST', PT, Buffer.from(body), { accept: `${PROTOBUF},application/json`, 'content-type': PROTOBUF });
    assert.equal(res.status, 201, res.bytes.toString('utf8').slice(0, 300));
    assert.equal(res.contentType, PROTOBUF);
    const created = decodeProtobuf(res.bytes) as Json;
    assert.deepEqual([created.kind, created.metadata.name, created.template.spec.containers.map((c: Json) => c.image)], ['PodTemplate', 'pb', ['nginx:1.27', 'fluentd:1']]);
    const listed = await raw(srv, 'GET', PT, undefined, { accept: PROTOBUF });
    const list = decodeProtobuf(listed.bytes) as Json;
    assert.equal(list.kind, 'PodTemplateList');
    // List items carry no apiVersion and kind in protobuf (the list's own say what they are).
    const { apiVersion: _v, kind: _k, ...stored } = ok(await srv.request('GET', `${PT}/pb`)) as Json;
    assert.deepEqual(list.items[0], stored);
  });

  it('prints NAME CONTAINERS IMAGES POD LABELS as kubectl does', async () => {
    await using srv = await startTestServer();
    ok(await srv.request('POST', PT, podTemplate('web', { tier: 'front', app: 'web' })), 201);
    ok(await srv.request('POST', PT, podTemplate('bare', {})), 201);
    const table = ok(await srv.request('GET', PT, undefined, { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' }));
    assert.deepEqual(
      table.columnDefinitions.map((c: Json) => c.name),
      ['Name', 'Containers', 'Images', 'Pod Labels'],
    );
    assert.deepEqual(
      table.rows.map((r: Json) => r.cells),
      [
        ['bare', 'web,log', 'nginx:1.27,fluentd:1', '<none>'],
        ['web', 'web,log', 'nginx:1.27,fluentd:1', 'app=web,tier=front'],
      ],
    );
  });

  it('kubectl apply, get, explain and delete', async () => {
    await using srv = await startTestServer({ secure: true });
    const file = await manifest(
      srv,
      'podtemplate.yaml',
      ['apiVersion: v1', 'kind: PodTemplate', 'metadata:', '  name: nginx', 'template:', '  metadata:', '    labels:', '      app: nginx', '  spec:', '    containers:', '    - name: nginx', '      image: nginx:1.27', ''].join('\n'),
    );
    assert.match(await kubectlOk(srv, 'apply', '-f', file), /^podtemplate\/nginx created$/m);
    assert.match(await kubectlOk(srv, 'get', 'podtemplates'), /^nginx\s+nginx\s+nginx:1\.27\s+app=nginx$/m);
    const explain = await kubectlOk(srv, 'explain', 'podtemplate.template');
    assert.match(explain, /^KIND:\s+PodTemplate$/m);
    // Fields named by their Go types, as /openapi/v3 refers to Kubernetes' definitions by name.
    assert.match(explain, /^FIELD:\s+template <PodTemplateSpec>$/m);
    assert.match(explain, /PodTemplateSpec describes the data a pod should have when created from a\s+template/);
    assert.match(explain, /^ {2}spec\s+<PodSpec>$/m);
    assert.match(await kubectlOk(srv, 'delete', 'podtemplate', 'nginx'), /^podtemplate "nginx" deleted$/m);
  });
});
