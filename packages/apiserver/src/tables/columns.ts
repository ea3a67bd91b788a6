/**
 * Building blocks the printers share: the Name and Age columns every kind has, a column
 * constructor, and tolerant readers for fields of stored objects (a printer never throws on a
 * missing or mistyped field; it prints what Kubernetes' typed printers print for a zero value).
 */
import type { TableColumnDefinition } from './table.js';

const NAME_DESCRIPTION =
  'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names';

const CREATION_DESCRIPTION =
  'CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata';

/** A column definition; `priority` 1 marks a column shown only with `-o wide`. */
export function column(name: string, type: string, description: string, priority = 0, format = ''): TableColumnDefinition {
  return { name, type, format, description, priority };
}

/** The Name column (format "name"), as every built-in printer has it. */
export function nameColumn(priority = 0): TableColumnDefinition {
  return column('Name', 'string', NAME_DESCRIPTION, priority, 'name');
}

/** The Age column: a string cell such as "5m2s" computed by the server. */
export function ageColumn(type = 'string'): TableColumnDefinition {
  return column('Age', type, CREATION_DESCRIPTION);
}

/** `v` when it is a plain object, else undefined. */
export function record(v: unknown): Record<string, unknown> | undefined {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

/** `v` when it is a string, else "". */
export function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

/** `v` when it is a finite number, else `fallback` (0). */
export function int(v: unknown, fallback = 0): number {
  return typeof v === 'number' && Number.isFinite(v) ? v : fallback;
}

/** `v` when it is an array, else []. */
export function list(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

/** The number of keys of a map field (0 when absent). */
export function keyCount(v: unknown): number {
  const r = record(v);
  return r === undefined ? 0 : Object.keys(r).length;
}

/** The CONTAINERS and IMAGES columns of a kind with a pod template (at `priority`: 1 for wide only). */
export function containerColumns(priority = 0): TableColumnDefinition[] {
  return [
    column('Containers', 'string', 'Names of each container in the template.', priority),
    column('Images', 'string', 'Images referenced by each container in the template.', priority),
  ];
}

/** A pod template's containers as the wide CONTAINERS and IMAGES cells ("a,b" and "img-a,img-b"). */
export function layoutContainerCells(podSpec: unknown): { names: string; images: string } {
  const containers = list(record(podSpec)?.['containers']).map(record);
  return {
    names: containers.map((c) => str(c?.['name'])).join(','),
    images: containers.map((c) => str(c?.['image'])).join(','),
  };
}
