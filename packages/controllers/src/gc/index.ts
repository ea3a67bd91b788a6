/**
 * The garbage collector: deletes objects whose owners are gone and carries out foreground and
 * orphan deletion (Kubernetes' pkg/controller/garbagecollector). See collector.ts.
 */
import type { Manager } from '@setpoint/client';
import { GarbageCollector, type GarbageCollectorOptions } from './collector.js';

export { GarbageCollector, type GarbageCollectorOptions } from './collector.js';
export { readPreferredResources, type DiscoveredResource, type DiscoveryResult, type DiscoverySource } from './discovery.js';
export { FOREGROUND_FINALIZER, ORPHAN_FINALIZER } from './graph.js';

/**
 * Adds the garbage collector to `manager` (a runnable that needs leader election) and returns it.
 * Options: `discoveryIntervalMs` (default 30 s) and `clock` (default the manager's) for the
 * discovery refresh, `discover` to replace discovery, `workers`, `ignoredResources`,
 * `initialSyncTimeoutMs` (see GarbageCollectorOptions).
 */
export function registerGarbageCollector(manager: Manager, options: GarbageCollectorOptions = {}): GarbageCollector {
  const gc = new GarbageCollector(manager, options);
  manager.add(gc);
  return gc;
}
