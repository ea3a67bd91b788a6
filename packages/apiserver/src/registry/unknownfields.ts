/**
 * Field validation against a kind's schema: which fields of an object the schema does not know.
 * fieldValidation=Strict rejects them, Warn reports them in a Warning header, Ignore passes them.
 */
import type { Schema } from '@setpoint/api';

/** Paths of fields `schema` does not declare, as Kubernetes prints them ("spec.containers[0].foo"). */
export function findUnknownFields(value: unknown, schema: Schema | undefined, path = ''): string[] {
  const out: string[] = [];
  walk(value, schema, path, out);
  return out;
}

function walk(value: unknown, schema: Schema | undefined, path: string, out: string[]): void {
  if (schema === undefined || value === null || value === undefined) return;
  if (schema['x-kubernetes-preserve-unknown-fields'] === true || schema['x-kubernetes-int-or-string'] === true) return;
  if (Array.isArray(value)) {
    if (schema.items !== undefined) value.forEach((item, i) => walk(item, schema.items, `${path}[${i}]`, out));
    return;
  }
  if (typeof value !== 'object') return;
  const props = schema.properties;
  const extra = schema.additionalProperties;
  if (props === undefined && extra === undefined) return; // an object the schema leaves open
  for (const [key, child] of Object.entries(value as Record<string, unknown>)) {
    const childPath = path === '' ? key : `${path}.${key}`;
    const declared = props?.[key];
    if (declared !== undefined) walk(child, declared, childPath, out);
    else if (typeof extra === 'object') walk(child, extra, childPath, out);
    else if (extra !== true) out.push(childPath);
  }
}

/** Kubernetes' wording for a strict field validation failure. */
export function strictDecodingMessage(paths: readonly string[]): string {
  return `strict decoding error: ${paths.map((p) => `unknown field "${p}"`).join(', ')}`;
}
