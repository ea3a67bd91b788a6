/**
 * serviceaccounts as kubectl prints them (NAME SECRETS AGE), after Kubernetes' printers.go.
 */
import { ageColumn, column, list, nameColumn, str } from '../../../tables/columns.js';
import { objectAge } from '../../../tables/duration.js';
import type { TablePrinter } from '../../../tables/table.js';

/** serviceaccounts (v1): SECRETS counts the secrets references. */
export const serviceAccountPrinter: TablePrinter = {
  columns: [
    nameColumn(),
    column('Secrets', 'string', 'Secrets is a list of the secrets in the same namespace that pods running using this ServiceAccount are allowed to use.'),
    ageColumn(),
  ],
  row: (obj, now) => ({ cells: [str(obj.metadata.name), list(obj['secrets']).length, objectAge(obj, now)] }),
};
