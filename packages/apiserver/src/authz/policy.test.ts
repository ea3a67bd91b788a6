import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ApiError, KubeObject } from '@setpoint/api';
import type { UserInfo } from '../auth/index.js';
import type { WatchCache } from '../watchcache/cache.js';
import { aggregatedRules } from './aggregation.js';
import { PrivilegedGroupAuthorizer, UnionAuthorizer, type Attributes } from './authorizer.js';
import { EscalationCheck } from './escalation.js';
import { NodeAuthorizer } from './node.js';
import { NodeGraph } from './nodegraph.js';
import { RbacPolicy } from './policy.js';
import { RbacAuthorizer } from './rbac.js';
import { rule, urlRule } from './rules.js';

/** The part of a WatchCache that authorization reads, over a plain map. */
class FakeCache {
  readonly objects = new Map<string, KubeObject>();
  readonly listeners = new Set<(o: KubeObject) => void>();
  put(obj: KubeObject): this {
    this.objects.set(`${obj.metadata.namespace ?? ''}/${obj.metadata.name}`, Object.freeze(obj));
    for (const l of this.listeners) l(obj);
    return this;
  }
  remove(namespace: string, name: string): void {
    const obj = this.objects.get(`${namespace}/${name}`);
    this.objects.delete(`${namespace}/${name}`);
    if (obj !== undefined) for (const l of this.listeners) l(obj);
  }
  get(namespace: string, name: string): KubeObject | undefined {
    return this.objects.get(`${namespace}/${name}`);
  }
  snapshot(): KubeObject[] {
    return [...this.objects.values()];
  }
  get size(): number {
    return this.objects.size;
  }
  onChange(l: (o: KubeObject) => void): () => void {
    this.listeners.add(l);
    return () => this.listeners.delete(l);
  }
  asCache(): WatchCache {
    return this as unknown as WatchCache;
  }
}

const role = (name: string, namespace: string | undefined, rules: object[], labels?: Record<string, string>, aggregationRule?: object): KubeObject =>
  ({ metadata: { name, ...(namespace ? { namespace } : {}), ...(labels ? { labels } : {}) }, rules, ...(aggregationRule ? { aggregationRule } : {}) }) as unknown as KubeObject;
const binding = (name: string, namespace: string | undefined, kind: string, roleName: string, subjects: object[]): KubeObject =>
  ({ metadata: { name, ...(namespace ? { namespace } : {}) }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind, name: roleName }, subjects }) as unknown as KubeObject;
const user = (name: string, ...groups: string[]): UserInfo => ({ name, groups });
const attrs = (u: UserInfo, verb: string, resource: string, namespace = '', extra: Partial<Attributes> = {}): Attributes => {
  const [r, sub = ''] = resource.split('/');
  return { user: u, verb, resourceRequest: true, namespace, apiGroup: '', apiVersion: 'v1', resource: r!, subresource: sub, name: '', path: '', ...extra };
};

function setup() {
  const roles = new FakeCache();
  const clusterRoles = new FakeCache();
  const roleBindings = new FakeCache();
  const clusterRoleBindings = new FakeCache();
  const policy = new RbacPolicy({ roles: roles.asCache(), clusterRoles: clusterRoles.asCache(), roleBindings: roleBindings.asCache(), clusterRoleBindings: clusterRoleBindings.asCache() });
  const rbac = new RbacAuthorizer(policy);
  const authorizer = new UnionAuthorizer([new PrivilegedGroupAuthorizer(), rbac]);
  return { roles, clusterRoles, roleBindings, clusterRoleBindings, policy, rbac, authorizer };
}

