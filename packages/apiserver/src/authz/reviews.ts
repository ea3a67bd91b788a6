/**
 * The authorization.k8s.io/v1 reviews, answered on POST (201 with the review and its status, never
 * stored), as kube-apiserver answers them:
 *
 * - SelfSubjectAccessReview: may I? — `kubectl auth can-i list pods -n a`;
 * - SelfSubjectRulesReview: what may I do in a namespace? — `kubectl auth can-i --list`;
 * - SubjectAccessReview: may this user? (whoever may create subjectaccessreviews: cluster-admin,
 *   system:auth-delegator);
 * - LocalSubjectAccessReview: the same, in the URL's namespace (admin has it).
 *
 * Each is evaluated by the server's authorizers, including system:masters and the node authorizer.
 */
import { ApiError, FieldError, type KubeObject } from '@setpoint/api';
import type { UserInfo } from '../auth/index.js';
import type { PolicyRule } from '../registry/kinds/rbac/rbac.js';
import type { ResourceDef } from '../registry/types.js';
import { nonResourceAttributes } from './attributes.js';
import type { Attributes, Authorizer, RuleResolver } from './authorizer.js';

/** What a review is evaluated with. */
export interface ReviewContext {
  readonly authorizer: Authorizer;
  readonly ruleResolvers: readonly RuleResolver[];
}

type Json = Record<string, unknown>;

