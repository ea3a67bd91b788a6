/**
 * The informer's cache: objects by key ("namespace/name", or "name" for cluster-scoped kinds), with
 * secondary indices (client-go's thread_safe_store.go and index.go).
 *
 * Split as kube-runtime splits its store: `Indexer<T>` is the read side handed to everyone;
 * `IndexedStore<T>` adds the writes, which only the informer makes.
 *
 * Guarantees: every object in the store is deeply frozen (Object.freeze on it and everything it
 * holds), so mutating one throws a TypeError in strict-mode code; indices always agree with the
 * objects (an index function is re-run on the old and the new version of every write).
 * Assumes the store owns the objects it is given: they are frozen in place, not copied.
 */
import { objectKey, type KubeObject } from '@setpoint/api';

type Primitive = string | number | boolean | bigint | symbol | null | undefined;

/**
 * A read-only view of T at every depth: assigning to any property, at any depth, is a compile
 * error. Arrays keep their Array type (so a DeepReadonly<T> can still be passed where T is
 * expected); mutating one compiles but throws at run time, since cached objects are frozen.
 */
export type DeepReadonly<T> = T extends Primitive | ((...args: never[]) => unknown)
  ? T
  : T extends Array<infer U>
    ? Array<DeepReadonly<U>>
    : { readonly [K in keyof T]: DeepReadonly<T[K]> };

/** The values an object is indexed under, e.g. `(pod) => [pod.spec.nodeName]`. */
export type IndexFunc<T extends KubeObject> = (obj: DeepReadonly<T>) => ReadonlyArray<string | undefined | null>;

/** Index functions by index name. */
export type Indexers<T extends KubeObject> = Readonly<Record<string, IndexFunc<T>>>;

/** The built-in index: objects by metadata.namespace ('' for cluster-scoped objects). */
export const NAMESPACE_INDEX = 'namespace';

/** The cache key of an object: "namespace/name", or "name" without a namespace. */
export function keyOf(obj: { readonly metadata: { readonly namespace?: string; readonly name?: string } }): string {
  return objectKey(obj.metadata.namespace, obj.metadata.name ?? '');
}

/** Freezes `value` and everything reachable from it; returns it. */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

/** The read side of the cache. */
export interface Indexer<T extends KubeObject> {
  /** The object under `key`, or undefined. */
  get(key: string): DeepReadonly<T> | undefined;
  /** Every cached object (in no guaranteed order). */
  list(): DeepReadonly<T>[];
  listKeys(): string[];
  /** The objects whose index function `indexName` yields `value`. Throws for an unknown index. */
  byIndex(indexName: string, value: string): DeepReadonly<T>[];
  /** The keys of those objects. Throws for an unknown index. */
  indexKeys(indexName: string, value: string): string[];
  /** Every value index `indexName` holds objects under. Throws for an unknown index. */
  indexValues(indexName: string): string[];
  indexNames(): string[];
  readonly size: number;
}

/** What a replace changed, in listing order, deletions last. */
export type ReplaceChange<T extends KubeObject> =
  | { readonly type: 'added'; readonly obj: DeepReadonly<T> }
  | { readonly type: 'updated'; readonly old: DeepReadonly<T>; readonly obj: DeepReadonly<T> }
  | { readonly type: 'deleted'; readonly key: string; readonly obj: DeepReadonly<T> };

export interface IndexedStoreOptions {
  /**
   * Called when an index function throws; the object is then not indexed by that index. Default:
   * the error propagates to the write, which then changes nothing.
   */
  readonly onIndexError?: (err: unknown, indexName: string, key: string) => void;
}

/** The cache with its writes (the informer's). Not safe for two writers. */
export class IndexedStore<T extends KubeObject> implements Indexer<T> {
  #items = new Map<string, T>();
  #resourceVersion = '';
  readonly #indexers = new Map<string, IndexFunc<T>>();
  /** index name → value → keys */
  #indices = new Map<string, Map<string, Set<string>>>();
  readonly #onIndexError: IndexedStoreOptions['onIndexError'];

  constructor(indexers: Indexers<T> = {}, options: IndexedStoreOptions = {}) {
    this.#onIndexError = options.onIndexError;
    this.addIndexers({ [NAMESPACE_INDEX]: (obj) => [obj.metadata.namespace ?? ''], ...indexers });
  }

