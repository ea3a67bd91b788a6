/** @setpoint/client: a Kubernetes client and controller runtime for TypeScript. */
export type * from './types.js';
export * from './workqueue/index.js';
export * from './informer/index.js';
export * from './config/index.js';
export * from './http/index.js';
export * from './client/index.js';
export * from './runtime/index.js';
