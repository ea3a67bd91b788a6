/**
 * OpenAPI v3 schema objects (the subset Setpoint writes and reads): the schemas of built-in kinds
 * and custom resources. The API server publishes them (/openapi/v3), validates fields against them,
 * and strategic merge patch reads its merge keys and strategies from them.
 */
/** An OpenAPI v3 schema object (the subset we write), used for OpenAPI documents and field validation. */
export interface Schema {
  title?: string;
  nullable?: boolean;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  minItems?: number;
  maxItems?: number;
  oneOf?: Schema[];
  anyOf?: Schema[];
  type?: 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean';
  format?: string;
  description?: string;
  properties?: Record<string, Schema>;
  additionalProperties?: Schema | boolean;
  items?: Schema;
  required?: string[];
  enum?: unknown[];
  default?: unknown;
  $ref?: string;
  allOf?: Schema[];
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-group-version-kind'?: Array<{ group: string; version: string; kind: string }>;
  'x-kubernetes-patch-merge-key'?: string;
  'x-kubernetes-patch-strategy'?: string;
  'x-kubernetes-list-type'?: 'atomic' | 'set' | 'map';
  'x-kubernetes-list-map-keys'?: string[];
  'x-kubernetes-map-type'?: 'atomic' | 'granular';
  [extension: `x-${string}`]: unknown;
}