  /**
   * Adds index functions and indexes the objects already cached. Throws an Error for a name that
   * is already taken (the built-in "namespace" included).
   */
  addIndexers(indexers: Indexers<T>): void {
    for (const name of Object.keys(indexers)) {
      if (this.#indexers.has(name)) throw new Error(`indexer "${name}" already exists`);
    }
    const built = Object.entries(indexers).map(([name, fn]) => {
      const index = new Map<string, Set<string>>();
      for (const [key, obj] of this.#items) addTo(index, this.#values(name, fn, obj, key), key);
      return [name, fn, index] as const;
    });
    for (const [name, fn, index] of built) {
      this.#indexers.set(name, fn);
      this.#indices.set(name, index);
    }
  }

  get size(): number {
    return this.#items.size;
  }

  /** The resourceVersion of the last listing or write ('' before any). */
  get resourceVersion(): string {
    return this.#resourceVersion;
  }

  get(key: string): DeepReadonly<T> | undefined {
    return this.#items.get(key) as DeepReadonly<T> | undefined;
  }

  list(): DeepReadonly<T>[] {
    return [...this.#items.values()] as DeepReadonly<T>[];
  }

  listKeys(): string[] {
    return [...this.#items.keys()];
  }

  byIndex(indexName: string, value: string): DeepReadonly<T>[] {
    const out: DeepReadonly<T>[] = [];
    for (const key of this.#index(indexName).get(value) ?? []) out.push(this.#items.get(key) as DeepReadonly<T>);
    return out;
  }

  indexKeys(indexName: string, value: string): string[] {
    return [...(this.#index(indexName).get(value) ?? [])];
  }

  indexValues(indexName: string): string[] {
    return [...this.#index(indexName).keys()];
  }

  indexNames(): string[] {
    return [...this.#indexers.keys()];
  }

  /** Adds or replaces `obj` (frozen in place). Returns the version it replaced, if any. */
  upsert(obj: T): DeepReadonly<T> | undefined {
    deepFreeze(obj);
    const key = keyOf(obj);
    const old = this.#items.get(key);
    // Every index function runs before anything changes, so one that throws leaves the store as it was.
    const updates = [...this.#indexers].map(([name, fn]) => ({
      index: this.#indices.get(name)!,
      // Stryker disable next-line ArrayDeclaration: a key new to the store is in no index, so removing it from any values is a no-op
      before: old === undefined ? [] : this.#values(name, fn, old, key),
      after: this.#values(name, fn, obj, key),
    }));
    this.#items.set(key, obj);
    this.#resourceVersion = obj.metadata.resourceVersion ?? this.#resourceVersion;
    for (const { index, before, after } of updates) {
      removeFrom(index, before, key);
      addTo(index, after, key);
    }
    return old as DeepReadonly<T> | undefined;
  }

  /** Removes `key` (deleted at `resourceVersion`, if known). Returns the version removed, if any. */
  delete(key: string, resourceVersion?: string): DeepReadonly<T> | undefined {
    if (resourceVersion !== undefined && resourceVersion !== '') this.#resourceVersion = resourceVersion;
    const old = this.#items.get(key);
    if (old === undefined) return undefined;
    const removals = [...this.#indexers].map(([name, fn]) => ({ index: this.#indices.get(name)!, values: this.#values(name, fn, old, key) }));
    this.#items.delete(key);
    for (const { index, values } of removals) removeFrom(index, values, key);
    return old as DeepReadonly<T>;
  }

  /**
   * Makes the cache hold exactly `objects` (a complete listing at `resourceVersion`) and returns the difference: objects
   * new to the cache, objects whose resourceVersion changed (an unchanged one keeps its cached
   * instance and is not reported), and objects no longer listed, with their last cached state.
   */
  replace(objects: readonly T[], resourceVersion: string): ReplaceChange<T>[] {
    const changes: ReplaceChange<T>[] = [];
    const next = new Map<string, T>();
    for (const obj of objects) {
      const key = keyOf(obj);
      const old = this.#items.get(key);
      if (old !== undefined && sameVersion(old, obj)) {
        next.set(key, old);
        continue;
      }
      deepFreeze(obj);
      next.set(key, obj);
      changes.push(old === undefined ? { type: 'added', obj: obj as DeepReadonly<T> } : { type: 'updated', old: old as DeepReadonly<T>, obj: obj as DeepReadonly<T> });
    }
    for (const [key, old] of this.#items) {
      if (!next.has(key)) changes.push({ type: 'deleted', key, obj: old as DeepReadonly<T> });
    }
    const indices = new Map<string, Map<string, Set<string>>>();
    for (const [name, fn] of this.#indexers) {
      const index = new Map<string, Set<string>>();
      for (const [key, obj] of next) addTo(index, this.#values(name, fn, obj, key), key);
      indices.set(name, index);
    }
    this.#items = next;
    this.#indices = indices;
    this.#resourceVersion = resourceVersion;
    return changes;
  }

  #values(name: string, fn: IndexFunc<T>, obj: T, key: string): string[] {
    let values: ReadonlyArray<string | undefined | null>;
    try {
      values = fn(obj as DeepReadonly<T>);
    } catch (err) {
      if (this.#onIndexError === undefined) throw err;
      this.#onIndexError(err, name, key);
      return [];
    }
    const out: string[] = [];
    for (const v of values) if (typeof v === 'string') out.push(v);
    return out;
  }

  #index(name: string): Map<string, Set<string>> {
    const index = this.#indices.get(name);
    if (index === undefined) throw new Error(`index "${name}" does not exist`);
    return index;
  }
}

function sameVersion(a: KubeObject, b: KubeObject): boolean {
  const rv = a.metadata.resourceVersion;
  return rv !== undefined && rv !== '' && rv === b.metadata.resourceVersion;
}

function addTo(index: Map<string, Set<string>>, values: readonly string[], key: string): void {
  for (const value of values) {
    let keys = index.get(value);
    if (keys === undefined) index.set(value, (keys = new Set()));
    keys.add(key);
  }
}

function removeFrom(index: Map<string, Set<string>>, values: readonly string[], key: string): void {
  for (const value of values) {
    const keys = index.get(value);
    if (keys === undefined) continue;
    keys.delete(key);
    if (keys.size === 0) index.delete(value);
  }
}
