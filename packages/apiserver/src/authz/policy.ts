/**
 * RbacPolicy: the roles and bindings in force, read from the API server's watch caches, and the
 * rules that apply to a user in a namespace (Kubernetes' DefaultRuleResolver).
 *
 * Bindings are indexed by subject — `u:<user name>` for User subjects and for ServiceAccount
 * subjects (as the user name `system:serviceaccount:<namespace>:<name>`), `g:<group>` for Group
 * subjects — once per change of the bindings (lazily, at the next evaluation), so evaluating a
 * request visits only the bindings of the user and their groups: O(groups + those bindings'
 * rules), whatever the number of bindings in the cluster. Roles are looked up in the caches by
 * name at evaluation time, so a changed role takes effect at once.
 */
import type { KubeObject } from '@setpoint/api';
import type { UserInfo } from '../auth/index.js';
import type { BindingObject, PolicyRule, RoleObject, RoleRef, Subject } from '../registry/kinds/rbac/rbac.js';
import type { WatchCache } from '../watchcache/cache.js';
import { effectiveGroups } from './authorizer.js';
import { normalizeRule } from './rules.js';

/** The caches of the four RBAC kinds. */
export interface RbacSources {
  readonly roles: WatchCache;
  readonly clusterRoles: WatchCache;
  readonly roleBindings: WatchCache;
  readonly clusterRoleBindings: WatchCache;
}

/** A binding as the index keeps it. */
interface IndexedBinding {
  readonly kind: 'RoleBinding' | 'ClusterRoleBinding';
  readonly name: string;
  readonly namespace: string;
  readonly roleRef: RoleRef;
}

/** Calls back with each rule, the binding it comes from and the subject key that matched; returning false stops the visit. */
export type RuleVisitor = (rule: PolicyRule, source: IndexedBinding, subject: string) => boolean;

/** The user name of a service account: system:serviceaccount:<namespace>:<name>. */
export function serviceAccountUser(namespace: string, name: string): string {
  return `system:serviceaccount:${namespace}:${name}`;
}

/** The index key of a subject in a binding of `bindingNamespace` ('' for ClusterRoleBindings), or undefined when it names nobody. */
export function subjectKey(subject: Subject, bindingNamespace: string): string | undefined {
  switch (subject.kind) {
    case 'User':
      return `u:${subject.name}`;
    case 'Group':
      return `g:${subject.name}`;
    case 'ServiceAccount': {
      const ns = subject.namespace !== undefined && subject.namespace !== '' ? subject.namespace : bindingNamespace;
      return ns === '' ? undefined : `u:${serviceAccountUser(ns, subject.name)}`;
    }
    default:
      return undefined;
  }
}

type SubjectIndex = Map<string, IndexedBinding[]>;

function addToIndex(index: SubjectIndex, obj: KubeObject, kind: IndexedBinding['kind']): void {
  const binding = obj as BindingObject;
  const roleRef = binding.roleRef;
  if (roleRef === undefined || roleRef === null) return;
  const entry: IndexedBinding = { kind, name: obj.metadata.name ?? '', namespace: obj.metadata.namespace ?? '', roleRef };
  const seen = new Set<string>();
  for (const subject of binding.subjects ?? []) {
    const key = subjectKey(subject, entry.namespace);
    if (key === undefined || seen.has(key)) continue;
    seen.add(key);
    let list = index.get(key);
    if (list === undefined) index.set(key, (list = []));
    list.push(entry);
  }
}

export class RbacPolicy {
  private cluster: SubjectIndex | undefined;
  private namespaced: Map<string, SubjectIndex> | undefined;
  private readonly unsubscribe: Array<() => void>;

  constructor(readonly sources: RbacSources) {
    this.unsubscribe = [
      sources.clusterRoleBindings.onChange(() => (this.cluster = undefined)),
      sources.roleBindings.onChange(() => (this.namespaced = undefined)),
    ];
  }

  /** Stops following the caches. */
  close(): void {
    for (const u of this.unsubscribe) u();
  }

  private clusterIndex(): SubjectIndex {
    if (this.cluster === undefined) {
      const index: SubjectIndex = new Map();
      for (const obj of this.sources.clusterRoleBindings.snapshot()) addToIndex(index, obj, 'ClusterRoleBinding');
      this.cluster = index;
    }
    return this.cluster;
  }

