/**
 * The JSON types of ObjectMeta's fields, checked as Kubernetes' typed decoding checks them: a body
 * whose metadata has a field of the wrong type (labels as a list, an owner reference that is not
 * an object) is refused with 400 and Go's decoding message, before anything reads the field.
 * JSON null is accepted wherever Go accepts it and read as Go's zero value: a null label or
 * annotation value or finalizer is "", a null owner reference or managedFields entry is {}.
 */
import { ApiError } from '@setpoint/api';

type GoType = 'string' | 'int64' | 'map[string]string' | '[]string' | '[]object';

const FIELDS: Record<string, { readonly go: GoType; readonly goName: string }> = {
  name: { go: 'string', goName: 'string' },
  generateName: { go: 'string', goName: 'string' },
  namespace: { go: 'string', goName: 'string' },
  uid: { go: 'string', goName: 'types.UID' },
  resourceVersion: { go: 'string', goName: 'string' },
  selfLink: { go: 'string', goName: 'string' },
  creationTimestamp: { go: 'string', goName: 'v1.Time' },
  deletionTimestamp: { go: 'string', goName: 'v1.Time' },
  generation: { go: 'int64', goName: 'int64' },
  deletionGracePeriodSeconds: { go: 'int64', goName: 'int64' },
  labels: { go: 'map[string]string', goName: 'map[string]string' },
  annotations: { go: 'map[string]string', goName: 'map[string]string' },
  finalizers: { go: '[]string', goName: '[]string' },
  ownerReferences: { go: '[]object', goName: '[]v1.OwnerReference' },
  managedFields: { go: '[]object', goName: '[]v1.ManagedFieldsEntry' },
};

/** Go's name for the JSON type of a value, as its decoder prints it. */
function jsonType(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'boolean') return 'bool';
  return typeof v; // string, number, object
}

/**
 * Checks the types of `meta`'s fields (nulls inside them become Go's zero values). Throws
 * ApiError BadRequest: `ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot
 * unmarshal array into Go struct field ObjectMeta.metadata.labels of type map[string]string`.
 */
export function checkObjectMetaTypes(meta: Record<string, unknown>, kind: string, version: string): void {
  const refuse = (field: string, value: unknown, goType: string): never => {
    throw ApiError.badRequest(`${kind} in version "${version}" cannot be handled as a ${kind}: json: cannot unmarshal ${jsonType(value)} into Go struct field ObjectMeta.metadata.${field} of type ${goType}`);
  };
  for (const [field, { go, goName }] of Object.entries(FIELDS)) {
    const value = meta[field];
    if (value === undefined || value === null) continue;
    switch (go) {
      case 'string':
        if (typeof value !== 'string') refuse(field, value, goName);
        break;
      case 'int64':
        if (typeof value !== 'number' || !Number.isInteger(value)) refuse(field, value, goName);
        break;
      case 'map[string]string': {
        if (typeof value !== 'object' || Array.isArray(value)) refuse(field, value, goName);
        const map = value as Record<string, unknown>;
        for (const [k, v] of Object.entries(map)) {
          if (v === null) map[k] = '';
          else if (typeof v !== 'string') refuse(field, v, 'string');
        }
        break;
      }
      case '[]string': {
        if (!Array.isArray(value)) refuse(field, value, goName);
        const list = value as unknown[];
        list.forEach((item, i) => {
          if (item === null) list[i] = '';
          else if (typeof item !== 'string') refuse(field, item, 'string');
        });
        break;
      }
      case '[]object': {
        if (!Array.isArray(value)) refuse(field, value, goName);
        const list = value as unknown[];
        list.forEach((item, i) => {
          if (item === null) list[i] = {};
          else if (typeof item !== 'object' || Array.isArray(item)) refuse(field, item, goName.slice(2));
        });
        break;
      }
    }
  }
}
