/**
 * The built-in kinds' schema trees (built by published.ts from the generated definitions) against
 * Kubernetes 1.32's published API definitions themselves (data/kubernetes-v1.32/swagger.json, see
 * its README): every field Kubernetes publishes is there, with its JSON type, integer format and
 * strategic-merge and list metadata, and nothing is there that Kubernetes does not have. Typed
 * decoding, pruning, fieldValidation and strategic merge read these trees, so a difference is a
 * manifest refused or merged wrongly.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import type { Schema } from '@setpoint/api';
import { builtinResources } from '../builtin.js';

interface Published {
  readonly type?: string;
  readonly format?: string;
  readonly $ref?: string;
  readonly properties?: Record<string, Published>;
  readonly items?: Published;
  readonly additionalProperties?: Published | boolean;
  readonly 'x-kubernetes-group-version-kind'?: Array<{ group: string; version: string; kind: string }>;
  readonly [extension: `x-kubernetes-${string}`]: unknown;
}

const definitions = (JSON.parse(readFileSync(new URL('../../../../../data/kubernetes-v1.32/swagger.json', import.meta.url), 'utf8')) as { definitions: Record<string, Published> }).definitions;
const REF = '#/definitions/';

/** What a field holds, as far as decoding and merging care. */
type Shape = 'string' | 'integer/int32' | 'integer/int64' | 'integer' | 'number' | 'boolean' | 'object' | 'array' | 'map' | 'quantity' | 'int-or-string' | 'time' | 'any';

const SPECIAL: Readonly<Record<string, Shape>> = {
  'io.k8s.apimachinery.pkg.api.resource.Quantity': 'quantity',
  'io.k8s.apimachinery.pkg.util.intstr.IntOrString': 'int-or-string',
  'io.k8s.apimachinery.pkg.apis.meta.v1.Time': 'time',
  'io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime': 'time',
  'io.k8s.apimachinery.pkg.runtime.RawExtension': 'any',
  'io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1': 'any',
  'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSON': 'any',
  'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrArray': 'any',
  'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrBool': 'any',
  'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrStringArray': 'any',
};

/** The definition `p` refers to, its name, or `p` itself. */
function resolve(p: Published): { def: Published; name: string | undefined } {
  if (p.$ref === undefined) return { def: p, name: undefined };
  const name = p.$ref.slice(REF.length);
  const def = definitions[name];
  assert.ok(def !== undefined, `no definition ${name}`);
  return { def, name };
}

function publishedShape(p: Published): Shape {
  const { def, name } = resolve(p);
  if (name !== undefined && SPECIAL[name] !== undefined) return SPECIAL[name];
  if (def.type === 'integer') return def.format === 'int32' || def.format === 'int64' ? `integer/${def.format}` : 'integer';
  if (def.type === 'string' && def.format === 'date-time') return 'time';
  if (def.type === 'object' && def.properties === undefined && typeof def.additionalProperties === 'object') return 'map';
  if (def.type === 'object' && def.properties === undefined) return 'any';
  if (def.type === undefined) return 'object';
  return def.type as Shape;
}

function ourShape(s: Schema): Shape {
  if (s['x-kubernetes-int-or-string'] === true) return s.anyOf?.some((a) => a.type === 'integer') === true ? 'int-or-string' : 'quantity';
  if (s.oneOf?.some((a) => a.type === 'number') === true && s.oneOf.some((a) => a.type === 'string')) return 'quantity';
  if (s.anyOf?.some((a) => a.type === 'integer') === true) return 'int-or-string';
  if (s['x-kubernetes-preserve-unknown-fields'] === true && s.properties === undefined) return 'any';
  if (s.type === 'integer') return s.format === 'int32' || s.format === 'int64' ? `integer/${s.format}` : 'integer';
  if (s.type === 'string' && s.format === 'date-time') return 'time';
  if (s.type === 'object' && s.properties === undefined && typeof s.additionalProperties === 'object') return 'map';
  if (s.type === 'object' && s.properties === undefined) return 'any';
  if (s.type === undefined) return s.properties === undefined ? 'any' : 'object';
  return s.type as Shape;
}

const EXTENSIONS = ['x-kubernetes-patch-merge-key', 'x-kubernetes-patch-strategy', 'x-kubernetes-list-type', 'x-kubernetes-list-map-keys', 'x-kubernetes-map-type'] as const;

/** Where `ours` differs from `published`, one line each. */
function differences(published: Published, ours: Schema, path: string, seen: Set<string>, out: string[]): void {
  const { def, name } = resolve(published);
  const want = publishedShape(published);
  const got = ourShape(ours);
  if (want !== got && !(want === 'object' && got === 'any') && !(want === 'any' && got === 'object')) {
    out.push(`${path}: ${got}, Kubernetes has ${want}${name === undefined ? '' : ` (${name})`}`);
    return;
  }
  for (const ext of EXTENSIONS) {
    const a = JSON.stringify(published[ext] ?? def[ext]);
    const b = JSON.stringify(ours[ext]);
    if (a !== b) out.push(`${path}: ${ext} ${b ?? 'absent'}, Kubernetes has ${a ?? 'absent'}`);
  }
  // A definition is compared once per path kind: recursive ones (JSONSchemaProps) end here.
  if (name !== undefined) {
    const key = `${name}@${path.split('.').length > 12 ? 'deep' : path}`;
    if (seen.has(name) && path.split('.').length > 12) return;
    seen.add(key);
  }
  if (want === 'array' && def.items !== undefined && ours.items !== undefined) differences(def.items, ours.items, `${path}[]`, seen, out);
  if (want === 'map' && typeof def.additionalProperties === 'object' && typeof ours.additionalProperties === 'object') differences(def.additionalProperties, ours.additionalProperties, `${path}{}`, seen, out);
  if (want === 'object' && got === 'object') {
    const mine = ours.properties ?? {};
    for (const [field, p] of Object.entries(def.properties ?? {})) {
      const sub = mine[field];
      if (sub === undefined) out.push(`${path}.${field}: missing (Kubernetes has ${publishedShape(p)})`);
      else differences(p, sub, `${path}.${field}`, seen, out);
    }
    for (const field of Object.keys(mine)) {
      if (def.properties?.[field] === undefined) out.push(`${path}.${field}: not in Kubernetes' ${name ?? 'definition'}`);
    }
  }
}

/** The published definition of group/version/kind. */
function definitionOf(group: string, version: string, kind: string): Published | undefined {
  return Object.values(definitions).find((d) => d['x-kubernetes-group-version-kind']?.some((g) => g.group === group && g.version === version && g.kind === kind));
}

describe("the built-in kinds' schemas against Kubernetes 1.32's published definitions", () => {
  for (const def of builtinResources) {
    it(`${def.group === '' ? 'core' : def.group}/${def.version} ${def.kind}`, () => {
      const published = definitionOf(def.group, def.version, def.kind);
      assert.ok(published !== undefined, `Kubernetes 1.32 publishes no ${def.kind} in ${def.group}/${def.version}`);
      const out: string[] = [];
      differences(published, def.schema, def.kind, new Set(), out);
      assert.equal(out.length, 0, `${out.length} differences:\n${out.join('\n')}`);
    });
  }

});
