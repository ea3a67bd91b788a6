/** @setpoint/apiserver: the Kubernetes REST API over a Setpoint store. */
export { ApiServer, KUBERNETES_VERSION, type ApiServerOptions } from './server.js';
export type { KubeletClientOptions } from './routes/podlog.js';
export {
  loadAdmissionControlConfig,
  parsePodSecurityConfiguration,
  parsePodSecurityDefaults,
  PRIVILEGED_POLICY,
  type PodSecurityConfig,
  type Policy as PodSecurityPolicy,
} from './admission/podsecurity/index.js';
export { parseAuditPolicy, type AuditEvent, type AuditOptions, type AuditPolicy } from './audit/index.js';
export { DEFAULT_MAX_REQUEST_BODY_BYTES, type RequestLimitsOptions } from './http/limits.js';
export { DASHBOARD_LINKS_PATH, DASHBOARD_LOGIN_PATH, DASHBOARD_PREFIX, SESSION_TOKEN_PREFIX } from './dashboard/index.js';
export type { ComponentMetricsSource } from './dashboard/index.js';
export * from './auth/index.js';
export { AUTHORIZATION_MODES, DEFAULT_AUTHORIZATION_MODES, parseAuthorizationModes } from './authz/index.js';
export type { AuthorizationMode, AuthorizationOptions } from './authz/index.js';
export { Registry } from './registry/registry.js';
export { builtinResources } from './registry/builtin.js';
export { PROTOBUF_MEDIA_TYPE, decodeProtobuf, encodeProtobuf } from './http/protobuf/index.js';
export * from './registry/types.js';
export type { WatchCacheOptions } from './watchcache/cache.js';
