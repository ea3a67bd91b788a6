/**
 * Table printers of the RBAC kinds, with kubectl's columns: roles and clusterroles print NAME and
 * CREATED AT; rolebindings and clusterrolebindings NAME, ROLE (`Role/pod-reader`) and AGE, and with
 * `-o wide` USERS, GROUPS and SERVICEACCOUNTS (`namespace/name`).
 */
import type { KubeObject } from '@setpoint/api';
import { ageColumn, column, list, nameColumn, record, str } from '../../../tables/columns.js';
import { objectAge } from '../../../tables/duration.js';
import type { TablePrinter } from '../../../tables/table.js';

/** roles and clusterroles. */
export const rolePrinter: TablePrinter = {
  columns: [nameColumn(), column('Created At', 'string', 'Timestamp is a wrapper around time.Time which supports correct marshaling to YAML and JSON.', 0, 'date')],
  row: (obj) => ({ cells: [str(obj.metadata.name), str(obj.metadata.creationTimestamp)] }),
};

function subjectsOf(obj: KubeObject, kind: string): string {
  return list(obj['subjects'])
    .map(record)
    .filter((s) => s !== undefined && s['kind'] === kind)
    .map((s) => (kind === 'ServiceAccount' ? `${str(s!['namespace'])}/${str(s!['name'])}` : str(s!['name'])))
    .join(', ');
}

/** rolebindings and clusterrolebindings. */
export const roleBindingPrinter: TablePrinter = {
  columns: [
    nameColumn(),
    column('Role', 'string', 'RoleRef can reference a Role in the current namespace or a ClusterRole in the global namespace.'),
    ageColumn(),
    column('Users', 'string', 'Users in the binding', 1),
    column('Groups', 'string', 'Groups in the binding', 1),
    column('ServiceAccounts', 'string', 'ServiceAccounts in the binding', 1),
  ],
  row: (obj, now) => {
    const ref = record(obj['roleRef']);
    return {
      cells: [
        str(obj.metadata.name),
        `${str(ref?.['kind'])}/${str(ref?.['name'])}`,
        objectAge(obj, now),
        subjectsOf(obj, 'User'),
        subjectsOf(obj, 'Group'),
        subjectsOf(obj, 'ServiceAccount'),
      ],
    };
  },
};
