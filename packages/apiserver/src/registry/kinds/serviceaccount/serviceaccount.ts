/**
 * ServiceAccount (v1, namespaced, short name sa): validation is the metadata's only (the REST
 * layer's); as Kubernetes' strategy, secret references are reduced to their names on create and
 * update. The token subresource (authentication.k8s.io/v1 TokenRequest) issues bound tokens
 * (routes/tokenrequest.ts).
 */
import { nameIsDNSSubdomain, type KubeObject } from '@setpoint/api';
import { handleTokenRequest } from '../../../routes/tokenrequest.js';
import { serviceAccountSchema } from '../../schemas/core.js';
import type { ResourceDef, SubresourceDef } from '../../types.js';
import { serviceAccountPrinter } from './table.js';

/** Kubernetes' cleanSecretReferences: each entry of `secrets` keeps only its name. */
export function cleanSecretReferences(obj: KubeObject): void {
  const secrets = obj['secrets'];
  if (!Array.isArray(secrets)) return;
  obj['secrets'] = secrets.map((ref: unknown) => {
    const name = ref !== null && typeof ref === 'object' ? (ref as Record<string, unknown>)['name'] : undefined;
    return typeof name === 'string' ? { name } : {};
  });
}

/** serviceaccounts/token: a TokenRequest for the ServiceAccount, bound to a pod, secret or node when it names one. */
function tokenSubresource(): SubresourceDef {
  return {
    verbs: ['create'],
    group: 'authentication.k8s.io',
    version: 'v1',
    kind: 'TokenRequest',
    handler: ({ req, reply, info, storage, services }) => {
      const core = (resource: string) => services.storageFor('', 'v1', resource);
      return handleTokenRequest(req, reply, info, { tokens: services.tokens, serviceAccounts: storage, pods: core('pods'), secrets: core('secrets'), nodes: core('nodes') });
    },
  };
}

/** serviceaccounts (v1). */
export const serviceAccountResource: ResourceDef = {
  group: '',
  version: 'v1',
  resource: 'serviceaccounts',
  protobuf: true,
  printer: serviceAccountPrinter,
  singular: 'serviceaccount',
  kind: 'ServiceAccount',
  listKind: 'ServiceAccountList',
  namespaced: true,
  shortNames: ['sa'],
  subresources: { more: { token: tokenSubresource() } },
  schema: serviceAccountSchema,
  nameValidator: nameIsDNSSubdomain,
  strategy: {
    prepareForCreate: (obj) => cleanSecretReferences(obj),
    prepareForUpdate: (obj) => cleanSecretReferences(obj),
  },
};
