/**
 * Workloads as kubectl prints them: deployments (printDeployment: NAME READY UP-TO-DATE AVAILABLE
 * AGE), replicasets (printReplicaSet: NAME DESIRED CURRENT READY AGE), both with -o wide
 * CONTAINERS IMAGES SELECTOR. The scale subresource's printer is tables/printers.ts' scalePrinter.
 */
import { labelSelectorAsSelector, type KubeObject, type LabelSelector } from '@setpoint/api';
import { ageColumn, column, containerColumns, int, layoutContainerCells, nameColumn, record, str } from '../../../tables/columns.js';
import { objectAge } from '../../../tables/duration.js';
import type { TablePrinter } from '../../../tables/table.js';

const SELECTOR_DESCRIPTION = 'Label selector for pods. Existing ReplicaSets whose pods are selected by this will be the ones affected by this deployment.';

/**
 * A label selector as a string (`a=b,c in (x,y)`): "" for none or an empty one, `invalid` when it
 * does not parse.
 */
function selectorString(selector: unknown, invalid: string): string {
  if (selector === undefined || selector === null) return '';
  try {
    return labelSelectorAsSelector(selector as LabelSelector).toString();
  } catch {
    // An unparseable stored selector prints as a marker, as kubectl prints it; nothing to log.
    return invalid;
  }
}

function templateSpec(obj: KubeObject): unknown {
  return record(record(record(obj['spec'])?.['template'])?.['spec']);
}

/** deployments (apps/v1). */
export const deploymentPrinter: TablePrinter = {
  columns: [
    nameColumn(),
    column('Ready', 'string', 'Number of the pod with ready state'),
    column('Up-to-date', 'string', 'Total number of non-terminated pods targeted by this deployment that have the desired template spec.'),
    column('Available', 'string', 'Total number of available pods (ready for at least minReadySeconds) targeted by this deployment.'),
    ageColumn(),
    ...containerColumns(1),
    column('Selector', 'string', SELECTOR_DESCRIPTION, 1),
  ],
  row(obj, now) {
    const spec = record(obj['spec']);
    const status = record(obj['status']);
    const { names, images } = layoutContainerCells(templateSpec(obj));
    return {
      cells: [
        str(obj.metadata.name),
        `${int(status?.['readyReplicas'])}/${int(spec?.['replicas'], 1)}`,
        int(status?.['updatedReplicas']),
        int(status?.['availableReplicas']),
        objectAge(obj, now),
        names,
        images,
        selectorString(spec?.['selector'], '<invalid>'),
      ],
    };
  },
};

/** replicasets (apps/v1). */
export const replicaSetPrinter: TablePrinter = {
  columns: [
    nameColumn(),
    column('Desired', 'integer', 'Replicas is the number of desired pods.'),
    column('Current', 'integer', 'Replicas is the most recently observed number of replicas.'),
    column('Ready', 'integer', 'The number of ready replicas for this replica set.'),
    ageColumn(),
    ...containerColumns(1),
    column('Selector', 'string', 'Selector is a label query over pods that should match the replica count.', 1),
  ],
  row(obj, now) {
    const spec = record(obj['spec']);
    const status = record(obj['status']);
    const { names, images } = layoutContainerCells(templateSpec(obj));
    return {
      cells: [
        str(obj.metadata.name),
        int(spec?.['replicas'], 1),
        int(status?.['replicas']),
        int(status?.['readyReplicas']),
        objectAge(obj, now),
        names,
        images,
        selectorString(spec?.['selector'], '<error>') || '<none>',
      ],
    };
  },
};
