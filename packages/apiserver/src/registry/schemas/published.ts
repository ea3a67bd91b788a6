/**
 * The schema trees of the built-in kinds, built from Kubernetes 1.32's published OpenAPI
 * definitions (generated/definitions.ts, by `npm run gen:api` from data/kubernetes-v1.32): each
 * definition becomes an inline tree (no $ref) in the OpenAPI v3 form kube-apiserver publishes, so
 * that typed decoding, pruning, fieldValidation, strategic merge and server-side apply walk it
 * without a resolver, and /openapi/v3 and `kubectl explain` serve Kubernetes' own descriptions.
 *
 * - A definition becomes one tree shared by every field that refers to it (so a field shows the
 *   definition's description, not its own); a field that adds merge metadata or a default gets a
 *   shallow copy with them.
 * - The definitions whose JSON form is their own: resource.Quantity (a string or a number:
 *   `oneOf`), intstr.IntOrString (`anyOf` integer/string with `x-kubernetes-int-or-string`),
 *   meta/v1 Time and MicroTime (date-time strings), runtime.RawExtension, meta/v1 FieldsV1 and the
 *   JSON-valued apiextensions types (`x-kubernetes-preserve-unknown-fields`: any JSON value;
 *   JSONSchemaProps is recursive and is kept whole the same way).
 * - Each tree records the Go type it decodes into (gotypes.ts), for decoding errors' wording.
 *
 * The trees are shared between kinds: treat them as read-only.
 */
import type { Schema } from '@setpoint/api';
import { definitions } from './generated/definitions.js';
import { goType } from './gotypes.js';

/** A published definition or property, as generated/definitions.ts holds them. */
export interface Definition {
  readonly type?: Schema['type'];
  readonly format?: string;
  readonly description?: string;
  readonly required?: readonly string[];
  readonly properties?: Readonly<Record<string, Definition>>;
  readonly items?: Definition;
  readonly additionalProperties?: Definition | boolean;
  /** The name of the definition this one refers to. */
  readonly $ref?: string;
  readonly default?: unknown;
  /** The Go type of a named non-struct type ("v1.Protocol"). */
  readonly 'x-go-type'?: string;
  readonly [extension: `x-kubernetes-${string}`]: unknown;
}

const ANY: Schema = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };

/** The definitions whose JSON form is their own, by name: their tree without a description. */
const SPECIAL: Readonly<Record<string, () => Schema>> = {
  'io.k8s.apimachinery.pkg.api.resource.Quantity': () => ({ oneOf: [{ type: 'string' }, { type: 'number' }] }),
  'io.k8s.apimachinery.pkg.util.intstr.IntOrString': () => ({ anyOf: [{ type: 'integer' }, { type: 'string' }], 'x-kubernetes-int-or-string': true }),
  'io.k8s.apimachinery.pkg.apis.meta.v1.Time': () => ({ type: 'string', format: 'date-time' }),
  'io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime': () => ({ type: 'string', format: 'date-time' }),
  'io.k8s.apimachinery.pkg.runtime.RawExtension': () => ({ ...ANY }),
  'io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1': () => ({ ...ANY }),
  'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSON': () => ({ 'x-kubernetes-preserve-unknown-fields': true }),
  'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaProps': () => ({ ...ANY }),
  'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrArray': () => ({ 'x-kubernetes-preserve-unknown-fields': true }),
  'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrBool': () => ({ 'x-kubernetes-preserve-unknown-fields': true }),
  'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrStringArray': () => ({ 'x-kubernetes-preserve-unknown-fields': true }),
};

/** The Go type name of a definition: io.k8s.api.core.v1.PodSpec → v1.PodSpec. */
function goTypeName(name: string): string {
  const parts = name.split('.');
  return `${parts.at(-2)}.${parts.at(-1)}`;
}

const trees = new Map<string, Schema>();
const names = new WeakMap<Schema, string>();

/**
 * The name of the published definition `schema` is the tree of ("io.k8s.api.core.v1.PodSpec"),
 * or undefined for any other schema (a field's own copy, a custom resource's schema).
 */
