/**
 * The audit log over HTTP: one audit.k8s.io/v1 event per request, at the level the policy gives it,
 * with Kubernetes' fields; Secrets and TokenRequests never with bodies; rotation by size.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { listBackups, parseAuditPolicy, type AuditEvent } from '../src/audit/index.js';
import { openWatch, request, startTestServer, type TestServer } from './harness.js';
import { CM, assertStatus, configMap, ok } from './support.js';

const POLICY = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived"]
rules:
  - level: None
    nonResourceURLs: ["/healthz*", "/livez*", "/readyz*", "/version"]
  - level: RequestResponse
    resources:
      - group: ""
        resources: ["secrets", "configmaps", "serviceaccounts/token"]
  - level: Request
    verbs: ["create", "update", "patch"]
    omitManagedFields: true
  - level: Metadata
`;

const ALICE = 'alice-audit-token';
const SECRET_VALUE = 'p4ssw0rd-never-logged';
const SECRET_B64 = Buffer.from(SECRET_VALUE).toString('base64');

async function events(srv: TestServer, path: string): Promise<AuditEvent[]> {
  await srv.stop(); // closes the audit log, writing what is queued
  const text = await readFile(path, 'utf8');
  return text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as AuditEvent);
}

function find(all: AuditEvent[], pred: (e: AuditEvent) => boolean, what: string): AuditEvent {
  const found = all.filter(pred);
  assert.equal(found.length, 1, `one event for ${what}, found ${found.length}`);
  return found[0]!;
}

/** A temporary directory, removed at the end of the scope. */
async function tempDir(): Promise<{ path: string } & AsyncDisposable> {
  const path = await mkdtemp(join(tmpdir(), 'setpoint-audit-'));
  return { path, [Symbol.asyncDispose]: () => rm(path, { recursive: true, force: true }) };
}

const MICRO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

