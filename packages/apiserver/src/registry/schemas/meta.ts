/**
 * The OpenAPI v3 schemas of apimachinery's meta/v1 types every kind embeds (ObjectMeta,
 * OwnerReference, ManagedFieldsEntry, LabelSelector, Condition, ListMeta), and small builders the
 * per-kind schema files use. Field names, types and x-kubernetes-* patch metadata follow
 * kubernetes/kubernetes api/openapi-spec/v3; trees are inline (no $ref), so a schema object can be
 * walked without a resolver. The server validates fields against these trees under
 * fieldValidation=Strict, and strategic merge patch reads merge keys and strategies from them.
 *
 * The exported schema objects are shared between kinds: treat them as read-only.
 */
import type { Schema } from '@setpoint/api';
import { goType } from './gotypes.js';

// ---------------------------------------------------------------------------------------------
// Builders

/** A string field. */
export function stringField(description: string, extra: Partial<Schema> = {}): Schema {
  return { type: 'string', description, ...extra };
}

/** An int32 field. */
export function int32Field(description: string): Schema {
  return { type: 'integer', format: 'int32', description };
}

/** An int64 field. */
export function int64Field(description: string): Schema {
  return { type: 'integer', format: 'int64', description };
}

/** A boolean field. */
export function booleanField(description: string): Schema {
  return { type: 'boolean', description };
}

/** A metav1.Time field: RFC 3339 with seconds precision ("2026-11-29T15:47:44Z"). */
export function timeField(description: string): Schema {
  return goType('v1.Time', { type: 'string', format: 'date-time', description });
}

/** A metav1.MicroTime field: RFC 3339 with microseconds ("2026-11-29T15:47:44.123456Z"). */
export function microTimeField(description: string): Schema {
  return goType('v1.MicroTime', { type: 'string', format: 'date-time', description });
}

/** A map of string to string (labels, annotations, ConfigMap data). */
export function stringMapField(description: string): Schema {
  return { type: 'object', description, additionalProperties: { type: 'string', default: '' } };
}

/** A map of string to base64 bytes (Secret data, ConfigMap binaryData). */
export function byteMapField(description: string): Schema {
  return { type: 'object', description, additionalProperties: { type: 'string', format: 'byte' } };
}

/** A resource.Quantity: a string or a number in the wire format ("100m", "1Gi", 2), as OpenAPI v3 publishes it. */
export function quantityField(description: string): Schema {
  return { description, oneOf: [{ type: 'string' }, { type: 'number' }] };
}

/** A map of resource name to Quantity (capacity, allocatable, requests). */
export function quantityMapField(description: string): Schema {
  return goType('v1.ResourceList', { type: 'object', description, additionalProperties: quantityField('A resource quantity.') });
}

/** An atomic list of strings (replaced whole by a strategic merge patch). */
export function atomicStringList(description: string): Schema {
  return { type: 'array', description, items: { type: 'string', default: '' }, 'x-kubernetes-list-type': 'atomic' };
}

/** An atomic list of objects (replaced whole by a strategic merge patch). */
export function atomicList(description: string, items: Schema): Schema {
  return { type: 'array', description, items, 'x-kubernetes-list-type': 'atomic' };
}

/**
 * A list of objects merged by one key (`x-kubernetes-list-type: map`, patch strategy merge with
 * `mergeKey`). `listMapKeys` defaults to `[mergeKey]`.
 */
export function mapList(description: string, items: Schema, mergeKey: string, listMapKeys: string[] = [mergeKey]): Schema {
  return {
    type: 'array',
    description,
    items,
    'x-kubernetes-list-type': 'map',
    'x-kubernetes-list-map-keys': listMapKeys,
    'x-kubernetes-patch-merge-key': mergeKey,
    'x-kubernetes-patch-strategy': 'merge',
  };
}

/** An object with the given properties; `required` lists the fields that must be present. */
export function objectField(description: string, properties: Record<string, Schema>, required?: string[]): Schema {
  const schema: Schema = { type: 'object', description, properties };
  if (required !== undefined && required.length > 0) schema.required = required;
  return schema;
}

// ---------------------------------------------------------------------------------------------
// TypeMeta

/** apiVersion and kind, the two TypeMeta properties every top-level object and list has. */
export const typeMetaProperties: Readonly<Record<'apiVersion' | 'kind', Schema>> = {
  apiVersion: stringField('The versioned schema of this representation of an object, e.g. "v1" or "apps/v1".'),
  kind: stringField('The REST type of this object, in CamelCase (e.g. "ConfigMap").'),
};

