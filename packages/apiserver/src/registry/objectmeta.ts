/**
 * Generic metadata validation, run by the REST layer for every kind: Kubernetes' ValidateObjectMeta
 * and ValidateObjectMetaUpdate (apimachinery pkg/api/validation/objectmeta.go), with the extra
 * finalizer rule the built-in kinds add (pkg/apis/core/validation: an unqualified finalizer must be
 * a standard one). Field paths, ordering and messages are Kubernetes'; where Kubernetes prints a Go
 * value (`%#v` of a slice, `Time.String()`), the value is rendered the same way.
 *
 * Differences, on purpose: map iteration follows the object's key order (Go's is random), and the
 * values of owner-reference errors print as JSON (Go prints struct pointers as addresses).
 */
import {
  FieldError,
  OMIT_VALUE,
  isDNS1123Label,
  isQualifiedName,
  jsonEqual,
  validateAnnotations,
  validateLabels,
  validateObjectName,
  type NameValidator,
  type ObjectMeta,
  type OwnerReference,
} from '@setpoint/api';

/** Kubernetes' FieldImmutableErrorMsg. */
export const FIELD_IMMUTABLE_ERROR_MSG = 'field is immutable';

/** Kubernetes' IsNegativeErrorMsg. */
export const IS_NEGATIVE_ERROR_MSG = 'must be greater than or equal to 0';

/**
 * Finalizer names the built-in kinds accept without a domain prefix: "kubernetes" (namespaces),
 * "orphan" and "foregroundDeletion" (garbage collection).
 */
export const STANDARD_FINALIZERS: readonly string[] = Object.freeze(['kubernetes', 'orphan', 'foregroundDeletion']);

/** The longest metadata.managedFields[].manager (FieldManagerMaxLength). */
export const FIELD_MANAGER_MAX_LENGTH = 128;
/** The longest metadata.managedFields[].subresource (MaxSubresourceNameLength). */
export const MAX_SUBRESOURCE_NAME_LENGTH = 256;

/** Options of {@link validateObjectMeta}. */
export interface ObjectMetaOptions {
  /** Whether the kind is namespaced: namespace required (a DNS label) or forbidden. */
  readonly namespaced: boolean;
  /** The kind's name rule, applied to name (and to generateName as a prefix). */
  readonly nameValidator: NameValidator;
  /**
   * Apply the built-in kinds' rule that an unqualified finalizer must be one of
   * {@link STANDARD_FINALIZERS} (`metadata.finalizers[i]: … name is neither a standard finalizer
   * name nor is it fully qualified`). Default true; custom resources and a few built-in groups
   * (coordination.k8s.io) set false.
   */
  readonly standardFinalizers?: boolean;
  /** The path of the metadata. Default "metadata". */
  readonly fieldPath?: string;
}

/** Options of {@link validateObjectMetaUpdate}. */
export interface ObjectMetaUpdateOptions {
  /** As {@link ObjectMetaOptions.standardFinalizers}; default true. */
  readonly standardFinalizers?: boolean;
  /** The path of the metadata. Default "metadata". */
  readonly fieldPath?: string;
}

/**
 * Kubernetes' ValidateObjectMeta for a new object (name generation already done): generateName and
 * name against `nameValidator` (`metadata.name: Required value: name or generateName is
 * required`), namespace required and a DNS label for namespaced kinds or `metadata.namespace:
 * Forbidden: not allowed on this type` otherwise, generation ≥ 0, labels, annotations, owner
 * references (all four fields set; at most one controller; an Event may not own), finalizers
 * (qualified names; not both "orphan" and "foregroundDeletion"; standard names, see options) and
 * managedFields. Returns [] when valid; never throws.
 */
