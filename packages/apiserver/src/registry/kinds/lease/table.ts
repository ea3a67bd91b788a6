/**
 * leases as kubectl prints them (NAME HOLDER AGE), after Kubernetes' printers.go.
 */
import type { KubeObject } from '@setpoint/api';
import { ageColumn, column, nameColumn, record, str } from '../../../tables/columns.js';
import { timestampSince } from '../../../tables/duration.js';
import type { TablePrinter } from '../../../tables/table.js';

function age(obj: KubeObject, now: number): string {
  return timestampSince(obj.metadata.creationTimestamp, now);
}

/** leases (coordination.k8s.io/v1): HOLDER is spec.holderIdentity ("" when free). */
export const leasePrinter: TablePrinter = {
  columns: [nameColumn(), column('Holder', 'string', 'holderIdentity contains the identity of the holder of a current lease.'), ageColumn()],
  row: (obj, now) => ({ cells: [str(obj.metadata.name), str(record(obj['spec'])?.['holderIdentity']), age(obj, now)] }),
};
