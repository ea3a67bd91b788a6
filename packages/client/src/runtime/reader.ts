/**
 * CachedReader: reads of one kind from a shared informer's cache — a map lookup, not a network
 * round trip. What a reconcile should use for every read. Objects are shared and read-only.
 */
import { type LabelsSelector, parseLabelSelector, type KubeObject } from '@setpoint/api';
import { NAMESPACE_INDEX, type DeepReadonly, type SharedInformer } from '../informer/index.js';

export interface ReaderListOptions {
  /** Only this namespace. */
  readonly namespace?: string;
  /** A label selector string ("app=web,tier!=db"). */
  readonly labelSelector?: string | LabelsSelector;
}

export class CachedReader<T extends KubeObject = KubeObject> {
  constructor(readonly informer: SharedInformer<T>) {}

  /** The cached object, or undefined. `namespace` is '' for cluster-scoped kinds. */
  get(namespace: string, name: string): DeepReadonly<T> | undefined {
    return this.informer.store.get(namespace === '' ? name : `${namespace}/${name}`);
  }

  /** Cached objects in a namespace (or all) matching a label selector. */
  list(options: ReaderListOptions = {}): DeepReadonly<T>[] {
    const selector = typeof options.labelSelector === 'string' ? parseLabelSelector(options.labelSelector) : options.labelSelector;
    const items = options.namespace ? this.informer.store.byIndex(NAMESPACE_INDEX, options.namespace) : this.informer.store.list();
    if (selector === undefined || selector.isEmpty()) return items;
    return items.filter((obj) => selector.matches((obj.metadata.labels ?? {}) as Record<string, string>));
  }

  /** Whether the cache has completed its initial list. */
  hasSynced(): boolean {
    return this.informer.hasSynced();
  }
}
