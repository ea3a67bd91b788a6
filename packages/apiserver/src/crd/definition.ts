/**
 * customresourcedefinitions (apiextensions.k8s.io/v1, cluster-scoped, with a status subresource):
 * the kind that defines kinds. Defaulted and validated as Kubernetes validates a CRD, plus what
 * Setpoint does not implement refused clearly: conversion webhooks and x-kubernetes-validations
 * (CEL) rules.
 */
import { FieldError, OMIT_VALUE, isDNS1035Label, isDNS1123Subdomain, type CustomResourceDefinition, type KubeObject, type Schema } from '@setpoint/api';
import { publishedKindSchema } from '../registry/schemas/published.js';
import type { ResourceDef } from '../registry/types.js';
import { schemaCompileErrors } from './schemacheck.js';
import { celRulePaths } from './structural.js';
import { compileValidator } from './validation.js';
import { crdPrinter } from '../tables/printers.js';

const COLUMN_TYPES = ['integer', 'number', 'string', 'boolean', 'date'];

/** Kubernetes 1.32's published CustomResourceDefinition (openAPIV3Schema is any JSON there: published.ts). */
export const crdSchema: Schema = publishedKindSchema('apiextensions.k8s.io', 'v1', 'CustomResourceDefinition');

function specOf(obj: KubeObject): CustomResourceDefinition['spec'] {
  const spec = obj.spec;
  return (typeof spec === 'object' && spec !== null ? spec : {}) as CustomResourceDefinition['spec'];
}

/** Kubernetes' defaults: conversion None, singular from kind, listKind kind + "List". */
function defaultCrd(obj: KubeObject): void {
  const spec = specOf(obj);
  if (typeof obj.spec !== 'object' || obj.spec === null) return;
  spec.conversion ??= { strategy: 'None' };
  // Field selectors on custom resources are not served: their declaration is dropped, as
  // kube-apiserver drops it with the CustomResourceFieldSelectors feature off.
  if (Array.isArray(spec.versions)) for (const v of spec.versions) if (typeof v === 'object' && v !== null) delete (v as { selectableFields?: unknown }).selectableFields;
  const names = spec.names as CustomResourceDefinition['spec']['names'] | undefined;
  if (names && typeof names.kind === 'string' && names.kind !== '') {
    names.singular ??= names.kind.toLowerCase();
    names.listKind ??= `${names.kind}List`;
  }
}

/**
 * ValidateCustomResourceDefinition, the parts Setpoint serves. Every version's schema must compile
 * (RE2 patterns, well-typed keywords): what this passes, the CRD controller can serve.
 */
export function validateCrd(obj: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const spec = specOf(obj);
  const group = spec.group;
  if (typeof group !== 'string' || group === '') errs.push(FieldError.required('spec.group'));
  else {
    for (const msg of isDNS1123Subdomain(group)) errs.push(FieldError.invalid('spec.group', group, msg));
    if (group.split('.').length < 2) errs.push(FieldError.invalid('spec.group', group, 'should be a domain with at least one dot'));
  }
  if (spec.scope === undefined) errs.push(FieldError.required('spec.scope'));
  else if (spec.scope !== 'Namespaced' && spec.scope !== 'Cluster') errs.push(FieldError.notSupported('spec.scope', spec.scope, ['Cluster', 'Namespaced']));
  errs.push(...validateNames(spec.names, 'spec.names'));
  const plural = spec.names?.plural;
  if (typeof plural === 'string' && typeof group === 'string' && obj.metadata.name !== `${plural}.${group}`) {
    errs.push(FieldError.invalid('metadata.name', obj.metadata.name ?? '', 'must be spec.names.plural+"."+spec.group'));
  }
  const strategy = spec.conversion?.strategy;
  if (strategy !== undefined && strategy !== 'None') errs.push(FieldError.notSupported('spec.conversion.strategy', strategy, ['None']));
  if (spec.preserveUnknownFields === true) errs.push(FieldError.invalid('spec.preserveUnknownFields', true, 'must be false in order to use defaults in the schema'));
  errs.push(...validateVersions(spec.versions));
  return errs;
}

function validateNames(names: CustomResourceDefinition['spec']['names'] | undefined, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (typeof names !== 'object' || names === null) return [FieldError.required(path)];
  const label = (field: string, value: unknown) => {
    if (typeof value !== 'string' || value === '') return;
    for (const msg of isDNS1035Label(value)) errs.push(FieldError.invalid(`${path}.${field}`, value, msg));
  };
  if (typeof names.plural !== 'string' || names.plural === '') errs.push(FieldError.required(`${path}.plural`));
  label('plural', names.plural);
  label('singular', names.singular);
  if (Array.isArray(names.shortNames)) names.shortNames.forEach((s, i) => label(`shortNames[${i}]`, s));
  else if (names.shortNames !== undefined) errs.push(FieldError.typeInvalid(`${path}.shortNames`, names.shortNames, 'must be a list of strings'));
  for (const field of ['kind', 'listKind'] as const) {
    const value = names[field];
    if (field === 'kind' && (typeof value !== 'string' || value === '')) {
      errs.push(FieldError.required(`${path}.kind`));
      continue;
    }
    if (typeof value === 'string' && isDNS1035Label(value.toLowerCase()).length > 0) {
      errs.push(FieldError.invalid(`${path}.${field}`, value, 'may have mixed case, but should otherwise match: [a-z]([-a-z0-9]*[a-z0-9])?'));
    }
  }
  if (names.kind !== undefined && names.kind === names.listKind) errs.push(FieldError.invalid(`${path}.listKind`, names.listKind, 'kind and listKind may not be the same'));
  return errs;
}

