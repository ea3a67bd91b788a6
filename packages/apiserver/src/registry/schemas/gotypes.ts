/**
 * The Go type names of schema objects, kept beside the schemas (not in them), so typed decoding's
 * messages can name Kubernetes' Go types ("v1.PodSpec", "resource.Quantity") while /openapi/v3
 * serves the schemas unchanged. Schemas without a recorded name get one derived from their shape
 * (registry/typecheck.ts).
 */
import type { Schema } from '@setpoint/api';

const names = new WeakMap<Schema, string>();

/**
 * Records `goType` ("v1.PodSpec", "v1.ResourceList", "v1.Time") as the Go type of `schema` and
 * returns `schema`. For a struct, the part after the package is its struct name ("PodSpec").
 */
export function goType<T extends Schema>(goTypeName: string, schema: T): T {
  names.set(schema, goTypeName);
  return schema;
}

/** The Go type name recorded for `schema`, if any. */
export function recordedGoType(schema: Schema): string | undefined {
  return names.get(schema);
}