  private namespaceIndex(namespace: string): SubjectIndex | undefined {
    if (this.namespaced === undefined) {
      const all = new Map<string, SubjectIndex>();
      for (const obj of this.sources.roleBindings.snapshot()) {
        const ns = obj.metadata.namespace ?? '';
        let index = all.get(ns);
        if (index === undefined) all.set(ns, (index = new Map()));
        addToIndex(index, obj, 'RoleBinding');
      }
      this.namespaced = all;
    }
    return this.namespaced.get(namespace);
  }

  /**
   * The rules of a role reference as seen from `namespace` (a Role is looked up there), or an
   * error text such as `role.rbac.authorization.k8s.io "x" not found` (a lister's NotFound).
   */
  roleRefRules(ref: RoleRef, namespace: string): { rules: readonly PolicyRule[] } | { error: string } {
    let role: KubeObject | undefined;
    if (ref.kind === 'ClusterRole') role = this.sources.clusterRoles.get('', ref.name);
    else if (ref.kind === 'Role' && namespace !== '') role = this.sources.roles.get(namespace, ref.name);
    else return { error: `unsupported role reference kind: ${JSON.stringify(ref.kind)}` };
    if (role === undefined) return { error: `${ref.kind === 'Role' ? 'role' : 'clusterrole'}.rbac.authorization.k8s.io ${JSON.stringify(ref.name)} not found` };
    return { rules: rulesOf(role) };
  }

  /**
   * Visits the rules that apply to `user` in `namespace` ('' for cluster scope: ClusterRoleBindings
   * only), ClusterRoleBindings first; with `once`, a binding matching several of the user's
   * subjects is visited once. Returns the errors met (bindings whose role is missing).
   */
  visitRulesFor(user: UserInfo, namespace: string, visit: RuleVisitor, once = false): string[] {
    const errors: string[] = [];
    const seen = once ? new Set<IndexedBinding>() : undefined;
    const groups = effectiveGroups(user);
    const walk = (index: SubjectIndex | undefined): boolean => {
      if (index === undefined) return true;
      for (let i = -1; i < groups.length; i++) {
        const key = i < 0 ? `u:${user.name}` : `g:${groups[i]!}`;
        const list = index.get(key);
        if (list === undefined) continue;
        for (const binding of list) {
          if (seen !== undefined) {
            if (seen.has(binding)) continue;
            seen.add(binding);
          }
          const found = this.roleRefRules(binding.roleRef, binding.namespace);
          if ('error' in found) {
            errors.push(found.error);
            continue;
          }
          for (const rule of found.rules) if (!visit(rule, binding, key)) return false;
        }
      }
      return true;
    };
    if (walk(this.clusterIndex()) && namespace !== '') walk(this.namespaceIndex(namespace));
    return errors;
  }

  /** Every rule that applies to `user` in `namespace`, each binding counted once. */
  rulesFor(user: UserInfo, namespace: string): { rules: PolicyRule[]; errors: string[] } {
    const rules: PolicyRule[] = [];
    const errors = this.visitRulesFor(
      user,
      namespace,
      (rule) => {
        rules.push(rule);
        return true;
      },
      true,
    );
    return { rules, errors: [...new Set(errors)] };
  }
}

/** Normalized rules per cached role object (cached objects are replaced, never changed, on every write). */
const normalized = new WeakMap<KubeObject, readonly PolicyRule[]>();

/** A role's rules, normalized (absent lists empty, non-string entries dropped); computed once per object. */
export function rulesOf(role: KubeObject): readonly PolicyRule[] {
  let rules = normalized.get(role);
  if (rules === undefined) {
    const raw = (role as RoleObject).rules;
    rules = Array.isArray(raw) ? raw.map(normalizeRule) : [];
    normalized.set(role, rules);
  }
  return rules;
}

/**
 * How Kubernetes' RBAC reasons name a binding: `ClusterRoleBinding "cluster-admin" of ClusterRole
 * "cluster-admin" to Group "system:masters"` (a RoleBinding as "name/namespace").
 */
export function describeBinding(binding: { kind: string; name: string; namespace: string; roleRef: RoleRef }, subject: string): string {
  const where = binding.namespace === '' ? '' : `/${binding.namespace}`;
  const who = subject.startsWith('g:') ? `Group ${JSON.stringify(subject.slice(2))}` : `User ${JSON.stringify(subject.slice(2))}`;
  return `${binding.kind} "${binding.name}${where}" of ${binding.roleRef.kind} "${binding.roleRef.name}" to ${who}`;
}
