/**
 * Dropping the fields a kind's schema does not declare, as Kubernetes does by decoding a request
 * into the typed object: with fieldValidation Warn or Ignore an unknown field is accepted but never
 * stored. The walk follows the rules of `findUnknownFields` exactly, so the fields dropped are the
 * ones Warn reports (and Strict refuses).
 */
import type { Schema } from '@setpoint/api';

/** Removes, in place, every field of `value` that `schema` does not declare. */
export function pruneUnknownFields(value: unknown, schema: Schema | undefined): void {
  if (schema === undefined || value === null || typeof value !== 'object') return;
  if (schema['x-kubernetes-preserve-unknown-fields'] === true || schema['x-kubernetes-int-or-string'] === true) return;
  if (Array.isArray(value)) {
    if (schema.items !== undefined) for (const item of value) pruneUnknownFields(item, schema.items);
    return;
  }
  const props = schema.properties;
  const extra = schema.additionalProperties;
  if (props === undefined && extra === undefined) return; // an object the schema leaves open
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    const declared = props?.[key];
    if (declared !== undefined) pruneUnknownFields(record[key], declared);
    else if (typeof extra === 'object') pruneUnknownFields(record[key], extra);
    else if (extra !== true) delete record[key];
  }
}
