/**
 * configmaps as kubectl prints them (NAME DATA AGE), after Kubernetes' printers.go.
 */
import { ageColumn, column, keyCount, nameColumn, str } from '../../../tables/columns.js';
import { objectAge } from '../../../tables/duration.js';
import type { TablePrinter } from '../../../tables/table.js';

/** configmaps (v1): DATA counts the keys of data and binaryData. */
export const configMapPrinter: TablePrinter = {
  columns: [
    nameColumn(),
    column('Data', 'string', 'Data contains the configuration data. Each key must consist of alphanumeric characters, \'-\', \'_\' or \'.\'.'),
    ageColumn(),
  ],
  row: (obj, now) => ({ cells: [str(obj.metadata.name), keyCount(obj['data']) + keyCount(obj['binaryData']), objectAge(obj, now)] }),
};
