/** @setpoint/client: a Kubernetes client and controller runtime for TypeScript. */
export type * from './types.js';
