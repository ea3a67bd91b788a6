/**
 * RequestInfo: what an API request is about, read from its method, path and query the way
 * kube-apiserver's RequestInfoFactory reads them.
 *
 *   /api/v1/namespaces/{ns}/{resource}[/{name}[/{subresource}]]
 *   /api/v1/{resource}[/{name}[/{subresource}]]           (cluster-scoped, or every namespace)
 *   /apis/{group}/{version}/...                            (the same below a group)
 *   /api/v1/namespaces/{name}[/status|/finalize]          (the namespace itself)
 */
import { queryBool } from './queryparams.js';

export type Verb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete' | 'deletecollection';

export interface ResourceRequestInfo {
  readonly kind: 'resource';
  readonly verb: Verb;
  readonly group: string;
  readonly version: string;
  readonly namespace: string;
  readonly resource: string;
  readonly name: string;
  readonly subresource: string;
}

/** A request for discovery: /api, /apis, /api/v1, /apis/{group}, /apis/{group}/{version}. */
export interface DiscoveryRequestInfo {
  readonly kind: 'discovery';
  readonly group: string | undefined;
  readonly version: string | undefined;
  /** True for /api and /api/v1 (the legacy core group). */
  readonly legacy: boolean;
}

export type RequestInfo = ResourceRequestInfo | DiscoveryRequestInfo | { readonly kind: 'unknown' };

const namespaceSubresources = new Set(['status', 'finalize']);


/**
 * Reads a request. `path` is the URL path without the query; `watch` is the query's watch value.
 * Path segments are percent-decoded.
 */
export function parseRequestInfo(method: string, path: string, watch: string | undefined): RequestInfo {
  const parts = path.split('/').filter((p) => p !== '');
  let decoded: string[];
  try {
    decoded = parts.map((p) => decodeURIComponent(p));
  } catch {
    return { kind: 'unknown' };
  }
  let group: string;
  let version: string | undefined;
  let rest: string[];
  if (decoded[0] === 'api') {
    group = '';
    version = decoded[1];
    if (version === undefined) return { kind: 'discovery', group: '', version: undefined, legacy: true };
    rest = decoded.slice(2);
  } else if (decoded[0] === 'apis') {
    const g = decoded[1];
    if (g === undefined) return { kind: 'discovery', group: undefined, version: undefined, legacy: false };
    group = g;
    version = decoded[2];
    if (version === undefined) return { kind: 'discovery', group, version: undefined, legacy: false };
    rest = decoded.slice(3);
  } else {
    return { kind: 'unknown' };
  }
  if (rest.length === 0) return { kind: 'discovery', group, version, legacy: group === '' };

  let namespace = '';
  if (rest[0] === 'namespaces' && rest.length > 1) {
    namespace = rest[1]!;
    if (rest.length > 2 && !namespaceSubresources.has(rest[2]!)) rest = rest.slice(2);
  }
  const resource = rest[0]!;
  const name = rest[1] ?? '';
  const subresource = rest[2] ?? '';
  if (rest.length > 3) return { kind: 'unknown' };
  // The namespace object itself: /api/v1/namespaces/{name}[/{subresource}]
  if (resource === 'namespaces' && group === '' && rest === undefined) return { kind: 'unknown' };

  let verb: Verb;
  switch (method) {
    case 'GET':
    case 'HEAD':
      verb = name === '' ? (queryBool(watch) ? 'watch' : 'list') : queryBool(watch) ? 'watch' : 'get';
      break;
    case 'POST':
      verb = 'create';
      break;
    case 'PUT':
      verb = 'update';
      break;
    case 'PATCH':
      verb = 'patch';
      break;
    case 'DELETE':
      verb = name === '' ? 'deletecollection' : 'delete';
      break;
    default:
      return { kind: 'unknown' };
  }
  return { kind: 'resource', verb, group, version, namespace: resource === 'namespaces' && group === '' ? '' : namespace, resource, name, subresource };
}
