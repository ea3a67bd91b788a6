/**
 * Which printer prints which resource: the built-in kinds kubectl users know by their columns, and
 * for every other kind NAME and AGE (as kube-apiserver prints custom resources without
 * additionalPrinterColumns).
 */
import type { ResourceDef } from '../registry/types.js';
import { ageColumn, column, nameColumn, str } from './columns.js';
import { configMapPrinter, eventPrinter, leasePrinter, namespacePrinter, secretPrinter, serviceAccountPrinter } from './core.js';
import { customPrinter } from './custom.js';
import { timestampSince } from './duration.js';
import { nodePrinter } from './node.js';
import { podPrinter } from './pod.js';
import { roleBindingPrinter, rolePrinter } from './rbac.js';
import type { TablePrinter } from './table.js';
import { deploymentPrinter, podTemplatePrinter, replicaSetPrinter, scalePrinter } from './workloads.js';

/** NAME and AGE (a "date" column whose cells the server renders as ages, like "5m2s"). */
export const defaultPrinter: TablePrinter = {
  columns: [nameColumn(), ageColumn('date')],
  row: (obj, now) => ({ cells: [str(obj.metadata.name), timestampSince(obj.metadata.creationTimestamp, now)] }),
};

/** customresourcedefinitions: NAME and CREATED AT (the timestamp itself, as kubectl prints it). */
export const crdPrinter: TablePrinter = {
  columns: [nameColumn(), column('Created At', 'date', 'The time the definition was created.')],
  row: (obj) => ({ cells: [str(obj.metadata.name), str(obj.metadata.creationTimestamp)] }),
};

/** Printers by "group/resource" ("" group for core). */
const printers: ReadonlyMap<string, TablePrinter> = new Map([
  ['/pods', podPrinter],
  ['/nodes', nodePrinter],
  ['/namespaces', namespacePrinter],
  ['/configmaps', configMapPrinter],
  ['/secrets', secretPrinter],
  ['/serviceaccounts', serviceAccountPrinter],
  ['/events', eventPrinter],
  ['/podtemplates', podTemplatePrinter],
  ['apps/deployments', deploymentPrinter],
  ['apps/replicasets', replicaSetPrinter],
  ['coordination.k8s.io/leases', leasePrinter],
  ['apiextensions.k8s.io/customresourcedefinitions', crdPrinter],
  ['rbac.authorization.k8s.io/roles', rolePrinter],
  ['rbac.authorization.k8s.io/clusterroles', rolePrinter],
  ['rbac.authorization.k8s.io/rolebindings', roleBindingPrinter],
  ['rbac.authorization.k8s.io/clusterrolebindings', roleBindingPrinter],
]);

/**
 * The printer for a resource, or for one of its subresources: "scale" prints a Scale, "status" and
 * the main resource print the kind. Never undefined: kinds without their own printer get
 * {@link defaultPrinter}.
 */
export function printerFor(def: Pick<ResourceDef, 'group' | 'resource' | 'printerColumns'>, subresource = ''): TablePrinter {
  if (subresource === 'scale') return scalePrinter;
  if (def.printerColumns !== undefined && def.printerColumns.length > 0) return customPrinter(def.printerColumns);
  return printers.get(`${def.group}/${def.resource}`) ?? defaultPrinter;
}