// ---------------------------------------------------------------------------------------------
// ObjectMeta and its parts

/** metav1.OwnerReference: a pointer from a dependent to its owner (garbage collection). */
export const ownerReferenceSchema: Schema = {
  type: 'object',
  description: 'Identifies an owning object; the owner must be in the same namespace as the dependent, or cluster-scoped.',
  required: ['apiVersion', 'kind', 'name', 'uid'],
  properties: {
    apiVersion: stringField('API version of the owner.', { default: '' }),
    blockOwnerDeletion: booleanField('With foreground deletion, the owner is not removed before this dependent is.'),
    controller: booleanField('This reference points to the managing controller.'),
    kind: stringField('Kind of the owner.', { default: '' }),
    name: stringField('Name of the owner.', { default: '' }),
    uid: goType('types.UID', stringField('UID of the owner.', { default: '' })),
  },
  'x-kubernetes-map-type': 'atomic',
};

/** metav1.ManagedFieldsEntry: server-side apply's record of which manager owns which fields. */
export const managedFieldsEntrySchema: Schema = {
  type: 'object',
  description: 'A workflow-id, a field set and the API version the field set is in.',
  properties: {
    apiVersion: stringField('The version of the resource the field set applies to.'),
    fieldsType: stringField('The format of the fields field; the only one is "FieldsV1".'),
    fieldsV1: goType('v1.FieldsV1', {
      type: 'object',
      description: 'The field set, in the FieldsV1 format.',
      'x-kubernetes-preserve-unknown-fields': true,
    }),
    manager: stringField('The identifier of the workflow managing these fields.'),
    operation: stringField('The operation that made this entry: "Apply" or "Update".'),
    subresource: stringField('The subresource used to update the object, empty for the main resource.'),
    time: timeField('When these fields were last changed by an Apply operation.'),
  },
};

/** metav1.ObjectMeta: the metadata of every persisted object. */
export const objectMetaSchema: Schema = {
  type: 'object',
  description: 'Standard object metadata.',
  properties: {
    annotations: stringMapField('Unstructured key/value data set by external tools; not queryable.'),
    creationTimestamp: timeField('When the server created this object (UTC, RFC 3339). Read-only.'),
    deletionGracePeriodSeconds: int64Field('Seconds the object is allowed to terminate gracefully before removal. Read-only.'),
    deletionTimestamp: timeField('When this object will be deleted; set by the server when deletion is requested. Read-only.'),
    finalizers: {
      type: 'array',
      description: 'Must be empty before the object is removed from storage.',
      items: { type: 'string', default: '' },
      'x-kubernetes-list-type': 'set',
      'x-kubernetes-patch-strategy': 'merge',
    },
    generateName: stringField('An optional prefix the server uses to generate a unique name when name is empty.'),
    generation: int64Field('A sequence number for the desired state. Set by the server. Read-only.'),
    labels: stringMapField('Key/value pairs used to organise and select objects.'),
    managedFields: atomicList('Which manager owns which fields (server-side apply).', managedFieldsEntrySchema),
    name: stringField('Unique name within a namespace; cannot be updated.'),
    namespace: stringField('The namespace the object is in; empty for cluster-scoped objects.'),
    ownerReferences: mapList('Objects this object depends on; garbage collected when all owners are gone.', ownerReferenceSchema, 'uid'),
    resourceVersion: stringField('An opaque value for optimistic concurrency and watches. Read-only.'),
    selfLink: stringField('Deprecated; not set by the server. Read-only.'),
    uid: goType('types.UID', stringField('Unique in time and space; set by the server on creation. Read-only.')),
  },
};

/** metav1.ListMeta: the metadata of a list. */
export const listMetaSchema: Schema = {
  type: 'object',
  description: 'Standard list metadata.',
  properties: {
    continue: stringField('Set when more results are available; pass it to get the next page.'),
    remainingItemCount: int64Field('The number of items left after this page (an estimate under some conditions).'),
    resourceVersion: stringField('The revision the list was read at.'),
    selfLink: stringField('Deprecated; not set by the server.'),
  },
};

// ---------------------------------------------------------------------------------------------
// LabelSelector and Condition

