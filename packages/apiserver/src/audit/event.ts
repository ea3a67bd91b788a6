/**
 * Audit events: Kubernetes' audit.k8s.io/v1 Event, one per request at stage ResponseComplete, and
 * the rule that keeps secrets out of them whatever the policy says.
 */
import { isIP } from 'node:net';
import type { AuditLevel, AuditStage } from './policy.js';

/** The object a resource request is about (audit.k8s.io/v1 ObjectReference); empty fields are left out. */
export interface AuditObjectRef {
  resource?: string;
  namespace?: string;
  name?: string;
  uid?: string;
  apiGroup?: string;
  apiVersion?: string;
  resourceVersion?: string;
  subresource?: string;
}

/** The answer's status as Kubernetes records it: `{metadata: {}, code}` on success, the Status fields on failure. */
export interface AuditResponseStatus {
  metadata: Record<string, never>;
  status?: string;
  message?: string;
  reason?: string;
  code: number;
}

/** A user as an audit event records it (authentication.k8s.io/v1 UserInfo); empty fields are left out. */
export interface AuditUserInfo {
  username?: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, readonly string[]>;
}

/** One audit.k8s.io/v1 Event: a line of the audit log. */
export interface AuditEvent {
  kind: 'Event';
  apiVersion: 'audit.k8s.io/v1';
  level: Exclude<AuditLevel, 'None'>;
  auditID: string;
  stage: AuditStage;
  requestURI: string;
  verb: string;
  /** Who sent the request (the authenticated user, also when it impersonates another). */
  user: AuditUserInfo;
  /** Whom the request impersonated (Impersonate-* headers); absent when it impersonated nobody. */
  impersonatedUser?: AuditUserInfo;
  sourceIPs: string[];
  userAgent?: string;
  objectRef?: AuditObjectRef;
  responseStatus?: AuditResponseStatus;
  requestObject?: unknown;
  responseObject?: unknown;
  /** RFC 3339 with microseconds (Kubernetes' MicroTime). */
  requestReceivedTimestamp: string;
  stageTimestamp: string;
  annotations?: Record<string, string>;
}

/**
 * Whether the bodies of a request may be logged at all. Never for Secrets (every verb and
 * subresource: their data, and the last-applied annotation kubectl keeps, hold the secret),
 * TokenRequests (serviceaccounts/token: the answer is a credential), TokenReviews (the request
 * carries one), nor any authentication.k8s.io request: these are logged at Metadata level at most,
 * whatever the policy asks.
 */
export function bodiesAllowed(apiGroup: string, resource: string, subresource: string): boolean {
  if (apiGroup === '' && resource === 'secrets') return false;
  if (apiGroup === '' && resource === 'serviceaccounts' && subresource === 'token') return false;
  if (apiGroup === 'authentication.k8s.io') return false;
  return true;
}

/** Kubernetes' MicroTime: `2024-05-01T10:00:00.123456Z` from epoch microseconds. */
export function microTime(epochMicros: number): string {
  const ms = Math.floor(epochMicros / 1000);
  const iso = new Date(ms).toISOString(); // 2024-05-01T10:00:00.123Z
  const micros = String(Math.floor(epochMicros) % 1_000_000).padStart(6, '0');
  return `${iso.slice(0, 19)}.${micros}Z`;
}

/**
 * The responseStatus of an event: the Status a failed request answered with (its status,
 * message, reason and code), or `{metadata: {}, code}` for a success or a body that is not a
 * Status.
 */
export function responseStatusOf(code: number, statusBody: unknown): AuditResponseStatus {
  const out: AuditResponseStatus = { metadata: {}, code };
  if (code < 400 || typeof statusBody !== 'object' || statusBody === null) return out;
  const s = statusBody as { kind?: unknown; status?: unknown; message?: unknown; reason?: unknown };
  if (s.kind !== 'Status') return out;
  if (typeof s.status === 'string') out.status = s.status;
  if (typeof s.message === 'string') out.message = s.message;
  if (typeof s.reason === 'string' && s.reason !== '') out.reason = s.reason;
  return out;
}

/** A copy of a logged body without metadata.managedFields (of the object, or of each item of a list). */
export function withoutManagedFields(body: unknown): unknown {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return body;
  const obj = body as Record<string, unknown>;
  let out = obj;
  const meta = obj['metadata'];
  if (typeof meta === 'object' && meta !== null && 'managedFields' in meta) {
    const { managedFields: _dropped, ...rest } = meta as Record<string, unknown>;
    out = { ...obj, metadata: rest };
  }
  const items = obj['items'];
  if (Array.isArray(items)) out = { ...out, items: items.map(withoutManagedFields) };
  return out;
}

/**
 * The client addresses of a request as Kubernetes lists them: the valid IPs of X-Forwarded-For,
 * then X-Real-Ip, then the connection's address (each once).
 */
export function sourceIPs(remote: string | undefined, forwardedFor: string | string[] | undefined, realIp: string | string[] | undefined): string[] {
  const out: string[] = [];
  const add = (ip: string) => {
    const trimmed = ip.trim();
    if (isIP(trimmed) !== 0 && !out.includes(trimmed)) out.push(trimmed);
  };
  for (const header of [forwardedFor, realIp]) {
    if (header === undefined) continue;
    for (const value of Array.isArray(header) ? header : [header]) for (const part of value.split(',')) add(part);
  }
  if (remote !== undefined) add(remote.startsWith('::ffff:') ? remote.slice(7) : remote);
  return out;
}