describe('RBAC authorizer', () => {
  it('grants a Role in its namespace only, a ClusterRole by RoleBinding in one namespace, by ClusterRoleBinding everywhere', () => {
    const t = setup();
    t.roles.put(role('reader', 'a', [rule(['list'], [''], ['pods'])]));
    t.clusterRoles.put(role('cm', undefined, [rule(['get'], [''], ['configmaps'])]));
    t.clusterRoles.put(role('nodes', undefined, [rule(['list'], [''], ['nodes'])]));
    t.roleBindings.put(binding('b1', 'a', 'Role', 'reader', [{ kind: 'User', name: 'alice' }]));
    t.roleBindings.put(binding('b2', 'b', 'ClusterRole', 'cm', [{ kind: 'Group', name: 'devs' }]));
    t.clusterRoleBindings.put(binding('c1', undefined, 'ClusterRole', 'nodes', [{ kind: 'ServiceAccount', name: 'watcher', namespace: 'ops' }]));
    const alice = user('alice', 'devs');
    assert.equal(t.authorizer.authorize(attrs(alice, 'list', 'pods', 'a')).decision, 'Allow');
    assert.equal(t.authorizer.authorize(attrs(alice, 'list', 'pods', 'b')).decision, 'NoOpinion');
    assert.equal(t.authorizer.authorize(attrs(alice, 'get', 'configmaps', 'b')).decision, 'Allow');
    assert.equal(t.authorizer.authorize(attrs(alice, 'get', 'configmaps', 'a')).decision, 'NoOpinion');
    assert.equal(t.authorizer.authorize(attrs(user('system:serviceaccount:ops:watcher'), 'list', 'nodes')).decision, 'Allow');
    assert.equal(t.authorizer.authorize(attrs(user('system:serviceaccount:dev:watcher'), 'list', 'nodes')).decision, 'NoOpinion');
    assert.equal(t.authorizer.authorize(attrs(user('root', 'system:masters'), 'delete', 'nodes')).decision, 'Allow');
  });

  it('sees binding and role changes at once, and names missing roles in its reason', () => {
    const t = setup();
    t.roleBindings.put(binding('b', 'a', 'Role', 'later', [{ kind: 'User', name: 'alice' }]));
    const alice = user('alice');
    assert.deepEqual(t.rbac.authorize(attrs(alice, 'get', 'pods', 'a')), { decision: 'NoOpinion', reason: 'RBAC: role.rbac.authorization.k8s.io "later" not found' });
    t.roles.put(role('later', 'a', [rule(['get'], [''], ['pods'])]));
    assert.equal(t.rbac.authorize(attrs(alice, 'get', 'pods', 'a')).decision, 'Allow');
    t.roleBindings.remove('a', 'b');
    assert.equal(t.rbac.authorize(attrs(alice, 'get', 'pods', 'a')).decision, 'NoOpinion');
  });

  it('counts every authenticated user in system:authenticated, and lists rules once per binding', () => {
    const t = setup();
    t.clusterRoles.put(role('basic', undefined, [urlRule(['get'], ['/version'])]));
    t.clusterRoleBindings.put(binding('basic', undefined, 'ClusterRole', 'basic', [{ kind: 'Group', name: 'system:authenticated' }, { kind: 'User', name: 'alice' }]));
    const path: Attributes = { ...attrs(user('bob'), 'get', ''), resourceRequest: false, path: '/version' };
    assert.equal(t.rbac.authorize(path).decision, 'Allow');
    assert.equal(t.rbac.rulesFor(user('alice', 'system:authenticated'), 'x').rules.length, 1);
  });
});

