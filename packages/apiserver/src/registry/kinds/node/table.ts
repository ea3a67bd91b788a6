/**
 * Nodes as `kubectl get nodes` prints them (Kubernetes' printNode): NAME STATUS ROLES AGE VERSION,
 * and with -o wide INTERNAL-IP EXTERNAL-IP OS-IMAGE KERNEL-VERSION CONTAINER-RUNTIME.
 */
import type { KubeObject } from '@setpoint/api';
import { ageColumn, column, list, nameColumn, record, str } from '../../../tables/columns.js';
import { timestampSince } from '../../../tables/duration.js';
import type { PrintedRow, TablePrinter } from '../../../tables/table.js';

const ROLE_LABEL_PREFIX = 'node-role.kubernetes.io/';
const ROLE_LABEL = 'kubernetes.io/role';

/**
 * The STATUS cell: "Ready" when the Ready condition is True, "NotReady" when it is False or
 * Unknown, "Unknown" without a Ready condition; ",SchedulingDisabled" appended for a cordoned node.
 */
export function nodeStatus(node: KubeObject): string {
  const status: string[] = [];
  const ready = list(record(node['status'])?.['conditions'])
    .map(record)
    .findLast((c) => c?.['type'] === 'Ready');
  if (ready !== undefined) status.push(ready['status'] === 'True' ? 'Ready' : 'NotReady');
  else status.push('Unknown');
  if (record(node['spec'])?.['unschedulable'] === true) status.push('SchedulingDisabled');
  return status.join(',');
}

/**
 * The ROLES cell: each `node-role.kubernetes.io/<role>` label and the value of a non-empty
 * `kubernetes.io/role` label, sorted and de-duplicated, joined with ","; "<none>" without any.
 */
export function nodeRoles(node: KubeObject): string {
  const roles = new Set<string>();
  for (const [key, value] of Object.entries(node.metadata.labels ?? {})) {
    if (key.startsWith(ROLE_LABEL_PREFIX)) {
      const role = key.slice(ROLE_LABEL_PREFIX.length);
      if (role !== '') roles.add(role);
    } else if (key === ROLE_LABEL && value !== '') {
      roles.add(value);
    }
  }
  return roles.size === 0 ? '<none>' : [...roles].sort().join(',');
}

function address(node: KubeObject, type: string): string {
  const found = list(record(node['status'])?.['addresses'])
    .map(record)
    .find((a) => a?.['type'] === type);
  return str(found?.['address']) || '<none>';
}

function nodeRow(node: KubeObject, now: number): PrintedRow {
  const info = record(record(node['status'])?.['nodeInfo']);
  return {
    cells: [
      str(node.metadata.name),
      nodeStatus(node),
      nodeRoles(node),
      timestampSince(node.metadata.creationTimestamp, now),
      str(info?.['kubeletVersion']),
      address(node, 'InternalIP'),
      address(node, 'ExternalIP'),
      str(info?.['osImage']) || '<unknown>',
      str(info?.['kernelVersion']) || '<unknown>',
      str(info?.['containerRuntimeVersion']) || '<unknown>',
    ],
  };
}

/** nodes (v1). */
export const nodePrinter: TablePrinter = {
  columns: [
    nameColumn(),
    column('Status', 'string', 'The status of the node'),
    column('Roles', 'string', 'The roles of the node'),
    ageColumn(),
    column('Version', 'string', 'Kubelet Version reported by the node.'),
    column('Internal-IP', 'string', 'List of addresses reachable to the node. Queried from cloud provider, if available.', 1),
    column('External-IP', 'string', 'List of addresses reachable to the node. Queried from cloud provider, if available.', 1),
    column('OS-Image', 'string', 'OS Image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 (wheezy)).', 1),
    column('Kernel-Version', 'string', "Kernel Version reported by the node from 'uname -r' (e.g. 3.16.0-0.bpo.4-amd64).", 1),
    column('Container-Runtime', 'string', 'ContainerRuntime Version reported by the node through runtime remote API (e.g. containerd://1.4.2).', 1),
  ],
  row: nodeRow,
};
