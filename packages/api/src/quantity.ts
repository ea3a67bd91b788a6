/**
 * Resource quantities ("250m", "128Mi", "1e3"), as Kubernetes parses, compares and prints them
 * (apimachinery pkg/api/resource/quantity.go).
 *
 * A Quantity is exact: its value is a bigint count of nano-units (10^-9), which is the finest
 * precision Kubernetes keeps, so parsing, comparison and arithmetic never touch floating point.
 * It also remembers the format its suffix implied (DecimalSI "1k", BinarySI "1Ki",
 * DecimalExponent "1e3"), which decides how it prints. It prints, and serialises to JSON, as its
 * canonical string: no fractional digits, the largest suffix that loses no precision.
 *
 * Deliberate differences from Kubernetes, all at edges no real resource amount reaches:
 * - Kubernetes' String() echoes some inputs verbatim ("+1", "1E3", "05" print as written); we
 *   always print the canonical form computed from the value ("1", "1e3", "5").
 * - Values are never capped or wrapped in arithmetic, and milliValue/value return exact bigints
 *   where Kubernetes' int64 accessors overflow.
 * - An exponent that scales the digits written by more than 10^1000 is refused with the numeric
 *   error (Kubernetes accepts any int32 exponent, truncates larger ones silently, and then needs
 *   memory for every digit). Exponents below nano need no memory and are accepted, as there.
 * - A BinarySI value of 1024^7 or more prints with the "Ei" suffix ("1024Ei") where Kubernetes
 *   drops the suffix.
 */
import { ApiError } from './meta/errors.js';

/** How a quantity prints: "1k" (DecimalSI), "1Ki" (BinarySI) or "1e3" (DecimalExponent). */
export type QuantityFormat = 'DecimalSI' | 'BinarySI' | 'DecimalExponent';

/** Which of Kubernetes' parse errors a QuantityError is (ErrFormatWrong, ErrNumeric, ErrSuffix). */
export type QuantityErrorReason = 'FormatWrong' | 'Numeric' | 'Suffix';

/** The pattern Kubernetes quotes in its format error; it describes only roughly what parses. */
export const QUANTITY_PATTERN = '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$';

/** The message of each parse error, word for word as Kubernetes has them. */
export const quantityErrorMessages: Readonly<Record<QuantityErrorReason, string>> = Object.freeze({
  FormatWrong: `quantities must match the regular expression '${QUANTITY_PATTERN}'`,
  Numeric: 'unable to parse numeric part of quantity',
  Suffix: "unable to parse quantity's suffix",
});

/**
 * A string that is not a quantity. `message` is Kubernetes' text for `reason`; `input` is the
 * string refused. `toApiError()` is the 400 BadRequest an API answers with.
 */
export class QuantityError extends Error {
  override readonly name = 'QuantityError';
  readonly reason: QuantityErrorReason;
  readonly input: string;

  constructor(reason: QuantityErrorReason, input: string) {
    super(quantityErrorMessages[reason]);
    this.reason = reason;
    this.input = input;
  }

  /** This error as a BadRequest ApiError (same message), with this error as its cause. */
  toApiError(): ApiError {
    return new ApiError('BadRequest', this.message, { cause: this });
  }
}

const NANO = 1_000_000_000n;
const MAX_INT64 = (1n << 63n) - 1n;
/** Kubernetes caps a parsed BinarySI quantity at 2^63-1 (in nano-units here). */
const MAX_BINARY_NANOS = MAX_INT64 * NANO;
/** Largest power of ten an exponent may apply to the digits written (see the module comment). */
const MAX_DECIMAL_SHIFT = 1000;

/**
 * An exact quantity: `nanos` is the value in units of 10^-9 (so "250m" has nanos 250_000_000n),
 * `format` how it prints. Immutable. `toString()` and `toJSON()` give the canonical string
 * (formatQuantity), so a Quantity inside an object serialises the way Kubernetes writes it.
 */
