/**
 * The string formats a CRD schema may name, checked as Kubernetes' strfmt registry checks them.
 * Formats not listed here (isbn, creditcard, ssn, bsonobjectid, and any unknown name) are not
 * checked, as Kubernetes ignores formats it does not know. The values are the user's, so every
 * expression here is RE2 (./regexp.ts): linear in the value's length, whatever it holds.
 */
import { isIP } from 'node:net';
import { compilePattern } from './regexp.js';

export interface FormatCheck {
  readonly validate: (value: string) => boolean;
}

const hostnamePart = compilePattern('^[a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?$');
const uuidAny = compilePattern('(?i)^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$');
const uuidVersion = (v: number) => compilePattern(`(?i)^[0-9a-f]{8}-[0-9a-f]{4}-${v}[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`);
// Go durations: "300ms", "-1.5h", "2h45m"; units ns, us, µs, ms, s, m, h.
const goDuration = compilePattern('^[-+]?((\\d+(\\.\\d*)?|\\.\\d+)(ns|us|µs|ms|s|m|h))+$|^0$');
// RFC 3339 date-time, as strfmt accepts it (T or space, optional fraction, Z or offset).
const dateTime = compilePattern('^\\d{4}-\\d{2}-\\d{2}[Tt ]\\d{2}:\\d{2}:\\d{2}(\\.\\d+)?([Zz]|[+-]\\d{2}:\\d{2})$');

const email = compilePattern('^[^\\s@]+@[^\\s@]+\\.[^\\s@]+$');
const mac = compilePattern('^([0-9a-fA-F]{2}[:-]){5}[0-9a-fA-F]{2}$');
const base64 = compilePattern('^([A-Za-z0-9+/]{4})*([A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$');
const hexColor = compilePattern('^#([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$');
const rgbColor = compilePattern('^rgb\\(\\s*\\d{1,3}\\s*,\\s*\\d{1,3}\\s*,\\s*\\d{1,3}\\s*\\)$');

function validDate(s: string): boolean {
  // Only ever a 10-character prefix or a whole short value: a fixed-length JavaScript expression.
  const m = s.length === 10 ? /^(\d{4})-(\d{2})-(\d{2})$/.exec(s) : null;
  if (!m) return false;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return d.getUTCFullYear() === Number(m[1]) && d.getUTCMonth() === Number(m[2]) - 1 && d.getUTCDate() === Number(m[3]);
}

function validDateTime(s: string): boolean {
  return dateTime.test(s) && validDate(s.slice(0, 10)) && !Number.isNaN(Date.parse(s.replace(' ', 'T')));
}

function validCidr(s: string): boolean {
  const slash = s.indexOf('/');
  if (slash < 0) return false;
  const family = isIP(s.slice(0, slash));
  const bits = s.slice(slash + 1);
  if (family === 0 || bits.length > 3 || !/^\d{1,3}$/.test(bits)) return false;
  return Number(bits) <= (family === 4 ? 32 : 128);
}

function validUri(s: string): boolean {
  try {
    return new URL(s).protocol !== '';
  } catch {
    return false;
  }
}

const str = (validate: (value: string) => boolean): FormatCheck => ({ validate });

export const FORMATS: Readonly<Record<string, FormatCheck>> = {
  uri: str(validUri),
  email: str((s) => email.test(s)),
  hostname: str((s) => s.length <= 253 && s.split('.').every((p) => hostnamePart.test(p))),
  ipv4: str((s) => isIP(s) === 4),
  ipv6: str((s) => isIP(s) === 6),
  cidr: str(validCidr),
  mac: str((s) => mac.test(s)),
  uuid: str((s) => uuidAny.test(s)),
  uuid3: str((s) => uuidVersion(3).test(s)),
  uuid4: str((s) => uuidVersion(4).test(s)),
  uuid5: str((s) => uuidVersion(5).test(s)),
  byte: str((s) => base64.test(s)),
  password: str(() => true),
  date: str(validDate),
  'date-time': str(validDateTime),
  datetime: str(validDateTime),
  duration: str((s) => goDuration.test(s)),
  hexcolor: str((s) => hexColor.test(s)),
  rgbcolor: str((s) => rgbColor.test(s)),
};
