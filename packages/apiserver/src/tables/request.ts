/**
 * A request for Tables, as the verb dispatcher sees it: which printer, which meta.k8s.io version,
 * what each row carries. Built once per request from the negotiated media type and the
 * includeObject query parameter; then it prints the get's object, the list, or the watch's events.
 */
import type { KubeList, KubeObject } from '@setpoint/api';
import type { ResourceDef } from '../registry/types.js';
import type { WatchLine } from '../watchcache/cache.js';
import { printerFor } from './printers.js';
import { objectTable, parseIncludeObject, toTable, type IncludeObject, type Table, type TablePrinter, type TableVersion } from './table.js';
import { tableWatchEncoder } from './watch.js';

export interface TableRequest {
  readonly printer: TablePrinter;
  readonly version: TableVersion;
  readonly includeObject: IncludeObject;
}

/**
 * The Table request for `def` (or its `subresource`) in meta.k8s.io `version`, with the raw
 * includeObject query value. Throws ApiError BadRequest for an unknown includeObject.
 */
export function tableRequest(def: Pick<ResourceDef, 'printer' | 'printerColumns'>, subresource: string, version: TableVersion, includeObject: string | undefined): TableRequest {
  return { printer: printerFor(def, subresource), version, includeObject: parseIncludeObject(includeObject) };
}

/** A get's answer: one row, the object's resourceVersion. `now` is the server time in ms. */
export function objectAsTable(request: TableRequest, obj: KubeObject, now: number): Table {
  return objectTable(request.printer, obj, { version: request.version, includeObject: request.includeObject, now });
}

/** A list's answer: a row per item, the list's resourceVersion and continue token. */
export function listAsTable(request: TableRequest, list: KubeList, now: number): Table {
  return toTable(request.printer, list.items, list.metadata, { version: request.version, includeObject: request.includeObject, now });
}

/** A watch's line encoder (one per watch): each event's object as a one-row Table. */
export function watchAsTables(request: TableRequest, now: () => number): (line: WatchLine) => string {
  return tableWatchEncoder(request.printer, { version: request.version, includeObject: request.includeObject, now });
}
