/**
 * Reflector: a live copy of a collection, kept by list then watch, as a good Kubernetes client
 * keeps it (client-go's reflector, kube-rs's watcher):
 *
 *   Empty → Listing (pages of 500, following `continue`) → Watching from the list's
 *   resourceVersion → on a clean end of the stream, watch again from the last resourceVersion seen
 *   (events and bookmarks move it) → on 410 Gone / Expired, back to Empty: list again.
 *   Other failures wait (1 s doubling to 30 s) and resume where they were, except a 400 (a
 *   malformed selector), which ends the reflector in phase `failed`.
 *
 * In table mode (`table: true`) the list and the watch ask for meta.k8s.io Tables, so the columns
 * are the server's — kubectl's — and each item is a Table row whose `object` holds the metadata.
 *
 * Guarantees: `items` only ever holds the state of one resourceVersion or later; a relist replaces
 * it whole (objects deleted while disconnected disappear). `onChange` is called at most every
 * `throttleMs` (default 50 ms), never synchronously inside start(). `stop()` aborts the open
 * request; nothing is called after it.
 */
import { ApiStatusError, TABLE_ACCEPT, query, type ApiClient } from './client.js';
import { isTable, type KubeObject, type Status, type Table, type TableColumn, type TableRow } from './types.js';

export interface ReflectorOptions {
  /** The collection path (see collectionPath). */
  readonly path: string;
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
  /** List and watch Tables instead of objects. */
  readonly table?: boolean;
  readonly pageSize?: number;
  readonly throttleMs?: number;
}

export type ReflectorPhase = 'listing' | 'watching' | 'retrying' | 'failed';

/** What a reflector holds: objects, or (table mode) rows whose `object` is the metadata. */
export type Item = KubeObject | TableRow;

interface WatchEvent {
  type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';
  object: KubeObject | Table | Status;
}

class Gone extends Error {}

const WATCH_TIMEOUT_SECONDS = 300;

export class Reflector<T extends Item = KubeObject> {
  /** By uid (or namespace/name when an object has no uid). */
  items = new Map<string, T>();
  /** Table mode: the server's columns. */
  columns: TableColumn[] = [];
  phase: ReflectorPhase = 'listing';
  /** Whether a list has completed at least once. */
  synced = false;
  /** The last failure, until the next success. */
  error: unknown = undefined;
  /** How many times the collection was listed (1 + relists after 410). */
  lists = 0;
  /** How many watch requests were made (resumes included). */
  watches = 0;
  private resourceVersion: string | undefined;
  private readonly abort = new AbortController();
  private notifyTimer: ReturnType<typeof setTimeout> | undefined;
  private stopped = false;

  constructor(
    private readonly client: ApiClient,
    private readonly options: ReflectorOptions,
    private readonly onChange: () => void,
  ) {}

  start(): void {
    void this.run();
  }

  stop(): void {
    this.stopped = true;
    this.abort.abort();
    if (this.notifyTimer !== undefined) clearTimeout(this.notifyTimer);
  }

  private async run(): Promise<void> {
    let backoffMs = 1000;
    while (!this.stopped) {
      try {
        if (this.resourceVersion === undefined) await this.list();
        this.phase = 'watching';
        this.error = undefined;
        this.changed();
        await this.watch();
        backoffMs = 1000;
      } catch (err) {
        if (this.stopped) return;
        if (err instanceof Gone || (err instanceof ApiStatusError && err.code === 410)) {
          this.resourceVersion = undefined; // too old: relist
          continue;
        }
        this.error = err;
        if (err instanceof ApiStatusError && err.code === 400) {
          // A request the server cannot serve (a malformed selector): asking again will not help.
          this.phase = 'failed';
          this.changed();
          return;
        }
        this.phase = 'retrying';
        this.changed();
        await sleep(backoffMs, this.abort.signal);
        backoffMs = Math.min(backoffMs * 2, 30_000);
      }
    }
  }

  private accept(): string {
    return this.options.table === true ? TABLE_ACCEPT : 'application/json';
  }

  private selectors(): Record<string, string | undefined> {
    return { labelSelector: this.options.labelSelector, fieldSelector: this.options.fieldSelector };
  }

  private async list(): Promise<void> {
    this.phase = 'listing';
    const fresh = new Map<string, T>();
    let token: string | undefined;
    let resourceVersion: string | undefined;
    do {
      const page = await this.client.json<Table | { metadata: { resourceVersion?: string; continue?: string }; items: KubeObject[] }>(
        this.options.path + query({ limit: this.options.pageSize ?? 500, continue: token, ...this.selectors(), ...(this.options.table === true ? { includeObject: 'Metadata' } : {}) }),
        { accept: this.accept(), signal: this.abort.signal },
      );
      if (isTable(page)) {
        if (page.columnDefinitions) this.columns = page.columnDefinitions;
        for (const row of page.rows) fresh.set(keyOf(row.object), row as T);
      } else {
        for (const item of page.items) fresh.set(keyOf(item), item as T);
      }
      token = page.metadata.continue || undefined;
      resourceVersion = page.metadata.resourceVersion;
    } while (token !== undefined && !this.stopped);
    this.items = fresh;
    this.resourceVersion = resourceVersion ?? '0';
    this.synced = true;
    this.lists++;
  }

  /** Reads one watch stream to its end. Throws Gone on 410, ApiStatusError on other refusals. */
  private async watch(): Promise<void> {
    this.watches++;
    const res = await this.client.open(
      this.options.path +
        query({ watch: 1, resourceVersion: this.resourceVersion, allowWatchBookmarks: true, timeoutSeconds: WATCH_TIMEOUT_SECONDS, ...this.selectors() }),
      { accept: this.accept(), signal: this.abort.signal },
    );
    if (res.body === null) return;
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += value;
      let nl: number;
      while ((nl = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, nl).trim();
        buffer = buffer.slice(nl + 1);
        if (line !== '') this.apply(JSON.parse(line) as WatchEvent);
      }
    }
  }

  private apply(event: WatchEvent): void {
    if (event.type === 'ERROR') {
      const status = event.object as Status;
      if (status.code === 410) throw new Gone(status.message);
      throw new ApiStatusError(status.code ?? 500, status);
    }
    const obj = event.object as KubeObject | Table;
    if (isTable(obj)) {
      if (obj.metadata.resourceVersion) this.resourceVersion = obj.metadata.resourceVersion;
      if (obj.columnDefinitions && this.columns.length === 0) this.columns = obj.columnDefinitions;
      if (event.type === 'BOOKMARK') return;
      for (const row of obj.rows) this.upsert(event.type, keyOf(row.object), row as T);
    } else {
      if (obj.metadata?.resourceVersion !== undefined) this.resourceVersion = obj.metadata.resourceVersion;
      if (event.type === 'BOOKMARK') return;
      this.upsert(event.type, keyOf(obj), obj as T);
    }
    this.changed();
  }

  private upsert(type: WatchEvent['type'], key: string, item: T): void {
    if (type === 'DELETED') this.items.delete(key);
    else this.items.set(key, item);
  }

  private changed(): void {
    if (this.notifyTimer !== undefined || this.stopped) return;
    this.notifyTimer = setTimeout(() => {
      this.notifyTimer = undefined;
      if (!this.stopped) this.onChange();
    }, this.options.throttleMs ?? 50);
  }
}

function keyOf(obj: KubeObject | undefined): string {
  const meta = obj?.metadata;
  if (meta === undefined) return '';
  return meta.uid ?? `${meta.namespace ?? ''}/${meta.name ?? ''}`;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });
}
