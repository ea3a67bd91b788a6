/** Typed built-in kinds (core/v1, apps/v1, coordination.k8s.io/v1, apiextensions.k8s.io/v1). */
export type * from './core.js';
export type * from './workloads.js';
export type * from './coordination.js';
export type * from './apps.js';
export type * from './apiextensions.js';