export class Quantity {
  readonly nanos: bigint;
  readonly format: QuantityFormat;

  /** A quantity of exactly `nanos` × 10^-9. Throws a TypeError for an unknown format. */
  constructor(nanos: bigint, format: QuantityFormat = 'DecimalSI') {
    if (format !== 'DecimalSI' && format !== 'BinarySI' && format !== 'DecimalExponent') {
      throw new TypeError(`unknown quantity format ${JSON.stringify(format)}`);
    }
    this.nanos = nanos;
    this.format = format;
    Object.freeze(this);
  }

  /** The canonical string, e.g. "1536Mi". */
  toString(): string {
    return formatQuantity(this);
  }

  /** The canonical string: how a quantity appears in JSON. */
  toJSON(): string {
    return formatQuantity(this);
  }
}

function integerAsBigint(value: bigint | number, what: string): bigint {
  if (typeof value === 'bigint') return value;
  if (!Number.isSafeInteger(value)) throw new RangeError(`${what} must be a safe integer, got ${value}`);
  return BigInt(value);
}

/**
 * A quantity of `value` whole units (Kubernetes' NewQuantity). A number must be a safe integer
 * (RangeError otherwise); use a bigint beyond 2^53.
 */
export function newQuantity(value: bigint | number, format: QuantityFormat = 'DecimalSI'): Quantity {
  return new Quantity(integerAsBigint(value, 'value') * NANO, format);
}

/**
 * A quantity of `milli` thousandths (Kubernetes' NewMilliQuantity): newMilliQuantity(250) is "250m".
 * A number must be a safe integer (RangeError otherwise).
 */
export function newMilliQuantity(milli: bigint | number, format: QuantityFormat = 'DecimalSI'): Quantity {
  return new Quantity(integerAsBigint(milli, 'milli') * 1_000_000n, format);
}

// ---------------------------------------------------------------------------------------------
// Parsing

interface Scanned {
  readonly positive: boolean;
  /** Integer digits, leading zeros removed; "0" when there are none. */
  readonly num: string;
  /** Fraction digits as written (possibly empty). */
  readonly denom: string;
  readonly suffix: string;
}

const isDigit = (c: string | undefined): boolean => c !== undefined && c >= '0' && c <= '9';
const SUFFIX_LETTERS = 'eEinumkKMGTP';

/**
 * Splits a quantity into sign, integer digits, fraction digits and suffix, accepting exactly what
 * Kubernetes' parseQuantityString accepts (which includes oddities such as ".", "+", "1." and a
 * bare suffix, all of them numerically zero or whole).
 */
function scan(str: string): Scanned {
  const end = str.length;
  let pos = 0;
  let positive = true;
  if (str[0] === '-') {
    positive = false;
    pos++;
  } else if (str[0] === '+') {
    pos++;
  }
  while (pos < end && str[pos] === '0') pos++;
  if (pos >= end) return { positive, num: '0', denom: '', suffix: '' };

  const numStart = pos;
  while (pos < end && isDigit(str[pos])) pos++;
  const num = pos === numStart ? '0' : str.slice(numStart, pos);
  if (pos >= end) return { positive, num, denom: '', suffix: '' };

  let denom = '';
  if (str[pos] === '.') {
    pos++;
    const denomStart = pos;
    while (pos < end && isDigit(str[pos])) pos++;
    denom = str.slice(denomStart, pos);
    if (pos >= end) return { positive, num, denom, suffix: '' };
  }

  const suffixStart = pos;
  while (pos < end && SUFFIX_LETTERS.includes(str[pos] as string)) pos++;
  if (pos < end && (str[pos] === '+' || str[pos] === '-')) pos++;
  while (pos < end && isDigit(str[pos])) pos++;
  if (pos < end) throw new QuantityError('FormatWrong', str);
  return { positive, num, denom, suffix: str.slice(suffixStart) };
}

interface Suffix {
  readonly base: 2 | 10;
  readonly exponent: number;
  readonly format: QuantityFormat;
}