export function validateObjectMeta(meta: ObjectMeta, options: ObjectMetaOptions): FieldError[] {
  const path = options.fieldPath ?? 'metadata';
  const errs = validateObjectName(str(meta.name), {
    generateName: str(meta.generateName),
    nameFn: options.nameValidator,
    fieldPath: path,
  });
  const namespace = str(meta.namespace);
  if (options.namespaced) {
    if (namespace === '') errs.push(FieldError.required(`${path}.namespace`));
    else for (const msg of isDNS1123Label(namespace)) errs.push(FieldError.invalid(`${path}.namespace`, namespace, msg));
  } else if (namespace !== '') {
    errs.push(FieldError.forbidden(`${path}.namespace`, 'not allowed on this type'));
  }
  errs.push(...validateNonnegativeField(meta.generation, `${path}.generation`));
  errs.push(...validateCommon(meta, path));
  errs.push(...validateFinalizers(meta.finalizers, `${path}.finalizers`));
  errs.push(...validateManagedFields(meta.managedFields, `${path}.managedFields`));
  if (options.standardFinalizers ?? true) errs.push(...validateStandardFinalizers(meta.finalizers, `${path}.finalizers`));
  return errs;
}

/**
 * Kubernetes' ValidateObjectMetaUpdate: no finalizer added while the old object is being deleted;
 * generation not decremented (`metadata.generation: Invalid value: 1: must not be decremented`);
 * name, namespace, uid, creationTimestamp, deletionTimestamp and deletionGracePeriodSeconds
 * unchanged (`metadata.name: Invalid value: "b": field is immutable`; timestamps compare as
 * instants, so "…:09Z" equals "…:09.000Z"); labels, annotations, owner references and
 * managedFields of the new metadata valid; standard finalizer names (see options).
 *
 * Like Kubernetes, it does not re-check name format, namespace or finalizer names as qualified
 * names: most Kubernetes kinds also run the create validation on the new object. The
 * resourceVersion precondition is the REST layer's (unconditional updates are allowed there).
 * Returns [] when valid; never throws.
 */
export function validateObjectMetaUpdate(newMeta: ObjectMeta, oldMeta: ObjectMeta, options: ObjectMetaUpdateOptions = {}): FieldError[] {
  const path = options.fieldPath ?? 'metadata';
  const errs: FieldError[] = [];
  if (oldMeta.deletionTimestamp !== undefined && oldMeta.deletionTimestamp !== null) {
    errs.push(...validateNoNewFinalizers(newMeta.finalizers, oldMeta.finalizers, `${path}.finalizers`));
  }
  const newGeneration = num(newMeta.generation);
  if (newGeneration < num(oldMeta.generation)) {
    errs.push(FieldError.invalid(`${path}.generation`, newGeneration, 'must not be decremented'));
  }
  errs.push(...validateImmutableField(str(newMeta.name), str(oldMeta.name), `${path}.name`));
  errs.push(...validateImmutableField(str(newMeta.namespace), str(oldMeta.namespace), `${path}.namespace`));
  errs.push(...validateImmutableField(str(newMeta.uid), str(oldMeta.uid), `${path}.uid`));
  errs.push(...validateImmutableTime(newMeta.creationTimestamp, oldMeta.creationTimestamp, `${path}.creationTimestamp`, false));
  errs.push(...validateImmutableTime(newMeta.deletionTimestamp, oldMeta.deletionTimestamp, `${path}.deletionTimestamp`, true));
  const newGrace = newMeta.deletionGracePeriodSeconds;
  const oldGrace = oldMeta.deletionGracePeriodSeconds;
  if (!sameOptional(newGrace, oldGrace)) {
    errs.push(FieldError.invalid(`${path}.deletionGracePeriodSeconds`, newGrace ?? 'null', FIELD_IMMUTABLE_ERROR_MSG));
  }
  errs.push(...validateCommon(newMeta, path));
  errs.push(...validateManagedFields(newMeta.managedFields, `${path}.managedFields`));
  if (options.standardFinalizers ?? true) errs.push(...validateStandardFinalizers(newMeta.finalizers, `${path}.finalizers`));
  return errs;
}

/**
 * Kubernetes' ValidateImmutableField for plain values (strings, numbers, booleans, JSON trees):
 * `<path>: Invalid value: <new>: field is immutable` when they differ (deep equality; undefined
 * prints as "null"). Returns [] when equal.
 */
