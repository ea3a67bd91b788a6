/**
 * apiextensions.k8s.io/v1 CustomResourceDefinition: a kind defined at run time. Field names and
 * shapes are Kubernetes' (k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1).
 */
import type { Condition, KubeObject } from '../meta/types.js';
import type { Schema } from '../schema.js';

export interface CustomResourceDefinitionNames {
  /** URL segment, lower case: "widgets". */
  plural: string;
  /** Lower case: "widget". Defaults to the lower-cased kind. */
  singular?: string;
  shortNames?: string[];
  /** CamelCase: "Widget". */
  kind: string;
  /** Defaults to kind + "List". */
  listKind?: string;
  /** Groupings such as "all", which `kubectl get all` reads. */
  categories?: string[];
}

export interface CustomResourceColumnDefinition {
  name: string;
  /** integer, number, string, boolean or date. */
  type: string;
  format?: string;
  description?: string;
  /** 0 prints always; higher only with -o wide. */
  priority?: number;
  /** A simple JSONPath evaluated against each object: ".spec.replicas". */
  jsonPath: string;
}

export interface CustomResourceSubresourceScale {
  /** ".spec.replicas" */
  specReplicasPath: string;
  /** ".status.replicas" */
  statusReplicasPath: string;
  /** ".status.selector": where the serialised label selector is kept. */
  labelSelectorPath?: string;
}

export interface CustomResourceSubresources {
  /** An empty object enables the status subresource. */
  status?: Record<string, never>;
  scale?: CustomResourceSubresourceScale;
}

export interface CustomResourceValidation {
  openAPIV3Schema?: Schema;
}

export interface CustomResourceDefinitionVersion {
  name: string;
  served: boolean;
  /** Exactly one version is the storage version. */
  storage: boolean;
  deprecated?: boolean;
  deprecationWarning?: string;
  schema?: CustomResourceValidation;
  subresources?: CustomResourceSubresources;
  additionalPrinterColumns?: CustomResourceColumnDefinition[];
}

export interface CustomResourceConversion {
  /** Setpoint serves "None" (every version shares one stored form). */
  strategy: 'None' | 'Webhook';
}

export interface CustomResourceDefinitionSpec {
  group: string;
  names: CustomResourceDefinitionNames;
  scope: 'Namespaced' | 'Cluster';
  versions: CustomResourceDefinitionVersion[];
  conversion?: CustomResourceConversion;
  preserveUnknownFields?: boolean;
}

export interface CustomResourceDefinitionStatus {
  conditions?: Condition[];
  /** The names actually served (they can differ from spec.names while a conflict lasts). */
  acceptedNames?: CustomResourceDefinitionNames;
  /** Every version objects have ever been stored as. */
  storedVersions?: string[];
}

export interface CustomResourceDefinition extends KubeObject {
  apiVersion?: 'apiextensions.k8s.io/v1';
  kind?: 'CustomResourceDefinition';
  spec: CustomResourceDefinitionSpec;
  status?: CustomResourceDefinitionStatus;
  [field: string]: unknown;
}
