/**
 * leases as kubectl prints them (NAME HOLDER AGE), after Kubernetes' printers.go.
 */
import { ageColumn, column, nameColumn, record, str } from '../../../tables/columns.js';
import { objectAge } from '../../../tables/duration.js';
import type { TablePrinter } from '../../../tables/table.js';

/** leases (coordination.k8s.io/v1): HOLDER is spec.holderIdentity ("" when free). */
export const leasePrinter: TablePrinter = {
  columns: [nameColumn(), column('Holder', 'string', 'holderIdentity contains the identity of the holder of a current lease.'), ageColumn()],
  row: (obj, now) => ({ cells: [str(obj.metadata.name), str(record(obj['spec'])?.['holderIdentity']), objectAge(obj, now)] }),
};
