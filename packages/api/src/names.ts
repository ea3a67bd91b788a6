/**
 * Names: the rules Kubernetes applies to object names, label keys and values, annotations, and the
 * namespace/name keys caches use, with Kubernetes' exact messages (apimachinery v0.34:
 * pkg/util/validation, pkg/api/validation, pkg/api/validation/path; apiserver storage/names;
 * client-go tools/cache keys).
 *
 * The `is*` functions return a list of messages, empty when the value is valid; the `validate*`
 * functions return FieldErrors ready for `ApiError.invalid`. Lengths are counted in UTF-8 bytes, as
 * Go's `len` counts them.
 */
import { ApiError, FieldError } from './meta/errors.js';

// ---------------------------------------------------------------------------------------------
// Messages (validation.go's MaxLenError, RegexError, EmptyError)

function maxLenError(length: number): string {
  return `must be no more than ${length} characters`;
}

// Kubernetes joins examples as "'a',  or 'b', " (two spaces); kept so messages match byte for byte.
function regexError(msg: string, fmt: string, ...examples: string[]): string {
  if (examples.length === 0) return `${msg} (regex used for validation is '${fmt}')`;
  return `${msg} (e.g. ${examples.map((e) => `'${e}', `).join(' or ')}regex used for validation is '${fmt}')`;
}

const EMPTY_ERROR = 'must be non-empty';

/** The length of `s` in UTF-8 bytes (Go's `len`); a lone surrogate counts as U+FFFD (3 bytes). */
function utf8Length(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n += 4;
        i++;
      } else n += 3;
    } else n += 3;
  }
  return n;
}

// ---------------------------------------------------------------------------------------------
// DNS names

const DNS1123_LABEL_FMT = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const DNS1123_LABEL_ERR_MSG =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
const DNS1123_SUBDOMAIN_FMT = `${DNS1123_LABEL_FMT}(\\.${DNS1123_LABEL_FMT})*`;
const DNS1123_SUBDOMAIN_ERR_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
const DNS1035_LABEL_FMT = '[a-z]([-a-z0-9]*[a-z0-9])?';
const DNS1035_LABEL_ERR_MSG =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character";

const dns1123LabelRegexp = new RegExp(`^${DNS1123_LABEL_FMT}$`);
const dns1123SubdomainRegexp = new RegExp(`^${DNS1123_SUBDOMAIN_FMT}$`);
const dns1035LabelRegexp = new RegExp(`^${DNS1035_LABEL_FMT}$`);

/** The longest RFC 1123 label (and RFC 1035 label): 63 bytes. */
export const DNS1123_LABEL_MAX_LENGTH = 63;
/** The longest RFC 1123 subdomain: 253 bytes. */
export const DNS1123_SUBDOMAIN_MAX_LENGTH = 253;

/**
 * Checks an RFC 1123 subdomain (most object names): at most 253 bytes of `[a-z0-9.-]`, dot-separated
 * labels each starting and ending alphanumeric. Returns Kubernetes' messages; empty means valid.
 */
export function isDNS1123Subdomain(value: string): string[] {
  const errs: string[] = [];
  if (utf8Length(value) > DNS1123_SUBDOMAIN_MAX_LENGTH) errs.push(maxLenError(DNS1123_SUBDOMAIN_MAX_LENGTH));
  if (!dns1123SubdomainRegexp.test(value)) errs.push(regexError(DNS1123_SUBDOMAIN_ERR_MSG, DNS1123_SUBDOMAIN_FMT, 'example.com'));
  return errs;
}

/**
 * Checks an RFC 1123 label (namespace names, among others): at most 63 bytes of `[a-z0-9-]`,
 * starting and ending alphanumeric. A valid subdomain with dots gets "must not contain dots".
 * Returns Kubernetes' messages; empty means valid.
 */
export function isDNS1123Label(value: string): string[] {
  const errs: string[] = [];
  if (utf8Length(value) > DNS1123_LABEL_MAX_LENGTH) errs.push(maxLenError(DNS1123_LABEL_MAX_LENGTH));
  if (!dns1123LabelRegexp.test(value)) {
    if (dns1123SubdomainRegexp.test(value)) errs.push('must not contain dots');
    else errs.push(regexError(DNS1123_LABEL_ERR_MSG, DNS1123_LABEL_FMT, 'my-name', '123-abc'));
  }
  return errs;
}

