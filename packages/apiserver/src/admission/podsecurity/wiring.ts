/**
 * How the API server plugs PodSecurity admission in: the plugin reads namespaces (from the
 * store) and pods (from the watch cache) through the server's storages, and takes part in the
 * admission chain's validate phase (admission/chain.ts).
 */
import type { Registry } from 'prom-client';
import type { ResourceStorage } from '../../storage/rest.js';
import type { AdmissionPlugin } from '../chain.js';
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
 * PodSecurity as a plugin of the admission chain: validates each pod and namespace a request
 * writes (after validation, before the store write), with its warnings going to the response and
 * its annotations to the request's audit event. In-process writes are not checked.
 */
export function podSecurityPlugin(plugin: () => PodSecurityAdmission | undefined): AdmissionPlugin {
  return {
    name: 'PodSecurity',
    async validate({ gr, obj, old, request, warn }) {
      const admission = plugin();
      if (request === undefined || admission === undefined || !PodSecurityAdmission.handles(gr)) return;
      await admission.admit(
        {
          gr,
          subresource: request.info.subresource,
          namespace: gr.resource === 'namespaces' && gr.group === '' ? (obj.metadata.name ?? '') : (obj.metadata.namespace ?? request.info.namespace),
          operation: old === undefined ? 'create' : 'update',
          obj,
          old,
          username: request.user?.name ?? '',
        },
        { warn, annotate: (key, value) => request.annotate(key, value) },
      );
    },
  };
}
