/**
 * The 403 a refused request gets, worded as kube-apiserver words it (responsewriters.Forbidden):
 *
 *   pods is forbidden: User "alice" cannot list resource "pods" in API group "" in the namespace "b"
 *   pods "web" is forbidden: User "alice" cannot get resource "pods/log" in API group "" in the namespace "b"
 *   nodes is forbidden: User "alice" cannot list resource "nodes" in API group "" at the cluster scope
 *   forbidden: User "alice" cannot get path "/metrics"
 *
 * followed by `: <reason>` when an authorizer gave one; reason Forbidden, details {name, group,
 * kind: the resource}.
 */
import { ApiError } from '@setpoint/api';
import type { Attributes } from './authorizer.js';

/** forbiddenMessage: what the user cannot do. */
export function forbiddenMessage(a: Attributes): string {
  const user = JSON.stringify(a.user.name);
  if (!a.resourceRequest) return `User ${user} cannot ${a.verb} path ${JSON.stringify(a.path)}`;
  const resource = a.subresource === '' ? a.resource : `${a.resource}/${a.subresource}`;
  const where = a.namespace !== '' ? `in the namespace ${JSON.stringify(a.namespace)}` : 'at the cluster scope';
  return `User ${user} cannot ${a.verb} resource ${JSON.stringify(resource)} in API group ${JSON.stringify(a.apiGroup)} ${where}`;
}

/** The 403 for a refused request, with the authorizers' reason appended when there is one. */
export function forbiddenError(a: Attributes, reason: string): ApiError {
  const why = reason === '' ? forbiddenMessage(a) : `${forbiddenMessage(a)}: ${reason}`;
  if (!a.resourceRequest) return new ApiError('Forbidden', `forbidden: ${why}`, { details: {} });
  return ApiError.forbidden({ group: a.apiGroup, resource: a.resource }, a.name, why);
}
