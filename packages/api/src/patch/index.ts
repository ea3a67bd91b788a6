/**
 * The patch algorithms the API server applies: JSON merge patch (RFC 7386) and Kubernetes'
 * strategic merge patch, with the two-way and three-way patch computations `kubectl apply` uses.
 */
export { applyMergePatch, createMergePatch } from './merge.js';
export { applyStrategicMergePatch, createThreeWayMergePatch, createTwoWayMergePatch } from './strategic.js';
