// The OpenAPI part of `npm run gen:api`: Kubernetes 1.32's OpenAPI v2 definitions
// (data/kubernetes-v1.32/swagger.json) of every served API package, with what the Go definitions
// add (data/kubernetes-v1.32/gofields.json), become one table of definitions,
// packages/apiserver/src/registry/schemas/generated/definitions.ts, from which
// registry/schemas/published.ts builds each kind's structural schema tree. Per property, besides
// the OpenAPI keys Kubernetes publishes (type, format, $ref, items, additionalProperties,
// description, x-kubernetes-*), the table holds:
// - `default`: the `+default=` marker's value, or the zero value of a scalar Go writes at zero
//   (not a pointer, no omitempty), as Kubernetes' OpenAPI v3 document publishes it;
// - `x-go-type`: the Go type of a field whose type is a named non-struct type ("v1.Protocol",
//   "v1.ResourceList", "types.UID"), for decoding errors' wording.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { GROUP_VERSIONS, SUPPORT_PACKAGES } from './packages.mjs';

const REF = '#/definitions/';
const KEYS = ['type', 'format', 'description', 'required', 'items', 'additionalProperties', 'properties'];

/** The OpenAPI definition name prefix of a Go package: k8s.io/api/core/v1 → io.k8s.api.core.v1. */
function definitionPrefix(goPackage) {
  return `io.k8s.${goPackage.slice('k8s.io/'.length).replaceAll('/', '.')}`;
}

/** The served definitions, with Go facts merged in: name → definition. */
export function openapiDefinitions(data) {
  const swagger = JSON.parse(readFileSync(join(data, 'swagger.json'), 'utf8')).definitions;
  const facts = JSON.parse(readFileSync(join(data, 'gofields.json'), 'utf8'));
  const packages = [...SUPPORT_PACKAGES, ...GROUP_VERSIONS.map((gv) => gv.goPackage)];
  /** OpenAPI prefix → protobuf package. */
  const protoPackages = new Map();
  for (const goPackage of packages) {
    const proto = readFileSync(join(data, 'proto', goPackage, 'generated.proto'), 'utf8');
    protoPackages.set(definitionPrefix(goPackage), /^package ([\w.]+);/m.exec(proto)[1]);
  }
  const messageOf = (definition) => {
    const dot = definition.lastIndexOf('.');
    const pkg = protoPackages.get(definition.slice(0, dot));
    return pkg === undefined ? undefined : `${pkg}.${definition.slice(dot + 1)}`;
  };
  /** The Go facts of a JSON field of a message, looking through its inline members. */
  const goField = (message, jsonName, depth = 0) => {
    const fields = facts[message];
    if (fields === undefined || depth > 4) return undefined;
    for (const [protoName, fact] of Object.entries(fields)) {
      if ((fact.j ?? protoName) === jsonName && !fact.f.includes('i')) return fact;
    }
    for (const fact of Object.values(fields)) {
      if (!fact.f.includes('i')) continue;
      const inner = goField(`${message.slice(0, message.lastIndexOf('.'))}.${fact.t.replace(/^\*/, '').replace(/^.*\./, '')}`, jsonName, depth + 1);
      if (inner !== undefined) return inner;
    }
    return undefined;
  };

  const served = Object.keys(swagger).filter((name) => [...protoPackages.keys()].some((prefix) => name.startsWith(`${prefix}.`) && !name.slice(prefix.length + 1).includes('.')));
  // Every definition the served ones reach (apimachinery's, and across groups).
  const needed = new Set();
  const pending = [...served];
  for (let name = pending.pop(); name !== undefined; name = pending.pop()) {
    if (needed.has(name)) continue;
    if (swagger[name] === undefined) throw new Error(`no definition ${name} in swagger.json`);
    needed.add(name);
    JSON.stringify(swagger[name], (key, value) => {
      if (key === '$ref' && typeof value === 'string') pending.push(value.slice(REF.length));
      return value;
    });
  }

  const out = {};
  for (const name of [...needed].sort()) {
    const def = swagger[name];
    const message = messageOf(name);
    const copy = pick(def);
    if (def.properties !== undefined) {
      copy.properties = {};
      for (const [field, prop] of Object.entries(def.properties)) {
        const p = pick(prop);
        const fact = message === undefined ? undefined : goField(message, field);
        if (fact !== undefined) annotate(p, prop, fact);
        copy.properties[field] = p;
      }
    }
    out[name] = copy;
  }
  return out;
}

/** A schema's published keys, nested schemas included ($ref kept as a name). */
function pick(schema) {
  const out = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === '$ref') out.$ref = value.slice(REF.length);
    else if (key === 'items' || key === 'additionalProperties') out[key] = typeof value === 'object' ? element(pick(value)) : value;
    else if (key === 'properties') continue;
    else if (KEYS.includes(key) || key.startsWith('x-kubernetes-')) out[key] = value;
  }
  return out;
}

const ZERO = { string: '', integer: 0, number: 0, boolean: false };

/**
 * A list's element or a map's value as Kubernetes' OpenAPI v3 publishes it: a scalar defaults to
 * its zero value (Go reads a null element as the zero value); bytes do not.
 */
function element(schema) {
  if (schema.$ref === undefined && schema.format !== 'byte' && ZERO[schema.type] !== undefined) schema.default = ZERO[schema.type];
  return schema;
}

function annotate(p, prop, fact) {
  // +default= values are JSON (the importer resolves ref(Constant) to the constant's string).
  if (fact.d !== undefined) p.default = JSON.parse(fact.d);
  else if (!fact.f.includes('p') && !fact.f.includes('o') && prop.$ref === undefined && ZERO[prop.type] !== undefined) p.default = ZERO[prop.type];
  // A named non-struct type (a string or map type of the package): its name for error messages.
  const named = fact.t.replace(/^\*/, '');
  if (/^\w+\.\w+$/.test(named) && prop.$ref === undefined) p['x-go-type'] = named;
}

/** The TypeScript module holding the definitions. */
export function definitionsModule(definitions, inputs) {
  const lines = Object.entries(definitions).map(([name, def]) => `  ${JSON.stringify(name)}: ${JSON.stringify(def)},`);
  return `// Generated by \`npm run gen:api\` (scripts/gen-api) from ${inputs}. Do not edit.
//
// Kubernetes 1.32's OpenAPI definitions of every API package a default kube-apiserver serves and
// of what they refer to, by name; \`$ref\` holds a definition's name. Per property, \`default\` is
// the value Kubernetes' OpenAPI v3 publishes (a +default marker, or a scalar's zero where Go
// writes it) and \`x-go-type\` the Go type of a named non-struct type. See ../published.ts.
import type { Definition } from '../published.js';

export const definitions: Readonly<Record<string, Definition>> = {
${lines.join('\n')}
};
`;
}
