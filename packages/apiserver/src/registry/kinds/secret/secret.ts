/**
 * Secret (v1, namespaced): type defaults to Opaque; stringData is merged into data (base64) and
 * dropped, as Kubernetes' v1 conversion does; validation as ValidateSecret and ValidateSecretUpdate
 * (config keys, base64 values, at most 1 MiB, the fields each well-known type requires, type
 * immutable, nothing changes once `immutable` is set). Field selector: type.
 */
import { FieldError, nameIsDNSSubdomain, type KubeObject } from '@setpoint/api';
import { jsonErrorMessage } from '../../../http/body.js';
import { validateImmutableField } from '../../objectmeta.js';
import { secretSchema } from '../../schemas/core.js';
import type { ResourceDef } from '../../types.js';
import { IMMUTABLE_WHEN_SET_MSG, MAX_SECRET_SIZE, isConfigMapKey, sameMap, stringEntries, validateByteValues } from '../configmap/configmap.js';
import { secretPrinter } from './table.js';

/** The secret type a Secret gets when it has none. */
export const SECRET_TYPE_OPAQUE = 'Opaque';

/**
 * Kubernetes' defaulting and conversion of a v1 Secret: `type` "Opaque" when empty; each
 * stringData entry written into data as base64 (overriding data), then stringData removed.
 */
export function defaultSecret(obj: KubeObject): void {
  if (typeof obj['type'] !== 'string' || obj['type'] === '') obj['type'] = SECRET_TYPE_OPAQUE;
  const stringData = stringEntries(obj['stringData']);
  if (stringData.length > 0) {
    const current = obj['data'];
    const data: Record<string, unknown> =
      current !== null && typeof current === 'object' && !Array.isArray(current) ? { ...(current as Record<string, unknown>) } : {};
    for (const [key, value] of stringData) data[key] = Buffer.from(value, 'utf8').toString('base64');
    obj['data'] = data;
  }
  delete obj['stringData'];
}

function decoded(entries: ReadonlyArray<[string, string]>, key: string): Buffer | undefined {
  const entry = entries.find(([k]) => k === key);
  return entry === undefined ? undefined : Buffer.from(entry[1], 'base64');
}

function validateJSONConfig(entries: ReadonlyArray<[string, string]>, key: string): FieldError[] {
  const bytes = decoded(entries, key);
  if (bytes === undefined) return [FieldError.required(`data[${key}]`)];
  try {
    const parsed: unknown = JSON.parse(bytes.toString('utf8'));
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('not a JSON object');
    return [];
  } catch (err) {
    const why = jsonErrorMessage(err);
    return [FieldError.invalid(`data[${key}]`, '<secret contents redacted>', why)];
  }
}

/** ValidateSecret without the metadata (which the REST layer validates). */
export function validateSecret(obj: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const data = stringEntries(obj['data']);
  for (const [key] of data) {
    for (const msg of isConfigMapKey(key)) errs.push(FieldError.invalid(`data[${key}]`, key, msg));
  }
  const bytes = validateByteValues(data, 'data');
  errs.push(...bytes.errs);
  if (bytes.size > MAX_SECRET_SIZE) errs.push(FieldError.tooLong('data', MAX_SECRET_SIZE));

  const has = (key: string) => data.some(([k]) => k === key);
  const type = typeof obj['type'] === 'string' ? obj['type'] : '';
  switch (type) {
    case 'kubernetes.io/service-account-token': {
      const annotations = obj.metadata.annotations ?? {};
      const name = annotations['kubernetes.io/service-account.name'];
      if (typeof name !== 'string' || name === '') {
        errs.push(FieldError.required('metadata.annotations[kubernetes.io/service-account.name]'));
      }
      break;
    }
    case 'kubernetes.io/dockercfg':
      errs.push(...validateJSONConfig(data, '.dockercfg'));
      break;
    case 'kubernetes.io/dockerconfigjson':
      errs.push(...validateJSONConfig(data, '.dockerconfigjson'));
      break;
    case 'kubernetes.io/basic-auth':
      // Kubernetes builds these paths from "data[%s]", and so prints them.
      if (!has('username') && !has('password')) {
        errs.push(FieldError.required('data[%s][username]'), FieldError.required('data[%s][password]'));
      }
      break;
    case 'kubernetes.io/ssh-auth':
      if ((decoded(data, 'ssh-privatekey')?.length ?? 0) === 0) errs.push(FieldError.required('data[%s][ssh-privatekey]'));
      break;
    case 'kubernetes.io/tls':
      if (!has('tls.crt')) errs.push(FieldError.required('data[tls.crt]'));
      if (!has('tls.key')) errs.push(FieldError.required('data[tls.key]'));
      break;
    default:
      break;
  }
  return errs;
}

/**
 * The update rules of ValidateSecretUpdate (the create rules run too): `type: Invalid value:
 * "kubernetes.io/tls": field is immutable`; with `immutable` set on the old object, `immutable`
 * and `data` may not change.
 */
export function validateSecretUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  const errs = validateImmutableField(obj['type'] ?? '', old['type'] ?? '', 'type');
  if (old['immutable'] === true) {
    if (obj['immutable'] !== true) errs.push(FieldError.forbidden('immutable', IMMUTABLE_WHEN_SET_MSG));
    if (!sameMap(obj['data'], old['data'])) errs.push(FieldError.forbidden('data', IMMUTABLE_WHEN_SET_MSG));
  }
  return errs;
}

/** secrets (v1). */
export const secretResource: ResourceDef = {
  group: '',
  version: 'v1',
  resource: 'secrets',
  protobuf: true,
  printer: secretPrinter,
  singular: 'secret',
  kind: 'Secret',
  listKind: 'SecretList',
  namespaced: true,
  fieldSelectors: {
    type: (obj) => (typeof obj['type'] === 'string' ? obj['type'] : ''),
  },
  schema: secretSchema,
  nameValidator: nameIsDNSSubdomain,
  strategy: {
    defaults: defaultSecret,
    validate: (obj) => validateSecret(obj),
    validateUpdate: (obj, old) => validateSecretUpdate(obj, old),
  },
};
