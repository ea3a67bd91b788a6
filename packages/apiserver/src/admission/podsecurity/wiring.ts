/**
 * How the API server plugs PodSecurity admission in: the plugin reads namespaces (from the
 * store) and pods (from the watch cache) through the server's storages, and each write request
 * gets a WriteOptions.admit that runs the user's other validating admission first (node
 * restriction…), then PodSecurity, with its warnings going to the response and its annotations to
 * the request's audit event.
 */
import type { GroupResource, KubeObject } from '@setpoint/api';
import type { FastifyRequest } from 'fastify';
import type { Registry } from 'prom-client';
import { addAuditAnnotation } from '../../audit/index.js';
import type { ResourceRequestInfo } from '../../http/requestinfo.js';
import type { ResourceStorage, WriteOptions } from '../../storage/rest.js';
import { namespaceFilter } from '../../watchcache/filter.js';
import { PodSecurityAdmission, type PodSecurityConfig } from './admission.js';
import { PodSecurityMetrics } from './metrics.js';

/** A PodSecurityAdmission over the server's namespace and pod storages. */
export function podSecurityOver(config: PodSecurityConfig, storageOf: (group: string, resource: string) => ResourceStorage | undefined, registry?: Registry): PodSecurityAdmission {
  const need = (resource: string): ResourceStorage => {
    const storage = storageOf('', resource);
    if (storage === undefined) throw new Error(`${resource} are not served`);
    return storage;
  };
  return new PodSecurityAdmission(config, {
    metrics: new PodSecurityMetrics(registry),
    // From the store, not the watch cache: a label set a moment ago applies to the next pod.
    async namespaceLabels(name) {
      return (await need('namespaces').get('', name)).metadata.labels;
    },
    async listPods(name) {
      const pods = need('pods');
      return (await pods.list(name, { filter: namespaceFilter(name), resourceVersion: '0' })).items;
    },
  });
}

/**
 * The admit of one write request: `before` (the user's other validating admission) and then
 * PodSecurity. Undefined when neither applies to the request's kind.
 */
export function podSecurityAdmit(
  plugin: PodSecurityAdmission | undefined,
  req: FastifyRequest,
  info: ResourceRequestInfo,
  gr: GroupResource,
  before: WriteOptions['admit'],
): WriteOptions['admit'] {
  if (plugin === undefined || !PodSecurityAdmission.handles(gr)) return before;
  return async (obj: KubeObject, old: KubeObject | undefined, options?: WriteOptions) => {
    await before?.(obj, old, options);
    await plugin.admit(
      {
        gr,
        subresource: info.subresource,
        namespace: gr.resource === 'namespaces' && gr.group === '' ? (obj.metadata.name ?? '') : (obj.metadata.namespace ?? info.namespace),
        operation: old === undefined ? 'create' : 'update',
        obj,
        old,
        username: req.setpointUser?.name ?? '',
      },
      { warn: (text) => void (options?.warnings?.includes(text) === false && options.warnings.push(text)), annotate: (key, value) => addAuditAnnotation(req, key, value) },
    );
  };
}
