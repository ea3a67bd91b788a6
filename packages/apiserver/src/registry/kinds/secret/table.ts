/**
 * secrets as kubectl prints them (NAME TYPE DATA AGE), after Kubernetes' printers.go.
 */
import { ageColumn, column, keyCount, nameColumn, str } from '../../../tables/columns.js';
import { objectAge } from '../../../tables/duration.js';
import type { TablePrinter } from '../../../tables/table.js';

/** secrets (v1): TYPE, and DATA counting the keys of data. */
export const secretPrinter: TablePrinter = {
  columns: [
    nameColumn(),
    column('Type', 'string', 'Used to facilitate programmatic handling of secret data.'),
    column('Data', 'string', 'Data contains the secret data. Each key must consist of alphanumeric characters, \'-\', \'_\' or \'.\'.'),
    ageColumn(),
  ],
  row: (obj, now) => ({ cells: [str(obj.metadata.name), str(obj['type']), keyCount(obj['data']), objectAge(obj, now)] }),
};