export function definitionName(schema: Schema): string | undefined {
  return names.get(schema);
}

/**
 * The inline tree of the published definition `name` ("io.k8s.api.core.v1.Pod"), built on first
 * use and shared afterwards. Throws if Kubernetes publishes no such definition.
 */
export function publishedSchema(name: string): Schema {
  let tree = trees.get(name);
  if (tree !== undefined) return tree;
  const def = definitions[name];
  if (def === undefined) throw new Error(`Kubernetes 1.32 publishes no definition ${name}`);
  const special = SPECIAL[name];
  if (special !== undefined) {
    tree = goType(goTypeName(name), { ...special(), ...(def.description === undefined ? {} : { description: def.description }) });
    trees.set(name, tree);
    names.set(tree, name);
    return tree;
  }
  const out: Schema = {};
  // Registered before its fields are built: a definition that refers to itself (none outside the
  // special ones today) shares the tree instead of recursing forever.
  trees.set(name, goType(goTypeName(name), out));
  names.set(out, name);
  Object.assign(out, convert(def));
  return out;
}

/** The schema of `def` (a definition or a property), with its nested schemas built. */
function convert(def: Definition): Schema {
  if (def.$ref !== undefined) {
    const target = publishedSchema(def.$ref);
    const own = extensions(def);
    if (Object.keys(own).length === 0 && def.default === undefined) return target;
    // A field that adds merge metadata or a default (DeploymentSpec.strategy: retainKeys) gets a
    // copy of the definition's tree with them; its nested trees stay shared.
    const field: Schema = { ...target, ...own };
    if (def.default !== undefined) field.default = def.default;
    return goType(goTypeName(def.$ref), field);
  }
  const out: Schema = {};
  if (def.type !== undefined) out.type = def.type;
  if (def.format !== undefined) out.format = def.format;
  if (def.description !== undefined) out.description = def.description;
  if (def.default !== undefined) out.default = def.default;
  if (def.required !== undefined) out.required = [...def.required];
  if (def.properties !== undefined) {
    const properties: Record<string, Schema> = {};
    for (const [field, prop] of Object.entries(def.properties)) properties[field] = convert(prop);
    out.properties = properties;
  }
  if (def.items !== undefined) out.items = convert(def.items);
  if (typeof def.additionalProperties === 'object') out.additionalProperties = convert(def.additionalProperties);
  else if (def.additionalProperties !== undefined) out.additionalProperties = def.additionalProperties;
  // An object with neither properties nor a value type holds any JSON (Kubernetes' `object`).
  if (def.type === 'object' && def.properties === undefined && def.additionalProperties === undefined) out['x-kubernetes-preserve-unknown-fields'] = true;
  Object.assign(out, extensions(def));
  if (def['x-go-type'] !== undefined) goType(def['x-go-type'], out);
  return out;
}

function extensions(def: Definition): Partial<Schema> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(def)) if (key.startsWith('x-kubernetes-')) out[key] = value;
  return out as Partial<Schema>;
}

let kindIndex: Map<string, string> | undefined;

/** The definition naming group/version/kind in its x-kubernetes-group-version-kind, if any. */
function kindDefinitionName(group: string, version: string, kind: string): string | undefined {
  if (kindIndex === undefined) {
    kindIndex = new Map();
    for (const [name, def] of Object.entries(definitions)) {
      const gvks = def['x-kubernetes-group-version-kind'];
      if (!Array.isArray(gvks)) continue;
      for (const g of gvks as Array<{ group: string; version: string; kind: string }>) {
        const key = `${g.group}/${g.version}/${g.kind}`;
        if (!kindIndex.has(key)) kindIndex.set(key, name);
      }
    }
  }
  return kindIndex.get(`${group}/${version}/${kind}`);
}

/** The schema tree of a built-in kind (or its list kind); throws when Kubernetes has none. */
export function publishedKindSchema(group: string, version: string, kind: string): Schema {
  const name = kindDefinitionName(group, version, kind);
  if (name === undefined) throw new Error(`Kubernetes 1.32 publishes no kind ${kind} in ${group === '' ? 'core' : group}/${version}`);
  return publishedSchema(name);
}