describe('audit log', () => {
  it('writes one event per request with the fields and levels Kubernetes records', async () => {
    await using dir = await tempDir();
    const path = join(dir.path, 'audit', 'audit.log');
    await using audited = await startTestServer({
      secure: true,
      dir: dir.path,
      tokens: [[ALICE, { name: 'alice', uid: 'u-1', groups: ['dev', 'system:authenticated'] }]],
      audit: { path, policy: parseAuditPolicy(POLICY) },
    });
    const created = await audited.request('POST', CM, configMap('audited', { k: 'v' }), { 'user-agent': 'audit-test/1.0' });
    ok(created, 201);
    ok(await audited.request('POST', '/api/v1/namespaces/default/secrets', { metadata: { name: 's1' }, data: { password: SECRET_B64 }, stringData: { other: SECRET_VALUE } }), 201);
    ok(await audited.request('GET', '/api/v1/namespaces/default/secrets/s1'));
    ok(await audited.request('GET', '/api/v1/namespaces/default/secrets'));
    ok(await audited.request('POST', '/api/v1/namespaces/default/serviceaccounts', { metadata: { name: 'sa1' } }), 201);
    const token = ok(await audited.request('POST', '/api/v1/namespaces/default/serviceaccounts/sa1/token', { spec: { expirationSeconds: 600 } }), 201);
    assertStatus(await audited.request('GET', `${CM}/missing`), 404, 'NotFound');
    assert.equal((await request(audited.url, 'GET', CM, undefined, { authorization: 'Bearer wrong' }, audited.caCert)).status, 401);
    assert.equal((await audited.request('GET', '/api/v1/namespaces/default/pods', undefined, { authorization: `Bearer ${ALICE}` })).status, 403);
    assert.equal((await audited.request('GET', '/readyz')).status, 200);
    ok(await audited.request('POST', '/apis/apps/v1/namespaces/default/deployments', {
      metadata: { name: 'web' },
      spec: { selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'i' }] } } },
    }), 201);
    ok(await audited.request('GET', '/api/v1/namespaces'));
    const watch = openWatch(audited.url, `${CM}?watch=true&timeoutSeconds=1`, { authorization: `Bearer ${audited.token}` }, audited.caCert);
    await watch.waitClosed(5000);

    const all = await events(audited, path);
    // The configmap create: RequestResponse, with both bodies and every Metadata field.
    const create = find(all, (e) => e.verb === 'create' && e.objectRef?.resource === 'configmaps', 'the configmap create');
    assert.equal(create.auditID, created.headers['audit-id'], 'the Audit-Id header names the event');
    assert.equal(create.kind, 'Event');
    assert.equal(create.apiVersion, 'audit.k8s.io/v1');
    assert.equal(create.level, 'RequestResponse');
    assert.equal(create.stage, 'ResponseComplete');
    assert.equal(create.requestURI, CM);
    assert.equal(create.user.username, 'admin');
    assert.ok(create.user.groups?.includes('system:masters'));
    assert.deepEqual(create.sourceIPs, ['127.0.0.1']);
    assert.equal(create.userAgent, 'audit-test/1.0');
    assert.deepEqual(create.objectRef, { resource: 'configmaps', namespace: 'default', name: 'audited', apiVersion: 'v1' }, 'a create names its object from the body');
    assert.deepEqual(create.responseStatus, { metadata: {}, code: 201 });
    assert.deepEqual((create.requestObject as { data: unknown }).data, { k: 'v' });
    assert.equal((create.responseObject as { metadata: { name: string; uid?: string } }).metadata.name, 'audited');
    assert.match(create.requestReceivedTimestamp, MICRO_TIME);
    assert.match(create.stageTimestamp, MICRO_TIME);
    assert.ok(create.stageTimestamp >= create.requestReceivedTimestamp, 'latency is stageTimestamp minus requestReceivedTimestamp');

    // Secrets and TokenRequests: the policy says RequestResponse, but no body is ever recorded.
    const secretEvents = all.filter((e) => e.objectRef?.resource === 'secrets');
    assert.deepEqual(secretEvents.map((e) => e.verb).sort(), ['create', 'get', 'list']);
    for (const e of secretEvents) {
      assert.equal(e.level, 'RequestResponse');
      assert.equal(e.requestObject, undefined);
      assert.equal(e.responseObject, undefined);
    }
    const tokenRequest = find(all, (e) => e.objectRef?.subresource === 'token', 'the token request');
    assert.deepEqual([tokenRequest.objectRef?.name, tokenRequest.requestObject, tokenRequest.responseObject], ['sa1', undefined, undefined]);

    // Failures carry Kubernetes' Status fields.
    const notFound = find(all, (e) => e.objectRef?.name === 'missing', 'the 404');
    assert.deepEqual(notFound.responseStatus, { metadata: {}, status: 'Failure', message: 'configmaps "missing" not found', reason: 'NotFound', code: 404 });
    const unauthorized = find(all, (e) => e.responseStatus?.code === 401, 'the 401');
    assert.deepEqual(unauthorized.user, {}, 'a request that did not authenticate has no user');
    assert.equal(unauthorized.verb, 'list');
    const forbidden = find(all, (e) => e.responseStatus?.code === 403, 'the 403');
    assert.deepEqual(forbidden.user, { username: 'alice', uid: 'u-1', groups: ['dev', 'system:authenticated'] });
    assert.equal(forbidden.level, 'Metadata');
    assert.equal(forbidden.responseStatus?.reason, 'Forbidden');

    // Request level: the request body without managedFields, no response body.
    const deployment = find(all, (e) => e.objectRef?.resource === 'deployments', 'the deployment create');
    assert.equal(deployment.level, 'Request');
    assert.equal(deployment.objectRef?.apiGroup, 'apps');
    assert.equal((deployment.requestObject as { metadata: { name: string } }).metadata.name, 'web');
    assert.equal(deployment.responseObject, undefined);
    // Metadata level: no bodies; watches are recorded when they end; health checks not at all (None).
    const namespaces = find(all, (e) => e.objectRef?.resource === 'namespaces' && e.verb === 'list', 'the namespace list');
    assert.deepEqual([namespaces.level, namespaces.requestObject, namespaces.responseObject], ['Metadata', undefined, undefined]);
    const watched = find(all, (e) => e.verb === 'watch', 'the watch');
    assert.equal(watched.responseStatus?.code, 200);
    assert.ok(Date.parse(watched.stageTimestamp) - Date.parse(watched.requestReceivedTimestamp) >= 900, 'a watch is recorded when it ends');
    assert.equal(all.filter((e) => e.requestURI.startsWith('/readyz')).length, 0);

    // Nothing of the secret, nor of the issued token, is in the log.
    const text = await readFile(path, 'utf8');
    for (const needle of [SECRET_VALUE, SECRET_B64, token.status.token as string]) assert.ok(!text.includes(needle), `the log holds ${needle.slice(0, 12)}…`);
  });

  it('rotates by size, keeping --audit-log-maxbackup files, and loses no event', async () => {
    await using dir = await tempDir();
    const path = join(dir.path, 'audit.log');
    await using srv = await startTestServer({ dir: dir.path, audit: { path, maxSizeBytes: 4096, maxBackups: 100 } });
    const requests = 60;
    for (let i = 0; i < requests; i++) ok(await srv.request('GET', `${CM}?n=${i}`));
    await srv.stop();
    const backups = await listBackups(path);
    assert.ok(backups.length >= 3, `rotated into ${backups.length} backups`);
    const texts = await Promise.all([...backups.reverse().map((b) => b.path), path].map((p) => readFile(p, 'utf8')));
    for (const t of texts) assert.ok(Buffer.byteLength(t) <= 4096);
    const lists = texts
      .flatMap((t) => t.split('\n').filter((l) => l !== ''))
      .map((l) => JSON.parse(l) as AuditEvent)
      .filter((e) => e.verb === 'list');
    assert.deepEqual(
      lists.map((e) => e.requestURI),
      Array.from({ length: requests }, (_, i) => `${CM}?n=${i}`),
      'every event, in order, across the files',
    );
  });
});
