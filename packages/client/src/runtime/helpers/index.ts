/** Helpers that keep the seed's rules in a reconcile. */
export { retryOnConflict, type RetryOptions } from './conflict.js';
export { findCondition, isConditionTrue, removeCondition, setCondition } from './conditions.js';
export { updateStatusIfChanged, type StatusUpdate, type StatusWriter } from './status.js';
export { withFinalizer, type FinalizerEvent, type FinalizerPatcher } from './finalizer.js';
export { Expectations } from './expectations.js';
export {
  MalformedObjectError,
  ShapeCheck,
  checkDeployment,
  checkMetadata,
  checkNamespace,
  checkNode,
  checkPod,
  checkReplicaSet,
  isWellFormed,
  partitionWellFormed,
  throwMalformed,
} from './shape.js';