const suffixes: ReadonlyMap<string, Suffix> = new Map<string, Suffix>([
  ['n', { base: 10, exponent: -9, format: 'DecimalSI' }],
  ['u', { base: 10, exponent: -6, format: 'DecimalSI' }],
  ['m', { base: 10, exponent: -3, format: 'DecimalSI' }],
  ['', { base: 10, exponent: 0, format: 'DecimalSI' }],
  ['k', { base: 10, exponent: 3, format: 'DecimalSI' }],
  ['M', { base: 10, exponent: 6, format: 'DecimalSI' }],
  ['G', { base: 10, exponent: 9, format: 'DecimalSI' }],
  ['T', { base: 10, exponent: 12, format: 'DecimalSI' }],
  ['P', { base: 10, exponent: 15, format: 'DecimalSI' }],
  ['E', { base: 10, exponent: 18, format: 'DecimalSI' }],
  ['Ki', { base: 2, exponent: 10, format: 'BinarySI' }],
  ['Mi', { base: 2, exponent: 20, format: 'BinarySI' }],
  ['Gi', { base: 2, exponent: 30, format: 'BinarySI' }],
  ['Ti', { base: 2, exponent: 40, format: 'BinarySI' }],
  ['Pi', { base: 2, exponent: 50, format: 'BinarySI' }],
  ['Ei', { base: 2, exponent: 60, format: 'BinarySI' }],
]);

const MIN_INT64 = -(1n << 63n);

/** The meaning of a suffix, or undefined (Kubernetes' suffixer.interpret). */
function interpretSuffix(s: string): Suffix | undefined {
  const known = suffixes.get(s);
  if (known !== undefined) return known;
  if (s.length > 1 && (s[0] === 'e' || s[0] === 'E')) {
    const digits = s.slice(1);
    if (!/^[+-]?[0-9]+$/.test(digits)) return undefined;
    const exponent = BigInt(digits);
    if (exponent > MAX_INT64 || exponent < MIN_INT64) return undefined; // strconv.ParseInt fails
    return { base: 10, exponent: Number(exponent), format: 'DecimalExponent' };
  }
  return undefined;
}

/** ceil(|a| / b) for non-negative a and positive b. */
function divideRoundingUp(a: bigint, b: bigint): bigint {
  const q = a / b;
  return a % b === 0n ? q : q + 1n;
}

/**
 * Parses a quantity exactly as Kubernetes' ParseQuantity does: a signed decimal number (digits,
 * optional fraction) and an optional suffix: n u m "" k M G T P E (DecimalSI), Ki Mi Gi Ti Pi Ei
 * (BinarySI) or e/E followed by a signed integer (DecimalExponent). No whitespace is allowed.
 *
 * Guarantees, as Kubernetes: a non-zero value finer than 1n is rounded away from zero to the
 * next nano ("0.9n" is 1n, "3.001n" is 4n); a BinarySI value is capped at 2^63-1 in magnitude
 * ("9Ei" is 9223372036854775807); a BinarySI value strictly between -1 and 1 becomes DecimalSI;
 * decimal values are not capped.
 *
 * Throws QuantityError with Kubernetes' message: reason "FormatWrong" for a string of the wrong
 * shape (including ""), "Suffix" for an unknown suffix or an exponent that does not fit int64,
 * "Numeric" for a number without digits where Kubernetes needs one (".e-10", "Ei") or an
 * exponent that scales the digits written by more than 10^1000.
 */
