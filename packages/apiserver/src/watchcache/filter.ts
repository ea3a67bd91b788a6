/**
 * Which objects a list or watch asks for: a namespace, a label selector and a field selector,
 * checked against the field labels the kind supports.
 */
import { ApiError, FieldsSelector, LabelsSelector, parseFieldSelector, parseLabelSelector, type KubeObject } from '@setpoint/api';
import type { ResourceDef } from '../registry/types.js';

export interface ObjectFilter {
  /** '' for every namespace (and for cluster-scoped kinds). */
  readonly namespace: string;
  readonly labels: LabelsSelector;
  readonly fields: FieldsSelector;
}

/** A filter that lets everything through in `namespace`. */
export function namespaceFilter(namespace: string): ObjectFilter {
  return { namespace, labels: LabelsSelector.everything(), fields: FieldsSelector.everything() };
}

/**
 * Parses the selectors of a request. Throws BadRequest for bad syntax and for field labels the kind
 * does not support (`field label not supported: X`).
 */
export function parseFilter(def: ResourceDef, namespace: string, labelSelector?: string, fieldSelector?: string): ObjectFilter {
  const labels = labelSelector ? parseLabelSelector(labelSelector) : LabelsSelector.everything();
  const fields = fieldSelector ? parseFieldSelector(fieldSelector) : FieldsSelector.everything();
  for (const req of fields.requirements()) {
    if (req.field === 'metadata.name' || req.field === 'metadata.namespace') continue;
    if (def.fieldSelectors?.[req.field] === undefined) throw ApiError.badRequest(`field label not supported: ${req.field}`);
  }
  return { namespace: def.namespaced ? namespace : '', labels, fields };
}

/** The field values of `obj` that field selectors can test. */
export function fieldsOf(def: ResourceDef, obj: KubeObject): Record<string, string> {
  const fields: Record<string, string> = {
    'metadata.name': obj.metadata.name ?? '',
    'metadata.namespace': obj.metadata.namespace ?? '',
  };
  if (def.fieldSelectors) {
    for (const [label, read] of Object.entries(def.fieldSelectors)) fields[label] = read(obj);
  }
  return fields;
}

/** Whether `obj` passes `filter`. */
export function matchesFilter(def: ResourceDef, filter: ObjectFilter, obj: KubeObject): boolean {
  if (filter.namespace !== '' && obj.metadata.namespace !== filter.namespace) return false;
  if (!filter.labels.isEmpty() && !filter.labels.matches(obj.metadata.labels ?? {})) return false;
  if (!filter.fields.isEmpty() && !filter.fields.matches(fieldsOf(def, obj))) return false;
  return true;
}

/** Whether the filter lets everything in its namespace through (no selector to evaluate). */
export function isNamespaceOnly(filter: ObjectFilter): boolean {
  return filter.labels.isEmpty() && filter.fields.isEmpty();
}
