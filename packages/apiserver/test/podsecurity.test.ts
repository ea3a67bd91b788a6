/**
 * PodSecurity admission over HTTP: the namespace labels (enforce, audit, warn and their versions),
 * Kubernetes' 403 message and Warning header, pod templates warned but never refused, namespace
 * label updates that warn about existing pods, invalid labels refused, exemptions and defaults.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { KubeObject } from '@setpoint/api';
import { parsePodSecurityDefaults } from '../src/admission/podsecurity/index.js';
import type { AuditEvent } from '../src/audit/index.js';
import { startTestServer, type TestResponse, type TestServer } from './harness.js';
import { assertStatus, ok } from './support.js';

type Labels = Record<string, string>;

function pod(name: string, spec: Record<string, unknown> = {}, container: Record<string, unknown> = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers: [{ name: 'c', image: 'busybox', ...container }], ...spec } };
}

const privilegedHostPath = (name: string) => pod(name, { volumes: [{ name: 'v', hostPath: { path: '/' } }] }, { securityContext: { privileged: true } });

async function namespace(srv: TestServer, name: string, labels: Labels = {}): Promise<void> {
  ok(await srv.request('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels } }), 201);
}

const createPod = (srv: TestServer, ns: string, body: KubeObject) => srv.request('POST', `/api/v1/namespaces/${ns}/pods`, body);

/** The Warning header's values (Node joins repeated headers with ", "). */
function warnings(res: TestResponse): string[] {
  const h = res.headers['warning'];
  const joined = h === undefined ? '' : Array.isArray(h) ? h.join(', ') : h;
  return joined.match(/299 - "(?:[^"\\]|\\.)*"/g) ?? [];
}

const enforce = (level: string, version?: string): Labels => ({
  'pod-security.kubernetes.io/enforce': level,
  ...(version === undefined ? {} : { 'pod-security.kubernetes.io/enforce-version': version }),
});

