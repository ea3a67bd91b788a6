/**
 * The storages of the served kinds, made in one place: each kind's REST storage over the (gated)
 * store with its watch cache, for the built-in kinds at start and for custom resources as their
 * CustomResourceDefinitions come and go. Lookups by group/version/resource go through the
 * registry, so a kind is served exactly when the registry has it and its storage exists.
 */
import type { Clock, Logger } from '@setpoint/api';
import type { Store } from '@setpoint/store';
import type { Registry } from '../registry/registry.js';
import type { ResourceDef } from '../registry/types.js';
import { WatchCache, type WatchCacheOptions } from '../watchcache/cache.js';
import type { StoredObjectDecoder } from './codec.js';
import type { AdmissionChain } from '../admission/chain.js';
import { ResourceStorage } from './rest.js';

export interface StoragesOptions {
  /** The store watch caches read (ungated: reads pass no commit gate). */
  readonly store: Store;
  /** The store storages write (each write passes its request's commit gate). */
  readonly writeStore: Store;
  readonly registry: Registry;
  /** The admission chain every storage's creates and updates run through (admission/chain.ts). */
  readonly admission: AdmissionChain;
  readonly decoder: StoredObjectDecoder;
  readonly watchCache?: WatchCacheOptions | undefined;
  readonly clock: Clock;
  readonly logger: Logger;
}

export class Storages {
  private readonly byDef = new Map<ResourceDef, ResourceStorage>();
  /** The kinds each CustomResourceDefinition (by name) is served as. */
  private readonly custom = new Map<string, readonly ResourceDef[]>();

  constructor(private readonly options: StoragesOptions) {}

  /** Makes the storage of every kind the registry serves but create-only ones; their caches start with `start`. */
  addRegistered(): void {
    for (const def of this.options.registry.all()) if (def.createOnly !== true) this.byDef.set(def, this.make(def, undefined));
  }

  /** Starts (primes) every cache. */
  async start(): Promise<void> {
    await Promise.all([...this.byDef.values()].map((s) => s.cache.start()));
  }

  /** Stops every cache (their watches end). */
  stop(): void {
    for (const storage of this.byDef.values()) storage.cache.stop();
  }

  /** The storage of `def`, if served. */
  of(def: ResourceDef): ResourceStorage | undefined {
    return this.byDef.get(def);
  }

  /** Every storage. */
  all(): IterableIterator<ResourceStorage> {
    return this.byDef.values();
  }

  /** The storage of a served kind; throws when it is not served. */
  lookup(group: string, version: string, resource: string): ResourceStorage {
    const def = this.options.registry.lookup(group, version, resource);
    const storage = def && this.byDef.get(def);
    if (storage === undefined) throw new Error(`${resource}.${group}/${version} is not served`);
    return storage;
  }

  /** The storage of the built-in kind group/resource (any version), if served. */
  builtin(group: string, resource: string): ResourceStorage | undefined {
    const def = this.options.registry.all().find((d) => d.group === group && d.resource === resource && d.custom !== true);
    return def && this.byDef.get(def);
  }

  /**
   * Serves `defs` for the CRD `name` in place of what it served before: caches of kinds that stay
   * (same group, version, resource, kind and scope) are kept, so their watches carry on; new kinds
   * are served once their cache is primed; kinds that went are no longer served and their watches end.
   */
  async serveCustom(name: string, defs: readonly ResourceDef[]): Promise<void> {
    const { registry } = this.options;
    const old = this.custom.get(name) ?? [];
    const same = (a: ResourceDef, b: ResourceDef) => a.group === b.group && a.version === b.version && a.resource === b.resource && a.kind === b.kind && a.namespaced === b.namespaced;
    const fresh: ResourceStorage[] = [];
    for (const def of defs) {
      const kept = old.find((o) => same(o, def));
      const storage = this.make(def, kept === undefined ? undefined : this.byDef.get(kept)!.cache);
      if (kept === undefined) fresh.push(storage);
      this.byDef.set(def, storage);
    }
    await Promise.all(fresh.map((s) => s.cache.start()));
    for (const o of old) {
      if (!defs.some((d) => same(o, d))) {
        registry.remove(o.group, o.version, o.resource);
        this.byDef.get(o)?.cache.stop();
      }
      this.byDef.delete(o);
    }
    for (const def of defs) registry.add(def);
    if (defs.length === 0) this.custom.delete(name);
    else this.custom.set(name, defs);
  }

  /** A storage of `def`, on `cache` or a new one. */
  private make(def: ResourceDef, cache: WatchCache | undefined): ResourceStorage {
    const o = this.options;
    const watchCache = cache ?? new WatchCache(o.store, def, { clock: o.clock, logger: o.logger, decoder: o.decoder, ...o.watchCache });
    return new ResourceStorage(def, o.writeStore, watchCache, o.admission, o.clock, o.decoder);
  }
}
