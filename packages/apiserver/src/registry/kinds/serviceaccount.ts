/**
 * ServiceAccount (v1, namespaced, short name sa): validation is the metadata's only (the REST
 * layer's); as Kubernetes' strategy, secret references are reduced to their names on create and
 * update.
 */
import { nameIsDNSSubdomain, type KubeObject } from '@setpoint/api';
import { serviceAccountSchema } from '../schemas/core.js';
import type { ResourceDef } from '../types.js';

/** Kubernetes' cleanSecretReferences: each entry of `secrets` keeps only its name. */
export function cleanSecretReferences(obj: KubeObject): void {
  const secrets = obj['secrets'];
  if (!Array.isArray(secrets)) return;
  obj['secrets'] = secrets.map((ref: unknown) => {
    const name = ref !== null && typeof ref === 'object' ? (ref as Record<string, unknown>)['name'] : undefined;
    return typeof name === 'string' ? { name } : {};
  });
}

/** serviceaccounts (v1). */
export const serviceAccountResource: ResourceDef = {
  group: '',
  version: 'v1',
  resource: 'serviceaccounts',
  singular: 'serviceaccount',
  kind: 'ServiceAccount',
  listKind: 'ServiceAccountList',
  namespaced: true,
  shortNames: ['sa'],
  schema: serviceAccountSchema,
  nameValidator: nameIsDNSSubdomain,
  strategy: {
    prepareForCreate: (obj) => cleanSecretReferences(obj),
    prepareForUpdate: (obj) => cleanSecretReferences(obj),
  },
};
