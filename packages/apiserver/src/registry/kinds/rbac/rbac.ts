/**
 * The rbac.authorization.k8s.io/v1 kinds — roles, clusterroles, rolebindings and
 * clusterrolebindings — defaulted and validated as Kubernetes' rbac strategy does
 * (pkg/apis/rbac/validation): names are path segments (they may hold ':'); every rule needs verbs
 * and either apiGroups + resources or nonResourceURLs (never both, and no nonResourceURLs in a
 * Role); a binding's roleRef names a Role or ClusterRole of rbac.authorization.k8s.io and cannot
 * change; subjects are Users, Groups (apiGroup rbac.authorization.k8s.io) or ServiceAccounts
 * (apiGroup "", namespace required in a ClusterRoleBinding).
 *
 * Who may write what (escalation prevention) is decided by the authorizer's admission
 * (authz/escalation.ts), not here.
 */
import { FieldError, OMIT_VALUE, labelSelectorAsSelector, nameIsDNSSubdomain, validatePathSegmentName, type KubeObject, type LabelSelector } from '@setpoint/api';
import { clusterRoleBindingSchema, clusterRoleSchema, roleBindingSchema, roleSchema } from '../../schemas/rbac.js';
import type { ResourceDef } from '../../types.js';
import { validateLabelSelector } from '../../validation/label-selector.js';
import { roleBindingPrinter, rolePrinter } from './table.js';

/** The API group of the RBAC kinds. */
export const RBAC_GROUP = 'rbac.authorization.k8s.io';

/** rbac/v1 PolicyRule. Absent lists are empty. */
export interface PolicyRule {
  readonly verbs: readonly string[];
  readonly apiGroups?: readonly string[];
  readonly resources?: readonly string[];
  readonly resourceNames?: readonly string[];
  readonly nonResourceURLs?: readonly string[];
}

/** rbac/v1 Subject. */
export interface Subject {
  readonly kind: string;
  readonly apiGroup?: string;
  readonly name: string;
  readonly namespace?: string;
}

/** rbac/v1 RoleRef. */
export interface RoleRef {
  readonly apiGroup: string;
  readonly kind: string;
  readonly name: string;
}

/** A Role or ClusterRole as stored. */
export interface RoleObject extends KubeObject {
  rules?: PolicyRule[] | null;
  aggregationRule?: { clusterRoleSelectors?: LabelSelector[] } | null;
}

/** A RoleBinding or ClusterRoleBinding as stored. */
export interface BindingObject extends KubeObject {
  roleRef: RoleRef;
  subjects?: Subject[] | null;
}

/** A field.Invalid whose value prints as Go's %#v would (`[]string{"/x"}`, `rbac.RoleRef{…}`). */
class GoValueError extends FieldError {
  constructor(field: string, private readonly goValue: string, detail: string) {
    super('FieldValueInvalid', field, OMIT_VALUE, detail);
  }

  override body(): string {
    return `Invalid value: ${this.goValue}: ${this.detail}`;
  }
}

function goStrings(values: readonly unknown[]): string {
  return `[]string{${values.map((v) => JSON.stringify(String(v))).join(', ')}}`;
}

