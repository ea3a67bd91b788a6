/**
 * ConfigMap (v1, namespaced, short name cm): validation as Kubernetes' ValidateConfigMap and
 * ValidateConfigMapUpdate — config keys, no key in both data and binaryData, at most 1 MiB in all,
 * and nothing changes once `immutable` is set. Also the config-key and base64 rules Secret shares.
 */
import { FieldError, nameIsDNSSubdomain, type KubeObject } from '@setpoint/api';
import { deepEqual } from '../../objectmeta.js';
import { configMapSchema } from '../../schemas/core.js';
import type { ResourceDef } from '../../types.js';
import { configMapPrinter } from './table.js';

/** The most bytes a ConfigMap's or Secret's values may take together (core.MaxSecretSize): 1 MiB. */
export const MAX_SECRET_SIZE = 1024 * 1024;

/** Kubernetes' message for a change once `immutable` is set. */
export const IMMUTABLE_WHEN_SET_MSG = 'field is immutable when `immutable` is set';

const CONFIG_MAP_KEY_FMT = '[-._a-zA-Z0-9]+';
const configMapKeyRegexp = new RegExp(`^${CONFIG_MAP_KEY_FMT}$`);
const CONFIG_MAP_KEY_MSG =
  "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')";

/**
 * Kubernetes' IsConfigMapKey (ConfigMap and Secret keys): at most 253 bytes of `[-._a-zA-Z0-9]`,
 * not "." or "..", not starting with "..". Returns Kubernetes' messages; empty means valid.
 */
export function isConfigMapKey(key: string): string[] {
  const errs: string[] = [];
  if (Buffer.byteLength(key, 'utf8') > 253) errs.push('must be no more than 253 characters');
  if (!configMapKeyRegexp.test(key)) errs.push(CONFIG_MAP_KEY_MSG);
  if (key === '.') errs.push("must not be '.'");
  else if (key === '..') errs.push("must not be '..'");
  else if (key.startsWith('..')) errs.push("must not start with '..'");
  return errs;
}

function isBase64Char(c: string): boolean {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c === '+' || c === '/';
}

/**
 * Where Go's base64.StdEncoding (padded, standard alphabet, CR and LF ignored) stops decoding `s`:
 * -1 when `s` decodes, else the offset Go reports as "illegal base64 data at input byte N".
 */
export function base64ErrorOffset(s: string): number {
  const n = s.length;
  const skipNewlines = (i: number) => {
    while (i < n && (s[i] === '\n' || s[i] === '\r')) i++;
    return i;
  };
  let si = 0;
  for (;;) {
    for (let j = 0; j < 4; j++) {
      if (si === n) return j === 0 ? -1 : si - j;
      const c = s[si]!;
      si++;
      if (isBase64Char(c)) continue;
      if (c === '\n' || c === '\r') {
        j--;
        continue;
      }
      if (c !== '=') return si - 1;
      if (j < 2) return si - 1;
      if (j === 2) {
        si = skipNewlines(si);
        if (si === n) return n;
        if (s[si] !== '=') return si - 1;
        si++;
      }
      si = skipNewlines(si);
      return si < n ? si : -1;
    }
  }
}

/** The number of bytes `s` decodes to, assuming {@link base64ErrorOffset} accepted it. */
export function base64DecodedLength(s: string): number {
  return Buffer.from(s.replace(/[\r\n]/g, ''), 'base64').length;
}

/** The entries of a string map, ignoring non-string values (the schema rejects them). */
export function stringEntries(v: unknown): Array<[string, string]> {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return [];
  return Object.entries(v as Record<string, unknown>).filter((e): e is [string, string] => typeof e[1] === 'string');
}

/**
 * Validates base64 byte values at `<field>[<key>]`: `Invalid value: "<secret contents redacted>":
 * illegal base64 data at input byte N` (Kubernetes refuses these while decoding, with the same
 * text). Returns the errors and the decoded size of the valid values.
 */
export function validateByteValues(entries: ReadonlyArray<[string, string]>, field: string): { errs: FieldError[]; size: number } {
  const errs: FieldError[] = [];
  let size = 0;
  for (const [key, value] of entries) {
    const offset = base64ErrorOffset(value);
    if (offset >= 0) errs.push(FieldError.invalid(`${field}[${key}]`, '<secret contents redacted>', `illegal base64 data at input byte ${offset}`));
    else size += base64DecodedLength(value);
  }
  return { errs, size };
}

/** ValidateConfigMap without the metadata (which the REST layer validates). */
export function validateConfigMap(obj: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const data = stringEntries(obj['data']);
  const binary = stringEntries(obj['binaryData']);
  const binaryKeys = new Set(binary.map(([k]) => k));
  let size = 0;
  for (const [key, value] of data) {
    for (const msg of isConfigMapKey(key)) errs.push(FieldError.invalid(`data[${key}]`, key, msg));
    if (binaryKeys.has(key)) errs.push(FieldError.invalid(`data[${key}]`, key, 'duplicate of key present in binaryData'));
    size += Buffer.byteLength(value, 'utf8');
  }
  for (const [key] of binary) {
    for (const msg of isConfigMapKey(key)) errs.push(FieldError.invalid(`binaryData[${key}]`, key, msg));
  }
  const bytes = validateByteValues(binary, 'binaryData');
  errs.push(...bytes.errs);
  size += bytes.size;
  // Kubernetes reports the size on the whole object (an empty path), printed ": Too long: …".
  if (size > MAX_SECRET_SIZE) errs.push(FieldError.tooLong('', MAX_SECRET_SIZE));
  return errs;
}

/** An absent map and an empty one are the same data. */
export function sameMap(a: unknown, b: unknown): boolean {
  const norm = (v: unknown) => (v === undefined || v === null ? {} : v);
  return deepEqual(norm(a), norm(b));
}

/** The update rules of ValidateConfigMapUpdate (the create rules run too). */
export function validateConfigMapUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  if (old['immutable'] === true) {
    if (obj['immutable'] !== true) errs.push(FieldError.forbidden('immutable', IMMUTABLE_WHEN_SET_MSG));
    if (!sameMap(obj['data'], old['data'])) errs.push(FieldError.forbidden('data', IMMUTABLE_WHEN_SET_MSG));
    if (!sameMap(obj['binaryData'], old['binaryData'])) errs.push(FieldError.forbidden('binaryData', IMMUTABLE_WHEN_SET_MSG));
  }
  return errs;
}

/** configmaps (v1). */
export const configMapResource: ResourceDef = {
  group: '',
  version: 'v1',
  resource: 'configmaps',
  protobuf: true,
  printer: configMapPrinter,
  singular: 'configmap',
  kind: 'ConfigMap',
  listKind: 'ConfigMapList',
  namespaced: true,
  shortNames: ['cm'],
  schema: configMapSchema,
  nameValidator: nameIsDNSSubdomain,
  strategy: {
    validate: (obj) => validateConfigMap(obj),
    validateUpdate: (obj, old) => validateConfigMapUpdate(obj, old),
  },
};