export function validateImmutableField(newVal: unknown, oldVal: unknown, path: string): FieldError[] {
  if (deepEqual(newVal, oldVal)) return [];
  return [FieldError.invalid(path, newVal ?? 'null', FIELD_IMMUTABLE_ERROR_MSG)];
}

/** Kubernetes' ValidateNonnegativeField: `<path>: Invalid value: -1: must be greater than or equal to 0`. */
export function validateNonnegativeField(value: unknown, path: string): FieldError[] {
  return typeof value === 'number' && value < 0 ? [FieldError.invalid(path, value, IS_NEGATIVE_ERROR_MSG)] : [];
}

/**
 * Kubernetes' ValidateFinalizerName (apimachinery): a qualified name, one
 * `<path>: Invalid value` per message. With `standard`, also the built-in kinds' rule: a name
 * without '/' must be one of {@link STANDARD_FINALIZERS}.
 */
export function validateFinalizerName(name: string, path: string, standard = false): FieldError[] {
  const errs = isQualifiedName(name).map((msg) => FieldError.invalid(path, name, msg));
  if (standard) errs.push(...validateStandardFinalizerName(name, path));
  return errs;
}

/**
 * Renders an RFC 3339 timestamp as Go's time.Time.String() prints it in UTC
 * ("2026-11-29 15:47:44 +0000 UTC", fractions kept without trailing zeros), which is how
 * Kubernetes prints times in field errors. A string that is not RFC 3339 is returned unchanged.
 */
