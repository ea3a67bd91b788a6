/**
 * URL paths of the Kubernetes REST API for a ResourceRef: `/api/v1/...` for the core group,
 * `/apis/{group}/{version}/...` for the others; `namespaces/{ns}/` before the resource for a
 * namespaced kind addressed in one namespace. Every segment is percent-encoded.
 */
import type { ResourceRef } from '../types.js';

/** What a path addresses below the kind: a namespace, an object, a subresource of it. */
export interface PathParts {
  /** Ignored for cluster-scoped kinds; absent or '' for a namespaced kind: across all namespaces. */
  readonly namespace?: string;
  readonly name?: string;
  /** "status", "scale", ...; needs `name`. */
  readonly subresource?: string;
}

/** `apiVersion` of a ref: "v1" for the core group, else "group/version". */
export function apiVersionOf(ref: Pick<ResourceRef, 'group' | 'version'>): string {
  return ref.group === '' ? ref.version : `${ref.group}/${ref.version}`;
}

/** Splits an apiVersion into group and version: "v1" → ('', 'v1'), "apps/v1" → ('apps', 'v1'). */
export function parseApiVersion(apiVersion: string): { group: string; version: string } {
  const slash = apiVersion.indexOf('/');
  return slash === -1 ? { group: '', version: apiVersion } : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
}

/** The discovery path of a group version: /api/v1, /apis/apps/v1. */
export function groupVersionPath(group: string, version: string): string {
  return group === '' ? `/api/${encodeURIComponent(version)}` : `/apis/${encodeURIComponent(group)}/${encodeURIComponent(version)}`;
}

/**
 * The path of a collection, object or subresource of `ref`. Throws TypeError for a subresource
 * without a name, or an empty name (an empty segment would address the collection instead).
 */
export function resourcePath(ref: ResourceRef, parts: PathParts = {}): string {
  let path = groupVersionPath(ref.group, ref.version);
  if (ref.namespaced && parts.namespace !== undefined && parts.namespace !== '') path += `/namespaces/${encodeURIComponent(parts.namespace)}`;
  path += `/${encodeURIComponent(ref.resource)}`;
  if (parts.name !== undefined) {
    if (parts.name === '') throw new TypeError('resource name may not be empty');
    path += `/${encodeURIComponent(parts.name)}`;
  }
  if (parts.subresource !== undefined) {
    if (parts.name === undefined) throw new TypeError(`subresource ${parts.subresource} needs an object name`);
    path += '/' + parts.subresource.split('/').map(encodeURIComponent).join('/');
  }
  return path;
}
