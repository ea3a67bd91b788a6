/**
 * podtemplates as kubectl prints them (printPodTemplate: NAME CONTAINERS IMAGES POD LABELS).
 */
import { column, containerColumns, layoutContainerCells, nameColumn, record, str } from '../../../tables/columns.js';
import type { TablePrinter } from '../../../tables/table.js';

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
    ...containerColumns(),
    column('Pod Labels', 'string', 'The labels for the pod template.'),
  ],
  row(obj) {
    const template = record(obj['template']);
    const { names, images } = layoutContainerCells(record(template?.['spec']));
    return { cells: [str(obj.metadata.name), names, images, formatLabels(record(template?.['metadata'])?.['labels'])] };
  },
};
