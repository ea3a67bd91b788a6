/**
 * The dashboard's HTTP surface on the API server:
 *
 * | route | who | what |
 * | --- | --- | --- |
 * | `GET /ui/…` | everyone | the built app (static.ts); it signs in by itself |
 * | `POST /dashboard/v1/login` `{"code"}` | everyone | exchanges a one-time code for a session token (sessions.ts) |
 * | `POST /dashboard/v1/links` | authorized for `post` on that path (system:masters by default) | a one-time sign-in link for the caller |
 * | `POST /dashboard/v1/logout` | a session | ends the session of the presented token |
 * | `GET /metrics/components` | authorized for `get` on that path | the names of the components whose metrics are served |
 * | `GET /metrics/components/NAME` | authorized for `get` on that path | that component's Prometheus text (the controller-manager's in `setpoint up`) |
 *
 * Errors are Status bodies like every API error. Authentication and authorization happen in the
 * server's onRequest hook before these handlers run; `isPublicDashboardRequest` says which skip it.
 */
import { ApiError } from '@setpoint/api';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { UserInfo } from '../auth/authenticator.js';
import { parseBearerToken } from '../auth/tokens.js';
import { send, sendError } from '../http/respond.js';
import { DASHBOARD_PREFIX, type DashboardFiles } from './static.js';
import type { DashboardSessions } from './sessions.js';

/** Prometheus text of one component, read when asked (in-process registry, or a scrape). */
export type ComponentMetricsSource = () => Promise<string>;

/** The login path, open to everyone. */
export const DASHBOARD_LOGIN_PATH = '/dashboard/v1/login';
/** Where authorized users ask for a sign-in link. */
export const DASHBOARD_LINKS_PATH = '/dashboard/v1/links';
const LOGOUT_PATH = '/dashboard/v1/logout';
const COMPONENTS_PATH = '/metrics/components';

/** Whether a request is served without credentials: the app's files and the code exchange. */
export function isPublicDashboardRequest(method: string, path: string): boolean {
  if ((method === 'GET' || method === 'HEAD') && (path === '/ui' || path.startsWith(DASHBOARD_PREFIX))) return true;
  return method === 'POST' && path === DASHBOARD_LOGIN_PATH;
}

/** The client-side address of a sign-in link for `code` (append it to the server's URL). */
export function dashboardLoginPath(code: string): string {
  return `${DASHBOARD_PREFIX}#/login?code=${encodeURIComponent(code)}`;
}

export interface DashboardRouteDeps {
  /** The app's files; undefined when the server serves no dashboard (then /ui/ is a 404). */
  readonly files: DashboardFiles | undefined;
  readonly sessions: DashboardSessions;
  readonly components: ReadonlyMap<string, ComponentMetricsSource>;
}

/** Adds the routes above to `app`. */
export function registerDashboardRoutes(app: FastifyInstance, deps: DashboardRouteDeps): void {
  const serveFiles = async (req: FastifyRequest, reply: FastifyReply) => {
    if (deps.files === undefined) return reply.code(404).type('text/plain').send('404 page not found: this server serves no dashboard\n');
    return deps.files.serve(req.url.split('?')[0]!, reply);
  };
  app.route({ method: ['GET', 'HEAD'], url: '/ui', handler: serveFiles });
  app.route({ method: ['GET', 'HEAD'], url: '/ui/*', handler: serveFiles });

  app.post(DASHBOARD_LOGIN_PATH, async (req, reply) => {
    const code = (jsonBody(req) as { code?: unknown } | undefined)?.code;
    if (typeof code !== 'string' || code === '') return sendError(reply, ApiError.badRequest('the body must be {"code": "<sign-in code>"}'));
    const session = deps.sessions.exchange(code);
    if (session === undefined) return sendError(reply, ApiError.unauthorized('the sign-in link is unknown, already used, or expired: ask for a new one (setpoint dashboard)'));
    return send(reply, 200, {
      token: session.token,
      user: { username: session.user.name, groups: session.user.groups, ...(session.user.uid !== undefined ? { uid: session.user.uid } : {}) },
      expiresAt: new Date(session.expiresAt).toISOString(),
    });
  });

  app.post(DASHBOARD_LINKS_PATH, async (req, reply) => {
    const user: UserInfo = req.setpointUser ?? { name: 'system:anonymous', groups: ['system:unauthenticated'] };
    const link = deps.sessions.issueLink(user);
    return send(reply, 201, { code: link.code, path: dashboardLoginPath(link.code), user: user.name, expiresAt: new Date(link.expiresAt).toISOString() });
  });

  app.post(LOGOUT_PATH, async (req, reply) => {
    const token = parseBearerToken(req.headers.authorization);
    const ended = token !== undefined && deps.sessions.revoke(token);
    return send(reply, 200, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', message: ended ? 'signed out' : 'no dashboard session to end' });
  });

  app.get(COMPONENTS_PATH, async (_req, reply) => send(reply, 200, { components: [...deps.components.keys()].sort() }));
  app.get(`${COMPONENTS_PATH}/:name`, async (req, reply) => {
    const name = (req.params as { name: string }).name;
    const source = deps.components.get(name);
    if (source === undefined) return sendError(reply, new ApiError('NotFound', `no metrics for component "${name}"`));
    let text: string;
    try {
      text = await source();
    } catch (err) {
      return sendError(reply, ApiError.serviceUnavailable(`the metrics of ${name} cannot be read: ${err instanceof Error ? err.message : String(err)}`));
    }
    return reply.code(200).type('text/plain; version=0.0.4; charset=utf-8').header('cache-control', 'no-store').send(text);
  });
}

/** The request body parsed as JSON, or undefined when it is empty or not JSON. */
function jsonBody(req: FastifyRequest): unknown {
  const body = req.body;
  if (!Buffer.isBuffer(body) || body.length === 0) return undefined;
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
}
