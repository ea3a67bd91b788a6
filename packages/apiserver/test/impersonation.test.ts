/**
 * Impersonation (Impersonate-User, -Group, -Uid, -Extra-*) as kube-apiserver serves it: the
 * `impersonate` verb checked on each target, Kubernetes' 403 when it is refused, the request then
 * served as the impersonated user, the audit event recording both, and kubectl's --as.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parseAuditPolicy, type AuditEvent } from '../src/audit/index.js';
import { ApiError } from '@setpoint/api';
import { actingUser, impersonatedUser, impersonationTargets, renderKubeconfig, type UserInfo } from '../src/auth/index.js';
import { request, startTestServer, type TestResponse, type TestServer } from './harness.js';
import { kubectl } from './kubectl-support.js';
import { assertStatus, ok } from './support.js';

const BOB = 'bob-token';
const CAROL = 'carol-token';
const SECRETS = '/api/v1/namespaces/default/secrets';
const WHOAMI = '/apis/authentication.k8s.io/v1/selfsubjectreviews';
const RBAC = '/apis/rbac.authorization.k8s.io/v1';

/** A request as `token`, whose headers may repeat (a list is sent as one header line per value). */
function send(srv: TestServer, method: string, path: string, token: string, headers: Record<string, string | string[]>, body?: unknown): Promise<TestResponse> {
  return request(srv.url, method, path, body, { authorization: `Bearer ${token}`, ...headers }, srv.caCert);
}

