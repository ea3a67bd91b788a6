import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '@setpoint/api';
import type { PolicyRule } from '../registry/kinds/rbac/rbac.js';
import { aggregatedRules } from './aggregation.js';
import type { Attributes } from './authorizer.js';
import { clusterRoleBindingObject, clusterRoleObject, reconcileBinding, reconcileClusterRole } from './bootstrap.js';
import { DEFAULT_CLUSTER_ROLE_BINDINGS, DEFAULT_CLUSTER_ROLES } from './bootstrappolicy.js';
import { covers } from './covers.js';
import { rule, rulesAllow } from './rules.js';

const roles = new Map(DEFAULT_CLUSTER_ROLES.map((r) => [r.name, clusterRoleObject(r) as KubeObject]));
/** The defaults with admin, edit and view aggregated (three passes: view → edit → admin). */
function aggregated(): Map<string, PolicyRule[]> {
  const all = new Map(roles);
  for (let pass = 0; pass < 3; pass++) {
    for (const [name, role] of all) if ('aggregationRule' in role) all.set(name, { ...role, rules: aggregatedRules(role, [...all.values()]) } as KubeObject);
  }
  return new Map([...all].map(([name, role]) => [name, (role as unknown as { rules: PolicyRule[] }).rules]));
}

function can(rules: readonly PolicyRule[], verb: string, resource: string, apiGroup = '', name = ''): boolean {
  const [r, sub = ''] = resource.split('/');
  const a: Attributes = { user: { name: 'x', groups: [] }, verb, resourceRequest: true, namespace: 'ns', apiGroup, apiVersion: 'v1', resource: r!, subresource: sub, name, path: '' };
  return rulesAllow(a, rules);
}

describe('default roles', () => {
  const rules = aggregated();

  it('view reads workloads but not secrets; edit writes them and reads secrets; admin adds roles and bindings', () => {
    const view = rules.get('view')!;
    const edit = rules.get('edit')!;
    const admin = rules.get('admin')!;
    assert.ok(can(view, 'list', 'pods') && can(view, 'get', 'pods/log') && can(view, 'watch', 'deployments', 'apps'));
    assert.ok(!can(view, 'get', 'secrets') && !can(view, 'create', 'pods') && !can(view, 'list', 'roles', 'rbac.authorization.k8s.io'));
    assert.ok(can(edit, 'create', 'deployments', 'apps') && can(edit, 'update', 'deployments/scale', 'apps') && can(edit, 'get', 'secrets') && can(edit, 'list', 'pods'));
    assert.ok(!can(edit, 'create', 'roles', 'rbac.authorization.k8s.io'));
    assert.ok(can(admin, 'create', 'rolebindings', 'rbac.authorization.k8s.io') && can(admin, 'delete', 'pods') && can(admin, 'create', 'localsubjectaccessreviews', 'authorization.k8s.io'));
    assert.ok(covers(edit, view).covered && covers(admin, edit).covered, 'view ⊂ edit ⊂ admin');
    assert.ok(!can(admin, 'list', 'nodes') && !can(admin, 'create', 'clusterroles', 'rbac.authorization.k8s.io'), 'admin is a namespace role');
  });

  it('cluster-admin holds everything; basic-user, discovery and public-info-viewer hold little', () => {
    assert.ok(covers(rules.get('cluster-admin')!, [rule(['*'], ['*'], ['*'])]).covered);
    assert.ok(can(rules.get('system:basic-user')!, 'create', 'selfsubjectaccessreviews', 'authorization.k8s.io'));
    assert.ok(!can(rules.get('system:basic-user')!, 'create', 'subjectaccessreviews', 'authorization.k8s.io'));
    const paths = (name: string) => rules.get(name)!.flatMap((r) => r.nonResourceURLs ?? []);
    assert.ok(paths('system:discovery').includes('/apis/*') && paths('system:discovery').includes('/openapi/*'));
    assert.deepEqual(paths('system:public-info-viewer').sort(), ['/healthz', '/livez', '/readyz', '/version', '/version/']);
  });

  it('gives the controller-manager and the scheduler what their loops use and nothing more', () => {
    const cm = rules.get('system:kube-controller-manager')!;
    for (const [verb, resource, group] of [
      ['create', 'pods', ''],
      ['create', 'replicasets', 'apps'],
      ['create', 'serviceaccounts', ''],
      ['update', 'deployments/status', 'apps'],
      ['delete', 'anything', 'example.com'],
      ['update', 'namespaces/finalize', ''],
      ['patch', 'nodes/status', ''],
      ['create', 'events', ''],
      ['create', 'leases', 'coordination.k8s.io'],
    ] as const) {
      assert.ok(can(cm, verb, resource, group), `controller-manager ${verb} ${resource}`);
    }
    assert.ok(can(cm, 'update', 'leases', 'coordination.k8s.io', 'setpoint-controller-manager'));
    for (const [verb, resource, group] of [
      ['create', 'secrets', ''],
      ['create', 'deployments', 'apps'],
      ['create', 'clusterrolebindings', 'rbac.authorization.k8s.io'],
      ['escalate', 'clusterroles', 'rbac.authorization.k8s.io'],
      ['bind', 'clusterroles', 'rbac.authorization.k8s.io'],
      ['impersonate', 'users', ''],
    ] as const) {
      assert.ok(!can(cm, verb, resource, group), `controller-manager must not ${verb} ${resource}`);
    }
    const scheduler = rules.get('system:kube-scheduler')!;
    assert.ok(can(scheduler, 'create', 'pods/binding') && can(scheduler, 'patch', 'pods/status') && can(scheduler, 'watch', 'nodes') && can(scheduler, 'list', 'namespaces') && can(scheduler, 'create', 'events'));
    assert.ok(can(scheduler, 'update', 'leases', 'coordination.k8s.io', 'setpoint-scheduler') && !can(scheduler, 'update', 'leases', 'coordination.k8s.io', 'setpoint-controller-manager'));
    assert.ok(!can(scheduler, 'get', 'secrets') && !can(scheduler, 'delete', 'pods') && !can(scheduler, 'update', 'pods'));
  });

  it('binds cluster-admin to system:masters and the basics to system:authenticated', () => {
    const subjects = (name: string) => DEFAULT_CLUSTER_ROLE_BINDINGS.find((b) => b.name === name)!.subjects.map((s) => `${s.kind}:${s.name}`);
    assert.deepEqual(subjects('cluster-admin'), ['Group:system:masters']);
    assert.deepEqual(subjects('system:discovery'), ['Group:system:authenticated']);
    assert.deepEqual(subjects('system:public-info-viewer'), ['Group:system:authenticated', 'Group:system:unauthenticated']);
    assert.deepEqual(subjects('system:kube-scheduler'), ['User:system:kube-scheduler']);
  });
});

