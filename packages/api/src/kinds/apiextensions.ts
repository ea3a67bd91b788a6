/**
 * apiextensions.k8s.io/v1 CustomResourceDefinition: a kind defined at run time. Its parts are the
 * types generated from Kubernetes 1.32's definitions (generated/apiextensions-v1.ts), but for each
 * version's schema, which is Setpoint's `Schema`.
 */
import type * as apiextensionsV1 from '../generated/apiextensions-v1.js';
import type { KubeObject } from '../meta/types.js';
import type { Schema } from '../schema.js';

export type CustomResourceDefinitionNames = apiextensionsV1.CustomResourceDefinitionNames;

export type CustomResourceColumnDefinition = apiextensionsV1.CustomResourceColumnDefinition;

export type CustomResourceSubresourceScale = apiextensionsV1.CustomResourceSubresourceScale;

export type CustomResourceSubresources = apiextensionsV1.CustomResourceSubresources;

/** A version's schema, typed as Setpoint's schema engine reads it (the generated JSONSchemaProps is the same document, typed looser). */
export interface CustomResourceValidation {
  openAPIV3Schema?: Schema;
}

export type CustomResourceDefinitionVersion = Omit<apiextensionsV1.CustomResourceDefinitionVersion, 'schema'> & { schema?: CustomResourceValidation };

export type CustomResourceConversion = apiextensionsV1.CustomResourceConversion;

export type CustomResourceDefinitionSpec = Omit<apiextensionsV1.CustomResourceDefinitionSpec, 'versions'> & { versions: CustomResourceDefinitionVersion[] };

export type CustomResourceDefinitionStatus = apiextensionsV1.CustomResourceDefinitionStatus;

export interface CustomResourceDefinition extends KubeObject {
  apiVersion?: 'apiextensions.k8s.io/v1';
  kind?: 'CustomResourceDefinition';
  spec: CustomResourceDefinitionSpec;
  status?: CustomResourceDefinitionStatus;
  [field: string]: unknown;
}
