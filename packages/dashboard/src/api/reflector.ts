/**
 * Reflector: a live copy of a collection for the pages of the dashboard, kept by @setpoint/client's
 * Watcher (list in pages of 500 following `continue`, then watch from the list's resourceVersion,
 * resume from the last resourceVersion seen, relist on 410 Gone / Expired — see
 * packages/client/src/informer/watcher.ts). This file only adapts the dashboard's ApiClient to the
 * Watcher's ListWatch and keeps what the Watcher reports in `items`.
 *
 * Failures wait (1 s doubling to 30 s, no jitter) and are retried, except a 400 (a malformed
 * selector), which ends the reflector in phase `failed`.
 *
 * In table mode (`table: true`) the list and the watch ask for meta.k8s.io Tables, so the columns
 * are the server's — kubectl's — and each item is a Table row whose `object` holds the metadata.
 *
 * Guarantees: `items` only ever holds the state of one resourceVersion or later; a relist replaces
 * it whole (objects deleted while disconnected disappear). `onChange` is called at most every
 * `throttleMs` (default 50 ms), never synchronously inside start(). `stop()` aborts the open
 * request; nothing is called after it.
 */
import { ApiError, type KubeList } from '@setpoint/api';
import { Watcher, type ListOptions, type ListWatch, type WatchEvent as ListWatchEvent, type WatchOptions, type WatcherEvent } from '@setpoint/client/watcher';
import { ApiStatusError, TABLE_ACCEPT, query, type ApiClient } from './client.js';
import { isTable, type KubeObject, type ObjectMeta, type Status, type Table, type TableColumn, type TableRow } from './types.js';

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

