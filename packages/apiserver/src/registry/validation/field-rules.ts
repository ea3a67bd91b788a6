/**
 * Small validation rules of Kubernetes (apimachinery util/validation and helpers of
 * pkg/apis/core/validation) over untyped JSON values: port numbers and names, environment variable
 * names, DNS labels, non-negative fields, quantities, relative paths. Messages are Kubernetes'.
 */
import { FieldError, QuantityError, isDNS1123Label, parseQuantity, type Quantity } from '@setpoint/api';
import { IS_NEGATIVE_ERROR_MSG } from '../objectmeta.js';
import { child, numberAt } from './json-fields.js';

/** Kubernetes' InclusiveRangeError. */
export function inclusiveRangeError(lo: number, hi: number): string {
  return `must be between ${lo} and ${hi}, inclusive`;
}

/** IsValidPortNum: 1-65535. */
export function isValidPortNum(port: number): string[] {
  return Number.isInteger(port) && port >= 1 && port <= 65535 ? [] : [inclusiveRangeError(1, 65535)];
}

/** IsValidPortName: an IANA_SVC_NAME (at most 15 of [-a-z0-9], a letter, no "--", no edge hyphens). */
export function isValidPortName(port: string): string[] {
  const errs: string[] = [];
  if (port.length > 15) errs.push('must be no more than 15 characters');
  if (!/^[-a-z0-9]+$/.test(port)) errs.push('must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)');
  if (!/[a-z]/.test(port)) errs.push('must contain at least one letter (a-z)');
  if (port.includes('--')) errs.push('must not contain consecutive hyphens');
  if (port.length > 0 && (port.startsWith('-') || port.endsWith('-'))) errs.push('must not begin or end with a hyphen');
  return errs;
}

/** IsRelaxedEnvVarName (RelaxedEnvironmentVariableValidation, on since Kubernetes 1.32): printable ASCII but '='. */
export function isEnvVarName(name: string): string[] {
  if (name.length === 0) return ['environment variable name must be non-empty'];
  for (const ch of name) {
    const c = ch.codePointAt(0)!;
    if (c < 0x20 || c > 0x7e || ch === '=') return ["a valid environment variable name must consist only of printable ASCII characters other than '='"];
  }
  return [];
}

/** IsHTTPHeaderName. */
export function isHTTPHeaderName(name: string): string[] {
  return /^[-A-Za-z0-9]+$/.test(name)
    ? []
    : ["a valid HTTP header must consist of alphanumeric characters or '-' (e.g. 'X-Header-Name', regex used for validation is '[-A-Za-z0-9]+')"];
}

/** ValidateDNS1123Label: one `Invalid value` per message. */
export function validateDNS1123Label(value: string, path: string): FieldError[] {
  return isDNS1123Label(value).map((msg) => FieldError.invalid(path, value, msg));
}

/** ValidateNonnegativeField for an integer field read from JSON. */
export function validateNonnegative(obj: unknown, field: string, path: string): FieldError[] {
  const v = numberAt(obj, field) ?? 0;
  return v < 0 ? [FieldError.invalid(child(path, field), v, IS_NEGATIVE_ERROR_MSG)] : [];
}

/** ValidatePortNumOrName for an IntOrString port. */
export function validatePortNumOrName(port: unknown, path: string): FieldError[] {
  if (typeof port === 'string') return isValidPortName(port).map((msg) => FieldError.invalid(path, port, msg));
  const n = typeof port === 'number' ? port : 0;
  return isValidPortNum(n).map((msg) => FieldError.invalid(path, n, msg));
}

/** A quantity read from JSON, or the parse error Kubernetes' decoder would give. */
export function readQuantity(v: unknown): Quantity | QuantityError {
  try {
    return parseQuantity(typeof v === 'number' ? String(v) : typeof v === 'string' ? v : '');
  } catch (err) {
    if (err instanceof QuantityError) return err;
    throw err;
  }
}

/** validateLocalDescendingPath: relative, without '..' elements. */
export function validateLocalDescendingPath(target: string, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (target.startsWith('/')) errs.push(FieldError.invalid(path, target, 'must be a relative path'));
  if (target.split('/').includes('..')) errs.push(FieldError.invalid(path, target, "must not contain '..'"));
  return errs;
}
