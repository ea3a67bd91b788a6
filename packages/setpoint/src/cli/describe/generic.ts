/**
 * describe for any kind (custom resources, kinds without their own describer), as kubectl's
 * generic describer: Name, Namespace, Labels, Annotations, then every other field of the object in
 * key order, camelCase keys spelled as words ("creationTimestamp" → "Creation Timestamp"), nested
 * maps and lists indented below their key; managedFields left out.
 */
import type { KubeObject } from '@setpoint/api';
import { type DescribeWriter, rec } from './writer.js';

const ACRONYMS = new Set(['API', 'URL', 'UID', 'OSB', 'GUID']);

/** "creationTimestamp" → "Creation Timestamp", "apiVersion" → "API Version"; keys with other characters than letters and '-' stay as they are. */
export function smartLabel(field: string): string {
  if (/[^A-Za-z-]/.test(field)) return field;
  const parts = field.match(/[A-Z]+(?![a-z])|[A-Z]?[a-z]+|-/g) ?? [field];
  return parts
    .filter((p) => p !== '-')
    .map((p) => (ACRONYMS.has(p.toUpperCase()) ? p.toUpperCase() : p.charAt(0).toUpperCase() + p.slice(1)))
    .join(' ');
}

function scalar(value: unknown): string {
  if (value === null || value === undefined) return '<nil>';
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

/** Writes `content`'s fields at `level`, skipping the dotted paths in `skip` (".metadata.name"). */
export function writeContent(w: DescribeWriter, level: number, content: Readonly<Record<string, unknown>>, path: string, skip: ReadonlySet<string>): void {
  for (const key of Object.keys(content).sort()) {
    const value = content[key];
    const at = `${path}.${key}`;
    if (skip.has(at)) continue;
    if (rec(value) !== undefined) {
      w.line(level, `${smartLabel(key)}:`);
      writeContent(w, level + 1, rec(value)!, at, skip);
    } else if (Array.isArray(value)) {
      w.line(level, `${smartLabel(key)}:`);
      for (const item of value) {
        if (rec(item) !== undefined) writeContent(w, level + 1, rec(item)!, at, skip);
        else w.line(level + 1, scalar(item));
      }
    } else {
      w.line(level, `${smartLabel(key)}:`, scalar(value));
    }
  }
}

const GENERIC_SKIP = new Set(['.metadata.managedFields', '.metadata.name', '.metadata.namespace', '.metadata.labels', '.metadata.annotations']);

/** The generic description of `obj` (without its events). */
export function describeGeneric(obj: KubeObject, w: DescribeWriter): void {
  w.line(0, 'Name:', obj.metadata?.name ?? '');
  w.line(0, 'Namespace:', obj.metadata?.namespace ?? '');
  w.labels(0, 'Labels', obj.metadata?.labels);
  w.annotations(0, obj.metadata?.annotations);
  writeContent(w, 0, obj as unknown as Record<string, unknown>, '', GENERIC_SKIP);
}