/** Who the server says the request is from (SelfSubjectReview). */
async function whoami(srv: TestServer, token: string, headers: Record<string, string | string[]>): Promise<UserInfo & { extra?: Record<string, string[]> }> {
  const res = await send(srv, 'POST', WHOAMI, token, headers, { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' });
  assert.equal(res.status, 201, res.text);
  return (res.body as { status: { userInfo: { username: string; uid?: string; groups: string[]; extra?: Record<string, string[]> } } }).status.userInfo as never;
}

function userInfoName(u: unknown): string {
  return (u as { username: string }).username;
}

describe('impersonation', () => {
  let srv: TestServer;
  let dir: string;

  before(async () => {
    const policy = parseAuditPolicy('apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n  - level: Metadata\n');
    const tokens: Array<[string, UserInfo]> = [
      [BOB, { name: 'bob', groups: ['system:authenticated'] }],
      [CAROL, { name: 'carol', groups: ['system:authenticated'] }],
    ];
    dir = await mkdtemp(join(tmpdir(), 'setpoint-impersonation-'));
    srv = await startTestServer({ secure: true, dir, tokens, audit: { path: join(dir, 'audit.log'), policy } });
    ok(await srv.request('POST', `${RBAC}/clusterroles`, { metadata: { name: 'impersonate-users' }, rules: [{ apiGroups: [''], resources: ['users'], verbs: ['impersonate'] }] }), 201);
    ok(
      await srv.request('POST', `${RBAC}/clusterrolebindings`, {
        metadata: { name: 'carol-impersonates-users' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'impersonate-users' },
        subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'carol' }],
      }),
      201,
    );
    ok(await srv.request('POST', SECRETS, { metadata: { name: 'top' }, stringData: { k: 'v' } }), 201);
  });
  after(async () => {
    await srv[Symbol.asyncDispose]();
    await rm(dir, { recursive: true, force: true });
  });

  it('refuses a user without the impersonate right with Kubernetes’ 403', async () => {
    const res = await send(srv, 'GET', SECRETS, BOB, { 'Impersonate-User': 'eve' });
    assertStatus(res, 403, 'Forbidden', 'users "eve" is forbidden: User "bob" cannot impersonate resource "users" in API group "" at the cluster scope');
    assert.equal(res.body.details.name, 'eve');
    assert.equal(res.body.details.kind, 'users');
    const sa = await send(srv, 'GET', SECRETS, BOB, { 'Impersonate-User': 'system:serviceaccount:default:robot' });
    assertStatus(sa, 403, 'Forbidden', 'serviceaccounts "robot" is forbidden: User "bob" cannot impersonate resource "serviceaccounts" in API group "" in the namespace "default"');
  });

  it('serves a user with the right as the impersonated user, who has only its own rights', async () => {
    const me = await whoami(srv, CAROL, { 'Impersonate-User': 'eve' });
    assert.equal(userInfoName(me), 'eve');
    assert.deepEqual(me.groups, ['system:authenticated']);
    const denied = await send(srv, 'GET', SECRETS, CAROL, { 'Impersonate-User': 'eve' });
    assertStatus(denied, 403, 'Forbidden', 'secrets is forbidden: User "eve" cannot list resource "secrets" in API group "" in the namespace "default"');
    // Carol may impersonate users only: not groups, uids or extras.
    assertStatus(
      await send(srv, 'GET', SECRETS, CAROL, { 'Impersonate-User': 'eve', 'Impersonate-Group': 'system:masters' }),
      403,
      'Forbidden',
      'groups "system:masters" is forbidden: User "carol" cannot impersonate resource "groups" in API group "" at the cluster scope',
    );
    assertStatus(
      await send(srv, 'GET', SECRETS, CAROL, { 'Impersonate-User': 'eve', 'Impersonate-Extra-Scopes': 'view' }),
      403,
      'Forbidden',
      'userextras.authentication.k8s.io "view" is forbidden: User "carol" cannot impersonate resource "userextras/scopes" in API group "authentication.k8s.io" at the cluster scope',
    );
    assertStatus(
      await send(srv, 'GET', SECRETS, CAROL, { 'Impersonate-User': 'eve', 'Impersonate-Uid': 'u-9' }),
      403,
      'Forbidden',
      'uids.authentication.k8s.io "u-9" is forbidden: User "carol" cannot impersonate resource "uids" in API group "authentication.k8s.io" at the cluster scope',
    );
    // Once eve may read secrets, carol reads them as eve.
    ok(await srv.request('POST', `${RBAC}/namespaces/default/roles`, { metadata: { name: 'secret-reader' }, rules: [{ apiGroups: [''], resources: ['secrets'], verbs: ['list'] }] }), 201);
    ok(
      await srv.request('POST', `${RBAC}/namespaces/default/rolebindings`, {
        metadata: { name: 'eve-reads-secrets' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'secret-reader' },
        subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'eve' }],
      }),
      201,
    );
    let listed: TestResponse | undefined;
    const deadline = Date.now() + 5000;
    while ((listed = await send(srv, 'GET', SECRETS, CAROL, { 'Impersonate-User': 'eve' })).status !== 200 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    ok(listed);
    assert.ok((listed.body.items as Array<{ metadata: { name: string } }>).some((s) => s.metadata.name === 'top'));
    // Carol herself still may not.
    assertStatus(await send(srv, 'GET', SECRETS, CAROL, {}), 403, 'Forbidden');
  });

  it('takes every header as Kubernetes does: repeated groups, uid, percent-decoded extras, ServiceAccounts', async () => {
    const admin = srv.token!;
    const me = await whoami(srv, admin, {
      'Impersonate-User': 'eve',
      'Impersonate-Group': ['devs', 'ops'],
      'Impersonate-Uid': 'u-42',
      'Impersonate-Extra-Scopes': ['view', 'edit'],
      'Impersonate-Extra-Example.com%2fteam': 'blue',
    });
    assert.equal(userInfoName(me), 'eve');
    assert.equal(me.uid, 'u-42');
    assert.deepEqual(me.groups, ['devs', 'ops', 'system:authenticated']);
    assert.deepEqual(me.extra, { scopes: ['view', 'edit'], 'example.com/team': ['blue'] });
    const sa = await whoami(srv, admin, { 'Impersonate-User': 'system:serviceaccount:kube-system:robot' });
    assert.equal(userInfoName(sa), 'system:serviceaccount:kube-system:robot');
    assert.deepEqual(sa.groups, ['system:serviceaccounts', 'system:serviceaccounts:kube-system', 'system:authenticated']);
    // An empty Impersonate-User impersonates nobody.
    assert.equal(userInfoName(await whoami(srv, admin, { 'Impersonate-User': '' })), 'admin');
  });

  it('refuses groups, uid or extras without a user', async () => {
    const cases: Array<Record<string, string>> = [{ 'Impersonate-Group': 'devs' }, { 'Impersonate-Uid': 'u-1' }, { 'Impersonate-Extra-Scopes': 'view' }];
    for (const headers of cases) {
      const res = await send(srv, 'GET', SECRETS, srv.token!, headers);
      assertStatus(res, 400, 'BadRequest', /without impersonating a user/);
    }
  });

  it('records who sent the request and whom it impersonated in the audit event', async () => {
    await send(srv, 'GET', '/api/v1/namespaces/default/configmaps?audit=impersonated', CAROL, { 'Impersonate-User': 'eve' });
    await send(srv, 'GET', '/api/v1/namespaces/default/configmaps?audit=refused', BOB, { 'Impersonate-User': 'eve' });
    await srv.stop(); // flushes the audit log (stop is idempotent)
    const events = (await readFile(join(dir, 'audit.log'), 'utf8'))
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as AuditEvent);
    const impersonated = events.find((e) => e.requestURI.endsWith('audit=impersonated'));
    assert.ok(impersonated, 'an event for the impersonated request');
    assert.deepEqual(impersonated.user, { username: 'carol', groups: ['system:authenticated'] });
    assert.deepEqual(impersonated.impersonatedUser, { username: 'eve', groups: ['system:authenticated'] });
    assert.equal(impersonated.responseStatus?.code, 403);
    const refused = events.find((e) => e.requestURI.endsWith('audit=refused'));
    assert.ok(refused, 'an event for the refused impersonation');
    assert.equal(refused.user.username, 'bob');
    assert.equal(refused.impersonatedUser, undefined);
  });
});

