/**
 * OpenAPI v3 documents, enough for kubectl: /openapi/v3 lists one document per group/version;
 * each document has, per kind, the collection and item paths with their operations — the PATCH
 * operation carrying x-kubernetes-group-version-kind and a fieldValidation parameter, which is
 * how kubectl learns that the server validates fields itself — and the kind's schema under
 * components.schemas with x-kubernetes-group-version-kind, which `kubectl explain` reads, beside
 * the published definitions it refers to.
 */
import { createHash } from 'node:crypto';
import type { Schema } from '@setpoint/api';
import type { Registry } from '../registry/registry.js';
import { definitionName } from '../registry/schemas/published.js';
import { groupVersion, type ResourceDef } from '../registry/types.js';

/** The document path of a group/version: "api/v1" or "apis/apps/v1". */
export function documentPath(group: string, version: string): string {
  return group === '' ? `api/${version}` : `apis/${group}/${version}`;
}

export class OpenApiDocuments {
  private cache = new Map<string, { json: string; hash: string }>();

  constructor(private readonly registry: Registry) {
    registry.onChange(() => this.cache.clear());
  }

  /** The index: { paths: { "api/v1": { serverRelativeURL } } }. */
  index(): object {
    const paths: Record<string, { serverRelativeURL: string }> = {};
    for (const { group, versions } of this.registry.groups()) {
      for (const version of versions) {
        const path = documentPath(group, version);
        paths[path] = { serverRelativeURL: `/openapi/v3/${path}?hash=${this.document(group, version)!.hash}` };
      }
    }
    return { paths };
  }

  /** The serialised document of a group/version and its hash, or undefined when not served. */
  document(group: string, version: string): { json: string; hash: string } | undefined {
    const key = documentPath(group, version);
    let doc = this.cache.get(key);
    if (doc === undefined) {
      const defs = this.registry.inGroupVersion(group, version);
      if (defs.length === 0) return undefined;
      const json = JSON.stringify(buildDocument(defs));
      doc = { json, hash: createHash('sha512').update(json).digest('hex').toUpperCase() };
      this.cache.set(key, doc);
    }
    return doc;
  }
}

/** The name of a kind's schema: io.k8s.api.core.v1.Pod, io.k8s.api.apps.v1.Deployment. */
export function schemaName(def: Pick<ResourceDef, 'group' | 'version' | 'kind' | 'custom'>): string {
  // Custom resources are named by their reversed group: com.example.stable.v1.CronTab.
  if (def.custom === true) return `${def.group.split('.').reverse().join('.')}.${def.version}.${def.kind}`;
  const group = def.group === '' ? 'core' : def.group.replace(/\.k8s\.io$/, '');
  return `io.k8s.api.${group}.${def.version}.${def.kind}`;
}

/**
 * `schema` with every nested schema that is a published definition's tree replaced by a reference
 * to it, the definition added to `components` (once), as kube-apiserver publishes its documents:
 * `{ allOf: [{ $ref }] }`, whose name `kubectl explain` prints (`template <PodTemplateSpec>`).
 * Custom resources' schemas have no such trees and stay inline.
 */
function withReferences(schema: Schema, components: Record<string, Schema>): Schema {
  const nested = (child: Schema): Schema => {
    const name = definitionName(child);
    if (name === undefined) return withReferences(child, components);
    if (components[name] === undefined) {
      components[name] = {}; // a placeholder first: a definition may refer to itself
      components[name] = withReferences(child, components);
    }
    return { allOf: [{ $ref: `#/components/schemas/${name}` }] };
  };
  const out: Schema = { ...schema };
  if (schema.properties !== undefined) out.properties = Object.fromEntries(Object.entries(schema.properties).map(([k, v]) => [k, nested(v)]));
  if (schema.items !== undefined) out.items = nested(schema.items);
  if (typeof schema.additionalProperties === 'object') out.additionalProperties = nested(schema.additionalProperties);
  return out;
}

function buildDocument(defs: ResourceDef[]): object {
  const schemas: Record<string, Schema> = {};
  const paths: Record<string, object> = {};
  for (const def of defs) {
    const name = definitionName(def.schema) ?? schemaName(def);
    const gvk = { group: def.group, version: def.version, kind: def.kind };
    schemas[name] = { ...withReferences(def.schema, schemas), 'x-kubernetes-group-version-kind': [gvk] };
    const ref = { $ref: `#/components/schemas/${name}` };
    const base = def.group === '' ? `/api/${def.version}` : `/apis/${groupVersion(def)}`;
    const collection = def.namespaced ? `${base}/namespaces/{namespace}/${def.resource}` : `${base}/${def.resource}`;
    const item = `${collection}/{name}`;
    const pathParams = [
      ...(def.namespaced ? [{ name: 'namespace', in: 'path', required: true, schema: { type: 'string' } }] : []),
    ];
    const itemParams = [...pathParams, { name: 'name', in: 'path', required: true, schema: { type: 'string' } }];
    const op = (action: string, extra: object = {}) => ({
      operationId: `${action}${def.kind}`,
      'x-kubernetes-action': action,
      'x-kubernetes-group-version-kind': gvk,
      responses: { '200': { description: 'OK', content: { 'application/json': { schema: ref } } } },
      ...extra,
    });
    const writeParams = [
      { name: 'dryRun', in: 'query', schema: { type: 'string' } },
      { name: 'fieldManager', in: 'query', schema: { type: 'string' } },
      { name: 'fieldValidation', in: 'query', schema: { type: 'string' } },
    ];
    const body = { required: true, content: { 'application/json': { schema: ref } } };
    paths[collection] = {
      parameters: pathParams,
      get: op('list'),
      post: op('post', { parameters: writeParams, requestBody: body }),
      delete: op('deletecollection'),
    };
    const patchBody = {
      required: true,
      content: Object.fromEntries(
        // kubectl apply sends a strategic merge patch only where the PATCH operation lists it (not for custom resources).
        ['application/json-patch+json', 'application/merge-patch+json', ...(def.custom === true ? [] : ['application/strategic-merge-patch+json']), 'application/apply-patch+yaml'].map((t) => [
          t,
          { schema: { type: 'object' } },
        ]),
      ),
    };
    paths[item] = {
      parameters: itemParams,
      get: op('get'),
      put: op('put', { parameters: writeParams, requestBody: body }),
      patch: op('patch', { parameters: [...writeParams, { name: 'force', in: 'query', schema: { type: 'boolean' } }], requestBody: patchBody }),
      delete: op('delete'),
    };
    if (def.subresources?.status) {
      paths[`${item}/status`] = {
        parameters: itemParams,
        get: op('get'),
        put: op('put', { parameters: writeParams, requestBody: body }),
        patch: op('patch', { parameters: writeParams, requestBody: patchBody }),
      };
    }
  }
  return {
    openapi: '3.0.0',
    info: { title: 'Kubernetes', version: 'v1.32.0' },
    paths,
    components: { schemas },
  };
}
