/**
 * Informers: a recovering list+watch (watcher), an indexed read-only cache (store), shared
 * informers with event handlers, and the factory that shares one informer per resource.
 */
export { Watcher, isGone } from './watcher.js';
export type { WatcherEvent, WatcherHealth, WatcherOptions, WatcherState, WatcherMachineState } from './watcher.js';
export { IndexedStore, NAMESPACE_INDEX, deepFreeze, keyOf } from './store.js';
export type { DeepReadonly, IndexFunc, IndexedStoreOptions, Indexer, Indexers, ReplaceChange } from './store.js';
export { DeletedFinalStateUnknown, MIN_RESYNC_PERIOD_MS, deletedObject } from './handlers.js';
export type { EventHandlerOptions, EventHandlerRegistration, InformerErrorStage, InformerMetrics, ResourceEventHandler } from './handlers.js';
export { SharedInformer } from './informer.js';
export type { InformerHealth, SharedInformerOptions } from './informer.js';
export { SharedInformerFactory } from './factory.js';
export type { InformerSelectors, ListWatchFor, SharedInformerFactoryOptions } from './factory.js';
