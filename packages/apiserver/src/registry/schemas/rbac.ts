/**
 * OpenAPI v3 schemas of rbac.authorization.k8s.io/v1: Role, ClusterRole, RoleBinding and
 * ClusterRoleBinding, with the fields and list types Kubernetes publishes
 * (api/openapi-spec/v3/apis__rbac.authorization.k8s.io__v1_openapi.json); inline trees, no $ref.
 */
import type { Schema } from '@setpoint/api';
import { atomicList, atomicStringList, kindSchema, labelSelectorSchema, objectField, stringField } from './meta.js';
import { goType } from './gotypes.js';

const GROUP = 'rbac.authorization.k8s.io';

/** rbac/v1 PolicyRule. */
export const policyRuleSchema: Schema = objectField(
  'A rule: verbs on resources of API groups (optionally by name), or verbs on non-resource URLs.',
  {
    apiGroups: atomicStringList('The API groups of the resources; "" is the core group, "*" all groups.'),
    nonResourceURLs: atomicStringList('Partial URLs ("/healthz", "/apis/*"); only in ClusterRoles bound by ClusterRoleBindings.'),
    resourceNames: atomicStringList('Names the rule is limited to; empty means every name.'),
    resources: atomicStringList('Resources ("pods", "pods/log", "*/scale", "*").'),
    verbs: atomicStringList('Verbs ("get", "list", "create", "bind", "escalate", "*").'),
  },
  ['verbs'],
);

/** rbac/v1 Subject. */
export const subjectSchema: Schema = {
  ...objectField(
    'Who a binding applies to: a User, a Group or a ServiceAccount.',
    {
      apiGroup: stringField('"" for ServiceAccount subjects, "rbac.authorization.k8s.io" for User and Group subjects.'),
      kind: stringField('User, Group or ServiceAccount.', { default: '' }),
      name: stringField('The name of the user, group or service account.', { default: '' }),
      namespace: stringField('The namespace of a ServiceAccount subject.'),
    },
    ['kind', 'name'],
  ),
  'x-kubernetes-map-type': 'atomic',
};

/** rbac/v1 RoleRef. */
export const roleRefSchema: Schema = {
  ...objectField(
    'The role a binding grants: a Role in the binding\'s namespace or a ClusterRole. Cannot be changed.',
    {
      apiGroup: stringField('The API group of the role: rbac.authorization.k8s.io.', { default: '' }),
      kind: stringField('Role or ClusterRole.', { default: '' }),
      name: stringField('The name of the role.', { default: '' }),
    },
    ['apiGroup', 'kind', 'name'],
  ),
  'x-kubernetes-map-type': 'atomic',
};

const rules = atomicList('The rules of the role.', policyRuleSchema);
const subjects = atomicList('The users, groups and service accounts the role is granted to.', subjectSchema);

/** rbac.authorization.k8s.io/v1 Role. */
export const roleSchema: Schema = kindSchema({
  group: GROUP,
  version: 'v1',
  kind: 'Role',
  description: 'A namespaced set of rules, granted in its namespace by RoleBindings.',
  properties: { rules },
});

/** rbac.authorization.k8s.io/v1 ClusterRole. */
export const clusterRoleSchema: Schema = kindSchema({
  group: GROUP,
  version: 'v1',
  kind: 'ClusterRole',
  description: 'A cluster-wide set of rules, granted by ClusterRoleBindings (everywhere) or RoleBindings (in one namespace).',
  properties: {
    aggregationRule: objectField('When set, the rules are the union of the rules of the ClusterRoles the selectors match (kept so by the API server).', {
      clusterRoleSelectors: atomicList('Selectors of the ClusterRoles whose rules are aggregated.', labelSelectorSchema),
    }),
    rules,
  },
});

/** rbac.authorization.k8s.io/v1 RoleBinding. */
export const roleBindingSchema: Schema = kindSchema({
  group: GROUP,
  version: 'v1',
  kind: 'RoleBinding',
  description: 'Grants a Role or a ClusterRole to subjects in the binding\'s namespace.',
  properties: { roleRef: roleRefSchema, subjects },
  required: ['roleRef'],
});

/** rbac.authorization.k8s.io/v1 ClusterRoleBinding. */
export const clusterRoleBindingSchema: Schema = kindSchema({
  group: GROUP,
  version: 'v1',
  kind: 'ClusterRoleBinding',
  description: 'Grants a ClusterRole to subjects in every namespace and at the cluster scope.',
  properties: { roleRef: roleRefSchema, subjects },
  required: ['roleRef'],
});

// Go type names, for typed decoding's messages (registry/typecheck.ts).
goType('v1.PolicyRule', policyRuleSchema);
goType('v1.Subject', subjectSchema);
goType('v1.RoleRef', roleRefSchema);
