/**
 * Authorization over HTTP: RBAC with users from a token authenticator (a Role in namespace a lets
 * alice list pods there and nowhere else, with Kubernetes' 403), the default roles, escalation
 * prevention, the node authorizer and node restriction, and the access reviews.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { TokenAuthenticator } from '../src/auth/index.js';
import { request, startTestServer, type TestResponse, type TestServer } from './harness.js';
import { ok } from './support.js';

const ADMIN = 'admin-token';
const users = {
  alice: { name: 'alice', groups: ['system:authenticated'] },
  bob: { name: 'bob', groups: ['system:authenticated', 'devs'] },
  n1: { name: 'system:node:n1', groups: ['system:nodes', 'system:authenticated'] },
  n2: { name: 'system:node:n2', groups: ['system:nodes', 'system:authenticated'] },
} as const;
type Who = keyof typeof users | 'admin';

describe('authorization', () => {
  let srv: TestServer;
  const as = (who: Who, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<TestResponse> =>
    request(srv.url, method, path, body, { authorization: `Bearer ${who === 'admin' ? ADMIN : `${who}-token`}`, ...headers });
  const admin = (method: string, path: string, body?: unknown) => as('admin', method, path, body);

  before(async () => {
    const authenticator = new TokenAuthenticator({ adminToken: ADMIN, tokens: Object.entries(users).map(([k, u]) => [`${k}-token`, { name: u.name, groups: [...u.groups] }] as const) });
    srv = await startTestServer({ authenticator });
    for (const ns of ['a', 'b']) ok(await admin('POST', '/api/v1/namespaces', { metadata: { name: ns } }), 201);
    for (const ns of ['a', 'b']) ok(await admin('POST', `/api/v1/namespaces/${ns}/pods`, { metadata: { name: 'web' }, spec: { containers: [{ name: 'c', image: 'x' }] } }), 201);
    ok(await admin('POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/a/roles', { metadata: { name: 'pod-reader' }, rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list', 'watch'] }] }), 201);
    ok(
      await admin('POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/a/rolebindings', {
        metadata: { name: 'alice-reads-pods' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'pod-reader' },
        subjects: [{ kind: 'User', name: 'alice' }],
      }),
      201,
    );
    await eventually(async () => (await as('alice', 'GET', '/api/v1/namespaces/a/pods')).status === 200);
  });
  after(async () => {
    await srv[Symbol.asyncDispose]();
  });

  it('lets a user bound to a Role in namespace a list pods there, and answers 403 in b with Kubernetes’ message', async () => {
    const list = ok(await as('alice', 'GET', '/api/v1/namespaces/a/pods'));
    assert.deepEqual(
      list.items.map((p: { metadata: { name: string } }) => p.metadata.name),
      ['web'],
    );
    const denied = await as('alice', 'GET', '/api/v1/namespaces/b/pods');
    assert.equal(denied.status, 403);
    assert.match(String(denied.headers['content-type']), /^application\/json/);
    assert.equal(denied.body.kind, 'Status');
    assert.equal(denied.body.reason, 'Forbidden');
    assert.equal(denied.body.code, 403);
    assert.equal(denied.body.message, 'pods is forbidden: User "alice" cannot list resource "pods" in API group "" in the namespace "b"');
    assert.deepEqual({ kind: denied.body.details.kind, group: denied.body.details.group }, { kind: 'pods', group: '' });
  });

  it('words 403s for names, subresources, cluster scope, other groups and paths as Kubernetes does', async () => {
    const cases: Array<[string, string, string]> = [
      ['DELETE', '/api/v1/namespaces/a/pods/web', 'pods "web" is forbidden: User "alice" cannot delete resource "pods" in API group "" in the namespace "a"'],
      ['GET', '/api/v1/namespaces/a/pods/web/log', 'pods "web" is forbidden: User "alice" cannot get resource "pods/log" in API group "" in the namespace "a"'],
      ['GET', '/api/v1/nodes', 'nodes is forbidden: User "alice" cannot list resource "nodes" in API group "" at the cluster scope'],
      ['GET', '/apis/apps/v1/namespaces/a/deployments', 'deployments.apps is forbidden: User "alice" cannot list resource "deployments" in API group "apps" in the namespace "a"'],
      ['GET', '/api/v1/namespaces/b', 'namespaces "b" is forbidden: User "alice" cannot get resource "namespaces" in API group "" in the namespace "b"'],
      ['GET', '/logs', 'forbidden: User "alice" cannot get path "/logs"'],
    ];
    for (const [method, path, message] of cases) {
      const res = await as('alice', method, path);
      assert.equal(res.status, 403, `${method} ${path}: ${res.text}`);
      assert.equal(res.body.message, message);
    }
    // A watch is refused before it starts; a list by name (fieldSelector metadata.name) names the object.
    const watch = await as('alice', 'GET', '/api/v1/namespaces/b/pods?watch=true');
    assert.equal(watch.body.message, 'pods is forbidden: User "alice" cannot watch resource "pods" in API group "" in the namespace "b"');
    const byName = await as('alice', 'GET', '/api/v1/namespaces/b/pods?fieldSelector=metadata.name%3Dweb');
    assert.equal(byName.body.message, 'pods "web" is forbidden: User "alice" cannot list resource "pods" in API group "" in the namespace "b"');
  });

  it('gives every authenticated user discovery, /version and self reviews, and system:masters everything', async () => {
    for (const path of ['/api', '/apis', '/api/v1', '/apis/apps/v1', '/openapi/v3', '/version']) assert.equal((await as('bob', 'GET', path)).status, 200, path);
    ok(await admin('GET', '/api/v1/nodes'));
    assert.equal((await admin('GET', '/logs')).status, 404, 'authorized, then not found');
    const clusterRoles = ok(await admin('GET', '/apis/rbac.authorization.k8s.io/v1/clusterroles'));
    const names = clusterRoles.items.map((r: { metadata: { name: string } }) => r.metadata.name);
    for (const name of ['cluster-admin', 'admin', 'edit', 'view', 'system:basic-user', 'system:discovery', 'system:public-info-viewer', 'system:kube-controller-manager', 'system:kube-scheduler']) {
      assert.ok(names.includes(name), name);
    }
  });

  it('grants view, edit and admin through their aggregated rules, and follows a new aggregate-to-view role', async () => {
    ok(await admin('POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/a/rolebindings', { metadata: { name: 'devs-view' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' }, subjects: [{ kind: 'Group', name: 'devs' }] }), 201);
    await eventually(async () => (await as('bob', 'GET', '/apis/apps/v1/namespaces/a/deployments')).status === 200);
    assert.equal((await as('bob', 'GET', '/api/v1/namespaces/a/secrets')).status, 403, 'view does not read secrets');
    assert.equal((await as('bob', 'POST', '/api/v1/namespaces/a/configmaps', { metadata: { name: 'x' } })).status, 403, 'view does not write');
    assert.equal((await as('bob', 'GET', '/api/v1/namespaces/b/pods')).status, 403, 'only in a');
    // A ClusterRole labelled aggregate-to-view extends view (and edit and admin).
    ok(await admin('POST', '/apis/rbac.authorization.k8s.io/v1/clusterroles', { metadata: { name: 'widgets-view', labels: { 'rbac.authorization.k8s.io/aggregate-to-view': 'true' } }, rules: [{ apiGroups: ['example.com'], resources: ['widgets'], verbs: ['get', 'list'] }] }), 201);
    await eventually(async () => {
      const view = ok(await admin('GET', '/apis/rbac.authorization.k8s.io/v1/clusterroles/view'));
      const admin_ = ok(await admin('GET', '/apis/rbac.authorization.k8s.io/v1/clusterroles/admin'));
      const hasWidgets = (role: { rules: Array<{ resources?: string[] }> }) => role.rules.some((r) => r.resources?.includes('widgets'));
      return hasWidgets(view) && hasWidgets(admin_);
    });
  });

  it('refuses a Role with rules its writer does not hold, and a binding of a role they cannot bind', async () => {
    // bob may write roles and rolebindings in a (a role of the admin's making).
    ok(await admin('POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/a/roles', { metadata: { name: 'rbac-writer' }, rules: [{ apiGroups: ['rbac.authorization.k8s.io'], resources: ['roles', 'rolebindings'], verbs: ['create', 'update', 'patch', 'get'] }, { apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }] }), 201);
    ok(await admin('POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/a/rolebindings', { metadata: { name: 'bob-writes-rbac' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'rbac-writer' }, subjects: [{ kind: 'User', name: 'bob' }] }), 201);
    await eventually(async () => (await as('bob', 'GET', '/apis/rbac.authorization.k8s.io/v1/namespaces/a/roles/rbac-writer')).status === 200);
    // Within what bob holds: fine.
    ok(await as('bob', 'POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/a/roles', { metadata: { name: 'cm-reader' }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }] }), 201);
    // Beyond it: 403 with the missing rules.
    const escalate = await as('bob', 'POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/a/roles', { metadata: { name: 'secret-reader' }, rules: [{ apiGroups: [''], resources: ['secrets', 'configmaps'], verbs: ['get', 'delete'] }] });
    assert.equal(escalate.status, 403);
    assert.equal(escalate.body.reason, 'Forbidden');
    assert.equal(
      escalate.body.message,
      'roles.rbac.authorization.k8s.io "secret-reader" is forbidden: user "bob" (groups=["system:authenticated" "devs"]) is attempting to grant RBAC permissions not currently held:\n' +
        '{APIGroups:[""], Resources:["configmaps"], Verbs:["delete"]}\n{APIGroups:[""], Resources:["secrets"], Verbs:["get" "delete"]}',
    );
    assert.equal((await admin('GET', '/apis/rbac.authorization.k8s.io/v1/namespaces/a/roles/secret-reader')).status, 404, 'nothing written');
    // The same through server-side apply, and through an update of a role bob may write.
    const applied = await as('bob', 'PATCH', '/apis/rbac.authorization.k8s.io/v1/namespaces/a/roles/secret-reader?fieldManager=bob', { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'secret-reader' }, rules: [{ apiGroups: [''], resources: ['secrets'], verbs: ['get'] }] }, { 'content-type': 'application/apply-patch+yaml' });
    assert.equal(applied.status, 403, applied.text);
    assert.match(applied.body.message, /^roles\.rbac\.authorization\.k8s\.io "secret-reader" is forbidden: user "bob" .* is attempting to grant RBAC permissions not currently held:/);
    const cmReader = ok(await as('bob', 'GET', '/apis/rbac.authorization.k8s.io/v1/namespaces/a/roles/cm-reader'));
    const widened = await as('bob', 'PUT', '/apis/rbac.authorization.k8s.io/v1/namespaces/a/roles/cm-reader', { ...cmReader, rules: [{ apiGroups: [''], resources: ['configmaps', 'secrets'], verbs: ['get'] }] });
    assert.equal(widened.status, 403);
    assert.match(widened.body.message, /^roles\.rbac\.authorization\.k8s\.io "cm-reader" is forbidden: .*\n\{APIGroups:\[""\], Resources:\["secrets"\], Verbs:\["get"\]\}$/);
    // Binding cluster-admin: refused; binding a role bob holds: fine.
    const bind = await as('bob', 'POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/a/rolebindings', { metadata: { name: 'bob-admin' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' }, subjects: [{ kind: 'User', name: 'bob' }] });
    assert.equal(bind.status, 403);
    assert.match(bind.body.message, /^rolebindings\.rbac\.authorization\.k8s\.io "bob-admin" is forbidden: user "bob" .* is attempting to grant RBAC permissions not currently held:\n\{APIGroups:\["\*"\], Resources:\["\*"\], Verbs:\["\*"\]\}\n\{NonResourceURLs:\["\*"\], Verbs:\["\*"\]\}$/);
    await eventually(async () => (await as('bob', 'POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/a/rolebindings', { metadata: { name: 'alice-cm' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'cm-reader' }, subjects: [{ kind: 'User', name: 'alice' }] })).status === 201);
    // With the escalate verb the check is skipped.
    ok(await admin('POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/a/roles', { metadata: { name: 'escalator' }, rules: [{ apiGroups: ['rbac.authorization.k8s.io'], resources: ['roles'], verbs: ['escalate'] }] }), 201);
    ok(await admin('POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/a/rolebindings', { metadata: { name: 'bob-escalates' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'escalator' }, subjects: [{ kind: 'User', name: 'bob' }] }), 201);
    await eventually(async () => (await as('bob', 'POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/a/roles', { metadata: { name: 'secret-reader' }, rules: [{ apiGroups: [''], resources: ['secrets'], verbs: ['get'] }] })).status === 201);
  });

  it('validates RBAC objects as Kubernetes does, and keeps roleRef immutable', async () => {
    const bad = await admin('POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/a/roles', { metadata: { name: 'bad' }, rules: [{ resources: ['pods'], verbs: [] }, { nonResourceURLs: ['/x'], verbs: ['get'] }] });
    assert.equal(bad.status, 422);
    assert.equal(
      bad.body.message,
      'Role.rbac.authorization.k8s.io "bad" is invalid: [rules[0].verbs: Required value: verbs must contain at least one value, rules[0].apiGroups: Required value: resource rules must supply at least one api group, rules[1].nonResourceURLs: Invalid value: []string{"/x"}: namespaced rules cannot apply to non-resource URLs]',
    );
    const subject = await admin('POST', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', { metadata: { name: 'bad' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'x' }, subjects: [{ kind: 'Robot', name: 'r' }, { kind: 'ServiceAccount', name: 'sa' }] });
    assert.equal(subject.status, 422);
    assert.equal(
      subject.body.message,
      'ClusterRoleBinding.rbac.authorization.k8s.io "bad" is invalid: [roleRef.kind: Unsupported value: "Role": supported values: "ClusterRole", subjects[0].kind: Unsupported value: "Robot": supported values: "ServiceAccount", "User", "Group", subjects[1].namespace: Required value]',
    );
    const binding = ok(await admin('GET', '/apis/rbac.authorization.k8s.io/v1/namespaces/a/rolebindings/alice-reads-pods'));
    assert.equal(binding.subjects[0].apiGroup, 'rbac.authorization.k8s.io', 'User subjects are defaulted');
    const changed = await admin('PUT', '/apis/rbac.authorization.k8s.io/v1/namespaces/a/rolebindings/alice-reads-pods', { ...binding, roleRef: { ...binding.roleRef, name: 'other' } });
    assert.equal(changed.status, 422);
    assert.match(changed.body.message, /roleRef: Invalid value: rbac\.RoleRef\{APIGroup:"rbac\.authorization\.k8s\.io", Kind:"Role", Name:"other"\}: cannot change roleRef/);
  });

  it('answers SelfSubjectAccessReview and SelfSubjectRulesReview', async () => {
    const review = (who: Who, attrs: object) => as(who, 'POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', spec: attrs });
    const yes = ok(await review('alice', { resourceAttributes: { namespace: 'a', verb: 'list', resource: 'pods' } }), 201);
    assert.equal(yes.status.allowed, true);
    assert.match(yes.status.reason, /^RBAC: allowed by RoleBinding "alice-reads-pods\/a" of Role "pod-reader" to User "alice"$/);
    const no = ok(await review('alice', { resourceAttributes: { namespace: 'b', verb: 'list', resource: 'pods' } }), 201);
    assert.equal(no.status.allowed, false);
    const path = ok(await review('alice', { nonResourceAttributes: { verb: 'get', path: '/healthz' } }), 201);
    assert.equal(path.status.allowed, true);
    const invalid = await review('alice', {});
    assert.equal(invalid.status, 422);
    const rules = ok(await as('alice', 'POST', '/apis/authorization.k8s.io/v1/selfsubjectrulesreviews', { spec: { namespace: 'a' } }), 201);
    assert.equal(rules.status.incomplete, false);
    assert.ok(rules.status.resourceRules.some((r: { resources?: string[]; verbs: string[] }) => r.resources?.includes('pods') && r.verbs.includes('list')));
    assert.ok(rules.status.nonResourceRules.some((r: { nonResourceURLs: string[] }) => r.nonResourceURLs.includes('/version')));
    // SubjectAccessReview (admin) and LocalSubjectAccessReview; alice may create neither.
    const sar = { apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', spec: { user: 'alice', groups: ['system:authenticated'], resourceAttributes: { namespace: 'a', verb: 'get', resource: 'pods' } } };
    assert.equal(ok(await admin('POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', sar), 201).status.allowed, true);
    const local = { ...sar, kind: 'LocalSubjectAccessReview', spec: { ...sar.spec, resourceAttributes: { verb: 'get', resource: 'pods' } } };
    const inB = ok(await admin('POST', '/apis/authorization.k8s.io/v1/namespaces/b/localsubjectaccessreviews', local), 201);
    assert.deepEqual([inB.metadata.namespace, inB.spec.resourceAttributes.namespace, inB.status.allowed], ['b', 'b', false]);
    assert.equal((await as('alice', 'POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', sar)).status, 403);
    const discovery = ok(await as('alice', 'GET', '/apis/authorization.k8s.io/v1'));
    const ssar = discovery.resources.find((r: { name: string }) => r.name === 'selfsubjectaccessreviews');
    assert.deepEqual(ssar.verbs, ['create']);
  });
});

describe('node authorization', () => {
  let srv: TestServer;
  const as = (who: 'n1' | 'n2' | 'admin', method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<TestResponse> =>
    request(srv.url, method, path, body, { authorization: `Bearer ${who === 'admin' ? ADMIN : `${who}-token`}`, ...headers });
  const merge = { 'content-type': 'application/merge-patch+json' };
  const pod = (name: string, node: string, extra: object = {}) => ({ metadata: { name }, spec: { nodeName: node, containers: [{ name: 'c', image: 'x', ...extra }] } });

  before(async () => {
    const authenticator = new TokenAuthenticator({ adminToken: ADMIN, tokens: (['n1', 'n2'] as const).map((k) => [`${k}-token`, { name: users[k].name, groups: [...users[k].groups] }] as const) });
    srv = await startTestServer({ authenticator });
    ok(await as('admin', 'POST', '/api/v1/namespaces/default/secrets', { metadata: { name: 'for-n1' }, stringData: { a: 'b' } }), 201);
    ok(await as('admin', 'POST', '/api/v1/namespaces/default/secrets', { metadata: { name: 'for-n2' }, stringData: { a: 'b' } }), 201);
    ok(await as('admin', 'POST', '/api/v1/namespaces/default/pods', pod('p1', 'n1', { env: [{ name: 'A', valueFrom: { secretKeyRef: { name: 'for-n1', key: 'a' } } }] })), 201);
    ok(await as('admin', 'POST', '/api/v1/namespaces/default/pods', pod('p2', 'n2', { env: [{ name: 'A', valueFrom: { secretKeyRef: { name: 'for-n2', key: 'a' } } }] })), 201);
  });
  after(async () => {
    await srv[Symbol.asyncDispose]();
  });

  it('lets a node register and heartbeat as itself, and nothing of another node', async () => {
    ok(await as('n1', 'POST', '/api/v1/nodes', { metadata: { name: 'n1', labels: { 'kubernetes.io/hostname': 'n1' } } }), 201);
    ok(await as('admin', 'POST', '/api/v1/nodes', { metadata: { name: 'n2' } }), 201);
    ok(await as('n1', 'GET', '/api/v1/nodes/n1'));
    ok(await as('n1', 'GET', '/api/v1/nodes?fieldSelector=metadata.name%3Dn1'));
    ok(await as('n1', 'PATCH', '/api/v1/nodes/n1/status', { status: { conditions: [{ type: 'Ready', status: 'True' }] } }, merge));
    const other = await as('n1', 'GET', '/api/v1/nodes/n2');
    assert.equal(other.status, 403);
    assert.equal(other.body.message, `nodes "n2" is forbidden: User "system:node:n1" cannot get resource "nodes" in API group "" at the cluster scope: node 'n1' cannot read 'n2', only its own Node object`);
    const all = await as('n1', 'GET', '/api/v1/nodes');
    assert.equal(all.status, 403);
    const modify = await as('n1', 'PUT', '/api/v1/nodes/n2/status', { metadata: { name: 'n2' }, status: {} });
    assert.equal(modify.status, 403);
    assert.equal(modify.body.message, 'nodes "n2" is forbidden: node "n1" is not allowed to modify node "n2"');
    const create = await as('n1', 'POST', '/api/v1/nodes', { metadata: { name: 'n3' } });
    assert.equal(create.body.message, 'nodes "n3" is forbidden: node "n1" is not allowed to modify node "n3"');
    // Leases: its own only.
    const lease = { metadata: { name: 'n1' }, spec: { holderIdentity: 'n1', leaseDurationSeconds: 40 } };
    ok(await as('n1', 'POST', '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases', lease), 201);
    ok(await as('n1', 'GET', '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/n1'));
    ok(await as('admin', 'POST', '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases', { ...lease, metadata: { name: 'n2' } }), 201);
    const otherLease = await as('n1', 'GET', '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/n2');
    assert.equal(otherLease.status, 403);
    assert.match(otherLease.body.message, /: can only access node lease with the same name as the requesting node$/);
    const stealLease = await as('n1', 'POST', '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases', { ...lease, metadata: { name: 'n9' } });
    assert.equal(stealLease.body.message, 'leases.coordination.k8s.io "n9" is forbidden: can only access node lease with the same name as the requesting node');
    const elsewhere = await as('n1', 'GET', '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/n1');
    assert.equal(elsewhere.status, 403);
  });

  it('lets a node read and update its own pods and what they reference, and not another node’s', async () => {
    const mine = ok(await as('n1', 'GET', '/api/v1/pods?fieldSelector=spec.nodeName%3Dn1'));
    assert.deepEqual(
      mine.items.map((p: { metadata: { name: string } }) => p.metadata.name),
      ['p1'],
    );
    const everything = await as('n1', 'GET', '/api/v1/pods');
    assert.equal(everything.status, 403);
    assert.match(everything.body.message, /: can only list\/watch pods with spec\.nodeName field selector$/);
    const theirs = await as('n1', 'GET', '/api/v1/pods?fieldSelector=spec.nodeName%3Dn2');
    assert.equal(theirs.status, 403);
    ok(await as('n1', 'GET', '/api/v1/namespaces/default/pods/p1'));
    const p2 = await as('n1', 'GET', '/api/v1/namespaces/default/pods/p2');
    assert.equal(p2.status, 403);
    assert.equal(p2.body.message, `pods "p2" is forbidden: User "system:node:n1" cannot get resource "pods" in API group "" in the namespace "default": no relationship found between node 'n1' and this object`);
    ok(await as('n1', 'GET', '/api/v1/namespaces/default/secrets/for-n1'));
    assert.equal((await as('n1', 'GET', '/api/v1/namespaces/default/secrets/for-n2')).status, 403);
    assert.equal((await as('n1', 'GET', '/api/v1/namespaces/default/secrets')).status, 403);
    // Status of its own pods; not of others', nor their deletion.
    ok(await as('n1', 'PATCH', '/api/v1/namespaces/default/pods/p1/status', { status: { phase: 'Running' } }, merge));
    const status = await as('n1', 'PATCH', '/api/v1/namespaces/default/pods/p2/status', { status: { phase: 'Running' } }, merge);
    assert.equal(status.status, 403);
    assert.equal(status.body.message, 'pods "p2" is forbidden: node "n1" can only update pod status for pods with spec.nodeName set to itself');
    const del = await as('n1', 'DELETE', '/api/v1/namespaces/default/pods/p2');
    assert.equal(del.status, 403);
    assert.equal(del.body.message, 'pods "p2" is forbidden: node "n1" can only delete pods with spec.nodeName set to itself');
    const create = await as('n1', 'POST', '/api/v1/namespaces/default/pods', pod('p3', 'n1'));
    assert.equal(create.status, 403);
    assert.equal(create.body.message, 'pods "p3" is forbidden: pod does not have "kubernetes.io/config.mirror" annotation, node "n1" can only create mirror pods');
    // Tokens: for the account its pod runs as ("default" when it names none), bound to that pod.
    const p1 = ok(await as('admin', 'GET', '/api/v1/namespaces/default/pods/p1'));
    const tokenRequest = (name: string, uid: string) => ({ apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name, uid } } });
    ok(await as('admin', 'POST', '/api/v1/namespaces/default/serviceaccounts', { metadata: { name: 'default' } }), 201);
    ok(await as('n1', 'GET', '/api/v1/namespaces/default/serviceaccounts/default'));
    ok(await as('n1', 'POST', '/api/v1/namespaces/default/serviceaccounts/default/token', tokenRequest('p1', p1.metadata.uid)), 201);
    const p2uid = ok(await as('admin', 'GET', '/api/v1/namespaces/default/pods/p2')).metadata.uid;
    const foreign = await as('n1', 'POST', '/api/v1/namespaces/default/serviceaccounts/default/token', tokenRequest('p2', p2uid));
    assert.equal(foreign.status, 403);
    assert.equal(foreign.body.message, 'serviceaccounts "default" is forbidden: node requested token bound to a pod scheduled on a different node');
    const unbound = await as('n1', 'POST', '/api/v1/namespaces/default/serviceaccounts/default/token', { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: {} });
    assert.equal(unbound.body.message, 'serviceaccounts "default" is forbidden: node requested token not bound to a pod');
    ok(await as('n1', 'DELETE', '/api/v1/namespaces/default/pods/p1?gracePeriodSeconds=0'));
    // Events: any node may record them.
    ok(await as('n1', 'POST', '/api/v1/namespaces/default/events', { metadata: { name: 'e1' }, involvedObject: { kind: 'Node', name: 'n1' }, reason: 'Starting', message: 'x', type: 'Normal' }), 201);
  });
});

describe('default roles across restarts', () => {
  it('restores what was taken from a default, and leaves one annotated autoupdate=false alone', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'setpoint-authz-restart-'));
    const authenticator = new TokenAuthenticator({ adminToken: ADMIN });
    const admin = (srv: TestServer, method: string, path: string, body?: unknown) => request(srv.url, method, path, body, { authorization: `Bearer ${ADMIN}` });
    const roles = '/apis/rbac.authorization.k8s.io/v1/clusterroles';
    try {
      const first = await startTestServer({ dir, backend: 'sqlite', authenticator });
      try {
        const basic = ok(await admin(first, 'GET', `${roles}/system:basic-user`));
        ok(await admin(first, 'PUT', `${roles}/system:basic-user`, { ...basic, rules: [] }));
        const discovery = ok(await admin(first, 'GET', `${roles}/system:discovery`));
        const annotations = { ...discovery.metadata.annotations, 'rbac.authorization.kubernetes.io/autoupdate': 'false' };
        ok(await admin(first, 'PUT', `${roles}/system:discovery`, { ...discovery, metadata: { ...discovery.metadata, annotations }, rules: [] }));
      } finally {
        await first.stop();
      }
      const second = await startTestServer({ dir, backend: 'sqlite', authenticator });
      try {
        const restored = ok(await admin(second, 'GET', `${roles}/system:basic-user`)).rules.flatMap((r: { resources: string[] }) => r.resources);
        assert.deepEqual(restored.sort(), ['selfsubjectaccessreviews', 'selfsubjectreviews', 'selfsubjectrulesreviews'], 'rules added back');
        assert.deepEqual(ok(await admin(second, 'GET', `${roles}/system:discovery`)).rules, [], 'protected by autoupdate=false');
      } finally {
        await second.stop();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

/** Polls `check` until it holds (RBAC reads the watch caches, which follow writes within milliseconds). */
async function eventually(check: () => Promise<boolean>, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (await check()) return;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}