function obj(v: unknown): Json | undefined {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : undefined;
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

/** Attributes of a spec's resourceAttributes or nonResourceAttributes for `user`. */
function specAttributes(user: UserInfo, spec: Json): Attributes {
  const resource = obj(spec['resourceAttributes']);
  if (resource === undefined) {
    const nonResource = obj(spec['nonResourceAttributes']) ?? {};
    return nonResourceAttributes(user, str(nonResource['verb']), str(nonResource['path']));
  }
  return {
    user,
    verb: str(resource['verb']),
    resourceRequest: true,
    namespace: str(resource['namespace']),
    apiGroup: str(resource['group']),
    apiVersion: str(resource['version']),
    resource: str(resource['resource']),
    subresource: str(resource['subresource']),
    name: str(resource['name']),
    fieldSelector: str(obj(resource['fieldSelector'])?.['rawSelector']),
    path: '',
  };
}

/** ValidateSelfSubjectAccessReviewSpec and friends: exactly one kind of attributes. */
function validateAccessSpec(spec: Json, errs: FieldError[]): void {
  const hasResource = obj(spec['resourceAttributes']) !== undefined;
  const hasNonResource = obj(spec['nonResourceAttributes']) !== undefined;
  if (hasResource && hasNonResource) {
    errs.push(FieldError.invalid('spec.nonResourceAttributes', spec['nonResourceAttributes'], 'cannot be specified in combination with resourceAttributes'));
  } else if (!hasResource && !hasNonResource) {
    errs.push(FieldError.invalid('spec.resourceAttributes', 'null', 'exactly one of nonResourceAttributes or resourceAttributes must be specified'));
  }
}

function accessStatus(ctx: ReviewContext, attributes: Attributes): Json {
  const result = ctx.authorizer.authorize(attributes);
  return {
    allowed: result.decision === 'Allow',
    ...(result.decision === 'Deny' ? { denied: true } : {}),
    ...(result.reason !== '' ? { reason: result.reason } : {}),
  };
}

function resourceRule(r: PolicyRule): Json {
  return {
    verbs: [...r.verbs],
    ...((r.apiGroups ?? []).length > 0 ? { apiGroups: [...r.apiGroups!] } : {}),
    ...((r.resources ?? []).length > 0 ? { resources: [...r.resources!] } : {}),
    ...((r.resourceNames ?? []).length > 0 ? { resourceNames: [...r.resourceNames!] } : {}),
  };
}

/** SelfSubjectRulesReview's status: every rule of every resolver, split into resource and non-resource rules. */
function rulesStatus(ctx: ReviewContext, user: UserInfo, namespace: string): Json {
  const resourceRules: Json[] = [];
  const nonResourceRules: Json[] = [];
  const errors: string[] = [];
  let incomplete = false;
  for (const resolver of ctx.ruleResolvers) {
    const set = resolver.rulesFor(user, namespace);
    incomplete ||= set.incomplete;
    errors.push(...set.errors);
    for (const r of set.rules) {
      if ((r.resources ?? []).length > 0) resourceRules.push(resourceRule(r));
      if ((r.nonResourceURLs ?? []).length > 0) nonResourceRules.push({ verbs: [...r.verbs], nonResourceURLs: [...r.nonResourceURLs!] });
    }
  }
  return {
    resourceRules,
    nonResourceRules,
    incomplete,
    ...(errors.length > 0 ? { evaluationError: errors.length === 1 ? errors[0] : `[${errors.join(', ')}]` } : {}),
  };
}

/**
 * Answers a review `body` of the kind `def` (already decoded) posted by `user` to `namespace`
 * (LocalSubjectAccessReview only). Returns the review with its status. Throws ApiError BadRequest
 * or Invalid for malformed reviews.
 */
export function answerReview(def: ResourceDef, body: unknown, user: UserInfo, namespace: string, ctx: ReviewContext): KubeObject {
  const review = obj(body);
  if (review === undefined) throw ApiError.badRequest('the request body must be a JSON or YAML object');
  const apiVersion = `${def.group}/${def.version}`;
  if (review['apiVersion'] !== undefined && review['apiVersion'] !== '' && review['apiVersion'] !== apiVersion) {
    throw ApiError.badRequest(`the API version in the data (${String(review['apiVersion'])}) does not match the expected API version (${apiVersion})`);
  }
  if (review['kind'] !== undefined && review['kind'] !== '' && review['kind'] !== def.kind) {
    throw ApiError.badRequest(`the kind in the data (${String(review['kind'])}) does not match the expected kind (${def.kind})`);
  }
  const spec = obj(review['spec']) ?? {};
  const metadata = obj(review['metadata']) ?? {};
  const errs: FieldError[] = [];
  let status: Json;
  switch (def.kind) {
    case 'SelfSubjectAccessReview':
      validateAccessSpec(spec, errs);
      if (errs.length > 0) break;
      status = accessStatus(ctx, specAttributes(user, spec));
      return { apiVersion, kind: def.kind, metadata: { ...metadata, creationTimestamp: null }, spec, status } as unknown as KubeObject;
    case 'SelfSubjectRulesReview': {
      const ns = str(spec['namespace']);
      if (ns === '') throw ApiError.badRequest('no namespace on request');
      status = rulesStatus(ctx, user, ns);
      return { apiVersion, kind: def.kind, metadata: { ...metadata, creationTimestamp: null }, spec, status } as unknown as KubeObject;
    }
    case 'SubjectAccessReview':
    case 'LocalSubjectAccessReview': {
      validateAccessSpec(spec, errs);
      const subject = str(spec['user']);
      const groups = Array.isArray(spec['groups']) ? spec['groups'].filter((g): g is string => typeof g === 'string') : [];
      if (subject === '' && groups.length === 0) errs.push(FieldError.invalid('spec.user', subject, 'at least one of user or group must be specified'));
      if (def.kind === 'LocalSubjectAccessReview') {
        if (obj(spec['nonResourceAttributes']) !== undefined) errs.push(FieldError.invalid('spec.nonResourceAttributes', spec['nonResourceAttributes'], 'disallowed on this kind of request'));
        const resource = obj(spec['resourceAttributes']);
        if (resource !== undefined) {
          if (str(resource['namespace']) === '') resource['namespace'] = namespace;
          else if (resource['namespace'] !== namespace) errs.push(FieldError.invalid('spec.resourceAttributes.namespace', resource['namespace'], 'must match metadata.namespace'));
        }
      }
      if (errs.length > 0) break;
      const uid = str(spec['uid']);
      const who: UserInfo = uid === '' ? { name: subject, groups } : { name: subject, uid, groups };
      status = accessStatus(ctx, specAttributes(who, spec));
      const meta = def.kind === 'LocalSubjectAccessReview' ? { ...metadata, namespace } : metadata;
      return { apiVersion, kind: def.kind, metadata: { ...meta, creationTimestamp: null }, spec, status } as unknown as KubeObject;
    }
    default:
      throw ApiError.methodNotAllowed('create', { group: def.group, resource: def.resource });
  }
  throw ApiError.invalid({ group: def.group, kind: def.kind }, '', errs);
}
