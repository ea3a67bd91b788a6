// The TypeScript part of `npm run gen:api`: every definition of Kubernetes 1.32's OpenAPI document
// that a served API package defines or reaches (data/kubernetes-v1.32/swagger.json) becomes a
// TypeScript type in packages/api/src/generated/, one module per Go package ("core-v1.ts" for
// k8s.io/api/core/v1, "meta-v1.ts" for apimachinery's meta/v1), re-exported by index.ts as one
// namespace per package, which @setpoint/api exports as `k8s` (`k8s.coreV1.Service`,
// `k8s.batchV1.Job`, `k8s.metaV1.ObjectMeta`).
//
// From the OpenAPI shapes: objects become interfaces (properties optional unless `required`),
// maps `Record<string, T>`, arrays `T[]`, integers and numbers `number`, a `$ref` the referenced
// type (imported from its module). What the OpenAPI document cannot say, as Kubernetes' Go types
// marshal it: int-or-string is `number | string`; a Time or MicroTime is an RFC 3339 string or
// null (Go writes a zero time as null); apiextensions' JSON is any JSON value and its
// JSONSchemaPropsOr* are the unions their names say. A kind's `metadata` is required (every object
// the API server returns has it), and its `apiVersion` and `kind` are the literal values of its
// group-version-kind, optional as on the wire.
const APIEXTENSIONS = 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1';

/** Types whose JSON form is not what their OpenAPI definition says (Go marshals them itself). */
const SPECIAL = {
  'io.k8s.apimachinery.pkg.util.intstr.IntOrString': 'number | string',
  // A zero time is written as null (a Go struct, which omitempty does not leave out).
  'io.k8s.apimachinery.pkg.apis.meta.v1.Time': 'string | null',
  'io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime': 'string | null',
  [`${APIEXTENSIONS}.JSON`]: 'unknown',
  [`${APIEXTENSIONS}.JSONSchemaPropsOrBool`]: 'JSONSchemaProps | boolean',
  [`${APIEXTENSIONS}.JSONSchemaPropsOrArray`]: 'JSONSchemaProps | JSONSchemaProps[]',
  [`${APIEXTENSIONS}.JSONSchemaPropsOrStringArray`]: 'JSONSchemaProps | string[]',
};

/** The module of a definition: its Go package after "io.k8s." without the leading "api." and "pkg.apis." parts, dashed. */
function moduleOf(name) {
  const pkg = name.slice('io.k8s.'.length, name.lastIndexOf('.'));
  return pkg
    .replace(/^api\./, '')
    .replace(/^apimachinery\.pkg\.(apis\.|api\.|util\.)?/, '')
    .replace(/^apiextensions-apiserver\.pkg\.apis\./, '')
    .replace(/^kube-aggregator\.pkg\.apis\./, '')
    .replaceAll('.', '-');
}

/** "core-v1" → "coreV1": the namespace index.ts exports the module as. */
function namespaceOf(module) {
  return module.replace(/-(\w)/g, (_, c) => c.toUpperCase());
}

const typeName = (name) => name.slice(name.lastIndexOf('.') + 1);

/**
 * `definitions` (openapiDefinitions' table: the served definitions and what they reach, `$ref` a
 * definition's name) as modules: file name → content.
 */
export function typescriptModules(definitions, inputs) {
  const byModule = new Map();
  for (const name of Object.keys(definitions).sort()) {
    const module = moduleOf(name);
    if (!byModule.has(module)) byModule.set(module, []);
    byModule.get(module).push(name);
  }
  const files = {};
  for (const [module, defs] of byModule) {
    const imports = new Map();
    const ref = (target) => {
      const other = moduleOf(target);
      if (other !== module) {
        if (!imports.has(other)) imports.set(other, new Set());
        imports.get(other).add(typeName(target));
      }
      return typeName(target);
    };
    const typeOf = (schema) => {
      if (schema.$ref !== undefined) return ref(schema.$ref);
      switch (schema.type) {
        case 'string':
          return 'string';
        case 'integer':
        case 'number':
          return 'number';
        case 'boolean':
          return 'boolean';
        case 'array':
          return `${wrap(typeOf(schema.items ?? {}))}[]`;
        case 'object':
          if (schema.additionalProperties !== undefined && typeof schema.additionalProperties === 'object') return `Record<string, ${typeOf(schema.additionalProperties)}>`;
          return 'Record<string, unknown>';
        default:
          return 'unknown';
      }
    };
    const body = [];
    for (const name of defs) {
      const def = definitions[name];
      const own = typeName(name);
      body.push(`/** ${name} */`);
      if (SPECIAL[name] !== undefined) {
        body.push(`export type ${own} = ${SPECIAL[name].replace(/JSONSchemaProps/g, () => ref(`${APIEXTENSIONS}.JSONSchemaProps`))};`, '');
        continue;
      }
      if (def.properties === undefined) {
        body.push(`export type ${own} = ${typeOf(def)};`, '');
        continue;
      }
      const gvk = def['x-kubernetes-group-version-kind'];
      const kind = gvk?.length === 1 ? gvk[0] : undefined;
      const required = new Set(def.required ?? []);
      if (kind !== undefined && def.properties.metadata !== undefined) required.add('metadata');
      body.push(`export interface ${own} {`);
      for (const [field, prop] of Object.entries(def.properties)) {
        let type = typeOf(prop);
        if (kind !== undefined && field === 'apiVersion') type = JSON.stringify(kind.group === '' ? kind.version : `${kind.group}/${kind.version}`);
        if (kind !== undefined && field === 'kind') type = JSON.stringify(kind.kind);
        const key = /^[A-Za-z_$][\w$]*$/.test(field) ? field : JSON.stringify(field);
        body.push(`  ${key}${required.has(field) ? '' : '?'}: ${type};`);
      }
      body.push('}', '');
    }
    const importLines = [...imports.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([other, types]) => `import type { ${[...types].sort().join(', ')} } from './${other}.js';`);
    files[`${module}.ts`] = [
      `// Generated by \`npm run gen:api\` (scripts/gen-api/typescript.mjs) from ${inputs}. Do not edit.`,
      `// The types of ${defs.length === 1 ? 'the definition' : `the ${defs.length} definitions`} of Kubernetes 1.32's package ${name0(defs[0])}.`,
      ...importLines,
      ...(importLines.length > 0 ? [''] : []),
      ...body,
    ].join('\n');
  }
  const modules = [...byModule.keys()].sort();
  files['index.ts'] = [
    `// Generated by \`npm run gen:api\` (scripts/gen-api/typescript.mjs) from ${inputs}. Do not edit.`,
    '// The types of every kind of Kubernetes 1.32 and what they reach, one namespace per Go package.',
    ...modules.map((m) => `export type * as ${namespaceOf(m)} from './${m}.js';`),
    '',
  ].join('\n');
  return files;
}

function name0(name) {
  return name.slice(0, name.lastIndexOf('.'));
}

/** `x` as an array's element type (a union needs parentheses). */
function wrap(x) {
  return x.includes(' ') ? `(${x})` : x;
}