/** What the Watcher carries: an item with the metadata it reads resourceVersions from. */
interface Entry<T extends Item> extends KubeObject {
  readonly item: T;
}

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
  private readonly abort = new AbortController();
  private notifyTimer: ReturnType<typeof setTimeout> | undefined;
  private stopped = false;
  private readonly watcher: Watcher<Entry<T>>;

  constructor(
    private readonly client: ApiClient,
    private readonly options: ReflectorOptions,
    private readonly onChange: () => void,
  ) {
    this.watcher = new Watcher(this.listWatch(), {
      ...(options.labelSelector !== undefined ? { labelSelector: options.labelSelector } : {}),
      ...(options.fieldSelector !== undefined ? { fieldSelector: options.fieldSelector } : {}),
      pageSize: options.pageSize ?? 500,
      minWatchTimeoutSeconds: WATCH_TIMEOUT_SECONDS,
      backoff: { initialMs: 1000, maxMs: 30_000, factor: 2, jitter: 0 },
      random: () => 0, // watches ask for exactly WATCH_TIMEOUT_SECONDS
    });
  }

  start(): void {
    void this.run();
  }

  stop(): void {
    this.stopped = true;
    this.abort.abort();
    if (this.notifyTimer !== undefined) clearTimeout(this.notifyTimer);
  }

  private async run(): Promise<void> {
    let fresh = new Map<string, T>();
    try {
      for await (const event of this.watcher.events(this.abort.signal)) {
        if (this.stopped) return;
        fresh = this.observe(event, fresh);
      }
    } catch (err) {
      // The Watcher retries every failure itself; what reaches here is a defect: shown, not hidden.
      if (this.stopped) return;
      this.error = err;
      this.phase = 'failed';
      this.changed();
    }
  }

  /** Applies one Watcher event; answers the listing being built. */
  private observe(event: WatcherEvent<Entry<T>>, fresh: Map<string, T>): Map<string, T> {
    switch (event.type) {
      case 'init':
        return new Map();
      case 'initApply':
        fresh.set(keyOf(event.object), event.object.item);
        return fresh;
      case 'initDone':
        this.items = fresh;
        this.synced = true;
        this.lists++;
        this.changed();
        return new Map();
      case 'apply':
        this.items.set(keyOf(event.object), event.object.item);
        this.changed();
        return fresh;
      case 'delete':
        this.items.delete(keyOf(event.object));
        this.changed();
        return fresh;
      case 'health': {
        const { state, lastError } = event.health;
        if (state === 'listing') this.phase = 'listing';
        else if (state === 'watching') {
          this.phase = 'watching';
          this.error = undefined;
        } else if (state === 'backoff') {
          this.error = shown(lastError);
          if (lastError instanceof ApiError && lastError.code === 400) {
            // A request the server cannot serve (a malformed selector): asking again will not help.
            this.phase = 'failed';
            this.abort.abort();
          } else this.phase = 'retrying';
        }
        this.changed();
        return fresh;
      }
    }
  }

  private accept(): string {
    return this.options.table === true ? TABLE_ACCEPT : 'application/json';
  }

  /** The dashboard's ApiClient as the Watcher's ListWatch: Tables become one entry per row, refusals ApiErrors. */
  private listWatch(): ListWatch<Entry<T>> {
    const table = this.options.table === true;
    return {
      list: async (o: ListOptions): Promise<KubeList<Entry<T>>> => {
        const page = await apiErrors(() =>
          this.client.json<Table | { metadata: { resourceVersion?: string; continue?: string }; items: KubeObject[] }>(
            this.options.path +
              query({ limit: o.limit, continue: o.continue, labelSelector: o.labelSelector, fieldSelector: o.fieldSelector, ...(table ? { includeObject: 'Metadata' } : {}) }),
            { accept: this.accept(), ...(o.signal !== undefined ? { signal: o.signal } : {}) },
          ),
        );
        if (!isTable(page)) return { metadata: page.metadata, items: page.items.map((obj) => entry(obj.metadata, obj as T)) };
        if (page.columnDefinitions) this.columns = page.columnDefinitions;
        return { metadata: page.metadata, items: page.rows.map((row) => rowEntry(row, page.metadata.resourceVersion)) };
      },
      watch: (o: WatchOptions) => this.watch(o),
    };
  }

  /** One watch stream, read to its end. Throws ApiError for an ERROR event or a refusal (410 when too old). */
  private async *watch(o: WatchOptions): AsyncGenerator<ListWatchEvent<Entry<T>>> {
    this.watches++;
    const res = await apiErrors(() =>
      this.client.open(
        this.options.path +
          query({ watch: 1, resourceVersion: o.resourceVersion, allowWatchBookmarks: o.allowWatchBookmarks, timeoutSeconds: o.timeoutSeconds, labelSelector: o.labelSelector, fieldSelector: o.fieldSelector }),
        { accept: this.accept(), ...(o.signal !== undefined ? { signal: o.signal } : {}) },
      ),
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
        if (line !== '') yield* this.events(JSON.parse(line) as WatchEvent);
      }
    }
  }

  /** The Watcher's events for one event of the stream: a Table event gives one per row. */
  private events(event: WatchEvent): ListWatchEvent<Entry<T>>[] {
    const type = event.type;
    if (type === 'ERROR') {
      const status = event.object as Status;
      throw asApiError(new ApiStatusError(status.code ?? 500, status));
    }
    const obj = event.object as KubeObject | Table;
    if (!isTable(obj)) return [{ type, object: entry(obj.metadata, obj as T) }];
    if (obj.columnDefinitions && this.columns.length === 0) this.columns = obj.columnDefinitions;
    if (type === 'BOOKMARK') return [{ type, object: entry({ resourceVersion: obj.metadata.resourceVersion ?? '' }, undefined as unknown as T) }];
    return obj.rows.map((row) => ({ type, object: rowEntry<T>(row, obj.metadata.resourceVersion) }));
  }

  private changed(): void {
    if (this.notifyTimer !== undefined || this.stopped) return;
    this.notifyTimer = setTimeout(() => {
      this.notifyTimer = undefined;
      if (!this.stopped) this.onChange();
    }, this.options.throttleMs ?? 50);
  }
}

function entry<T extends Item>(metadata: ObjectMeta | undefined, item: T): Entry<T> {
  return { metadata: metadata as ObjectMeta, item };
}

/** A row's entry: its object's metadata, at the resourceVersion of the Table that carried it. */
function rowEntry<T extends Item>(row: TableRow, resourceVersion: string | undefined): Entry<T> {
  const meta = row.object?.metadata ?? {};
  return entry({ ...meta, ...(resourceVersion ? { resourceVersion } : {}) }, row as T);
}

/** `call`'s refusals as the ApiErrors the Watcher reads (410 Gone / Expired among them). */
async function apiErrors<R>(call: () => Promise<R>): Promise<R> {
  try {
    return await call();
  } catch (err) {
    throw err instanceof ApiStatusError ? asApiError(err) : err;
  }
}

/** The ApiError the Watcher reads for a refusal; the ApiStatusError the pages show is its cause. */
function asApiError(err: ApiStatusError): ApiError {
  const { reason, message, details } = ApiError.fromStatus(err.status, err.code);
  return new ApiError(reason, message, { code: err.code, cause: err, ...(details !== undefined ? { details } : {}) });
}

/** What the pages show for a failure the Watcher reports: the ApiStatusError of a refusal. */
function shown(err: unknown): unknown {
  return err instanceof ApiError && err.cause instanceof ApiStatusError ? err.cause : err;
}

function keyOf(obj: KubeObject | undefined): string {
  const meta = obj?.metadata;
  if (meta === undefined) return '';
  return meta.uid ?? `${meta.namespace ?? ''}/${meta.name ?? ''}`;
}
