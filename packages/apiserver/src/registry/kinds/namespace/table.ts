/**
 * namespaces as kubectl prints them (NAME STATUS AGE), after Kubernetes' printers.go.
 */
import { ageColumn, column, nameColumn, record, str } from '../../../tables/columns.js';
import { objectAge } from '../../../tables/duration.js';
import type { TablePrinter } from '../../../tables/table.js';

/** namespaces (v1): STATUS is status.phase ("Active", or "Terminating" once deleted). */
export const namespacePrinter: TablePrinter = {
  columns: [nameColumn(), column('Status', 'string', 'The status of the namespace'), ageColumn()],
  row: (obj, now) => ({ cells: [str(obj.metadata.name), str(record(obj['status'])?.['phase']), objectAge(obj, now)] }),
};
