/**
 * controllerrevisions as kubectl prints them (printControllerRevision: NAME CONTROLLER REVISION
 * AGE). CONTROLLER is the controller owner as `kind.group/name` in lower case
 * ("statefulset.apps/web"), `<none>` without one.
 */
import { ageColumn, column, int, list, nameColumn, record, str } from '../../../tables/columns.js';
import { objectAge } from '../../../tables/duration.js';
import type { TablePrinter } from '../../../tables/table.js';

/**
 * The controller owner as formatResourceName writes it, `<none>` without one. An apiVersion that
 * is no group version (two slashes) counts as having no group, where kube-apiserver fails the table.
 */
export function controllerName(ownerReferences: unknown): string {
  const ref = list(ownerReferences).map(record).find((r) => r?.['controller'] === true);
  if (ref === undefined) return '<none>';
  const apiVersion = str(ref['apiVersion']);
  const parts = apiVersion.split('/');
  const group = parts.length === 2 ? parts[0]! : '';
  const kind = str(ref['kind']);
  const name = str(ref['name']);
  if (group === '' && kind === '') return name;
  return `${(group === '' ? kind : `${kind}.${group}`).toLowerCase()}/${name}`;
}

/** controllerrevisions (apps/v1). */
export const controllerRevisionPrinter: TablePrinter = {
  columns: [
    nameColumn(),
    column('Controller', 'string', 'Controller of the object'),
    column('Revision', 'number', 'Revision indicates the revision of the state represented by Data.'),
    ageColumn(),
  ],
  row(obj, now) {
    return { cells: [str(obj.metadata.name), controllerName(obj.metadata.ownerReferences), int(obj['revision']), objectAge(obj, now)] };
  },
};