export function parseQuantity(str: string): Quantity {
  if (str.length === 0) throw new QuantityError('FormatWrong', str);
  if (str === '0') return new Quantity(0n, 'DecimalSI');

  const { positive, num, denom, suffix } = scan(str);
  const meaning = interpretSuffix(suffix);
  if (meaning === undefined) throw new QuantityError('Suffix', str);
  let format = meaning.format;

  // Significant digits of num.denom (the decimal point sits denom.length digits from the right).
  const digits = (num + denom).replace(/^0+/, '');
  let nanos: bigint;
  if (digits === '') {
    // A number without a single digit ("", ".", "+") is zero on Kubernetes' int64 fast path, but
    // its inf.Dec path refuses it; that path is taken for an exponent below nano (".e-10") and,
    // by its precision estimate, for Pi and Ei ("Ei"). Replicated so the same strings fail.
    const noDigit = !/[0-9]/.test(str.slice(0, str.length - suffix.length));
    const decPath = meaning.base === 10 ? meaning.exponent < -9 : meaning.exponent >= 50;
    if (noDigit && decPath) throw new QuantityError('Numeric', str);
    nanos = 0n;
  } else if (meaning.base === 10) {
    const power = meaning.exponent - denom.length; // value = digits × 10^power
    if (power > MAX_DECIMAL_SHIFT) throw new QuantityError('Numeric', str);
    const shift = power + 9; // nanos = digits × 10^shift
    if (shift >= 0) {
      nanos = BigInt(digits) * 10n ** BigInt(shift);
    } else {
      const drop = -shift;
      if (drop >= digits.length) {
        nanos = 1n; // non-zero but below 1n: rounds up to 1n
      } else {
        nanos = BigInt(digits.slice(0, digits.length - drop));
        if (/[1-9]/.test(digits.slice(digits.length - drop))) nanos += 1n;
      }
    }
  } else {
    const scaled = BigInt(digits) << BigInt(meaning.exponent); // value = scaled × 10^-denom.length
    const fraction = denom.length;
    nanos = fraction <= 9 ? scaled * 10n ** BigInt(9 - fraction) : divideRoundingUp(scaled, 10n ** BigInt(fraction - 9));
    if (nanos > MAX_BINARY_NANOS) nanos = MAX_BINARY_NANOS;
    if (nanos > 0n && nanos < NANO) format = 'DecimalSI';
  }
  return new Quantity(positive ? nanos : -nanos, format);
}

/** parseQuantity, but undefined instead of throwing for a string that is not a quantity. */
export function tryParseQuantity(str: string): Quantity | undefined {
  try {
    return parseQuantity(str);
  } catch (err) {
    if (err instanceof QuantityError) return undefined;
    throw err;
  }
}

// ---------------------------------------------------------------------------------------------
// Printing

