/**
 * NamespaceLifecycle, kube-apiserver's first admission plugin:
 *
 * - request phase: DELETE of a system namespace (systemnamespaces.ts) is a 403 `this namespace may
 *   not be deleted`, a delete of the whole collection of namespaces a 405;
 * - mutate phase, on a create: an object is created only in a namespace that exists (404 naming
 *   the namespace otherwise) and is not being deleted (403 "unable to create new content in
 *   namespace NS because it is being terminated"). It runs before validation, so that an object
 *   for a missing namespace gets the 404 and not its validation errors.
 */
import { ApiError, type KubeObject } from '@setpoint/api';
import type { ResourceStorage } from '../storage/rest.js';
import type { AdmissionPlugin } from './chain.js';
import { systemNamespaceDeletion } from './systemnamespaces.js';

/** The plugin over the namespaces' storage (read when a create asks, so it may be made later). */
export function namespaceLifecycle(namespaces: () => ResourceStorage): AdmissionPlugin {
  return {
    name: 'NamespaceLifecycle',
    admitRequest({ info }) {
      const refused = systemNamespaceDeletion(info);
      if (refused !== undefined) throw refused;
    },
    async mutate({ def, gr, operation, obj }) {
      if (operation !== 'CREATE' || !def.namespaced) return;
      const namespace = obj.metadata.namespace!;
      let ns: KubeObject;
      try {
        ns = await namespaces().get('', namespace);
      } catch (err) {
        if (err instanceof ApiError && err.reason === 'NotFound') throw ApiError.notFound({ group: '', resource: 'namespaces' }, namespace);
        throw err;
      }
      const phase = (ns.status as { phase?: string } | undefined)?.phase;
      if (ns.metadata.deletionTimestamp !== undefined || phase === 'Terminating') {
        throw ApiError.forbidden(gr, obj.metadata.name ?? '', `unable to create new content in namespace ${namespace} because it is being terminated`);
      }
    },
  };
}
