/**
 * The client's one list pager, as client-go's tools/pager: what a resource's listAll and the
 * informer's Watcher both read collections with.
 *
 * Guarantees:
 * - A first page is the caller's options with `limit` set to the page size (or without a limit
 *   when unpaged). A continued page carries the previous page's `continue` token and drops
 *   resourceVersion and resourceVersionMatch: the token carries the snapshot, and the server
 *   refuses both beside it.
 * - A 410 (Expired, Gone) on a continued page means the snapshot fell out of the server's history:
 *   the listing starts again unpaged, in one list. Any other failure starts it again paged.
 * - `listAllPages` follows `continue` until a page has none and answers one list at the first
 *   page's resourceVersion; after a 410 midway it lists once unpaged and answers that list.
 *
 * Assumes `list` throws ApiError for answers other than 2xx (ApiError code 410 for Gone).
 */
import { isGone, type KubeList, type KubeObject } from '@setpoint/api';
import type { ListOptions } from '../types.js';

/** Where a paged listing stands: the next page's token (undefined: the first page) and whether it lists in one piece. */
export interface PageCursor {
  readonly continue: string | undefined;
  readonly unpaged: boolean;
}

/** The first page of a paged listing. */
export const FIRST_PAGE: PageCursor = { continue: undefined, unpaged: false };

/** One page read: the list and the cursor of the next page (undefined after the last), or the error and where to start again. */
export type PageResult<T extends KubeObject> =
  | { readonly list: KubeList<T>; readonly next: PageCursor | undefined }
  | { readonly error: unknown; readonly restart: PageCursor };

/** The options of the page at `cursor` of a listing with `options`, `pageSize` objects a page. */
export function pageOptions(options: ListOptions, cursor: PageCursor, pageSize: number): ListOptions {
  const limit = cursor.unpaged ? {} : { limit: pageSize };
  if (cursor.continue !== undefined) {
    const { limit: _l, continue: _c, resourceVersion: _rv, resourceVersionMatch: _m, ...rest } = options;
    return { ...rest, ...limit, continue: cursor.continue };
  }
  if (cursor.unpaged) {
    const { limit: _l, continue: _c, ...rest } = options;
    return rest;
  }
  return { ...options, ...limit };
}

/** Where to start again after the page at `cursor` failed with `err`: unpaged after a 410 on a continued page. */
export function restartAfter(err: unknown, cursor: PageCursor): PageCursor {
  return { continue: undefined, unpaged: cursor.continue !== undefined && isGone(err) };
}

/** Reads the page at `cursor`; never throws what `list` throws, it answers it with the cursor to start again at. */
export async function readPage<T extends KubeObject>(
  list: (options: ListOptions) => Promise<KubeList<T>>,
  options: ListOptions,
  cursor: PageCursor,
  pageSize: number,
): Promise<PageResult<T>> {
  let page: KubeList<T>;
  try {
    page = await list(pageOptions(options, cursor, pageSize));
  } catch (error) {
    return { error, restart: restartAfter(error, cursor) };
  }
  const token = page.metadata.continue;
  return { list: page, next: token === undefined || token === '' ? undefined : { continue: token, unpaged: cursor.unpaged } };
}

/**
 * The whole collection, paged (see the file comment): its objects and the resourceVersion of the
 * snapshot they were read from. Throws what `list` throws, except a 410 on a continued page.
 */
export async function listAllPages<T extends KubeObject>(
  list: (options: ListOptions) => Promise<KubeList<T>>,
  options: ListOptions,
  pageSize: number,
): Promise<{ readonly items: T[]; readonly resourceVersion: string | undefined }> {
  const items: T[] = [];
  let resourceVersion: string | undefined;
  let cursor = FIRST_PAGE;
  for (;;) {
    const page = await readPage(list, options, cursor, pageSize);
    if ('error' in page) {
      if (!page.restart.unpaged) throw page.error;
      const full = await list(pageOptions(options, page.restart, pageSize));
      return { items: full.items, resourceVersion: full.metadata.resourceVersion };
    }
    if (cursor === FIRST_PAGE) resourceVersion = page.list.metadata.resourceVersion;
    items.push(...page.list.items);
    if (page.next === undefined) return { items, resourceVersion };
    cursor = page.next;
  }
}
