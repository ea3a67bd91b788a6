/**
 * A CustomResourceDefinition as served kinds: one ResourceDef per served version, all sharing one
 * stored form (conversion None: an object reads back in whichever served version is asked for).
 * Each version's strategy prunes and defaults by that version's structural schema and validates
 * with it; status and scale subresources and printer columns come from the version.
 */
import type { CustomResourceDefinition, CustomResourceDefinitionVersion, KubeObject, Schema } from '@setpoint/api';
import { objectMetaSchema, typeMetaProperties } from '../registry/schemas/meta.js';
import type { ResourceDef, ScaleDef, Strategy } from '../registry/types.js';
import { applyDefaults, prune } from './structural.js';
import { compileValidator } from './validation.js';

/** The finalizer that holds a CRD until its objects are gone. */
export const CRD_CLEANUP_FINALIZER = 'customresourcecleanup.apiextensions.k8s.io';

/** The ResourceDefs of a CRD's served versions. */
export function customResourceDefs(crd: CustomResourceDefinition): ResourceDef[] {
  return crd.spec.versions.filter((v) => v.served).map((v) => versionDef(crd, v));
}

/** The CRD's storage version (exactly one is marked, validation ensures it). */
export function storageVersion(crd: CustomResourceDefinition): string {
  return (crd.spec.versions.find((v) => v.storage) ?? crd.spec.versions[0])!.name;
}

function versionDef(crd: CustomResourceDefinition, v: CustomResourceDefinitionVersion): ResourceDef {
  const { group, names } = crd.spec;
  const openAPI = v.schema?.openAPIV3Schema ?? { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
  const schema = servedSchema(openAPI, group, v.name, names.kind);
  const validate = compileValidator(openAPI);
  const hasStatus = v.subresources?.status !== undefined;
  const strategy: Strategy = {
    normalize: (obj: KubeObject) => prune(obj, openAPI),
    // With a status subresource, status is the controller's: a create starts without one.
    ...(hasStatus ? { prepareForCreate: (obj: KubeObject) => void delete obj.status } : {}),
    defaults: (obj: KubeObject) => applyDefaults(obj, openAPI),
    validate: (obj) => validate(obj),
    validateStatusUpdate: (obj) => validate(obj),
  };
  const scale = v.subresources?.scale;
  const scaleDef: ScaleDef | undefined = scale && {
    specReplicasPath: scale.specReplicasPath.replace(/^\./, ''),
    statusReplicasPath: scale.statusReplicasPath.replace(/^\./, ''),
    ...(scale.labelSelectorPath ? { labelSelectorPath: scale.labelSelectorPath.replace(/^\./, '') } : {}),
  };
  return {
    group,
    version: v.name,
    resource: names.plural,
    singular: names.singular ?? names.kind.toLowerCase(),
    kind: names.kind,
    listKind: names.listKind ?? `${names.kind}List`,
    namespaced: crd.spec.scope === 'Namespaced',
    ...(names.shortNames?.length ? { shortNames: names.shortNames } : {}),
    ...(names.categories?.length ? { categories: names.categories } : {}),
    subresources: { ...(hasStatus ? { status: true } : {}), ...(scaleDef ? { scale: scaleDef } : {}) },
    schema,
    strategy,
    custom: true,
    ...(v.additionalPrinterColumns?.length ? { printerColumns: v.additionalPrinterColumns } : {}),
  };
}

/**
 * The schema the server publishes (OpenAPI, kubectl explain) and checks unknown fields against:
 * the CRD's, with apiVersion, kind and ObjectMeta at the root, and `type: object` nodes without
 * properties closed (Kubernetes prunes everything under them).
 */
export function servedSchema(openAPI: Schema, group: string, version: string, kind: string): Schema {
  const root = closeObjects(openAPI);
  return {
    ...root,
    type: 'object',
    properties: { ...root.properties, apiVersion: typeMetaProperties.apiVersion, kind: typeMetaProperties.kind, metadata: objectMetaSchema },
    'x-kubernetes-group-version-kind': [{ group, version, kind }],
  };
}

function closeObjects(schema: Schema): Schema {
  const out: Schema = { ...schema };
  if (schema.properties) out.properties = Object.fromEntries(Object.entries(schema.properties).map(([k, v]) => [k, closeObjects(v)]));
  if (typeof schema.additionalProperties === 'object') out.additionalProperties = closeObjects(schema.additionalProperties);
  if (schema.items) out.items = closeObjects(schema.items);
  const open = schema['x-kubernetes-preserve-unknown-fields'] === true || schema['x-kubernetes-int-or-string'] === true;
  if (schema.type === 'object' && !open && schema.properties === undefined && schema.additionalProperties === undefined) out.properties = {};
  return out;
}