const decimalSuffixes: ReadonlyMap<number, string> = new Map([
  [-9, 'n'],
  [-6, 'u'],
  [-3, 'm'],
  [0, ''],
  [3, 'k'],
  [6, 'M'],
  [9, 'G'],
  [12, 'T'],
  [15, 'P'],
  [18, 'E'],
]);
const binarySuffixes = ['', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei'] as const;

/**
 * The canonical string of a quantity, by Kubernetes' CanonicalizeBytes rules: no fractional
 * digits, the largest suffix (or exponent, a multiple of 3) that loses no precision, a sign only
 * when negative, "0" for zero whatever the format.
 * - DecimalSI: "1000" → "1k", "0.1" → "100m", "1.5" → "1500m"; above E it falls back to an
 *   exponent ("1000E" → "1e21"), as current Kubernetes does.
 * - DecimalExponent: "1e3" → "1e3", "1.5e3" → "1500", "0.08" written "8e-2" → "80e-3".
 * - BinarySI: powers of 1024 ("1024Mi" → "1Gi", "1.5Gi" → "1536Mi"); a value strictly between
 *   -1024 and 1024, or one with a fractional part, prints as DecimalSI ("0.5Ki" → "512",
 *   "1.5Ki" → "1536", "100.035Ki" → "102435840m").
 * Parsing the result gives back an equal value, except for a BinarySI value above 2^63-1,
 * which parsing caps.
 */
export function formatQuantity(q: Quantity): string {
  const nanos = q.nanos;
  if (nanos === 0n) return '0';
  const negative = nanos < 0n;
  const magnitude = negative ? -nanos : nanos;
  const sign = negative ? '-' : '';

  let format = q.format;
  if (format === 'BinarySI' && (magnitude < 1024n * NANO || magnitude % NANO !== 0n)) format = 'DecimalSI';

  if (format === 'BinarySI') {
    let mantissa = magnitude / NANO;
    let power = 0;
    while (power < binarySuffixes.length - 1 && mantissa % 1024n === 0n) {
      mantissa /= 1024n;
      power++;
    }
    return `${sign}${mantissa}${binarySuffixes[power] ?? ''}`;
  }

  // value = magnitude × 10^-9; move the factors of ten into the exponent, then lower the exponent
  // to a multiple of three.
  const text = magnitude.toString();
  const trimmed = text.replace(/0+$/, '');
  let exponent = -9 + (text.length - trimmed.length);
  const pad = ((exponent % 3) + 3) % 3;
  exponent -= pad;
  const mantissa = trimmed + '0'.repeat(pad);

  if (format === 'DecimalSI') {
    const suffix = decimalSuffixes.get(exponent);
    if (suffix !== undefined) return `${sign}${mantissa}${suffix}`;
  }
  return exponent === 0 ? `${sign}${mantissa}` : `${sign}${mantissa}e${exponent}`;
}

// ---------------------------------------------------------------------------------------------
// Values, comparison, arithmetic

/** a / b for a positive b, rounded away from zero. */
function divideAwayFromZero(a: bigint, b: bigint): bigint {
  const q = a / b; // truncates toward zero
  if (a % b === 0n) return q;
  return a > 0n ? q + 1n : q - 1n;
}

/**
 * The value in thousandths, rounded away from zero as Kubernetes' MilliValue does for the
 * quantities it holds as int64 ("1.0001m" → 2n, "-0.5m" → -1n). Exact: never overflows.
 */
export function milliValue(q: Quantity): bigint {
  return divideAwayFromZero(q.nanos, 1_000_000n);
}

/**
 * The value in whole units, rounded away from zero as Kubernetes' Value() does ("1.5" → 2n,
 * "100m" → 1n, "-1.5" → -2n). Exact: never overflows. (Kubernetes documents away from zero and
 * does so for values it holds as int64; its inf.Dec path rounds a negative value toward +∞
 * instead. We round away from zero for every value.)
 */
export function quantityValue(q: Quantity): bigint {
  return divideAwayFromZero(q.nanos, NANO);
}

/** -1, 0 or 1 as a is less than, equal to or greater than b; formats are ignored ("1Ki" = "1024"). */
export function compareQuantities(a: Quantity, b: Quantity): -1 | 0 | 1 {
  return a.nanos < b.nanos ? -1 : a.nanos > b.nanos ? 1 : 0;
}

/** True when q is zero (in any format). */
export function isZero(q: Quantity): boolean {
  return q.nanos === 0n;
}

/**
 * a + b, exactly. The result keeps a's format, or takes b's when a is zero (Kubernetes' Add), so
 * summing into a zero accumulator keeps the addends' format.
 */
export function addQuantities(a: Quantity, b: Quantity): Quantity {
  return new Quantity(a.nanos + b.nanos, a.nanos === 0n ? b.format : a.format);
}

/** a - b, exactly. The result keeps a's format, or takes b's when a is zero (Kubernetes' Sub). */
export function subtractQuantities(a: Quantity, b: Quantity): Quantity {
  return new Quantity(a.nanos - b.nanos, a.nanos === 0n ? b.format : a.format);
}

/**
 * The value as a JavaScript number, for display and rough arithmetic only: it is the nearest
 * double, so it loses precision beyond about 15 significant digits, and a value beyond the
 * double range becomes ±Infinity (as Kubernetes' AsApproximateFloat64). Never use it to compare
 * or add quantities; use compareQuantities and addQuantities.
 */
export function quantityToNumber(q: Quantity): number {
  return Number(`${q.nanos}e-9`);
}