/**
 * Checks an RFC 1035 label (service names): at most 63 bytes of `[a-z0-9-]`, starting with a
 * letter and ending alphanumeric. Returns Kubernetes' messages; empty means valid.
 */
export function isDNS1035Label(value: string): string[] {
  const errs: string[] = [];
  if (utf8Length(value) > DNS1123_LABEL_MAX_LENGTH) errs.push(maxLenError(DNS1123_LABEL_MAX_LENGTH));
  if (!dns1035LabelRegexp.test(value)) errs.push(regexError(DNS1035_LABEL_ERR_MSG, DNS1035_LABEL_FMT, 'my-name', 'abc-123'));
  return errs;
}

// ---------------------------------------------------------------------------------------------
// Qualified names (label and annotation keys) and label values

const QUALIFIED_NAME_FMT = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const QUALIFIED_NAME_ERR_MSG =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const QUALIFIED_NAME_MAX_LENGTH = 63;
const qualifiedNameRegexp = new RegExp(`^${QUALIFIED_NAME_FMT}$`);

const LABEL_VALUE_FMT = `(${QUALIFIED_NAME_FMT})?`;
const LABEL_VALUE_ERR_MSG =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
/** The longest label value: 63 bytes. */
export const LABEL_VALUE_MAX_LENGTH = 63;
const labelValueRegexp = new RegExp(`^${LABEL_VALUE_FMT}$`);

/**
 * Checks a qualified name (label keys, annotation keys, finalizers): an optional DNS-1123 subdomain
 * prefix and '/', then a name of at most 63 bytes of `[A-Za-z0-9._-]` starting and ending
 * alphanumeric. Returns Kubernetes' messages ("prefix part …", "name part …"); empty means valid.
 */
