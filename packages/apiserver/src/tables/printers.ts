/**
 * Which printer prints a resource: the one its ResourceDef declares (the built-in kinds kubectl
 * users know by their columns), a CRD's additionalPrinterColumns, and for every other kind NAME and
 * AGE (as kube-apiserver prints custom resources without additionalPrinterColumns).
 */
import type { ResourceDef } from '../registry/types.js';
import { ageColumn, column, int, nameColumn, record, str } from './columns.js';
import { customPrinter } from './custom.js';
import { objectAge } from './duration.js';
import type { TablePrinter } from './table.js';

/** NAME and AGE (a "date" column whose cells the server renders as ages, like "5m2s"). */
export const defaultPrinter: TablePrinter = {
  columns: [nameColumn(), ageColumn('date')],
  row: (obj, now) => ({ cells: [str(obj.metadata.name), objectAge(obj, now)] }),
};

/** customresourcedefinitions: NAME and CREATED AT (the timestamp itself, as kubectl prints it). */
export const crdPrinter: TablePrinter = {
  columns: [nameColumn(), column('Created At', 'date', 'The time the definition was created.')],
  row: (obj) => ({ cells: [str(obj.metadata.name), str(obj.metadata.creationTimestamp)] }),
};

/** The scale subresource (autoscaling/v1 Scale) of any kind that serves it. */
export const scalePrinter: TablePrinter = {
  columns: [
    column('Name', 'string', nameColumn().description),
    column('Desired', 'integer', 'desired number of instances for the scaled object.'),
    column('Available', 'integer', 'actual number of observed instances of the scaled object.'),
    ageColumn(),
  ],
  row(obj, now) {
    return {
      cells: [
        str(obj.metadata.name),
        int(record(obj['spec'])?.['replicas']),
        int(record(obj['status'])?.['replicas']),
        objectAge(obj, now),
      ],
    };
  },
};

/**
 * The printer for a resource, or for one of its subresources: "scale" prints a Scale, "status" and
 * the main resource print the kind. Never undefined: kinds without their own printer get
 * {@link defaultPrinter}.
 */
export function printerFor(def: Pick<ResourceDef, 'printer' | 'printerColumns'>, subresource = ''): TablePrinter {
  if (subresource === 'scale') return scalePrinter;
  if (def.printerColumns !== undefined && def.printerColumns.length > 0) return customPrinter(def.printerColumns);
  return def.printer ?? defaultPrinter;
}
