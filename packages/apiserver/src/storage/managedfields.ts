/**
 * Field management in the API server: which FieldManager serves a kind at an endpoint, who a
 * request writes as, and the managedFields every write that is not an apply records (an Update
 * entry for its manager). Reads only `def.schema`, so built-in kinds and custom resources are
 * handled alike.
 */
import { FieldError, FieldManager, type KubeObject } from '@setpoint/api';
import { groupVersion, type ResourceDef } from '../registry/types.js';

/** Kubernetes' FieldManagerMaxLength. */
const FIELD_MANAGER_MAX_LENGTH = 128;

const managers = new WeakMap<ResourceDef, Map<string, FieldManager>>();

/**
 * The FieldManager of `def` at `subresource` ('' for the main resource), built once per kind
 * definition. With a status subresource, the main resource never owns `status` and the status
 * subresource owns only `status` (Kubernetes' reset fields).
 */
export function fieldManagerFor(def: ResourceDef, subresource = ''): FieldManager {
  let bySubresource = managers.get(def);
  if (bySubresource === undefined) {
    bySubresource = new Map();
    managers.set(def, bySubresource);
  }
  let manager = bySubresource.get(subresource);
  if (manager === undefined) {
    const statusSplit = def.subresources?.status === true;
    const scope = !statusSplit ? undefined : subresource === '' ? { except: ['status'] } : subresource === 'status' ? { only: ['status'] } : undefined;
    manager = new FieldManager({
      schema: def.schema,
      apiVersion: groupVersion(def),
      kind: def.kind,
      ...(subresource !== '' ? { subresource } : {}),
      ...(scope !== undefined ? { scope } : {}),
    });
    bySubresource.set(subresource, manager);
  }
  return manager;
}

/**
 * Records a write that is not an apply: sets (or removes) `next.metadata.managedFields` for
 * `manager` writing `next` over `live` (undefined on create) through `subresource`. Never throws.
 */
export function recordManagedFields(def: ResourceDef, live: KubeObject | undefined, next: KubeObject, subresource: string, manager: string, now: string): void {
  const entries = fieldManagerFor(def, subresource).update(live, next, manager, now);
  if (entries === undefined) delete next.metadata.managedFields;
  else next.metadata.managedFields = entries;
}

/**
 * Who a request writes as: its `fieldManager`, else the User-Agent's product name — everything
 * before the first "/", printable characters only, at most 128 bytes (Kubernetes'
 * prefixFromUserAgent: "kubectl/v1.32.4 (linux/amd64) …" writes as "kubectl").
 */
export function managerOf(fieldManager: string | undefined, userAgent: string | undefined): string {
  if (fieldManager !== undefined && fieldManager !== '') return fieldManager;
  const product = (userAgent ?? '').split('/')[0]!;
  let out = '';
  let bytes = 0;
  for (const ch of product) {
    if (!printable.test(ch)) continue;
    const size = Buffer.byteLength(ch);
    if (bytes + size > FIELD_MANAGER_MAX_LENGTH) break;
    out += ch;
    bytes += size;
  }
  return out;
}

const printable = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;

/** Kubernetes' ValidateFieldManager of the fieldManager query parameter: at most 128 bytes, printable characters. */
export function validateFieldManager(value: string, path = 'fieldManager'): FieldError[] {
  const errs: FieldError[] = [];
  if (Buffer.byteLength(value) > FIELD_MANAGER_MAX_LENGTH) errs.push(FieldError.tooLong(path, FIELD_MANAGER_MAX_LENGTH));
  let position = 0;
  for (const ch of value) {
    if (!printable.test(ch)) {
      const code = ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
      errs.push(FieldError.invalid(path, value, `invalid character U+${code} (at position ${position})`));
    }
    position += Buffer.byteLength(ch);
  }
  return errs;
}
