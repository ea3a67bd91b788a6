/**
 * The request filters every request passes before a route sees it, in Kubernetes' order, as one
 * chain installed on the fastify instance:
 * 1. audit (the record begins) and the request's timeout (http/limits.ts) — before anything else;
 * 2. authentication (bearer tokens, ServiceAccount tokens, client certificates, dashboard
 *    sessions), then Impersonate-* headers (auth/impersonation.ts), then authorization (authz/):
 *    a request without valid credentials gets a bare 401, a denied one Kubernetes' 403, before
 *    anything is read or written; /livez, /readyz, /healthz, /version, /metrics from loopback and
 *    the dashboard's public files are open;
 * 3. a seat among the requests in flight, or 429 with Retry-After (http/limits.ts);
 * and, as answers leave, the audit record's response stage and the request metrics.
 *
 * The filters read the parts they use through getters, since the auditor and the authorizer are
 * made when the server starts, after the chain is installed.
 */
import { ApiError, type Logger } from '@setpoint/api';
import type { FastifyInstance } from 'fastify';
import type { Auditor } from '../audit/index.js';
import { verifiedClientCertificate } from '../auth/clientcert.js';
import { actingUser } from '../auth/impersonation.js';
import type { Authenticator, UserInfo } from '../auth/index.js';
import { requestAttributes, type Authorization } from '../authz/index.js';
import { isPublicDashboardRequest } from '../dashboard/index.js';
import type { RequestLimits } from './limits.js';
import type { ApiMetrics } from './metrics.js';
import { parseRequestInfo, type RequestInfo } from './requestinfo.js';
import { sendError, toApiError } from './respond.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** What the request asks for, parsed once (by authorization, or by the API route). */
    setpointInfo?: RequestInfo;
    setpointUser?: UserInfo;
    /** The authenticated user when the request impersonates another (setpointUser is then the impersonated one). */
    setpointRequestor?: UserInfo;
  }
}

/** Paths anyone may read, authenticated or not. */
const OPEN_PATHS = new Set(['/livez', '/readyz', '/healthz', '/version']);

export interface RequestFilterParts {
  /** The audit log, once open; undefined: no auditing. */
  readonly auditor: () => Auditor | undefined;
  /** Whether an audit log is configured (its response-stage hook is installed only then). */
  readonly audited: boolean;
  readonly limits: RequestLimits;
  /** Undefined: every request is served as an anonymous admin (tests). */
  readonly authenticator: Authenticator | undefined;
  /** The authorizer, once started; undefined: every authenticated request is allowed. */
  readonly authorization: () => Authorization | undefined;
  readonly metrics: ApiMetrics;
  readonly logger: Logger;
}

/** Installs the chain on `app` (before any route). */
export function installRequestFilters(app: FastifyInstance, parts: RequestFilterParts): void {
  const { limits, metrics, logger } = parts;
  app.addHook('onRequest', (req, reply, done) => {
    parts.auditor()?.begin(req, reply);
    if (!limits.begin(req, reply)) done();
  });
  if (parts.audited) {
    app.addHook('onSend', (req, reply, payload, done) => {
      try {
        parts.auditor()?.onSend(req, reply, payload);
      } catch (err) {
        // Auditing never fails an answer (it may follow a commit).
        logger.error({ err }, 'audit: keeping the answer failed');
      }
      done(null, payload);
    });
  }
  app.addHook('onRequest', async (req, reply) => {
    const path = req.url.split('?')[0]!;
    if (OPEN_PATHS.has(path)) return;
    if (path === '/metrics' && isLoopback(req.ip)) return;
    if (isPublicDashboardRequest(req.method, path)) return;
    const auth = parts.authenticator;
    if (auth === undefined) return;
    const authenticated = await auth.authenticate({ authorization: req.headers.authorization }, verifiedClientCertificate(req.raw.socket));
    if (authenticated === undefined) {
      sendError(reply, ApiError.unauthorized());
      return reply;
    }
    req.setpointUser = authenticated;
    // Impersonate-* headers (auth/impersonation.ts): from here on the request is the impersonated user's.
    let user: UserInfo;
    try {
      user = actingUser(req, authenticated, (check) => parts.authorization()?.check(check));
    } catch (err) {
      sendError(reply, toApiError(err));
      return reply;
    }
    if (user !== authenticated) [req.setpointRequestor, req.setpointUser] = [authenticated, user];
    const authorization = parts.authorization();
    if (authorization !== undefined) {
      const info = path === '/api' || path === '/apis' || path.startsWith('/api/') || path.startsWith('/apis/') ? parseRequestInfo(req.method, path, (req.query as { watch?: string }).watch) : undefined;
      req.setpointInfo = info;
      const denied = authorization.check(requestAttributes(user, req.method, path, (req.query as { fieldSelector?: string }).fieldSelector, info));
      if (denied !== undefined) {
        sendError(reply, denied);
        return reply;
      }
    }
  });
  // Authenticated and authorized: a seat in flight, or 429 (http/limits.ts).
  app.addHook('onRequest', (req, reply, done) => {
    if (!limits.admit(req, reply, req.setpointUser)) done();
  });
  app.addHook('onResponse', async (req, reply) => {
    const info = req.setpointInfo;
    if (info?.kind !== 'resource') return;
    const labels = { verb: info.verb, group: info.group, version: info.version, resource: info.resource, subresource: info.subresource };
    metrics.requests.inc({ ...labels, code: String(reply.statusCode) });
    if (info.verb !== 'watch') metrics.latency.observe(labels, reply.elapsedTime / 1000);
  });
}

/** Whether `ip` is a loopback address (IPv4, IPv6 or IPv4-mapped). */
export function isLoopback(ip: string): boolean {
  return ip === '127.0.0.1' || ip === '::1' || ip === '::ffff:127.0.0.1' || ip.startsWith('127.');
}
