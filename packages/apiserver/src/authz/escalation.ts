/**
 * Escalation prevention, as Kubernetes' RBAC storage enforces it (registry/rbac/*\/policybased):
 *
 * - writing a Role or ClusterRole whose rules the writer does not hold (from their own roles, in
 *   the role's namespace) is refused — `roles.rbac.authorization.k8s.io "r" is forbidden: user
 *   "alice" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently
 *   held:` and the missing rules — unless the writer may `escalate` that role; setting an
 *   aggregationRule needs every permission (`*` on everything);
 * - writing a RoleBinding or ClusterRoleBinding is refused unless the writer may `bind` the role
 *   it references, or holds every permission of that role;
 * - members of system:masters, and updates that change only ownerReferences and finalizers (the
 *   garbage collector's), are not checked.
 */
import { ApiError, type GroupResource, type KubeObject } from '@setpoint/api';
import type { UserInfo } from '../auth/index.js';
import type { BindingObject, PolicyRule, RoleObject, RoleRef } from '../registry/kinds/rbac/rbac.js';
import { RBAC_GROUP } from '../registry/kinds/rbac/rbac.js';
import { jsonEqual } from '../storage/equal.js';
import { PRIVILEGED_GROUP, effectiveGroups, type Authorizer } from './authorizer.js';
import { covers, describeMissing } from './covers.js';
import { rulesOf, type RbacPolicy } from './policy.js';
import { rule, urlRule } from './rules.js';

/** Every permission: what an aggregationRule needs, since it can gather anything. */
const FULL_AUTHORITY: readonly PolicyRule[] = [rule(['*'], ['*'], ['*']), urlRule(['*'], ['*'])];

/** A write of one RBAC object by `user` (the request's group, resource, namespace and name). */
export interface RbacWrite {
  readonly user: UserInfo;
  readonly resource: 'roles' | 'clusterroles' | 'rolebindings' | 'clusterrolebindings';
  readonly namespace: string;
  /** The name in the request's path ('' on create, as Kubernetes asks `escalate` with it). */
  readonly name: string;
}

/** The message of ConfirmNoEscalation, or undefined when `user` holds every rule of `rules` in `namespace`. */
export function escalationMessage(policy: RbacPolicy, user: UserInfo, namespace: string, rules: readonly PolicyRule[]): string | undefined {
  const held = policy.rulesFor(user, namespace);
  const { covered, missing } = covers(held.rules, rules);
  if (covered) return undefined;
  const groups = `[${effectiveGroups(user)
    .map((g) => JSON.stringify(g))
    .join(' ')}]`;
  let msg = `user ${JSON.stringify(user.name)} (groups=${groups}) is attempting to grant RBAC permissions not currently held:\n${describeMissing(missing)}`;
  if (held.errors.length > 0) msg += `; resolution errors: [${held.errors.join(' ')}]`;
  return msg;
}

/** Whether only fields the garbage collector writes (ownerReferences, finalizers) differ between `obj` and `old`. */
export function onlyGarbageCollectionFields(obj: KubeObject, old: KubeObject): boolean {
  const strip = (o: KubeObject) => {
    const { ownerReferences: _o, finalizers: _f, resourceVersion: _r, managedFields: _m, generation: _g, ...meta } = o.metadata;
    return { ...o, metadata: meta };
  };
  return jsonEqual(strip(obj), strip(old));
}

/**
 * Checks writes of RBAC objects against the writer's own permissions. `authorizer` answers the
 * `escalate` and `bind` questions (the server's whole authorizer, so any mode may grant them).
 */
export class EscalationCheck {
  constructor(
    private readonly policy: RbacPolicy,
    private readonly authorizer: Authorizer,
  ) {}

  /** The write hook for `write`, or undefined when the writer is not checked at all (system:masters). */
  admission(write: RbacWrite): ((obj: KubeObject, old: KubeObject | undefined) => Promise<void>) | undefined {
    if (write.user.groups.includes(PRIVILEGED_GROUP)) return undefined;
    const gr: GroupResource = { group: RBAC_GROUP, resource: write.resource };
    return async (obj, old) => {
      if (old !== undefined && onlyGarbageCollectionFields(obj, old)) return;
      const name = obj.metadata.name ?? '';
      const why = write.resource === 'roles' || write.resource === 'clusterroles' ? this.checkRole(write, obj as RoleObject, old as RoleObject | undefined) : this.checkBinding(write, obj as BindingObject);
      if (why !== undefined) throw ApiError.forbidden(gr, name, why);
    };
  }

  private allowed(user: UserInfo, verb: string, resource: string, namespace: string, name: string): boolean {
    return (
      this.authorizer.authorize({ user, verb, resourceRequest: true, namespace, apiGroup: RBAC_GROUP, apiVersion: '*', resource, subresource: '', name, path: '' }).decision === 'Allow'
    );
  }

  private checkRole(write: RbacWrite, role: RoleObject, old: RoleObject | undefined): string | undefined {
    if (this.allowed(write.user, 'escalate', write.resource, write.namespace, write.name)) return undefined;
    const missing = escalationMessage(this.policy, write.user, write.namespace, rulesOf(role));
    if (missing !== undefined) return missing;
    const aggregation = role.aggregationRule ?? undefined;
    if (write.resource === 'clusterroles' && aggregation !== undefined && (old === undefined || !jsonEqual(aggregation, old.aggregationRule ?? undefined))) {
      if (escalationMessage(this.policy, write.user, '', FULL_AUTHORITY) !== undefined) return 'must have cluster-admin privileges to use the aggregationRule';
    }
    return undefined;
  }

  private checkBinding(write: RbacWrite, binding: BindingObject): string | undefined {
    const ref: RoleRef = binding.roleRef;
    const resource = ref.kind === 'ClusterRole' ? 'clusterroles' : 'roles';
    if (this.allowed(write.user, 'bind', resource, write.namespace, ref.name)) return undefined;
    const found = this.policy.roleRefRules(ref, write.namespace);
    if ('error' in found) return found.error;
    return escalationMessage(this.policy, write.user, write.namespace, found.rules);
  }
}