describe('reconciling the defaults', () => {
  it('adds missing rules, labels and annotations; keeps extra rules and existing values', () => {
    const expected = clusterRoleObject({ name: 'r', labels: { a: '1' }, rules: [rule(['get', 'list'], [''], ['pods'])] });
    const existing = { ...expected, metadata: { name: 'r', labels: { a: 'mine' } }, rules: [rule(['get'], [''], ['pods']), rule(['get'], [''], ['secrets'])] };
    const next = reconcileClusterRole(existing, expected)!;
    assert.deepEqual(next.metadata.labels, { a: 'mine', 'kubernetes.io/bootstrapping': 'rbac-defaults' });
    assert.equal(next.metadata.annotations?.['rbac.authorization.kubernetes.io/autoupdate'], 'true');
    assert.deepEqual(next.rules, [rule(['get'], [''], ['pods']), rule(['get'], [''], ['secrets']), rule(['list'], [''], ['pods'])]);
    assert.equal(reconcileClusterRole(next, expected), undefined, 'reconciled once, nothing more to do');
  });

  it('leaves the rules of aggregated roles to aggregation and adds missing selectors', () => {
    const expected = clusterRoleObject({ name: 'view', rules: [], aggregateFrom: 'x/aggregate-to-view' });
    const existing = { ...expected, rules: [rule(['get'], [''], ['pods'])], aggregationRule: { clusterRoleSelectors: [{ matchLabels: { mine: 'true' } }] } };
    const next = reconcileClusterRole(existing, expected)!;
    assert.deepEqual(next.rules, existing.rules);
    assert.deepEqual(next.aggregationRule?.clusterRoleSelectors, [{ matchLabels: { mine: 'true' } }, { matchLabels: { 'x/aggregate-to-view': 'true' } }]);
  });

  it('adds missing subjects to bindings', () => {
    const expected = clusterRoleBindingObject({ name: 'b', role: 'r', subjects: [{ kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: 'g' }] });
    const existing = { ...expected, subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'extra' }] };
    assert.deepEqual(reconcileBinding(existing, expected)!.subjects!.map((s) => s.name), ['extra', 'g']);
    assert.equal(reconcileBinding(expected, expected), undefined);
  });
});