describe('kubectl --as', () => {
  it('kubectl auth can-i and get are answered for the impersonated user', async () => {
    await using srv = await startTestServer({ secure: true, tokens: [[BOB, { name: 'bob', groups: ['system:authenticated'] }]] });
    ok(await srv.request('POST', SECRETS, { metadata: { name: 'top' }, stringData: { k: 'v' } }), 201);
    const canI = await kubectl(srv, 'auth', 'can-i', 'list', 'secrets', '--as=eve');
    assert.equal(canI.stdout.trim(), 'no', canI.stderr);
    assert.equal(canI.code, 1);
    const asAdmin = await kubectl(srv, 'auth', 'can-i', 'list', 'secrets');
    assert.equal(asAdmin.stdout.trim(), 'yes', asAdmin.stderr);
    const get = await kubectl(srv, 'get', 'secrets', '--as=eve');
    assert.equal(get.code, 1);
    assert.match(get.stderr, /Error from server \(Forbidden\): secrets is forbidden: User "eve" cannot list resource "secrets" in API group "" in the namespace "default"/);
    const whoami = await kubectl(srv, 'auth', 'whoami', '--as=eve', '--as-group=devs', '-o', 'json');
    assert.equal(whoami.code, 0, whoami.stderr);
    assert.deepEqual(JSON.parse(whoami.stdout).status.userInfo, { username: 'eve', groups: ['devs', 'system:authenticated'] });
    // bob may not impersonate.
    const bob = join(srv.dir, 'bob.kubeconfig');
    await writeFile(bob, renderKubeconfig({ server: srv.url, caCert: srv.caCert!, token: BOB, userName: 'bob' }), { mode: 0o600 });
    const refused = await kubectl(srv, `--kubeconfig=${bob}`, 'get', 'secrets', '--as=eve');
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /Error from server \(Forbidden\): users "eve" is forbidden: User "bob" cannot impersonate resource "users" in API group "" at the cluster scope/);
  });
});

describe('impersonatedUser', () => {
  const admin: UserInfo = { name: 'admin', groups: ['system:masters'] };
  const allow = () => undefined;
  it('adds system:authenticated unless a group says otherwise, and system:unauthenticated for the anonymous user', () => {
    assert.deepEqual(impersonatedUser(admin, { 'impersonate-user': ['eve'], 'impersonate-group': ['system:unauthenticated'] }, allow)?.groups, ['system:unauthenticated']);
    assert.deepEqual(impersonatedUser(admin, { 'impersonate-user': ['eve'], 'impersonate-group': ['system:authenticated', 'x'] }, allow)?.groups, ['system:authenticated', 'x']);
    assert.deepEqual(impersonatedUser(admin, { 'impersonate-user': ['system:anonymous'] }, allow)?.groups, ['system:unauthenticated']);
    // A ServiceAccount with groups given gets those, not its own.
    assert.deepEqual(impersonatedUser(admin, { 'impersonate-user': ['system:serviceaccount:a:b'], 'impersonate-group': ['g'] }, allow)?.groups, ['g', 'system:authenticated']);
    // A name that is not a valid ServiceAccount's is a plain user.
    assert.deepEqual(impersonationTargets({ 'impersonate-user': ['system:serviceaccount:A:b'] }).map((t) => t.resource), ['users']);
    assert.deepEqual(impersonationTargets({ 'impersonate-user': ['system:serviceaccount:a:b:c'] }).map((t) => t.resource), ['users']);
    assert.equal(impersonatedUser(admin, { accept: ['*/*'] }, allow), undefined);
  });
  it('checks each target with the verb impersonate, stopping at the first refusal', () => {
    const asked: string[] = [];
    const headers = { 'impersonate-user': ['eve'], 'impersonate-group': ['g1', 'g2'], 'impersonate-extra-k': ['v'], 'impersonate-uid': ['u'] };
    impersonatedUser(admin, headers, (c) => {
      asked.push(`${c.verb} ${c.apiGroup}/${c.resource}${c.subresource === '' ? '' : `/${c.subresource}`} ${c.name}`);
      return undefined;
    });
    assert.deepEqual(asked, ['impersonate /users eve', 'impersonate /groups g1', 'impersonate /groups g2', 'impersonate authentication.k8s.io/userextras/k v', 'impersonate authentication.k8s.io/uids u']);
    const refusal = new ApiError('Forbidden', 'no');
    let calls = 0;
    assert.throws(
      () => impersonatedUser(admin, headers, () => (++calls === 2 ? refusal : undefined)),
      (err) => err === refusal,
    );
    assert.equal(calls, 2);
  });
});

describe('actingUser', () => {
  it('removes the impersonation headers from the request', () => {
    const headers: Record<string, unknown> = { 'impersonate-user': 'eve', 'impersonate-group': 'a, b', 'impersonate-extra-x': 'y', accept: 'application/json' };
    const headersDistinct: Record<string, string[]> = { 'impersonate-user': ['eve'], 'impersonate-group': ['a', 'b'], 'impersonate-extra-x': ['y'], accept: ['application/json'] };
    const user = actingUser({ raw: { headers, headersDistinct } }, { name: 'admin', groups: ['system:masters'] }, () => undefined);
    assert.deepEqual(user, { name: 'eve', groups: ['a', 'b', 'system:authenticated'], extra: { x: ['y'] } });
    assert.deepEqual(Object.keys(headers), ['accept']);
    assert.deepEqual(Object.keys(headersDistinct), ['accept']);
  });
});