describe('escalation prevention', () => {
  it('refuses rules the writer does not hold unless they may escalate; bindings unless they hold the role or may bind it', async () => {
    const t = setup();
    t.clusterRoles.put(role('writer', undefined, [rule(['create', 'update'], ['rbac.authorization.k8s.io'], ['roles', 'rolebindings']), rule(['get'], [''], ['pods'])]));
    t.clusterRoles.put(role('big', undefined, [rule(['*'], [''], ['secrets'])]));
    t.roleBindings.put(binding('w', 'a', 'ClusterRole', 'writer', [{ kind: 'User', name: 'bob' }]));
    const check = new EscalationCheck(t.policy, t.authorizer);
    const bob = user('bob', 'system:authenticated');
    const roleWrite = check.admission({ user: bob, resource: 'roles', namespace: 'a', name: '' })!;
    await roleWrite(role('ok', 'a', [rule(['get'], [''], ['pods'])]), undefined);
    await assert.rejects(roleWrite(role('no', 'a', [rule(['get', 'list'], [''], ['pods'])]), undefined), (err: ApiError) => {
      assert.equal(err.reason, 'Forbidden');
      assert.equal(err.message, 'roles.rbac.authorization.k8s.io "no" is forbidden: user "bob" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n{APIGroups:[""], Resources:["pods"], Verbs:["list"]}');
      return true;
    });
    // Only ownerReferences/finalizers changing (the garbage collector): not checked.
    const held = role('gc', 'a', [rule(['*'], ['*'], ['*'])]);
    await roleWrite({ ...held, metadata: { ...held.metadata, finalizers: ['x'] } }, held);
    const bindingWrite = check.admission({ user: bob, resource: 'rolebindings', namespace: 'a', name: '' })!;
    await assert.rejects(bindingWrite(binding('big', 'a', 'ClusterRole', 'big', [{ kind: 'User', name: 'bob' }]), undefined), /is attempting to grant RBAC permissions not currently held/);
    await assert.rejects(bindingWrite(binding('gone', 'a', 'ClusterRole', 'missing', []), undefined), /clusterrole\.rbac\.authorization\.k8s\.io "missing" not found/);
    await bindingWrite(binding('w2', 'a', 'ClusterRole', 'writer', []), undefined);
    t.clusterRoles.put(role('binder', undefined, [rule(['bind'], ['rbac.authorization.k8s.io'], ['clusterroles'], ['big'])]));
    t.roleBindings.put(binding('binder', 'a', 'ClusterRole', 'binder', [{ kind: 'User', name: 'bob' }]));
    await bindingWrite(binding('big', 'a', 'ClusterRole', 'big', []), undefined);
    assert.equal(check.admission({ user: user('root', 'system:masters'), resource: 'roles', namespace: 'a', name: '' }), undefined, 'system:masters is not checked');
  });

  it('requires every permission to set an aggregationRule', async () => {
    const t = setup();
    t.clusterRoles.put(role('writer', undefined, [rule(['create'], ['rbac.authorization.k8s.io'], ['clusterroles'])]));
    t.clusterRoleBindings.put(binding('w', undefined, 'ClusterRole', 'writer', [{ kind: 'User', name: 'bob' }]));
    const write = new EscalationCheck(t.policy, t.authorizer).admission({ user: user('bob'), resource: 'clusterroles', namespace: '', name: '' })!;
    await assert.rejects(write(role('agg', undefined, [], undefined, { clusterRoleSelectors: [{ matchLabels: { x: 'y' } }] }), undefined), /must have cluster-admin privileges to use the aggregationRule/);
  });
});

describe('ClusterRole aggregation', () => {
  it('unions the rules of matching roles in name order, each rule once, never the role itself', () => {
    const a = role('a', undefined, [rule(['get'], [''], ['pods'])], { view: 'true' });
    const b = role('b', undefined, [rule(['get'], [''], ['pods']), rule(['list'], [''], ['pods'])], { view: 'true', edit: 'true' });
    const c = role('c', undefined, [rule(['*'], ['*'], ['*'])], { other: 'true' });
    const self = role('view', undefined, [rule(['delete'], [''], ['x'])], { view: 'true' }, { clusterRoleSelectors: [{ matchLabels: { view: 'true' } }] });
    assert.deepEqual(aggregatedRules(self, [c, b, self, a]), [rule(['get'], [''], ['pods']), rule(['list'], [''], ['pods'])]);
    const two = role('two', undefined, [], undefined, { clusterRoleSelectors: [{ matchLabels: { other: 'true' } }, { matchExpressions: [{ key: 'edit', operator: 'Exists' }] }] });
    assert.deepEqual(aggregatedRules(two, [a, b, c]), [rule(['*'], ['*'], ['*']), rule(['get'], [''], ['pods']), rule(['list'], [''], ['pods'])]);
  });
});