describe('PodSecurity admission', () => {
  it('enforce: refuses a violating pod with 403 and Kubernetes message, admits a passing one', async () => {
    await using srv = await startTestServer();
    await namespace(srv, 'team', enforce('baseline'));
    const refused = await createPod(srv, 'team', privilegedHostPath('x'));
    const status = assertStatus(
      refused,
      403,
      'Forbidden',
      'pods "x" is forbidden: violates PodSecurity "baseline:latest": hostPath volumes (volume "v"), privileged (container "c" must not set securityContext.privileged=true)',
    );
    assert.equal(status.details.name, 'x');
    assert.equal(status.details.kind, 'pods');
    assertStatus(await srv.request('GET', '/api/v1/namespaces/team/pods/x'), 404, 'NotFound');
    ok(await createPod(srv, 'team', pod('fine', {}, { securityContext: { runAsUser: 0 } })), 201);
    // Namespaces without labels are privileged unless configured.
    ok(await createPod(srv, 'default', privilegedHostPath('x')), 201);
    const metrics = (await srv.request('GET', '/metrics')).text;
    const count = (labels: string) => new RegExp(`^pod_security_evaluations_total\\{${labels}\\} (\\d+)$`, 'm').exec(metrics)?.[1];
    assert.equal(count('decision="deny",policy_level="baseline",policy_version="latest",mode="enforce",request_operation="create",resource="pod",subresource=""'), '1');
    assert.equal(count('decision="allow",policy_level="baseline",policy_version="latest",mode="enforce",request_operation="create",resource="pod",subresource=""'), '1');
    assert.equal(count('decision="allow",policy_level="privileged",policy_version="latest",mode="enforce",request_operation="create",resource="pod",subresource=""'), '1');
  });

  it('warn: admits the pod with a Warning header naming the level and the violations', async () => {
    await using srv = await startTestServer();
    await namespace(srv, 'warned', { 'pod-security.kubernetes.io/warn': 'restricted' });
    const res = await createPod(srv, 'warned', pod('w'));
    ok(res, 201);
    assert.deepEqual(warnings(res), [
      '299 - "would violate PodSecurity \\"restricted:latest\\": allowPrivilegeEscalation != false (container \\"c\\" must set securityContext.allowPrivilegeEscalation=false), ' +
        'unrestricted capabilities (container \\"c\\" must set securityContext.capabilities.drop=[\\"ALL\\"]), ' +
        'runAsNonRoot != true (pod or container \\"c\\" must set securityContext.runAsNonRoot=true), ' +
        'seccompProfile (pod or container \\"c\\" must set securityContext.seccompProfile.type to \\"RuntimeDefault\\" or \\"Localhost\\")"',
    ]);
    // A refused request carries no warning.
    await namespace(srv, 'both', { ...enforce('baseline'), 'pod-security.kubernetes.io/warn': 'restricted' });
    const refused = await createPod(srv, 'both', privilegedHostPath('p'));
    assert.equal(refused.status, 403);
    assert.deepEqual(warnings(refused), []);
  });

  it('audit: records the violations and the enforced policy as audit annotations', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'setpoint-psa-audit-'));
    try {
      const path = join(dir, 'audit.log');
      const srv = await startTestServer({ audit: { path } });
      try {
        await namespace(srv, 'audited', { ...enforce('baseline'), 'pod-security.kubernetes.io/audit': 'restricted', 'pod-security.kubernetes.io/audit-version': 'v1.30' });
        ok(await createPod(srv, 'audited', pod('a', { securityContext: { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } } }, { securityContext: { capabilities: { drop: ['ALL'] } } })), 201);
        assert.equal((await createPod(srv, 'audited', privilegedHostPath('b'))).status, 403);
      } finally {
        await srv.stop();
      }
      const events = (await readFile(path, 'utf8'))
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => JSON.parse(l) as AuditEvent)
        .filter((e) => e.objectRef?.resource === 'pods' && e.verb === 'create');
      assert.equal(events.length, 2);
      assert.deepEqual(events[0]!.annotations, {
        'pod-security.kubernetes.io/enforce-policy': 'baseline:latest',
        'pod-security.kubernetes.io/audit-violations': 'would violate PodSecurity "restricted:v1.30": allowPrivilegeEscalation != false (container "c" must set securityContext.allowPrivilegeEscalation=false)',
      });
      assert.equal(events[1]!.responseStatus?.code, 403);
      assert.equal(events[1]!.annotations?.['pod-security.kubernetes.io/enforce-policy'], 'baseline:latest');
      assert.match(events[1]!.annotations?.['pod-security.kubernetes.io/audit-violations'] ?? '', /^would violate PodSecurity "restricted:v1.30": privileged \(.*\), allowPrivilegeEscalation != false .*restricted volume types \(volume "v" uses restricted volume type "hostPath"\)/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('a Deployment with a privileged template is created with a warning; its pods are what enforce refuses', async () => {
    await using srv = await startTestServer();
    await namespace(srv, 'apps', { ...enforce('baseline'), 'pod-security.kubernetes.io/warn': 'baseline' });
    const template = { metadata: { labels: { app: 'a' } }, spec: { hostPID: true, containers: [{ name: 'c', image: 'i', securityContext: { privileged: true } }] } };
    const res = await srv.request('POST', '/apis/apps/v1/namespaces/apps/deployments', { metadata: { name: 'd' }, spec: { selector: { matchLabels: { app: 'a' } }, template } });
    ok(res, 201);
    assert.deepEqual(warnings(res), [
      '299 - "would violate PodSecurity \\"baseline:latest\\": host namespaces (hostPID=true), privileged (container \\"c\\" must not set securityContext.privileged=true)"',
    ]);
    const rs = await srv.request('POST', '/apis/apps/v1/namespaces/apps/replicasets', { metadata: { name: 'r' }, spec: { selector: { matchLabels: { app: 'a' } }, template } });
    ok(rs, 201);
    assert.equal(warnings(rs).length, 1);
    assert.equal((await createPod(srv, 'apps', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'from-template', labels: { app: 'a' } }, spec: template.spec })).status, 403);
  });

  it('version labels choose the checks of that version', async () => {
    await using srv = await startTestServer();
    const restrictedButRoot = pod('root', { securityContext: { runAsNonRoot: true, runAsUser: 0, seccompProfile: { type: 'RuntimeDefault' } } }, { securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } } });
    await namespace(srv, 'v122', enforce('restricted', 'v1.22'));
    await namespace(srv, 'v123', enforce('restricted', 'v1.23'));
    ok(await createPod(srv, 'v122', restrictedButRoot), 201);
    assertStatus(await createPod(srv, 'v123', restrictedButRoot), 403, 'Forbidden', 'pods "root" is forbidden: violates PodSecurity "restricted:v1.23": runAsUser=0 (pod must not set runAsUser=0)');
  });

  it('refuses namespaces with labels that do not parse', async () => {
    await using srv = await startTestServer();
    const bad = await srv.request('POST', '/api/v1/namespaces', { metadata: { name: 'bad', labels: { 'pod-security.kubernetes.io/enforce': 'strict', 'pod-security.kubernetes.io/warn-version': '1.30' } } });
    const status = assertStatus(
      bad,
      422,
      'Invalid',
      'Namespace "bad" is invalid: [metadata.labels[pod-security.kubernetes.io/enforce]: Invalid value: "strict": must be one of privileged, baseline, restricted, metadata.labels[pod-security.kubernetes.io/warn-version]: Invalid value: "1.30": must be "latest" or "v1.x"]',
    );
    assert.equal(status.details.causes.length, 2);
    await namespace(srv, 'ok');
    assertStatus(await srv.request('PATCH', '/api/v1/namespaces/ok', { metadata: { labels: { 'pod-security.kubernetes.io/audit': 'nope' } } }, { 'content-type': 'application/merge-patch+json' }), 422, 'Invalid');
  });

  it('tightening a namespace warns about the existing pods that violate the new level', async () => {
    await using srv = await startTestServer();
    await namespace(srv, 'legacy');
    for (const name of ['p2', 'p1', 'p3']) ok(await createPod(srv, 'legacy', pod(name, {}, { securityContext: { privileged: true } })), 201);
    ok(await createPod(srv, 'legacy', pod('h', { hostNetwork: true })), 201);
    ok(await createPod(srv, 'legacy', pod('clean')), 201);
    const patch = (labels: Labels) => srv.request('PATCH', '/api/v1/namespaces/legacy', { metadata: { labels } }, { 'content-type': 'application/merge-patch+json' });
    const res = await patch(enforce('baseline'));
    ok(res);
    assert.deepEqual(warnings(res), [
      '299 - "existing pods in namespace \\"legacy\\" violate the new PodSecurity enforce level \\"baseline:latest\\""',
      '299 - "h: host namespaces (hostNetwork=true)"',
      '299 - "p1 (and 2 other pods): privileged (container \\"c\\" must not set securityContext.privileged=true)"',
    ]);
    // Relaxing warns about nothing; the existing pods are left alone.
    assert.deepEqual(warnings(await patch(enforce('privileged'))), []);
    ok(await srv.request('GET', '/api/v1/namespaces/legacy/pods/p1'));
  });

  it('pod updates are evaluated only when they change an image (or a seccomp annotation)', async () => {
    await using srv = await startTestServer();
    await namespace(srv, 'upd');
    ok(await createPod(srv, 'upd', pod('old', {}, { securityContext: { privileged: true } })), 201);
    ok(await srv.request('PATCH', '/api/v1/namespaces/upd', { metadata: { labels: enforce('baseline') } }, { 'content-type': 'application/merge-patch+json' }));
    const merge = { 'content-type': 'application/merge-patch+json' };
    ok(await srv.request('PATCH', '/api/v1/namespaces/upd/pods/old', { metadata: { labels: { a: 'b' } } }, merge));
    const strategic = { 'content-type': 'application/strategic-merge-patch+json' };
    assertStatus(
      await srv.request('PATCH', '/api/v1/namespaces/upd/pods/old', { spec: { containers: [{ name: 'c', image: 'busybox:2' }] } }, strategic),
      403,
      'Forbidden',
      'pods "old" is forbidden: violates PodSecurity "baseline:latest": privileged (container "c" must not set securityContext.privileged=true)',
    );
  });

  it('configured defaults apply to namespaces without labels; exempt namespaces and runtime classes are not evaluated', async () => {
    await using srv = await startTestServer({
      podSecurity: { defaults: parsePodSecurityDefaults('enforce=baseline,warn=restricted'), exemptions: { namespaces: ['kube-system'], runtimeClasses: ['trusted'] } },
    });
    assertStatus(await createPod(srv, 'default', privilegedHostPath('x')), 403, 'Forbidden', /^pods "x" is forbidden: violates PodSecurity "baseline:latest": hostPath volumes/);
    const sys = await createPod(srv, 'kube-system', privilegedHostPath('x'));
    ok(sys, 201);
    assert.deepEqual(warnings(sys), []);
    ok(await createPod(srv, 'default', pod('rc', { runtimeClassName: 'trusted', hostPID: true })), 201);
    // A label still overrides the default.
    await namespace(srv, 'open', enforce('privileged'));
    const open = await createPod(srv, 'open', privilegedHostPath('x'));
    ok(open, 201);
    assert.equal(warnings(open).length, 1, 'the default warn level still applies');
  });

  it('exempt usernames are not evaluated; other users are', async () => {
    await using srv = await startTestServer({
      secure: true,
      tokens: [
        ['ops-token', { name: 'ops', groups: ['system:masters', 'system:authenticated'] }],
        ['dev-token', { name: 'dev', groups: ['system:masters', 'system:authenticated'] }],
      ],
      podSecurity: { defaults: parsePodSecurityDefaults('enforce=baseline'), exemptions: { usernames: ['ops'] } },
    });
    ok(await srv.request('POST', '/api/v1/namespaces/default/pods', privilegedHostPath('x'), { authorization: 'Bearer ops-token' }), 201);
    assertStatus(await srv.request('POST', '/api/v1/namespaces/default/pods', privilegedHostPath('y'), { authorization: 'Bearer dev-token' }), 403, 'Forbidden');
  });
});
