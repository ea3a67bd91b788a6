/**
 * Impersonation, as kube-apiserver's WithImpersonation filter serves it: an authenticated user
 * may act as another with the headers
 *
 *   Impersonate-User: eve                     (or system:serviceaccount:NS:NAME)
 *   Impersonate-Group: devs                   (repeatable)
 *   Impersonate-Uid: 42
 *   Impersonate-Extra-<key>: value            (repeatable; the key lower-cased, then percent-decoded)
 *
 * each allowed only when the authorizer allows the caller the verb `impersonate` on it:
 * `users` NAME, `groups` NAME, `serviceaccounts` NAME in namespace NS (API group "" for those
 * three), `uids` UID and `userextras/<key>` VALUE (API group authentication.k8s.io). The request is
 * then served (authorized, admitted, audited as `impersonatedUser`) as the impersonated user:
 * its groups are the Impersonate-Group values, or for a ServiceAccount without any its fixed
 * groups; `system:authenticated` is added unless the groups hold it or `system:unauthenticated`
 * (and for `system:anonymous`, `system:unauthenticated` is added instead). Groups, uid or extras
 * without Impersonate-User are refused.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { ApiError, isDNS1123Label, isDNS1123Subdomain } from '@setpoint/api';
import { AUTHENTICATED_GROUP, type UserInfo } from './authenticator.js';
import { SERVICE_ACCOUNTS_GROUP, serviceAccountUsername } from './serviceaccount.js';

/** The header naming the user to act as. */
export const IMPERSONATE_USER_HEADER = 'impersonate-user';
/** The header naming a group to act as (may be repeated). */
export const IMPERSONATE_GROUP_HEADER = 'impersonate-group';
/** The header naming the uid to act as. */
export const IMPERSONATE_UID_HEADER = 'impersonate-uid';
/** The prefix of the headers naming extras to act with (`Impersonate-Extra-<key>`). */
export const IMPERSONATE_EXTRA_HEADER_PREFIX = 'impersonate-extra-';

const ANONYMOUS_USER = 'system:anonymous';
const UNAUTHENTICATED_GROUP = 'system:unauthenticated';
const SERVICE_ACCOUNT_PREFIX = 'system:serviceaccount:';

/** One thing a request asks to impersonate, and the attributes the `impersonate` verb is checked on. */
export interface ImpersonationTarget {
  readonly apiGroup: string;
  readonly apiVersion: string;
  /** users, groups, serviceaccounts, uids or userextras. */
  readonly resource: 'users' | 'groups' | 'serviceaccounts' | 'uids' | 'userextras';
  /** The extra's key, for userextras; '' otherwise. */
  readonly subresource: string;
  /** The ServiceAccount's namespace; '' otherwise. */
  readonly namespace: string;
  /** The user, group, ServiceAccount, uid or extra value. */
  readonly name: string;
}

/** What the `impersonate` check is asked: may `user` impersonate `target`? */
export interface ImpersonationCheck {
  readonly user: UserInfo;
  readonly verb: 'impersonate';
  readonly resourceRequest: true;
  readonly namespace: string;
  readonly apiGroup: string;
  readonly apiVersion: string;
  readonly resource: string;
  readonly subresource: string;
  readonly name: string;
  readonly path: string;
}

/**
 * Decides an impersonation check: undefined when allowed, else the error to answer (the
 * authorizer's 403, `<resource> "<name>" is forbidden: User "bob" cannot impersonate …`).
 */
export type ImpersonationAuthorizer = (check: ImpersonationCheck) => ApiError | undefined;

/** The headers of a request, each with every value it was sent with (Node's `headersDistinct`). */
export type DistinctHeaders = Readonly<Record<string, readonly string[] | undefined>>;

/**
 * The user `requestor` acts as by the request's impersonation headers, or undefined when it sends
 * none (then it is served as itself). Throws ApiError: 400 BadRequest for groups, uid or extras
 * without a user; the authorizer's 403 for the first target `requestor` may not impersonate
 * (checked in the order user, groups, extras, uid).
 */
export function impersonatedUser(requestor: UserInfo, headers: DistinctHeaders, authorize: ImpersonationAuthorizer): UserInfo | undefined {
  const targets = impersonationTargets(headers);
  if (targets.length === 0) return undefined;
  const groupsSpecified = (headers[IMPERSONATE_GROUP_HEADER]?.length ?? 0) > 0;
  let name = '';
  let uid: string | undefined;
  let groups: string[] = [];
  const extra: Record<string, string[]> = {};
  for (const target of targets) {
    switch (target.resource) {
      case 'serviceaccounts':
        name = serviceAccountUsername(target.namespace, target.name);
        if (!groupsSpecified) groups = [SERVICE_ACCOUNTS_GROUP, `${SERVICE_ACCOUNTS_GROUP}:${target.namespace}`];
        break;
      case 'users':
        name = target.name;
        break;
      case 'groups':
        groups.push(target.name);
        break;
      case 'userextras':
        (extra[target.subresource] ??= []).push(target.name);
        break;
      case 'uids':
        uid = target.name;
        break;
    }
    const denied = authorize({ user: requestor, verb: 'impersonate', resourceRequest: true, path: '', ...target });
    if (denied !== undefined) throw denied;
  }
  if (name !== ANONYMOUS_USER) {
    if (!groups.includes(AUTHENTICATED_GROUP) && !groups.includes(UNAUTHENTICATED_GROUP)) groups.push(AUTHENTICATED_GROUP);
  } else if (!groups.includes(UNAUTHENTICATED_GROUP)) {
    groups.push(UNAUTHENTICATED_GROUP);
  }
  return { name, groups, ...(uid !== undefined ? { uid } : {}), ...(Object.keys(extra).length > 0 ? { extra } : {}) };
}