describe('node authorizer', () => {
  const pods = new FakeCache();
  pods.put({ metadata: { name: 'p1', namespace: 'default' }, spec: { nodeName: 'n1', serviceAccountName: 'sa1', volumes: [{ name: 'v', configMap: { name: 'cm1' } }], containers: [{ envFrom: [{ secretRef: { name: 's1' } }] }] } } as unknown as KubeObject);
  pods.put({ metadata: { name: 'p2', namespace: 'default' }, spec: { nodeName: 'n2', imagePullSecrets: [{ name: 's2' }] } } as unknown as KubeObject);
  pods.put({ metadata: { name: 'pending', namespace: 'default' }, spec: { imagePullSecrets: [{ name: 's3' }] } } as unknown as KubeObject);
  const graph = new NodeGraph(pods.asCache());
  graph.start();
  const node = new NodeAuthorizer(graph);
  const n1 = user('system:node:n1', 'system:nodes');
  const decide = (a: Attributes) => node.authorize(a).decision;

  it('reads what pods bound to the node reference, and nothing else', () => {
    assert.equal(decide(attrs(n1, 'get', 'secrets', 'default', { name: 's1' })), 'Allow');
    assert.equal(decide(attrs(n1, 'get', 'configmaps', 'default', { name: 'cm1' })), 'Allow');
    assert.equal(decide(attrs(n1, 'get', 'secrets', 'default', { name: 's2' })), 'NoOpinion');
    assert.equal(decide(attrs(n1, 'get', 'secrets', 'default', { name: 's3' })), 'NoOpinion', 'unbound pods grant nothing');
    assert.equal(decide(attrs(n1, 'list', 'secrets', 'default')), 'NoOpinion');
    assert.equal(decide(attrs(n1, 'create', 'serviceaccounts/token', 'default', { name: 'sa1' })), 'Allow');
    assert.equal(decide(attrs(n1, 'get', 'serviceaccounts', 'default', { name: 'sa1' })), 'Allow', 'to read automountServiceAccountToken');
    assert.equal(decide(attrs(n1, 'get', 'serviceaccounts', 'default', { name: 'other' })), 'NoOpinion');
    assert.equal(decide(attrs(n1, 'list', 'serviceaccounts', 'default')), 'NoOpinion');
    pods.remove('default', 'p1');
    assert.equal(decide(attrs(n1, 'get', 'secrets', 'default', { name: 's1' })), 'NoOpinion', 'edges go with the pod');
  });

  it('lists pods only by its own spec.nodeName, reads its own Node and Lease', () => {
    assert.equal(decide(attrs(n1, 'list', 'pods', '', { fieldSelector: 'spec.nodeName=n1' })), 'Allow');
    assert.equal(decide(attrs(n1, 'watch', 'pods', '', { fieldSelector: 'spec.nodeName=n2' })), 'NoOpinion');
    assert.equal(decide(attrs(n1, 'get', 'pods', 'default', { name: 'p2' })), 'NoOpinion');
    assert.equal(decide(attrs(n1, 'get', 'nodes', '', { name: 'n1' })), 'Allow');
    assert.equal(decide(attrs(n1, 'list', 'nodes', '')), 'NoOpinion');
    assert.equal(decide(attrs(n1, 'update', 'nodes/status', '', { name: 'n1' })), 'Allow');
    assert.equal(decide(attrs(n1, 'update', 'leases', 'kube-node-lease', { apiGroup: 'coordination.k8s.io', name: 'n1' })), 'Allow');
    assert.equal(decide(attrs(n1, 'update', 'leases', 'kube-node-lease', { apiGroup: 'coordination.k8s.io', name: 'n2' })), 'NoOpinion');
    assert.equal(decide(attrs(n1, 'create', 'events', 'default')), 'Allow');
    assert.equal(decide(attrs(user('system:node:n1'), 'get', 'nodes', '', { name: 'n1' })), 'NoOpinion', 'not in system:nodes: not a node');
    assert.deepEqual(node.authorize(attrs(user('system:node:', 'system:nodes'), 'get', 'nodes')), { decision: 'NoOpinion', reason: 'unknown node for user "system:node:"' });
  });
});
