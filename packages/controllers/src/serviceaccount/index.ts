/**
 * The ServiceAccount controller (Kubernetes' serviceaccounts-controller in kube-controller-manager):
 * every active namespace has a ServiceAccount named "default", the identity of pods that name none.
 *
 * Expected flow: a namespace appears (or changes), or a "default" ServiceAccount is deleted → its
 * namespace's key is queued → reconcile reads the namespace and the account from the cache; when
 * the namespace exists, is not terminating and has no "default" account, the account is created.
 *
 * Guarantees: idempotent (an account created meanwhile by someone else, AlreadyExists, is success;
 * a namespace that began terminating, Forbidden or NotFound, is left alone); never updates or
 * deletes an account. Lives in the controller-manager, as in Kubernetes: an API server alone does
 * not create these accounts.
 */
import { isApiError, type Namespace, type ServiceAccount } from '@setpoint/api';
import { builtin, type Controller, type Manager, checkNamespace } from '@setpoint/client';

/** The ServiceAccount every namespace gets. */
export const DEFAULT_SERVICE_ACCOUNT = 'default';

/** Registers the ServiceAccount controller on `manager` (leader-elected) and returns it. */
export function registerServiceAccountController(manager: Manager): Controller {
  const client = manager.client;
  const namespaces = manager.reader<Namespace>(builtin.namespaces);
  const accounts = manager.reader<ServiceAccount>(builtin.serviceAccounts);
  return manager
    .controller('serviceaccount')
    .for(builtin.namespaces)
    .watches<ServiceAccount>(builtin.serviceAccounts, (sa) => (sa.metadata.name === DEFAULT_SERVICE_ACCOUNT ? [{ namespace: '', name: sa.metadata.namespace ?? '' }] : []))
    .withConcurrency(5)
    .reconcile(async ({ name }, { logger }) => {
      const ns = namespaces.get('', name);
      if (ns !== undefined) checkNamespace(ns);
      if (ns === undefined || ns.metadata.deletionTimestamp !== undefined || ns.status?.phase === 'Terminating') return undefined;
      if (accounts.get(name, DEFAULT_SERVICE_ACCOUNT) !== undefined) return undefined;
      try {
        await client.serviceAccounts().create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: DEFAULT_SERVICE_ACCOUNT, namespace: name } }, { namespace: name });
        logger.info({ namespace: name }, 'created the default ServiceAccount');
      } catch (err) {
        if (isApiError(err, 'AlreadyExists') || isApiError(err, 'Forbidden') || isApiError(err, 'NotFound')) return undefined;
        throw err;
      }
      return undefined;
    });
}
