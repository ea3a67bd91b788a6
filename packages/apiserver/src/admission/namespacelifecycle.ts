/**
 * The create half of kube-apiserver's NamespaceLifecycle admission: an object is created only in a
 * namespace that exists (404 naming the namespace otherwise) and is not being deleted (403 "unable
 * to create new content in namespace NS because it is being terminated"). The delete half is in
 * systemnamespaces.ts. It is the first check of a create, before defaulting and validation.
 */
import { ApiError, type GroupResource, type KubeObject } from '@setpoint/api';
import type { NamespaceCheck, ResourceStorage } from '../storage/rest.js';

/** The check over the namespaces' storage (read when a create asks, so it may be made later). */
export function namespaceLifecycle(namespaces: () => ResourceStorage): NamespaceCheck {
  return async (namespace: string, gr: GroupResource, name: string) => {
    let ns: KubeObject;
    try {
      ns = await namespaces().get('', namespace);
    } catch (err) {
      if (err instanceof ApiError && err.reason === 'NotFound') throw ApiError.notFound({ group: '', resource: 'namespaces' }, namespace);
      throw err;
    }
    const phase = (ns.status as { phase?: string } | undefined)?.phase;
    if (ns.metadata.deletionTimestamp !== undefined || phase === 'Terminating') {
      throw ApiError.forbidden(gr, name, `unable to create new content in namespace ${namespace} because it is being terminated`);
    }
  };
}
