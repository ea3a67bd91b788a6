/** @setpoint/apiserver: the Kubernetes REST API over a Setpoint store. */
export { ApiServer, KUBERNETES_VERSION, type ApiServerOptions } from './server.js';
export * from './auth/index.js';
export { Registry } from './registry/registry.js';
export { builtinResources } from './registry/builtin.js';
export * from './registry/types.js';
export type { WatchCacheOptions } from './watchcache/cache.js';