/** metav1.LabelSelectorRequirement. */
export const labelSelectorRequirementSchema: Schema = {
  type: 'object',
  description: 'A selector requirement: a key, an operator and values.',
  required: ['key', 'operator'],
  properties: {
    key: stringField('The label key the selector applies to.', { default: '' }),
    operator: stringField("The key's relationship to the values: In, NotIn, Exists or DoesNotExist.", { default: '' }),
    values: atomicStringList('Values for In and NotIn (non-empty); empty for Exists and DoesNotExist.'),
  },
};

/** metav1.LabelSelector: matchLabels ANDed with matchExpressions; atomic under strategic merge. */
export const labelSelectorSchema: Schema = {
  type: 'object',
  description: 'A label query over a set of resources; an empty selector matches everything, a null one nothing.',
  properties: {
    matchExpressions: atomicList('Label selector requirements, ANDed.', labelSelectorRequirementSchema),
    matchLabels: stringMapField('Key/value pairs, each equivalent to an In requirement with one value.'),
  },
  'x-kubernetes-map-type': 'atomic',
};

/** metav1.Condition: one aspect of an object's current state. */
export const conditionSchema: Schema = {
  type: 'object',
  description: 'Details of one aspect of the current state of a resource.',
  required: ['type', 'status', 'lastTransitionTime', 'reason', 'message'],
  properties: {
    lastTransitionTime: timeField('When the condition last changed from one status to another.'),
    message: stringField('A human-readable message about the transition; may be empty.', { default: '' }),
    observedGeneration: int64Field('The metadata.generation the condition was set for.'),
    reason: stringField('A CamelCase programmatic identifier of the last transition.', { default: '' }),
    status: stringField('True, False or Unknown.', { default: '' }),
    type: stringField('The type of condition, in CamelCase or foo.example.com/CamelCase.', { default: '' }),
  },
};

goType('v1.OwnerReference', ownerReferenceSchema);
goType('v1.ManagedFieldsEntry', managedFieldsEntrySchema);
goType('v1.ObjectMeta', objectMetaSchema);
goType('v1.ListMeta', listMetaSchema);
goType('v1.LabelSelectorRequirement', labelSelectorRequirementSchema);
goType('v1.LabelSelector', labelSelectorSchema);
goType('v1.Condition', conditionSchema);

/**
 * A list of conditions keyed by type for server-side apply (`x-kubernetes-list-type: map`), with no
 * strategic-merge strategy: a strategic merge patch replaces it whole (CRD status publishes it so).
 */
export function conditionsField(description: string, items: Schema = conditionSchema): Schema {
  return { type: 'array', description, items, 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['type'] };
}

// ---------------------------------------------------------------------------------------------
// Top-level kinds

/** What {@link kindSchema} needs to build a top-level schema. */
export interface KindSchemaOptions {
  /** API group; '' for the core group. */
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly description: string;
  /** The kind's own properties (spec, status, data, ...); apiVersion, kind and metadata are added. */
  readonly properties: Record<string, Schema>;
  /** Required top-level properties, if any. */
  readonly required?: string[];
}

/**
 * A top-level kind schema: an object with apiVersion, kind, metadata ({@link objectMetaSchema}),
 * the given properties, and `x-kubernetes-group-version-kind` naming the kind (kubectl explain
 * and apply find schemas by it).
 */
export function kindSchema(options: KindSchemaOptions): Schema {
  const schema: Schema = {
    type: 'object',
    description: options.description,
    properties: {
      apiVersion: typeMetaProperties.apiVersion,
      kind: typeMetaProperties.kind,
      metadata: objectMetaSchema,
      ...options.properties,
    },
    'x-kubernetes-group-version-kind': [{ group: options.group, version: options.version, kind: options.kind }],
  };
  if (options.required !== undefined && options.required.length > 0) schema.required = options.required;
  return schema;
}

/**
 * The list schema of a kind (`<Kind>List`): apiVersion, kind, metadata ({@link listMetaSchema}) and
 * `items` of `itemSchema`, with `x-kubernetes-group-version-kind` naming the list kind.
 */
export function listSchema(options: { group: string; version: string; kind: string; itemSchema: Schema }): Schema {
  return {
    type: 'object',
    description: `A list of ${options.kind} objects.`,
    required: ['items'],
    properties: {
      apiVersion: typeMetaProperties.apiVersion,
      items: { type: 'array', description: `The ${options.kind} objects.`, items: options.itemSchema },
      kind: typeMetaProperties.kind,
      metadata: listMetaSchema,
    },
    'x-kubernetes-group-version-kind': [{ group: options.group, version: options.version, kind: `${options.kind}List` }],
  };
}