export function isQualifiedName(value: string): string[] {
  const errs: string[] = [];
  const parts = value.split('/');
  let name: string;
  if (parts.length === 1) {
    name = parts[0]!;
  } else if (parts.length === 2) {
    const prefix = parts[0]!;
    name = parts[1]!;
    if (prefix.length === 0) errs.push(`prefix part ${EMPTY_ERROR}`);
    else for (const msg of isDNS1123Subdomain(prefix)) errs.push(`prefix part ${msg}`);
  } else {
    errs.push(
      `a qualified name ${regexError(QUALIFIED_NAME_ERR_MSG, QUALIFIED_NAME_FMT, 'MyName', 'my.name', '123-abc')}` +
        " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    );
    return errs;
  }
  if (name.length === 0) errs.push(`name part ${EMPTY_ERROR}`);
  else if (utf8Length(name) > QUALIFIED_NAME_MAX_LENGTH) errs.push(`name part ${maxLenError(QUALIFIED_NAME_MAX_LENGTH)}`);
  if (!qualifiedNameRegexp.test(name)) {
    errs.push(`name part ${regexError(QUALIFIED_NAME_ERR_MSG, QUALIFIED_NAME_FMT, 'MyName', 'my.name', '123-abc')}`);
  }
  return errs;
}

/**
 * Checks a label value: empty, or at most 63 bytes of `[A-Za-z0-9._-]` starting and ending
 * alphanumeric. Returns Kubernetes' messages; empty means valid.
 */
export function isValidLabelValue(value: string): string[] {
  const errs: string[] = [];
  if (utf8Length(value) > LABEL_VALUE_MAX_LENGTH) errs.push(maxLenError(LABEL_VALUE_MAX_LENGTH));
  if (!labelValueRegexp.test(value)) errs.push(regexError(LABEL_VALUE_ERR_MSG, LABEL_VALUE_FMT, 'MyValue', 'my_value', '12345'));
  return errs;
}

// ---------------------------------------------------------------------------------------------
// Object names

/**
 * Checks a name that must be usable as one URL path segment (the rule every object name obeys):
 * not "." or "..", and no "/" or "%". Returns Kubernetes' messages; empty means valid.
 */
export function isValidPathSegmentName(name: string): string[] {
  if (name === '.' || name === '..') return [`may not be '${name}'`];
  return isValidPathSegmentPrefix(name);
}

/** Checks a prefix of a path-segment name (a generateName): no "/" and no "%". Empty means valid. */
export function isValidPathSegmentPrefix(name: string): string[] {
  const errs: string[] = [];
  for (const illegal of ['/', '%']) if (name.includes(illegal)) errs.push(`may not contain '${illegal}'`);
  return errs;
}

/**
 * Validates an object name (or, with `prefix`, a generateName) in the shape of Kubernetes'
 * ValidateNameFunc: returns messages, empty when valid.
 */
export type NameValidator = (name: string, prefix: boolean) => string[];

/** ValidatePathSegmentName: the path-segment rules (prefix rules when `prefix`). Empty means valid. */
export const validatePathSegmentName: NameValidator = (name, prefix) =>
  prefix ? isValidPathSegmentPrefix(name) : isValidPathSegmentName(name);

/** A generateName may end in '-': checked as if its last two characters were "a" (Kubernetes' maskTrailingDash). */
function maskTrailingDash(name: string): string {
  return name.length > 1 && name.endsWith('-') ? `${name.slice(0, -2)}a` : name;
}

/** NameIsDNSSubdomain: the name (or generateName, trailing '-' allowed) is a DNS-1123 subdomain. */
export const nameIsDNSSubdomain: NameValidator = (name, prefix) => isDNS1123Subdomain(prefix ? maskTrailingDash(name) : name);

/** NameIsDNSLabel: the name (or generateName, trailing '-' allowed) is a DNS-1123 label (namespaces). */
export const nameIsDNSLabel: NameValidator = (name, prefix) => isDNS1123Label(prefix ? maskTrailingDash(name) : name);

/** NameIsDNS1035Label: the name (or generateName, trailing '-' allowed) is a DNS-1035 label (services). */
export const nameIsDNS1035Label: NameValidator = (name, prefix) => isDNS1035Label(prefix ? maskTrailingDash(name) : name);

/** Options of {@link validateObjectName}. */
export interface ValidateObjectNameOptions {
  /** metadata.generateName, checked with `nameFn(generateName, true)` when non-empty. Default ''. */
  readonly generateName?: string;
  /** The rule for this kind's names. Default {@link validatePathSegmentName} (the rule every kind obeys). */
  readonly nameFn?: NameValidator;
  /** The path of the ObjectMeta. Default "metadata". */
  readonly fieldPath?: string;
}

/**
 * The name part of Kubernetes' ValidateObjectMeta: a generateName failing `nameFn` gives
 * `<path>.generateName: Invalid value`; an empty name gives `<path>.name: Required value: name or
 * generateName is required`; a name failing `nameFn` gives one `<path>.name: Invalid value` per message.
 * Never throws; returns [] when valid.
 */
export function validateObjectName(name: string, options: ValidateObjectNameOptions = {}): FieldError[] {
  const { generateName = '', nameFn = validatePathSegmentName, fieldPath = 'metadata' } = options;
  const errs: FieldError[] = [];
  if (generateName.length !== 0) {
    for (const msg of nameFn(generateName, true)) errs.push(FieldError.invalid(`${fieldPath}.generateName`, generateName, msg));
  }
  if (name.length === 0) {
    errs.push(FieldError.required(`${fieldPath}.name`, 'name or generateName is required'));
  } else {
    for (const msg of nameFn(name, false)) errs.push(FieldError.invalid(`${fieldPath}.name`, name, msg));
  }
  return errs;
}

// ---------------------------------------------------------------------------------------------
// Labels and annotations

/**
 * Kubernetes' ValidateLabels: each key a qualified name, each value a valid label value; every
 * message is one `FieldError.invalid(fieldPath, keyOrValue, msg)`, in the map's key order. Returns [] when valid.
 */
export function validateLabels(labels: Readonly<Record<string, string>> | undefined, fieldPath: string): FieldError[] {
  const errs: FieldError[] = [];
  for (const [k, v] of Object.entries(labels ?? {})) {
    for (const msg of isQualifiedName(k)) errs.push(FieldError.invalid(fieldPath, k, msg));
    for (const msg of isValidLabelValue(v)) errs.push(FieldError.invalid(fieldPath, v, msg));
  }
  return errs;
}

/** The most bytes all annotation keys and values of one object may take together: 256 KiB. */
export const TOTAL_ANNOTATION_SIZE_LIMIT_BYTES = 256 * 1024;

/**
 * Kubernetes' ValidateAnnotations: each key, lowercased, a qualified name (`FieldError.invalid`
 * with the original key), and the keys' and values' UTF-8 bytes together at most 262144
 * (`<fieldPath>: Too long: may not be more than 262144 bytes`). Returns [] when valid.
 */
export function validateAnnotations(annotations: Readonly<Record<string, string>> | undefined, fieldPath: string): FieldError[] {
  const errs: FieldError[] = [];
  let total = 0;
  for (const [k, v] of Object.entries(annotations ?? {})) {
    for (const msg of isQualifiedName(k.toLowerCase())) errs.push(FieldError.invalid(fieldPath, k, msg));
    total += utf8Length(k) + utf8Length(v);
  }
  if (total > TOTAL_ANNOTATION_SIZE_LIMIT_BYTES) errs.push(FieldError.tooLong(fieldPath, TOTAL_ANNOTATION_SIZE_LIMIT_BYTES));
  return errs;
}

// ---------------------------------------------------------------------------------------------
// namespace/name keys

/**
 * The cache key of an object (client-go's MetaNamespaceKeyFunc): "namespace/name", or "name" when
 * the namespace is '' or undefined (cluster-scoped). Assumes neither part contains '/'.
 */
export function objectKey(namespace: string | undefined, name: string): string {
  return namespace === undefined || namespace === '' ? name : `${namespace}/${name}`;
}

/** A key split into its parts; `namespace` is '' for cluster-scoped objects. */
export interface ObjectKeyParts {
  readonly namespace: string;
  readonly name: string;
}

/**
 * The inverse of {@link objectKey} (client-go's SplitMetaNamespaceKey): "name" → { namespace: '',
 * name }, "ns/name" → { namespace: 'ns', name }. Throws ApiError BadRequest `unexpected key format:
 * "a/b/c"` for a key with more than one '/'.
 */
export function parseObjectKey(key: string): ObjectKeyParts {
  const parts = key.split('/');
  if (parts.length === 1) return { namespace: '', name: parts[0]! };
  if (parts.length === 2) return { namespace: parts[0]!, name: parts[1]! };
  throw ApiError.badRequest(`unexpected key format: ${JSON.stringify(key)}`);
}

// ---------------------------------------------------------------------------------------------
// generateName

/** The characters of a generated suffix (k8s.io/apimachinery/pkg/util/rand): no vowels, no 0/1/3. */
export const GENERATED_NAME_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';
/** The length of a generated suffix. */
export const GENERATED_NAME_SUFFIX_LENGTH = 5;
/** The longest base kept from a generateName: 63 - 5 = 58, so a generated name fits a DNS label. */
export const MAX_GENERATED_NAME_LENGTH = DNS1123_LABEL_MAX_LENGTH - GENERATED_NAME_SUFFIX_LENGTH;

/**
 * Five characters from {@link GENERATED_NAME_ALPHABET}. `random` returns numbers in [0, 1) like
 * Math.random (the default); out-of-range results are clamped, so the result is always 5 alphabet characters.
 */
export function generateNameSuffix(random: () => number = Math.random): string {
  let s = '';
  const n = GENERATED_NAME_ALPHABET.length;
  for (let i = 0; i < GENERATED_NAME_SUFFIX_LENGTH; i++) {
    const r = random();
    const index = Number.isFinite(r) ? Math.min(n - 1, Math.max(0, Math.floor(r * n))) : 0;
    s += GENERATED_NAME_ALPHABET[index]!;
  }
  return s;
}

/**
 * A name from a generateName, as Kubernetes' SimpleNameGenerator makes it: `base` cut to its first
 * 58 characters, then a 5-character suffix, so the result is at most 63 characters. Assumes `base`
 * has been validated (ASCII); never throws.
 */
export function nameFromGenerateName(base: string, random: () => number = Math.random): string {
  const kept = base.length > MAX_GENERATED_NAME_LENGTH ? base.slice(0, MAX_GENERATED_NAME_LENGTH) : base;
  return kept + generateNameSuffix(random);
}
