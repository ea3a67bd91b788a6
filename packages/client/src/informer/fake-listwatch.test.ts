/**
 * Test helpers (no tests of their own): a scripted ListWatch, ConfigMap builders, a recording
 * logger and `until`, which waits for a condition with a deadline instead of sleeping.
 */
import { ApiError, type KubeList, type KubeObject } from '@setpoint/api';
import type { ListOptions, ListWatch, WatchEvent, WatchEventType, WatchOptions } from '../types.js';

export interface ConfigMap extends KubeObject {
  data?: Record<string, string>;
  spec?: { nodeName?: string };
}

export function cm(name: string, rv: string | number, extra: Partial<ConfigMap> = {}, namespace = 'default'): ConfigMap {
  return { apiVersion: 'v1', kind: 'ConfigMap', ...extra, metadata: { name, namespace, resourceVersion: String(rv), ...extra.metadata } };
}

/** Waits (real time, polling each macrotask turn) until `cond()` holds; throws after `timeoutMs`. */
export async function until(cond: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

type Item<T extends KubeObject> = { kind: 'event'; event: WatchEvent<T> } | { kind: 'end' } | { kind: 'error'; error: unknown };

/** One watch call: the test pushes what the server would send. */
export class FakeWatch<T extends KubeObject> implements AsyncIterableIterator<WatchEvent<T>> {
  readonly options: WatchOptions;
  /** Set once the consumer can read no more (ended, failed or aborted). */
  closed = false;
  readonly #items: Item<T>[] = [];
  #wake: (() => void) | undefined;

  constructor(options: WatchOptions) {
    this.options = options;
    options.signal?.addEventListener('abort', () => this.#poke(), { once: true });
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  send(type: WatchEventType, object: T): this {
    this.#items.push({ kind: 'event', event: { type, object } });
    this.#poke();
    return this;
  }

  bookmark(rv: string | number, annotations?: Record<string, string>): this {
    const object = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { resourceVersion: String(rv), ...(annotations ? { annotations } : {}) } } as KubeObject as T;
    return this.send('BOOKMARK', object);
  }

  end(): void {
    this.#items.push({ kind: 'end' });
    this.#poke();
  }

  fail(error: unknown): void {
    this.#items.push({ kind: 'error', error });
    this.#poke();
  }

  async next(): Promise<IteratorResult<WatchEvent<T>>> {
    for (;;) {
      if (this.options.signal?.aborted === true || this.closed) {
        this.closed = true;
        return { done: true, value: undefined };
      }
      const item = this.#items.shift();
      if (item === undefined) {
        await new Promise<void>((resolve) => (this.#wake = resolve));
        continue;
      }
      if (item.kind === 'event') return { done: false, value: item.event };
      this.closed = true;
      if (item.kind === 'error') throw item.error;
      return { done: true, value: undefined };
    }
  }

  async return(): Promise<IteratorResult<WatchEvent<T>>> {
    this.closed = true;
    this.#poke();
    return { done: true, value: undefined };
  }

  #poke(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }
}

/**
 * A scripted ListWatch. Lists serve `objects` at `resourceVersion`, paged by `limit` (the continue
 * token is the offset), unless `listErrors` holds errors to throw first. Every watch call is a
 * FakeWatch, kept in `watches`; one from a resourceVersion below `compactedResourceVersion` fails
 * with ApiError 410 Expired, as an API server's does. The ListWatch conformance suite runs on it
 * (listwatch.test.ts).
 */
export class FakeListWatch<T extends KubeObject = ConfigMap> implements ListWatch<T> {
  objects: T[] = [];
  resourceVersion = '1';
  readonly listErrors: unknown[] = [];
  readonly lists: ListOptions[] = [];
  readonly watches: FakeWatch<T>[] = [];
  /** When each list call happened, on the clock given (for backoff tests). */
  readonly listTimes: number[] = [];
  now: () => number = () => 0;
  /** Watches from a resourceVersion below this one throw 410 Expired (history compacted). Default none. */
  compactedResourceVersion: number | undefined;

  async list(options: ListOptions): Promise<KubeList<T>> {
    // A list is I/O: it answers on a later turn of the event loop, so a watcher that lists in a
    // loop cannot starve timers (a test's deadline fails it instead of hanging the process).
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.lists.push(options);
    this.listTimes.push(this.now());
    const error = this.listErrors.shift();
    if (error !== undefined) throw error;
    const start = options.continue === undefined ? 0 : Number(options.continue);
    const end = options.limit === undefined ? this.objects.length : Math.min(start + options.limit, this.objects.length);
    const metadata = end < this.objects.length ? { resourceVersion: this.resourceVersion, continue: String(end) } : { resourceVersion: this.resourceVersion };
    return { apiVersion: 'v1', kind: 'List', metadata, items: this.objects.slice(start, end) };
  }

  watch(options: WatchOptions): AsyncIterable<WatchEvent<T>> {
    const w = new FakeWatch<T>(options);
    this.watches.push(w);
    const from = Number(options.resourceVersion ?? '0');
    if (this.compactedResourceVersion !== undefined && from > 0 && from < this.compactedResourceVersion) {
      w.fail(ApiError.expired(`too old resource version: ${from} (${this.compactedResourceVersion})`));
    }
    return w;
  }

  /** Waits until watch number `n` (0-based) was opened, and returns it. */
  async watchNumber(n: number): Promise<FakeWatch<T>> {
    await until(() => this.watches.length > n, `watch #${n}`);
    return this.watches[n]!;
  }
}
