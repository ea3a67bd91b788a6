/** The controller runtime: reconcile loop, controllers, manager, and the helpers around them. */
export { TerminalError, requestFromKey, requestKey, type ReconcileContext, type ReconcileFn, type ReconcileResult, type Request } from './reconciler.js';
export { Controller, type ControllerOptions, type WatchedInformer } from './controller.js';
export { ControllerBuilder, type WatchOptions as ControllerWatchOptions } from './builder.js';
export { Manager, signalOnTermination, type LeaderElectionConfig, type ManagerOptions, type Runnable } from './manager.js';
export { CachedReader, type ReaderListOptions } from './reader.js';
export { controllerOf, enqueueMapped, enqueueObject, enqueueOwner, groupOf, ownerReferencesOf, type Enqueue, type EventHandler, type OwnerOptions } from './handlers.js';
export { and, annotationsChanged, generationChanged, labelsChanged, not, or, predicate, resourceVersionChanged, type Predicate } from './predicates.js';
export { ControllerMetrics, isPanic, type EventHandlerStage, type ReconcileOutcome } from './metrics.js';
export * from './helpers/index.js';
export * from './leaderelection/index.js';
export * from './events/index.js';