/**
 * What the headers ask to impersonate, in kube's order (user or ServiceAccount, groups, extras,
 * uid); empty when they ask nothing. Impersonate-User and Impersonate-Uid count by their first
 * value, and only when it is not empty. Throws a 400 when groups, uid or extras come without a user.
 */
export function impersonationTargets(headers: DistinctHeaders): ImpersonationTarget[] {
  const targets: ImpersonationTarget[] = [];
  const user = headers[IMPERSONATE_USER_HEADER]?.[0] ?? '';
  if (user !== '') {
    const sa = splitServiceAccountUsername(user);
    targets.push(
      sa !== undefined
        ? { apiGroup: '', apiVersion: 'v1', resource: 'serviceaccounts', subresource: '', namespace: sa.namespace, name: sa.name }
        : { apiGroup: '', apiVersion: '', resource: 'users', subresource: '', namespace: '', name: user },
    );
  }
  const asked: string[] = [];
  for (const group of headers[IMPERSONATE_GROUP_HEADER] ?? []) {
    targets.push({ apiGroup: '', apiVersion: '', resource: 'groups', subresource: '', namespace: '', name: group });
    asked.push(`group ${JSON.stringify(group)}`);
  }
  for (const [header, values] of Object.entries(headers)) {
    if (!header.startsWith(IMPERSONATE_EXTRA_HEADER_PREFIX) || values === undefined) continue;
    const key = unescapeExtraKey(header.slice(IMPERSONATE_EXTRA_HEADER_PREFIX.length).toLowerCase());
    for (const value of values) {
      targets.push({ apiGroup: 'authentication.k8s.io', apiVersion: 'v1', resource: 'userextras', subresource: key, namespace: '', name: value });
      asked.push(`extra ${JSON.stringify(key)}=${JSON.stringify(value)}`);
    }
  }
  const uid = headers[IMPERSONATE_UID_HEADER]?.[0] ?? '';
  if (uid !== '') {
    targets.push({ apiGroup: 'authentication.k8s.io', apiVersion: 'v1', resource: 'uids', subresource: '', namespace: '', name: uid });
    asked.push(`uid ${JSON.stringify(uid)}`);
  }
  if (user === '' && asked.length > 0) {
    throw ApiError.badRequest(`requested ${asked.join(', ')} without impersonating a user: Impersonate-Group, Impersonate-Uid and Impersonate-Extra-* need Impersonate-User`);
  }
  return targets;
}

/** Whether a request carries any impersonation header (even an empty one). */
export function hasImpersonationHeaders(headers: IncomingHttpHeaders | DistinctHeaders): boolean {
  for (const header of Object.keys(headers)) if (isImpersonationHeader(header)) return true;
  return false;
}

/**
 * Removes the impersonation headers from `headers` (Node's lower-cased names), so nothing after
 * the filter sees them.
 */
export function removeImpersonationHeaders(headers: Record<string, unknown>): void {
  for (const header of Object.keys(headers)) if (isImpersonationHeader(header)) delete headers[header];
}

function isImpersonationHeader(header: string): boolean {
  const h = header.toLowerCase();
  return h === IMPERSONATE_USER_HEADER || h === IMPERSONATE_GROUP_HEADER || h === IMPERSONATE_UID_HEADER || h.startsWith(IMPERSONATE_EXTRA_HEADER_PREFIX);
}

/** `system:serviceaccount:NS:NAME` with a valid namespace and name, split; undefined for any other name. */
function splitServiceAccountUsername(user: string): { namespace: string; name: string } | undefined {
  if (!user.startsWith(SERVICE_ACCOUNT_PREFIX)) return undefined;
  const parts = user.slice(SERVICE_ACCOUNT_PREFIX.length).split(':');
  if (parts.length !== 2) return undefined;
  const [namespace, name] = parts as [string, string];
  if (isDNS1123Label(namespace).length > 0 || isDNS1123Subdomain(name).length > 0) return undefined;
  return { namespace, name };
}

/** An extra key as sent percent-encoded (kubectl encodes what a header name cannot hold); kept as is when it does not decode. */
function unescapeExtraKey(encoded: string): string {
  try {
    return decodeURIComponent(encoded);
  } catch {
    return encoded;
  }
}

/** The parts of a request impersonation reads and changes (a Fastify request fits). */
export interface ImpersonatingRequest {
  readonly raw: { readonly headers: Record<string, unknown>; readonly headersDistinct: DistinctHeaders };
}

/**
 * The user `req` is served as: `requestor` itself, or the user its impersonation headers name when
 * `authorize` allows each; the headers are removed from the request either way. Throws as
 * impersonatedUser does.
 */
export function actingUser(req: ImpersonatingRequest, requestor: UserInfo, authorize: ImpersonationAuthorizer): UserInfo {
  if (!hasImpersonationHeaders(req.raw.headers as IncomingHttpHeaders)) return requestor;
  const acting = impersonatedUser(requestor, req.raw.headersDistinct, authorize);
  removeImpersonationHeaders(req.raw.headers);
  removeImpersonationHeaders(req.raw.headersDistinct as Record<string, unknown>);
  return acting ?? requestor;
}