function validateVersions(versions: CustomResourceDefinition['spec']['versions'] | undefined): FieldError[] {
  const errs: FieldError[] = [];
  if (!Array.isArray(versions) || versions.length === 0) return [FieldError.required('spec.versions', 'must have exactly one version marked as storage version')];
  const seen = new Set<string>();
  let storage = 0;
  versions.forEach((v, i) => {
    const path = `spec.versions[${i}]`;
    if (typeof v !== 'object' || v === null || Array.isArray(v)) {
      errs.push(FieldError.typeInvalid(path, v, 'must be of type object'));
      return;
    }
    if (typeof v.name !== 'string' || v.name === '') errs.push(FieldError.required(`${path}.name`));
    else {
      for (const msg of isDNS1035Label(v.name)) errs.push(FieldError.invalid(`${path}.name`, v.name, msg));
      if (seen.has(v.name)) errs.push(FieldError.duplicate(`${path}.name`, v.name));
      seen.add(v.name);
    }
    if (v.storage === true) storage++;
    const schema = v.schema?.openAPIV3Schema;
    if (schema === undefined) errs.push(FieldError.required(`${path}.schema.openAPIV3Schema`, 'schemas are required'));
    else errs.push(...validateStructural(schema, `${path}.schema.openAPIV3Schema`));
    if (Array.isArray(v.additionalPrinterColumns)) errs.push(...validateColumns(v.additionalPrinterColumns, `${path}.additionalPrinterColumns`));
    else if (v.additionalPrinterColumns !== undefined) errs.push(FieldError.typeInvalid(`${path}.additionalPrinterColumns`, v.additionalPrinterColumns, 'must be a list'));
    const scale = v.subresources?.scale;
    if (typeof scale === 'object' && scale !== null) {
      if (!/^\.spec\.[A-Za-z0-9_.]+$/.test(scale.specReplicasPath ?? '')) errs.push(FieldError.invalid(`${path}.subresources.scale.specReplicasPath`, scale.specReplicasPath ?? '', 'should be a json path under .spec'));
      if (!/^\.status\.[A-Za-z0-9_.]+$/.test(scale.statusReplicasPath ?? '')) errs.push(FieldError.invalid(`${path}.subresources.scale.statusReplicasPath`, scale.statusReplicasPath ?? '', 'should be a json path under .status'));
      if (scale.labelSelectorPath !== undefined && !/^\.(spec|status)\.[A-Za-z0-9_.]+$/.test(scale.labelSelectorPath)) {
        errs.push(FieldError.invalid(`${path}.subresources.scale.labelSelectorPath`, scale.labelSelectorPath, 'should be a json path under either .spec or .status'));
      }
    }
  });
  if (storage !== 1) errs.push(FieldError.invalid('spec.versions', versions.map((v) => v.name), 'must have exactly one version marked as storage version'));
  return errs;
}

function validateColumns(columns: CustomResourceDefinition['spec']['versions'][number]['additionalPrinterColumns'], path: string): FieldError[] {
  const errs: FieldError[] = [];
  columns?.forEach((c, i) => {
    const p = `${path}[${i}]`;
    if (typeof c !== 'object' || c === null) {
      errs.push(FieldError.typeInvalid(p, c, 'must be of type object'));
      return;
    }
    if (typeof c.name !== 'string' || c.name === '') errs.push(FieldError.required(`${p}.name`));
    if (!COLUMN_TYPES.includes(c.type)) errs.push(FieldError.notSupported(`${p}.type`, c.type, COLUMN_TYPES));
    if (typeof c.jsonPath !== 'string' || c.jsonPath === '') errs.push(FieldError.required(`${p}.jsonPath`));
    else if (!c.jsonPath.startsWith('.')) errs.push(FieldError.invalid(`${p}.jsonPath`, c.jsonPath, 'must be a simple json path starting with .'));
  });
  return errs;
}

/**
 * The structural schema rules, and what Setpoint refuses (CEL rules); first, whether the schema
 * compiles at all (well-typed keywords, RE2 patterns), since the other rules read it.
 */