function record(v: unknown): Record<string, unknown> | undefined {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

function list(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

/** ValidatePolicyRule at `path` (rules[i]); namespaced rules (a Role's) may not name non-resource URLs. */
export function validatePolicyRule(rule: unknown, namespaced: boolean, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const r = record(rule) ?? {};
  if (list(r['verbs']).length === 0) errs.push(FieldError.required(`${path}.verbs`, 'verbs must contain at least one value'));
  const urls = list(r['nonResourceURLs']);
  if (urls.length > 0) {
    if (namespaced) errs.push(new GoValueError(`${path}.nonResourceURLs`, goStrings(urls), 'namespaced rules cannot apply to non-resource URLs'));
    if (list(r['apiGroups']).length > 0 || list(r['resources']).length > 0 || list(r['resourceNames']).length > 0) {
      errs.push(new GoValueError(`${path}.nonResourceURLs`, goStrings(urls), 'rules cannot apply to both regular resources and non-resource URLs'));
    }
    return errs;
  }
  if (list(r['apiGroups']).length === 0) errs.push(FieldError.required(`${path}.apiGroups`, 'resource rules must supply at least one api group'));
  if (list(r['resources']).length === 0) errs.push(FieldError.required(`${path}.resources`, 'resource rules must supply at least one resource'));
  return errs;
}

function validateRules(obj: KubeObject, namespaced: boolean): FieldError[] {
  return list(obj['rules']).flatMap((rule, i) => validatePolicyRule(rule, namespaced, `rules[${i}]`));
}

/** ValidateClusterRole's aggregationRule part: at least one selector, each a valid label selector. */
function validateAggregationRule(obj: KubeObject): FieldError[] {
  const rule = obj['aggregationRule'];
  if (rule === undefined || rule === null) return [];
  const selectors = list(record(rule)?.['clusterRoleSelectors']);
  const path = 'aggregationRule.clusterRoleSelectors';
  if (selectors.length === 0) return [FieldError.required(path, 'at least one clusterRoleSelector required if aggregationRule is non-nil')];
  const errs: FieldError[] = [];
  selectors.forEach((selector, i) => {
    const found = validateLabelSelector(selector, `${path}[${i}]`);
    errs.push(...found);
    if (found.length > 0) return;
    try {
      labelSelectorAsSelector(selector as LabelSelector);
    } catch {
      errs.push(FieldError.invalid(`${path}[${i}]`, selector, 'invalid label selector.'));
    }
  });
  return errs;
}

/** SetDefaults_Subject: apiGroup rbac.authorization.k8s.io for User and Group subjects, "" for ServiceAccounts. */
export function defaultSubjects(obj: KubeObject): void {
  const roleRef = record(obj['roleRef']);
  if (roleRef !== undefined && str(roleRef['apiGroup']) === '') roleRef['apiGroup'] = RBAC_GROUP;
  for (const s of list(obj['subjects'])) {
    const subject = record(s);
    if (subject === undefined || str(subject['apiGroup']) !== '') continue;
    const kind = subject['kind'];
    if (kind === 'User' || kind === 'Group') subject['apiGroup'] = RBAC_GROUP;
  }
}

/** ValidateRoleBindingSubject at `path` (subjects[i]). */
export function validateSubject(subject: unknown, namespaced: boolean, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const s = record(subject) ?? {};
  const name = str(s['name']);
  const apiGroup = str(s['apiGroup']);
  if (name === '') errs.push(FieldError.required(`${path}.name`));
  switch (s['kind']) {
    case 'ServiceAccount':
      if (name !== '') for (const msg of nameIsDNSSubdomain(name, false)) errs.push(FieldError.invalid(`${path}.name`, name, msg));
      if (apiGroup !== '') errs.push(FieldError.notSupported(`${path}.apiGroup`, apiGroup, ['']));
      if (!namespaced && str(s['namespace']) === '') errs.push(FieldError.required(`${path}.namespace`));
      break;
    case 'User':
    case 'Group':
      if (apiGroup !== RBAC_GROUP) errs.push(FieldError.notSupported(`${path}.apiGroup`, apiGroup, [RBAC_GROUP]));
      break;
    default:
      errs.push(FieldError.notSupported(`${path}.kind`, str(s['kind']), ['ServiceAccount', 'User', 'Group']));
  }
  return errs;
}

/** ValidateRoleBinding / ValidateClusterRoleBinding (without metadata, which the REST layer checks). */
export function validateBinding(obj: KubeObject, namespaced: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const ref = record(obj['roleRef']) ?? {};
  const apiGroup = str(ref['apiGroup']);
  const kind = str(ref['kind']);
  const name = str(ref['name']);
  if (apiGroup !== RBAC_GROUP) errs.push(FieldError.notSupported('roleRef.apiGroup', apiGroup, [RBAC_GROUP]));
  const kinds = namespaced ? ['Role', 'ClusterRole'] : ['ClusterRole'];
  if (!kinds.includes(kind)) errs.push(FieldError.notSupported('roleRef.kind', kind, kinds));
  if (name === '') errs.push(FieldError.required('roleRef.name'));
  else for (const msg of validatePathSegmentName(name, false)) errs.push(FieldError.invalid('roleRef.name', name, msg));
  list(obj['subjects']).forEach((s, i) => errs.push(...validateSubject(s, namespaced, `subjects[${i}]`)));
  return errs;
}

/** ValidateRoleBindingUpdate's own rule: `roleRef: Invalid value: rbac.RoleRef{…}: cannot change roleRef`. */
export function validateRoleRefUnchanged(obj: KubeObject, old: KubeObject): FieldError[] {
  const ref = record(obj['roleRef']) ?? {};
  const was = record(old['roleRef']) ?? {};
  if (['apiGroup', 'kind', 'name'].every((k) => str(ref[k]) === str(was[k]))) return [];
  const go = `rbac.RoleRef{APIGroup:${JSON.stringify(str(ref['apiGroup']))}, Kind:${JSON.stringify(str(ref['kind']))}, Name:${JSON.stringify(str(ref['name']))}}`;
  return [new GoValueError('roleRef', go, 'cannot change roleRef')];
}

const common = { version: 'v1', group: RBAC_GROUP, nameValidator: validatePathSegmentName } as const;

/** roles (namespaced). */
export const roleResource: ResourceDef = {
  ...common,
  resource: 'roles',
  protobuf: true,
  printer: rolePrinter,
  singular: 'role',
  kind: 'Role',
  listKind: 'RoleList',
  namespaced: true,
  schema: roleSchema,
  strategy: { validate: (obj) => validateRules(obj, true) },
};

/** clusterroles (cluster-scoped). */
export const clusterRoleResource: ResourceDef = {
  ...common,
  resource: 'clusterroles',
  protobuf: true,
  printer: rolePrinter,
  singular: 'clusterrole',
  kind: 'ClusterRole',
  listKind: 'ClusterRoleList',
  namespaced: false,
  schema: clusterRoleSchema,
  strategy: { validate: (obj) => [...validateRules(obj, false), ...validateAggregationRule(obj)] },
};

/** rolebindings (namespaced). */
export const roleBindingResource: ResourceDef = {
  ...common,
  resource: 'rolebindings',
  protobuf: true,
  printer: roleBindingPrinter,
  singular: 'rolebinding',
  kind: 'RoleBinding',
  listKind: 'RoleBindingList',
  namespaced: true,
  schema: roleBindingSchema,
  strategy: {
    defaults: defaultSubjects,
    validate: (obj) => validateBinding(obj, true),
    validateUpdate: validateRoleRefUnchanged,
  },
};

/** clusterrolebindings (cluster-scoped). */
export const clusterRoleBindingResource: ResourceDef = {
  ...common,
  resource: 'clusterrolebindings',
  protobuf: true,
  printer: roleBindingPrinter,
  singular: 'clusterrolebinding',
  kind: 'ClusterRoleBinding',
  listKind: 'ClusterRoleBindingList',
  namespaced: false,
  schema: clusterRoleBindingSchema,
  strategy: {
    defaults: defaultSubjects,
    validate: (obj) => validateBinding(obj, false),
    validateUpdate: validateRoleRefUnchanged,
  },
};

/** The four RBAC kinds. */
export const rbacResources: ResourceDef[] = [roleResource, clusterRoleResource, roleBindingResource, clusterRoleBindingResource];
