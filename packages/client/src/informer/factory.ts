/**
 * SharedInformerFactory: one informer (so one watch) per resource, namespace and selectors in a
 * process, however many controllers ask for it (client-go's sharedInformerFactory).
 *
 * Expected flow: controllers call `forResource(ref, selectors)` while they are set up; the manager
 * calls `start(signal)` once, then `waitForCacheSync(signal)` before starting workers. Informers
 * asked for after start() begin at once.
 */
import { setMaxListeners } from 'node:events';
import { realClock, silentLogger, type Clock, type KubeObject, type Logger } from '@setpoint/api';
import type { ListWatch, ResourceRef } from '../types.js';
import { SharedInformer, type SharedInformerOptions } from './informer.js';

/** Which objects of a resource an informer holds. */
export interface InformerSelectors {
  /** One namespace; '' or absent: all (and always all for cluster-scoped kinds). */
  readonly namespace?: string;
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
}

/** Builds the ListWatch for a resource and selectors (usually a ResourceClient). */
export type ListWatchFor = (ref: ResourceRef, selectors: InformerSelectors) => ListWatch;

/** Options shared by every informer the factory makes (see SharedInformerOptions), plus the default namespace. */
export interface SharedInformerFactoryOptions extends Omit<SharedInformerOptions, 'namespace' | 'labelSelector' | 'fieldSelector' | 'indexers' | 'name'> {
  /** The namespace informers hold when forResource names none. Default: all namespaces. */
  readonly namespace?: string;
}

interface Entry {
  readonly informer: SharedInformer<KubeObject>;
  run: Promise<void> | undefined;
}

/** Makes and runs shared informers, one per resource, namespace and selectors (file comment). */
export class SharedInformerFactory {
  readonly #listWatchFor: ListWatchFor;
  readonly #options: SharedInformerFactoryOptions;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #entries = new Map<string, Entry>();
  #signal: AbortSignal | undefined;

  constructor(listWatchFor: ListWatchFor, options: SharedInformerFactoryOptions = {}) {
    this.#listWatchFor = listWatchFor;
    this.#options = options;
    this.#clock = options.clock ?? realClock;
    this.#logger = options.logger ?? silentLogger;
  }

  /**
   * The informer for `ref` and `selectors`: the same instance for the same resource, namespace and
   * selectors. Started at once when start() was already called. The caller picks T; asking for
   * one resource with two different T is the caller's mistake.
   */
  forResource<T extends KubeObject = KubeObject>(ref: ResourceRef, selectors: InformerSelectors = {}): SharedInformer<T> {
    const resolved: InformerSelectors = {
      namespace: ref.namespaced ? (selectors.namespace ?? this.#options.namespace ?? '') : '',
      labelSelector: selectors.labelSelector ?? '',
      fieldSelector: selectors.fieldSelector ?? '',
    };
    const key = JSON.stringify([ref.group, ref.version, ref.resource, resolved.namespace, resolved.labelSelector, resolved.fieldSelector]);
    let entry = this.#entries.get(key);
    if (entry === undefined) {
      const { namespace: _ns, ...informerOptions } = this.#options;
      const name = ref.group === '' ? ref.resource : `${ref.resource}.${ref.group}`;
      const informer = new SharedInformer<KubeObject>(this.#listWatchFor(ref, resolved), {
        ...informerOptions,
        ...resolved,
        name,
        clock: this.#clock,
        logger: this.#logger.child({ informer: name, namespace: resolved.namespace }),
      });
      entry = { informer, run: undefined };
      this.#entries.set(key, entry);
      if (this.#signal !== undefined && !this.#signal.aborted) this.#startEntry(entry, this.#signal);
    }
    return entry.informer as unknown as SharedInformer<T>;
  }

  /** Every informer made so far. */
  informers(): SharedInformer<KubeObject>[] {
    return [...this.#entries.values()].map((e) => e.informer);
  }

  /** Starts every informer not started yet, and (until `signal` aborts) every one asked for later. */
  start(signal: AbortSignal): void {
    setMaxListeners(0, signal); // every informer, and every watch it opens, listens for the abort
    this.#signal = signal;
    for (const entry of this.#entries.values()) if (entry.run === undefined) this.#startEntry(entry, signal);
  }

  /**
   * Resolves true once every started informer has synced; false when `signal` aborts (or an informer
   * stops) first.
   */
  async waitForCacheSync(signal?: AbortSignal): Promise<boolean> {
    const started = [...this.#entries.values()].filter((e) => e.run !== undefined);
    const results = await Promise.all(started.map((e) => e.informer.waitForCacheSync(signal)));
    return results.every(Boolean);
  }

  /** Resolves when every started informer's run() has returned (after the start signal aborted). */
  async stopped(): Promise<void> {
    await Promise.all([...this.#entries.values()].map((e) => e.run));
  }

  #startEntry(entry: Entry, signal: AbortSignal): void {
    entry.run = entry.informer.run(signal).catch((err: unknown) => {
      this.#logger.error({ err }, 'informer stopped with an error');
    });
  }
}