export function validateStructural(schema: Schema, path: string): FieldError[] {
  const compileErrors = schemaCompileErrors(schema, path);
  if (compileErrors.length > 0) return compileErrors;
  const errs: FieldError[] = [];
  if (schema.type !== 'object') errs.push(schema.type === undefined ? FieldError.required(`${path}.type`, 'must not be empty at the root') : FieldError.invalid(`${path}.type`, schema.type, 'must be object at the root'));
  const meta = schema.properties?.metadata;
  if (meta !== undefined) {
    const extra = Object.keys(meta).filter((k) => !['type', 'description', 'properties'].includes(k));
    const props = Object.keys(meta.properties ?? {}).filter((k) => k !== 'name' && k !== 'generateName');
    if (extra.length > 0 || props.length > 0) errs.push(FieldError.forbidden(`${path}.properties[metadata]`, 'must not specify anything other than name and generateName, but metadata is implicitly specified'));
  }
  walkTypes(schema, path, true, errs);
  for (const rule of celRulePaths(schema, path)) errs.push(FieldError.forbidden(rule, 'x-kubernetes-validations (CEL) rules are not supported by Setpoint'));
  if (errs.length === 0) {
    // Whatever else keeps the validator from compiling is refused here, not found when serving.
    try {
      compileValidator(schema);
    } catch (err) {
      errs.push(new FieldError('FieldValueInvalid', path, OMIT_VALUE, `the schema cannot be compiled: ${err instanceof Error ? err.message : String(err)}`));
    }
  }
  return errs;
}

function walkTypes(schema: Schema, path: string, root: boolean, errs: FieldError[]): void {
  const open = schema['x-kubernetes-int-or-string'] === true || schema['x-kubernetes-preserve-unknown-fields'] === true;
  if (!root && schema.type === undefined && !open) errs.push(FieldError.required(`${path}.type`, 'must not be empty for specified object fields'));
  if (schema['x-kubernetes-list-type'] === 'map' && (schema['x-kubernetes-list-map-keys']?.length ?? 0) === 0) {
    errs.push(FieldError.required(`${path}.x-kubernetes-list-map-keys`, 'must not be empty if x-kubernetes-list-type is map'));
  }
  if (schema.type === 'array' && schema.items === undefined) errs.push(FieldError.required(`${path}.items`, 'must be specified'));
  for (const [name, child] of Object.entries(schema.properties ?? {})) walkTypes(child, `${path}.properties[${name}]`, false, errs);
  if (typeof schema.additionalProperties === 'object') walkTypes(schema.additionalProperties, `${path}.additionalProperties`, false, errs);
  if (schema.items !== undefined) walkTypes(schema.items, `${path}.items`, false, errs);
}

/**
 * Ratcheting: an update may keep a schema error its CRD already had when stored (a pattern valid
 * JavaScript but not RE2, stored before patterns were RE2), so such a CRD can still be changed,
 * have its finalizer removed and be deleted; the same error on a field that changes is refused.
 */
const tolerated = new WeakMap<KubeObject, ReadonlySet<string>>();

function schemaErrorsOf(obj: KubeObject): Set<string> {
  const out = new Set<string>();
  const versions = specOf(obj).versions;
  if (!Array.isArray(versions)) return out;
  versions.forEach((v, i) => {
    const schema = typeof v === 'object' && v !== null ? v.schema?.openAPIV3Schema : undefined;
    if (schema !== undefined) for (const e of validateStructural(schema, `spec.versions[${i}].schema.openAPIV3Schema`)) out.add(e.toString());
  });
  return out;
}

function validateCrdUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const spec = specOf(obj);
  const was = specOf(old);
  if (spec.group !== was.group) errs.push(FieldError.invalid('spec.group', spec.group ?? '', 'field is immutable'));
  if (spec.scope !== was.scope) errs.push(FieldError.invalid('spec.scope', spec.scope ?? '', 'field is immutable'));
  if (spec.names?.plural !== was.names?.plural) errs.push(FieldError.invalid('spec.names.plural', spec.names?.plural ?? '', 'field is immutable'));
  return errs;
}

export const crdResource: ResourceDef = {
  group: 'apiextensions.k8s.io',
  version: 'v1',
  resource: 'customresourcedefinitions',
  printer: crdPrinter,
  singular: 'customresourcedefinition',
  kind: 'CustomResourceDefinition',
  listKind: 'CustomResourceDefinitionList',
  namespaced: false,
  shortNames: ['crd', 'crds'],
  categories: ['api-extensions'],
  subresources: { status: true },
  schema: crdSchema,
  strategy: {
    defaults: defaultCrd,
    prepareForCreate: (obj) => {
      delete obj.status;
    },
    prepareForUpdate: (obj, old) => {
      const had = schemaErrorsOf(old);
      if (had.size > 0) tolerated.set(obj, had);
    },
    validate: (obj) => {
      const had = tolerated.get(obj);
      const errs = validateCrd(obj);
      return had === undefined ? errs : errs.filter((e) => !had.has(e.toString()));
    },
    validateUpdate: validateCrdUpdate,
  },
};
