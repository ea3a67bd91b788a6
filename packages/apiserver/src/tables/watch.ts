/**
 * A watch served as Tables (`kubectl get -w`): each event's object becomes a Table with one row.
 * As kube-apiserver's watch encoder does, only the first event carries columnDefinitions; later
 * events send `"columnDefinitions": null` and clients reuse the columns they have.
 */
import type { KubeObject } from '@setpoint/api';
import type { WatchLine } from '../watchcache/cache.js';
import { objectTable, toTable, type IncludeObject, type TablePrinter, type TableVersion } from './table.js';

export interface TableWatchOptions {
  readonly version: TableVersion;
  readonly includeObject: IncludeObject;
  /** Server time, ms since the epoch; read once per event. */
  readonly now: () => number;
}

/**
 * A per-watch encoder: `encode(line)` is the JSON text of one watch line with its object as a
 * Table. ERROR lines (a Status) pass unchanged; a BOOKMARK becomes a Table with no rows carrying
 * the bookmark's resourceVersion. Stateful (it remembers whether the columns went out): use one per
 * watch, never share it.
 */
export function tableWatchEncoder(printer: TablePrinter, options: TableWatchOptions): (line: WatchLine) => string {
  let headersSent = false;
  return (line) => {
    if (line.type === 'ERROR') return line.toJSON();
    const obj = line.object as KubeObject;
    const tableOptions = { version: options.version, includeObject: options.includeObject, now: options.now(), noHeaders: headersSent };
    const table =
      line.type === 'BOOKMARK'
        ? toTable(printer, [], { resourceVersion: obj.metadata.resourceVersion ?? '' }, tableOptions)
        : objectTable(printer, obj, tableOptions);
    headersSent = true;
    return JSON.stringify({ type: line.type, object: table });
  };
}
