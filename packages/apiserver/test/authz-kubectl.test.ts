/**
 * kubectl against RBAC: imperative `kubectl create role|rolebinding|clusterrole` (protobuf bodies),
 * `kubectl auth can-i` (SelfSubjectAccessReview, also protobuf) and `--list`
 * (SelfSubjectRulesReview), and the 403 kubectl prints.
 */
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { renderKubeconfig } from '../src/auth/index.js';
import { startTestServer, type TestServer } from './harness.js';
import { kubectl, kubectlOk } from './kubectl-support.js';

describe('kubectl with RBAC', () => {
  let srv: TestServer;
  let alice: string;
  const asAlice = (...args: string[]) => kubectl(srv, `--kubeconfig=${alice}`, ...args);

  before(async () => {
    srv = await startTestServer({ secure: true, tokens: [['alice-token', { name: 'alice', groups: ['system:authenticated'] }]] });
    alice = join(srv.dir, 'alice.kubeconfig');
    await writeFile(alice, renderKubeconfig({ server: srv.url, caCert: srv.caCert!, token: 'alice-token', userName: 'alice' }), { mode: 0o600 });
    await kubectlOk(srv, 'create', 'namespace', 'a');
    await kubectlOk(srv, 'create', 'namespace', 'b');
    await kubectlOk(srv, 'create', 'role', 'pod-reader', '-n', 'a', '--verb=get,list,watch', '--resource=pods');
    await kubectlOk(srv, 'create', 'rolebinding', 'alice-reads-pods', '-n', 'a', '--role=pod-reader', '--user=alice');
    await kubectlOk(srv, 'create', 'clusterrole', 'node-reader', '--verb=get', '--resource=nodes');
  });
  after(async () => {
    await srv[Symbol.asyncDispose]();
  });

  it('kubectl create role and rolebinding store what kubectl sent', async () => {
    const role = JSON.parse(await kubectlOk(srv, 'get', 'role', 'pod-reader', '-n', 'a', '-o', 'json'));
    assert.deepEqual(role.rules, [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list', 'watch'] }]);
    const binding = JSON.parse(await kubectlOk(srv, 'get', 'rolebinding', 'alice-reads-pods', '-n', 'a', '-o', 'json'));
    assert.deepEqual(binding.roleRef, { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'pod-reader' });
    assert.deepEqual(binding.subjects, [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'alice' }]);
  });

  it('kubectl get prints RBAC objects with kubectl’s columns', async () => {
    const bindings = await kubectlOk(srv, 'get', 'rolebindings', '-n', 'a', '-o', 'wide');
    assert.match(bindings, /^NAME\s+ROLE\s+AGE\s+USERS\s+GROUPS\s+SERVICEACCOUNTS\n/);
    assert.match(bindings, /\nalice-reads-pods\s+Role\/pod-reader\s+\S+\s+alice\s*\n/);
    const roles = await kubectlOk(srv, 'get', 'clusterroles', 'cluster-admin');
    assert.match(roles, /^NAME\s+CREATED AT\ncluster-admin\s+\d{4}-\d\d-\d\dT/);
  });

  it('kubectl auth can-i answers yes in a and no in b', async () => {
    const yes = await asAlice('auth', 'can-i', 'list', 'pods', '-n', 'a');
    assert.equal(yes.code, 0, yes.stderr);
    assert.equal(yes.stdout.trim(), 'yes');
    const no = await asAlice('auth', 'can-i', 'list', 'pods', '-n', 'b');
    assert.equal(no.code, 1, no.stderr);
    assert.equal(no.stdout.trim(), 'no');
    const write = await asAlice('auth', 'can-i', 'create', 'deployments.apps', '-n', 'a');
    assert.equal(write.stdout.trim(), 'no');
    const everything = await kubectl(srv, 'auth', 'can-i', '*', '*');
    assert.equal(everything.stdout.trim(), 'yes', 'the admin token is in system:masters');
  });

  it('kubectl auth can-i --list lists the rules of the namespace', async () => {
    const res = await asAlice('auth', 'can-i', '--list', '-n', 'a');
    assert.equal(res.code, 0, res.stderr);
    const lines = res.stdout.split('\n');
    assert.match(lines[0]!, /^Resources\s+Non-Resource URLs\s+Resource Names\s+Verbs$/);
    assert.ok(lines.some((l) => /^pods\s+\[\]\s+\[\]\s+\[get list watch\]$/.test(l)), res.stdout);
    assert.ok(lines.some((l) => /^selfsubjectaccessreviews\.authorization\.k8s\.io\s+\[\]\s+\[\]\s+\[create\]$/.test(l)), res.stdout);
    assert.ok(lines.some((l) => /^\s+\[\/version\]\s+\[\]\s+\[get\]$/.test(l)), res.stdout);
  });

  it('kubectl prints Kubernetes’ 403 for a refused request', async () => {
    const res = await asAlice('get', 'pods', '-n', 'b');
    assert.equal(res.code, 1);
    assert.match(res.stderr, /Error from server \(Forbidden\): pods is forbidden: User "alice" cannot list resource "pods" in API group "" in the namespace "b"/);
    const ok = await asAlice('get', 'pods', '-n', 'a');
    assert.equal(ok.code, 0, ok.stderr);
  });
});