export function goTimeString(rfc3339: string): string {
  const m = /^(\d{4}-\d{2}-\d{2})[Tt](\d{2}:\d{2}:\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/.exec(rfc3339);
  if (m === null) return rfc3339;
  const fraction = (m[3] ?? '').replace(/0+$/, '');
  let date = m[1]!;
  let clock = m[2]!;
  const zone = m[4]!;
  if (zone !== 'Z' && zone !== 'z') {
    const ms = Date.parse(`${date}T${clock}${zone}`);
    if (Number.isNaN(ms)) return rfc3339;
    const iso = new Date(ms).toISOString();
    date = iso.slice(0, 10);
    clock = iso.slice(11, 19);
  }
  return `${date} ${clock}${fraction === '.' ? '' : fraction} +0000 UTC`;
}

/**
 * A metav1.MicroTime as Kubernetes serialises it: UTC, exactly six fractional digits
 * ("2026-11-29T15:47:44.123000Z"; extra digits are cut, as Go's formatting cuts them). Go clients
 * parse MicroTime with that exact layout, so "…:44Z" or "…:44.123Z" must not be served back.
 * A value that is not RFC 3339 is returned unchanged (for validation to report).
 */
export function formatMicroTime(rfc3339: string): string {
  const m = /^(\d{4}-\d{2}-\d{2})[Tt](\d{2}:\d{2}:\d{2})(?:\.(\d+))?([Zz]|[+-]\d{2}:\d{2})$/.exec(rfc3339);
  if (m === null) return rfc3339;
  const micros = (m[3] ?? '').slice(0, 6).padEnd(6, '0');
  let date = m[1]!;
  let clock = m[2]!;
  const zone = m[4]!;
  if (zone !== 'Z' && zone !== 'z') {
    const ms = Date.parse(`${date}T${clock}${zone}`);
    if (Number.isNaN(ms)) return rfc3339;
    const iso = new Date(ms).toISOString();
    date = iso.slice(0, 10);
    clock = iso.slice(11, 19);
  }
  return `${date}T${clock}.${micros}Z`;
}

// ---------------------------------------------------------------------------------------------

function validateCommon(meta: ObjectMeta, path: string): FieldError[] {
  return [
    ...validateLabels(meta.labels, `${path}.labels`),
    ...validateAnnotations(meta.annotations, `${path}.annotations`),
    ...validateOwnerReferences(meta.ownerReferences, `${path}.ownerReferences`),
  ];
}

/** "apps/v1" → { group: "apps", version: "v1" }; "v1" → core; more than one '/' → neither. */
function parseGroupVersion(apiVersion: string): { group: string; version: string } {
  if (apiVersion === '' || apiVersion === '/') return { group: '', version: '' };
  const parts = apiVersion.split('/');
  if (parts.length === 1) return { group: '', version: apiVersion };
  if (parts.length === 2) return { group: parts[0]!, version: parts[1]! };
  return { group: '', version: '' };
}

// Kubernetes' ValidateOwnerReferences: errors use the list's path, not the entry's index.
function validateOwnerReferences(refs: readonly OwnerReference[] | undefined, path: string): FieldError[] {
  const errs: FieldError[] = [];
  let firstController = '';
  for (const ref of refs ?? []) {
    const apiVersion = str(ref.apiVersion);
    const kind = str(ref.kind);
    const gv = parseGroupVersion(apiVersion);
    if (gv.version === '') errs.push(FieldError.invalid(`${path}.apiVersion`, apiVersion, 'version must not be empty'));
    if (kind === '') errs.push(FieldError.invalid(`${path}.kind`, kind, 'must not be empty'));
    if (str(ref.name) === '') errs.push(FieldError.invalid(`${path}.name`, str(ref.name), 'must not be empty'));
    if (str(ref.uid) === '') errs.push(FieldError.invalid(`${path}.uid`, str(ref.uid), 'must not be empty'));
    if (gv.group === '' && gv.version === 'v1' && kind === 'Event') {
      errs.push(FieldError.invalid(path, ref, '/v1, Kind=Event is disallowed from being an owner'));
    }
    if (ref.controller === true) {
      const current = `${kind}/${str(ref.name)}`;
      if (firstController !== '') {
        errs.push(
          FieldError.invalid(
            path,
            refs,
            `Only one reference can have Controller set to true. Found "true" in references for ${firstController} and ${current}`,
          ),
        );
      } else {
        firstController = current;
      }
    }
  }
  return errs;
}

// Kubernetes' ValidateFinalizers (apimachinery): errors use the list's path.
function validateFinalizers(finalizers: readonly string[] | undefined, path: string): FieldError[] {
  const errs: FieldError[] = [];
  let orphan = false;
  let foreground = false;
  for (const f of finalizers ?? []) {
    errs.push(...validateFinalizerName(str(f), path));
    if (f === 'orphan') orphan = true;
    if (f === 'foregroundDeletion') foreground = true;
  }
  if (orphan && foreground) {
    errs.push(goValueError(path, goStringSlice(finalizers ?? []), 'finalizer orphan and foregroundDeletion cannot be both set'));
  }
  return errs;
}

// The core group's validateKubeFinalizerName, per entry with its index.
function validateStandardFinalizers(finalizers: readonly string[] | undefined, path: string): FieldError[] {
  const errs: FieldError[] = [];
  (finalizers ?? []).forEach((f, i) => errs.push(...validateStandardFinalizerName(str(f), `${path}[${i}]`)));
  return errs;
}

function validateStandardFinalizerName(name: string, path: string): FieldError[] {
  if (name.split('/').length === 1 && !STANDARD_FINALIZERS.includes(name)) {
    return [FieldError.invalid(path, name, 'name is neither a standard finalizer name nor is it fully qualified')];
  }
  return [];
}

function validateNoNewFinalizers(newFinalizers: readonly string[] | undefined, oldFinalizers: readonly string[] | undefined, path: string): FieldError[] {
  const old = new Set(oldFinalizers ?? []);
  const extra = [...new Set((newFinalizers ?? []).filter((f) => !old.has(f)))].sort();
  if (extra.length === 0) return [];
  return [FieldError.forbidden(path, `no new finalizers can be added if the object is being deleted, found new finalizers ${goStringSlice(extra)}`)];
}

// Kubernetes' ValidateManagedFields (meta/v1 validation).
function validateManagedFields(entries: ObjectMeta['managedFields'], path: string): FieldError[] {
  const errs: FieldError[] = [];
  (entries ?? []).forEach((entry, i) => {
    const p = `${path}[${i}]`;
    const operation = str(entry.operation);
    if (operation !== 'Apply' && operation !== 'Update') {
      errs.push(FieldError.invalid(`${p}.operation`, operation, 'must be `Apply` or `Update`'));
    }
    const fieldsType = str(entry.fieldsType);
    if (fieldsType !== '' && fieldsType !== 'FieldsV1') {
      errs.push(FieldError.invalid(`${p}.fieldsType`, fieldsType, 'must be `FieldsV1`'));
    }
    errs.push(...validateFieldManager(str(entry.manager), `${p}.manager`));
    if (utf8Length(str(entry.subresource)) > MAX_SUBRESOURCE_NAME_LENGTH) {
      errs.push(FieldError.tooLong(`${p}.subresource`, MAX_SUBRESOURCE_NAME_LENGTH));
    }
  });
  return errs;
}

const printable = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;

// Kubernetes' ValidateFieldManager: at most 128 bytes, printable characters only.
function validateFieldManager(manager: string, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (utf8Length(manager) > FIELD_MANAGER_MAX_LENGTH) errs.push(FieldError.tooLong(path, FIELD_MANAGER_MAX_LENGTH));
  let position = 0; // byte offset, as Go's range over a string reports it
  for (const ch of manager) {
    if (!printable.test(ch)) {
      const code = ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
      errs.push(FieldError.invalid(path, manager, `invalid character U+${code} (at position ${position})`));
    }
    position += utf8Length(ch);
  }
  return errs;
}

// ValidateImmutableField for a metav1.Time (`optional`: a *Time, printed "null" when unset).
function validateImmutableTime(newVal: unknown, oldVal: unknown, path: string, optional: boolean): FieldError[] {
  if (sameInstant(newVal, oldVal)) return [];
  if (typeof newVal !== 'string' || newVal === '') {
    // A nil *Time prints as "null"; a zero Time as Go's zero time.
    return optional
      ? [FieldError.invalid(path, 'null', FIELD_IMMUTABLE_ERROR_MSG)]
      : [goValueError(path, '0001-01-01 00:00:00 +0000 UTC', FIELD_IMMUTABLE_ERROR_MSG)];
  }
  return [goValueError(path, goTimeString(newVal), FIELD_IMMUTABLE_ERROR_MSG)];
}

function sameInstant(a: unknown, b: unknown): boolean {
  const unset = (v: unknown) => v === undefined || v === null || v === '';
  if (unset(a) || unset(b)) return unset(a) && unset(b);
  if (a === b) return true;
  if (typeof a !== 'string' || typeof b !== 'string') return false;
  const ta = Date.parse(a);
  const tb = Date.parse(b);
  // Date.parse keeps milliseconds; finer fractions compare as text after the millisecond.
  return !Number.isNaN(ta) && ta === tb && subMillis(a) === subMillis(b);
}

function subMillis(s: string): string {
  const m = /\.\d{3}(\d*)/.exec(s);
  return (m?.[1] ?? '').replace(/0+$/, '');
}

/** An Invalid error whose value prints bare, as Go's fmt prints a non-string value. */
function goValueError(path: string, rendered: string, detail: string): FieldError {
  return new FieldError('FieldValueInvalid', path, OMIT_VALUE, `${rendered}: ${detail}`);
}

/** Go's %#v of a []string: `[]string{"a", "b"}`. */
function goStringSlice(values: readonly string[]): string {
  return `[]string{${values.map((v) => JSON.stringify(v)).join(', ')}}`;
}

function sameOptional(a: unknown, b: unknown): boolean {
  return (a ?? null) === (b ?? null);
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

function num(v: unknown): number {
  return typeof v === 'number' ? v : 0;
}

/** Deep equality of JSON values (Kubernetes' semantic equality for plain data). */
export const deepEqual = jsonEqual;

function utf8Length(s: string): number {
  return Buffer.byteLength(s, 'utf8');
}
