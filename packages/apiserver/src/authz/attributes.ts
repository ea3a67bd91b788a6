/**
 * The authorization attributes of an HTTP request, read as kube-apiserver's RequestInfoFactory
 * reads them:
 *
 * - resource requests (/api/v1/…, /apis/G/V/…): the RequestInfo's verb, group, version, resource,
 *   subresource, namespace and name; a namespace object (/api/v1/namespaces/x) is "in" its own
 *   namespace; a list or watch whose fieldSelector requires `metadata.name=x` is about the object
 *   x (so a rule's resourceNames can allow it);
 * - everything else (/healthz, /version, /metrics, /openapi/…, discovery at /api and /apis): a
 *   non-resource request, verb the lower-case HTTP method, on the path.
 */
import { parseFieldSelector, validatePathSegmentName } from '@setpoint/api';
import type { UserInfo } from '../auth/index.js';
import type { RequestInfo } from '../http/requestinfo.js';
import type { Attributes } from './authorizer.js';

/** Attributes of a request to `path` (without the query) whose RequestInfo is `info` (undefined outside /api and /apis). */
export function requestAttributes(user: UserInfo, method: string, path: string, fieldSelector: string | undefined, info: RequestInfo | undefined): Attributes {
  if (info?.kind !== 'resource') return nonResourceAttributes(user, method.toLowerCase(), path);
  let name = info.name;
  if (name === '' && (info.verb === 'list' || info.verb === 'watch') && fieldSelector !== undefined && fieldSelector !== '') name = nameFromSelector(fieldSelector);
  const namespace = info.group === '' && info.resource === 'namespaces' && info.namespace === '' ? info.name : info.namespace;
  return {
    user,
    verb: info.verb,
    resourceRequest: true,
    namespace,
    apiGroup: info.group,
    apiVersion: info.version,
    resource: info.resource,
    subresource: info.subresource,
    name,
    fieldSelector,
    path,
  };
}

/** Attributes of a non-resource request. */
export function nonResourceAttributes(user: UserInfo, verb: string, path: string): Attributes {
  return { user, verb, resourceRequest: false, namespace: '', apiGroup: '', apiVersion: '', resource: '', subresource: '', name: '', path };
}

/** The name a field selector pins with `metadata.name=x`, when x is a valid path segment; '' otherwise. */
function nameFromSelector(fieldSelector: string): string {
  try {
    const name = parseFieldSelector(fieldSelector).exactMatch('metadata.name');
    return name !== undefined && validatePathSegmentName(name, false).length === 0 ? name : '';
  } catch {
    return '';
  }
}
