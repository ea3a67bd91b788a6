/**
 * scanStore: the one way the API server reads a key range of the store in pages — the watch
 * cache's load and the REST list's store path both use it.
 *
 * Guarantees: every page after the first is read at the first page's revision (a consistent
 * snapshot), starting strictly after the last key of the previous page; keys reach `visit` in
 * order, each once. The scan stops when the store has no more keys (or answers a page without
 * keys), or when `full()` says so before the next key — then `more` is true. A page that ends
 * while `full()` holds and the store has more keys ends the scan without reading another page.
 *
 * Errors: whatever the store throws (Compacted when the revision fell out of history) propagates
 * unchanged; the caller maps it.
 */
import type { KeyValue, Store } from '@setpoint/store';

/** Where a scan starts and how it reads; each default is on its field. */
export interface ScanOptions {
  /** Read at this revision; 0 or absent: the store's current one (then kept for every page). */
  readonly revision?: number;
  /** Start strictly after this key (a continue token's). Default: the prefix's first key. */
  readonly after?: string;
  /** The limit of the next store read, asked before each page; 0: unlimited. */
  readonly pageLimit: () => number;
  /** Whether the caller has all it wants; asked before each key. Default: never. */
  readonly full?: () => boolean;
}

/** Where a scan ended. */
export interface ScanResult {
  /** The revision every page was read at. */
  readonly revision: number;
  /** Whether keys remain after `lastKey` (the scan stopped because `full()` held). */
  readonly more: boolean;
  /** The last key handed to `visit`; undefined if none was. */
  readonly lastKey: string | undefined;
}

/** Reads the keys under `prefix` page by page, handing each to `visit` (see the file comment). */
export async function scanStore(store: Store, prefix: string, options: ScanOptions, visit: (kv: KeyValue) => void): Promise<ScanResult> {
  const full = options.full ?? (() => false);
  let revision = options.revision ?? 0;
  let after = options.after;
  let lastKey: string | undefined;
  for (;;) {
    const limit = options.pageLimit();
    const page = await store.list(prefix, {
      ...(revision > 0 ? { revision } : {}),
      ...(after !== undefined ? { after } : {}),
      ...(limit > 0 ? { limit } : {}),
    });
    revision = page.revision;
    for (const kv of page.items) {
      if (full()) return { revision, more: true, lastKey };
      lastKey = kv.key;
      visit(kv);
    }
    if (!page.more || page.items.length === 0) return { revision, more: false, lastKey };
    if (full()) return { revision, more: true, lastKey };
    after = page.items[page.items.length - 1]!.key;
  }
}
