/**
 * Workloads as kubectl prints them: deployments (printDeployment: NAME READY UP-TO-DATE AVAILABLE
 * AGE), replicasets (printReplicaSet: NAME DESIRED CURRENT READY AGE), both with -o wide
 * CONTAINERS IMAGES SELECTOR; podtemplates (printPodTemplate: NAME CONTAINERS IMAGES POD LABELS);
 * and the scale subresource (printScale: NAME DESIRED AVAILABLE AGE).
 */
import { labelSelectorAsSelector, type KubeObject, type LabelSelector } from '@setpoint/api';
import { ageColumn, column, int, layoutContainerCells, nameColumn, record, str } from './columns.js';
import { timestampSince } from './duration.js';
import type { TablePrinter } from './table.js';

const CONTAINERS_DESCRIPTION = 'Names of each container in the template.';
const IMAGES_DESCRIPTION = 'Images referenced by each container in the template.';
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
    column('Containers', 'string', CONTAINERS_DESCRIPTION, 1),
    column('Images', 'string', IMAGES_DESCRIPTION, 1),
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
        timestampSince(obj.metadata.creationTimestamp, now),
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
    column('Containers', 'string', CONTAINERS_DESCRIPTION, 1),
    column('Images', 'string', IMAGES_DESCRIPTION, 1),
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
        timestampSince(obj.metadata.creationTimestamp, now),
        names,
        images,
        selectorString(spec?.['selector'], '<error>') || '<none>',
      ],
    };
  },
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
        timestampSince(obj.metadata.creationTimestamp, now),
      ],
    };
  },
};

/** A label map as labels.FormatLabels writes it: "k=v" sorted by key, comma-separated; "<none>" when empty. */
function formatLabels(labels: unknown): string {
  const entries = Object.entries(record(labels) ?? {}).filter((e): e is [string, string] => typeof e[1] === 'string');
  if (entries.length === 0) return '<none>';
  return entries
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`)
    .join(',');
}

/** podtemplates (v1, printPodTemplate): NAME CONTAINERS IMAGES POD LABELS, no age. */
export const podTemplatePrinter: TablePrinter = {
  columns: [
    nameColumn(),
    column('Containers', 'string', CONTAINERS_DESCRIPTION),
    column('Images', 'string', IMAGES_DESCRIPTION),
    column('Pod Labels', 'string', 'The labels for the pod template.'),
  ],
  row(obj) {
    const template = record(obj['template']);
    const { names, images } = layoutContainerCells(record(template?.['spec']));
    return { cells: [str(obj.metadata.name), names, images, formatLabels(record(template?.['metadata'])?.['labels'])] };
  },
};
