/** The dashboard on the API server: its static files, sign-in links and sessions, component metrics. */
export { DASHBOARD_PREFIX, DashboardFiles } from './static.js';
export { DashboardSessions, SESSION_TOKEN_PREFIX } from './sessions.js';
export type { DashboardSessionOptions, IssuedLink, IssuedSession } from './sessions.js';
export { DASHBOARD_LINKS_PATH, DASHBOARD_LOGIN_PATH, dashboardLoginPath, isPublicDashboardRequest, registerDashboardRoutes } from './routes.js';
export type { ComponentMetricsSource, DashboardRouteDeps } from './routes.js';
