/**
 * Authorization: who may do what. An Authorizer looks at a request's attributes (user, verb,
 * resource or path) and allows it, denies it, or has no opinion; a UnionAuthorizer asks each in
 * turn as kube-apiserver's --authorization-mode list does (the first Allow or Deny wins; no opinion
 * from all of them is a refusal).
 *
 * Authorizers are synchronous and read only in-memory state (the watch caches), so authorizing a
 * request costs no I/O.
 */
import type { UserInfo } from '../auth/index.js';
import type { PolicyRule } from '../registry/kinds/rbac/rbac.js';

/** The group whose members are authorized for everything (kube-apiserver's system:masters). */
export const PRIVILEGED_GROUP = 'system:masters';
/** The group every authenticated user is in. */
export const AUTHENTICATED_GROUP = 'system:authenticated';
/** The user and group of requests without credentials. */
export const ANONYMOUS_USER = 'system:anonymous';
export const UNAUTHENTICATED_GROUP = 'system:unauthenticated';

/** What is being asked (Kubernetes' authorizer.Attributes). */
export interface Attributes {
  readonly user: UserInfo;
  /** get, list, watch, create, update, patch, delete, deletecollection (and bind, escalate, …); for paths the lower-case HTTP method. */
  readonly verb: string;
  /** True for /api and /apis requests on resources; false for paths (/healthz, /apis discovery). */
  readonly resourceRequest: boolean;
  readonly namespace: string;
  readonly apiGroup: string;
  readonly apiVersion: string;
  readonly resource: string;
  readonly subresource: string;
  readonly name: string;
  /** The request's fieldSelector query parameter, as sent (list and watch). */
  readonly fieldSelector?: string | undefined;
  /** The URL path of a non-resource request. */
  readonly path: string;
}

export type Decision = 'Allow' | 'Deny' | 'NoOpinion';

/** An authorizer's answer and why (the reason is appended to a 403's message). */
export interface AuthorizationResult {
  readonly decision: Decision;
  readonly reason: string;
}

/** Decides requests. Never throws; an error of its own is a NoOpinion with the error as reason. */
export interface Authorizer {
  authorize(attributes: Attributes): AuthorizationResult;
}

/** The rules a user has in a namespace (SelfSubjectRulesReview), as an authorizer can list them. */
export interface RuleSet {
  readonly rules: readonly PolicyRule[];
  /** True when the authorizer cannot list every rule it would allow (the node authorizer). */
  readonly incomplete: boolean;
  readonly errors: readonly string[];
}

/** An authorizer that can list what it allows. */
export interface RuleResolver {
  rulesFor(user: UserInfo, namespace: string): RuleSet;
}

export const NO_OPINION: AuthorizationResult = Object.freeze({ decision: 'NoOpinion', reason: '' });
export const ALLOW: AuthorizationResult = Object.freeze({ decision: 'Allow', reason: '' });

/** Allows everything (--authorization-mode=AlwaysAllow, and servers without authentication). */
export class AlwaysAllowAuthorizer implements Authorizer, RuleResolver {
  authorize(): AuthorizationResult {
    return ALLOW;
  }

  rulesFor(): RuleSet {
    return { rules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }, { verbs: ['*'], nonResourceURLs: ['*'] }], incomplete: false, errors: [] };
  }
}

/** Allows every request of a member of system:masters, whatever else is configured. */
export class PrivilegedGroupAuthorizer implements Authorizer {
  authorize(attributes: Attributes): AuthorizationResult {
    return attributes.user.groups.includes(PRIVILEGED_GROUP) ? ALLOW : NO_OPINION;
  }
}

/**
 * Asks each authorizer in order: the first Allow or Deny decides; when all have no opinion, the
 * answer is NoOpinion (a refusal) with their reasons joined by newlines, as Kubernetes' union does.
 */
export class UnionAuthorizer implements Authorizer {
  private readonly authorizers: readonly Authorizer[];

  constructor(authorizers: readonly Authorizer[]) {
    this.authorizers = [...authorizers];
  }

  authorize(attributes: Attributes): AuthorizationResult {
    let reasons: string[] | undefined;
    for (const authorizer of this.authorizers) {
      const result = authorizer.authorize(attributes);
      if (result.decision !== 'NoOpinion') return result;
      if (result.reason !== '') (reasons ??= []).push(result.reason);
    }
    return reasons === undefined ? NO_OPINION : { decision: 'NoOpinion', reason: reasons.join('\n') };
  }
}

/** The user as RBAC sees it: every authenticated user is in system:authenticated (added when the authenticator did not). */
export function effectiveGroups(user: UserInfo): readonly string[] {
  if (user.name === ANONYMOUS_USER || user.groups.includes(AUTHENTICATED_GROUP) || user.groups.includes(UNAUTHENTICATED_GROUP)) return user.groups;
  return [...user.groups, AUTHENTICATED_GROUP];
}
