/** Server-side printing: meta.k8s.io Tables for get, list and watch. */
export { tableRequest, objectAsTable, listAsTable, watchAsTables, type TableRequest } from './request.js';
export { printerFor, defaultPrinter } from './printers.js';
export { objectTable, parseIncludeObject, partialObjectMetadata, toTable } from './table.js';
export type { IncludeObject, PrintedRow, Table, TableCell, TableColumnDefinition, TableOptions, TablePrinter, TableRow, TableRowCondition, TableVersion } from './table.js';
export { tableWatchEncoder, type TableWatchOptions } from './watch.js';
export { humanDuration, timestampSince } from './duration.js';
