import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { ApiError } from './meta/errors.js';
import {
  Quantity,
  QuantityError,
  type QuantityErrorReason,
  type QuantityFormat,
  addQuantities,
  compareQuantities,
  formatQuantity,
  isZero,
  milliValue,
  newMilliQuantity,
  newQuantity,
  parseQuantity,
  quantityErrorMessages,
  quantityToNumber,
  subtractQuantities,
  tryParseQuantity,
  quantityValue,
} from './quantity.js';

/** Kubernetes' decQuantity(i, exponent, format): the value i × 10^exponent. */
function dq(i: bigint | number, exponent: number, format: QuantityFormat = 'DecimalSI'): Quantity {
  const shift = exponent + 9;
  const n = BigInt(i);
  if (shift >= 0) return new Quantity(n * 10n ** BigInt(shift), format);
  const div = 10n ** BigInt(-shift);
  assert.equal(n % div, 0n, 'dq: value finer than nano');
  return new Quantity(n / div, format);
}

const MAX_INT64 = 9223372036854775807n;
/** -c without producing -0 (which strict assertions tell apart from 0). */
const negate = (c: -1 | 0 | 1): -1 | 0 | 1 => (c === 0 ? 0 : c === 1 ? -1 : 1);
const maxAllowed = (format: QuantityFormat): Quantity => dq(MAX_INT64, 0, format);

function assertSameQuantity(got: Quantity, want: Quantity, label: string): void {
  assert.equal(got.nanos, want.nanos, `${label}: value ${formatQuantity(got)} ≠ ${formatQuantity(want)}`);
  assert.equal(got.format, want.format, `${label}: format`);
}

describe('parseQuantity', () => {
  // Kubernetes' TestQuantityParse table.
  const table: Array<[string, Quantity]> = [
    ['0', dq(0, 0)],
    ['0n', dq(0, 0)],
    ['0u', dq(0, 0)],
    ['0m', dq(0, 0)],
    ['0Ki', dq(0, 0, 'BinarySI')],
    ['0k', dq(0, 0)],
    ['0Mi', dq(0, 0, 'BinarySI')],
    ['0M', dq(0, 0)],
    ['0Gi', dq(0, 0, 'BinarySI')],
    ['0G', dq(0, 0)],
    ['0Ti', dq(0, 0, 'BinarySI')],
    ['0T', dq(0, 0)],
    // Quantity-less numbers are allowed
    ['1', dq(1, 0)],
    // Binary suffixes
    ['1Ki', dq(1024, 0, 'BinarySI')],
    ['8Ki', dq(8 * 1024, 0, 'BinarySI')],
    ['7Mi', dq(7 * 1024 * 1024, 0, 'BinarySI')],
    ['6Gi', dq(6n * 1024n ** 3n, 0, 'BinarySI')],
    ['5Ti', dq(5n * 1024n ** 4n, 0, 'BinarySI')],
    ['4Pi', dq(4n * 1024n ** 5n, 0, 'BinarySI')],
    ['3Ei', dq(3n * 1024n ** 6n, 0, 'BinarySI')],
    ['10Ti', dq(10n * 1024n ** 4n, 0, 'BinarySI')],
    ['100Ti', dq(100n * 1024n ** 4n, 0, 'BinarySI')],
    // Decimal suffixes
    ['5n', dq(5, -9)],
    ['4u', dq(4, -6)],
    ['3m', dq(3, -3)],
    ['9', dq(9, 0)],
    ['8k', dq(8, 3)],
    ['50k', dq(5, 4)],
    ['7M', dq(7, 6)],
    ['6G', dq(6, 9)],
    ['5T', dq(5, 12)],
    ['40T', dq(4, 13)],
    ['300T', dq(3, 14)],
    ['2P', dq(2, 15)],
    ['1E', dq(1, 18)],
    // Decimal exponents
    ['1E-3', dq(1, -3, 'DecimalExponent')],
    ['1e3', dq(1, 3, 'DecimalExponent')],
    ['1E6', dq(1, 6, 'DecimalExponent')],
    ['1e9', dq(1, 9, 'DecimalExponent')],
    ['1E12', dq(1, 12, 'DecimalExponent')],
    ['1e15', dq(1, 15, 'DecimalExponent')],
    ['1E18', dq(1, 18, 'DecimalExponent')],
    // Nonstandard but still parsable
    ['1e14', dq(1, 14, 'DecimalExponent')],
    ['1e13', dq(1, 13, 'DecimalExponent')],
    ['100.035k', dq(100035, 0)],
    // Things that look like floating point
    ['0.001', dq(1, -3)],
    ['0.0005k', dq(5, -1)],
    ['0.005', dq(5, -3)],
    ['0.05', dq(5, -2)],
    ['0.5', dq(5, -1)],
    ['0.00050k', dq(5, -1)],
    ['0.00500', dq(5, -3)],
    ['0.05000', dq(5, -2)],
    ['0.50000', dq(5, -1)],
    ['0.5e0', dq(5, -1, 'DecimalExponent')],
    ['0.5e-1', dq(5, -2, 'DecimalExponent')],
    ['0.5e-2', dq(5, -3, 'DecimalExponent')],
    ['10.035M', dq(10035, 3)],
    ['1.2e3', dq(12, 2, 'DecimalExponent')],
    ['1.3E+6', dq(13, 5, 'DecimalExponent')],
    ['1.40e9', dq(14, 8, 'DecimalExponent')],
    ['1.53E12', dq(153, 10, 'DecimalExponent')],
    ['1.6e15', dq(16, 14, 'DecimalExponent')],
    ['1.7E18', dq(17, 17, 'DecimalExponent')],
    ['9.01', dq(901, -2)],
    ['8.1k', dq(81, 2)],
    ['7.123456M', dq(7123456, 0)],
    ['6.987654321G', dq(6987654321, 0)],
    ['5.444T', dq(5444, 9)],
    ['40.1T', dq(401, 11)],
    ['300.2T', dq(3002, 11)],
    ['2.5P', dq(25, 14)],
    ['1.01E', dq(101, 16)],
    // Things that saturate/round
    ['3.001n', dq(4, -9)],
    ['1.1E-9', dq(2, -9, 'DecimalExponent')],
    ['0.0000000001', dq(1, -9)],
    ['0.0000000005', dq(1, -9)],
    ['0.00000000050', dq(1, -9)],
    ['0.5e-9', dq(1, -9, 'DecimalExponent')],
    ['0.9n', dq(1, -9)],
    ['0.00000012345', dq(124, -9)],
    ['0.00000012354', dq(124, -9)],
    ['9Ei', maxAllowed('BinarySI')],
    ['9223372036854775807Ki', maxAllowed('BinarySI')],
    ['12E', dq(12, 18)],
    // We'll accept fractional binary stuff, too.
    ['100.035Ki', dq(10243584, -2, 'BinarySI')],
    ['0.5Mi', dq(0.5 * 1024 * 1024, 0, 'BinarySI')],
    ['0.05Gi', dq(536870912, -1, 'BinarySI')],
    ['0.025Ti', dq(274877906944, -1, 'BinarySI')],
    // Things written by trolls
    ['0.000000000001Ki', dq(2, -9)], // rounds up, changes format
    ['.001', dq(1, -3)],
    ['.0001k', dq(100, -3)],
    ['1.', dq(1, 0)],
    ['1.G', dq(1, 9)],
  ];

  for (const [input, want] of table) {
    it(`parses ${input}`, () => {
      assertSameQuantity(parseQuantity(input), want, input);
    });
    it(`parses -${input} and +${input}`, () => {
      const negated = new Quantity(-want.nanos, want.format);
      assertSameQuantity(parseQuantity(`-${input}`), negated, `-${input}`);
      assertSameQuantity(parseQuantity(`+${input}`), want, `+${input}`);
    });
  }

  // The examples the API documentation uses.
  const examples: Array<[string, bigint, QuantityFormat]> = [
    ['250m', 250_000_000n, 'DecimalSI'],
    ['1.5', 1_500_000_000n, 'DecimalSI'],
    ['128Mi', 128n * 1024n * 1024n * 1_000_000_000n, 'BinarySI'],
    ['1G', 10n ** 18n, 'DecimalSI'],
    ['1e3', 10n ** 12n, 'DecimalExponent'],
    ['100k', 10n ** 14n, 'DecimalSI'],
    ['0.5Gi', 512n * 1024n * 1024n * 1_000_000_000n, 'BinarySI'],
    ['+1', 1_000_000_000n, 'DecimalSI'],
    ['-1', -1_000_000_000n, 'DecimalSI'],
    ['1E3', 10n ** 12n, 'DecimalExponent'],
    ['1Ki', 1024n * 1_000_000_000n, 'BinarySI'],
    ['5n', 5n, 'DecimalSI'],
    ['7u', 7_000n, 'DecimalSI'],
    ['-0', 0n, 'DecimalSI'],
  ];
  for (const [input, nanos, format] of examples) {
    it(`parses ${input} exactly`, () => {
      assertSameQuantity(parseQuantity(input), new Quantity(nanos, format), input);
    });
  }

  // Oddities Kubernetes' scanner accepts; a client may send them, so they must parse the same.
  const oddities: Array<[string, bigint, QuantityFormat]> = [
    ['.', 0n, 'DecimalSI'],
    ['-.', 0n, 'DecimalSI'],
    ['+', 0n, 'DecimalSI'],
    ['Ki', 0n, 'BinarySI'],
    ['Ti', 0n, 'BinarySI'],
    ['k', 0n, 'DecimalSI'],
    ['E', 0n, 'DecimalSI'],
    ['e3', 0n, 'DecimalExponent'],
    ['00012', 12_000_000_000n, 'DecimalSI'],
    ['1e-100000', 1n, 'DecimalExponent'],
    ['0e5000', 0n, 'DecimalExponent'],
    ['1e+3', 10n ** 12n, 'DecimalExponent'],
    ['-9Ei', -MAX_INT64 * 1_000_000_000n, 'BinarySI'],
    ['-.001Ki', -1_024_000_000n, 'BinarySI'],
  ];
  for (const [input, nanos, format] of oddities) {
    it(`parses the oddity ${JSON.stringify(input)}`, () => {
      assertSameQuantity(parseQuantity(input), new Quantity(nanos, format), input);
    });
  }

  // Kubernetes' invalid table, plus cases for each error.
  const invalid: Array<[string, QuantityErrorReason]> = [
    ['', 'FormatWrong'],
    ['1.1.M', 'FormatWrong'],
    ['1+1.0M', 'FormatWrong'],
    ['0.1mi', 'Suffix'],
    ['0.1am', 'FormatWrong'],
    ['aoeu', 'FormatWrong'],
    ['.5i', 'Suffix'],
    ['1i', 'Suffix'],
    ['-3.01i', 'Suffix'],
    ['-3.01e-', 'Suffix'],
    [' 1', 'FormatWrong'],
    ['1 ', 'FormatWrong'],
    ['Non-Numeric', 'FormatWrong'],
    ['invalid', 'FormatWrong'],
    ['1-1', 'Suffix'],
    ['1e', 'Suffix'],
    ['1kk', 'Suffix'],
    ['1ki', 'Suffix'],
    ['1KI', 'FormatWrong'],
    ['1e3m', 'FormatWrong'],
    ['1e9223372036854775808', 'Suffix'],
    ['1µ', 'FormatWrong'],
    ['.e-10', 'Numeric'],
    ['-e-10', 'Numeric'],
    ['Ei', 'Numeric'],
    ['.Pi', 'Numeric'],
    ['1e1001', 'Numeric'],
    ['1e2147483648', 'Numeric'],
  ];
  for (const [input, reason] of invalid) {
    it(`refuses ${JSON.stringify(input)} (${reason})`, () => {
      assert.throws(
        () => parseQuantity(input),
        (err: unknown) => {
          assert.ok(err instanceof QuantityError);
          assert.equal(err.reason, reason);
          assert.equal(err.message, quantityErrorMessages[reason]);
          assert.equal(err.input, input);
          return true;
        },
      );
      assert.equal(tryParseQuantity(input), undefined);
    });
  }

  it("words its errors as Kubernetes does", () => {
    assert.equal(
      quantityErrorMessages.FormatWrong,
      "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
    );
    assert.equal(quantityErrorMessages.Numeric, 'unable to parse numeric part of quantity');
    assert.equal(quantityErrorMessages.Suffix, "unable to parse quantity's suffix");
  });

  it('maps a QuantityError to a BadRequest ApiError with it as the cause', () => {
    const err = new QuantityError('Suffix', '1i');
    const api = err.toApiError();
    assert.ok(api instanceof ApiError);
    assert.equal(api.reason, 'BadRequest');
    assert.equal(api.code, 400);
    assert.equal(api.message, "unable to parse quantity's suffix");
    assert.equal(api.cause, err);
  });

  it('tryParseQuantity returns the quantity when it parses', () => {
    assert.equal(tryParseQuantity('250m')?.nanos, 250_000_000n);
  });

  it('keeps digits beyond int64 exactly (no cap for decimal formats)', () => {
    assert.equal(parseQuantity('18446744073709551616').nanos, 18446744073709551616n * 1_000_000_000n);
    assert.equal(parseQuantity('1e1000').nanos, 10n ** 1009n);
  });
});

describe('formatQuantity', () => {
  // Kubernetes' TestQuantityString table: [quantity, canonical, an alternate spelling].
  const table: Array<[Quantity, string, string]> = [
    [dq(1024 * 1024 * 1024, 0, 'BinarySI'), '1Gi', '1024Mi'],
    [dq(300 * 1024 * 1024, 0, 'BinarySI'), '300Mi', '307200Ki'],
    [dq(6 * 1024, 0, 'BinarySI'), '6Ki', ''],
    [dq(1001n * 1024n ** 3n, 0, 'BinarySI'), '1001Gi', '1025024Mi'],
    [dq(1024n ** 4n, 0, 'BinarySI'), '1Ti', '1024Gi'],
    [dq(5, 0, 'BinarySI'), '5', '5000m'],
    [dq(500, -3, 'BinarySI'), '500m', '0.5'],
    [dq(1, 9), '1G', '1000M'],
    [dq(1000, 6), '1G', '0.001T'],
    [dq(1000000, 3), '1G', ''],
    [dq(1000000000, 0), '1G', ''],
    [dq(1, -3), '1m', '1000u'],
    [dq(80, -3), '80m', ''],
    [dq(1080, -3), '1080m', '1.08'],
    [dq(108, -2), '1080m', '1080000000n'],
    [dq(10800, -4), '1080m', ''],
    [dq(300, 6), '300M', ''],
    [dq(1, 12), '1T', ''],
    [dq(1, 18), '1E', ''],
    [dq(1, 21), '1e21', '1000E'],
    [dq(5, 21), '5e21', '5000E'],
    [dq(1, 24), '1e24', '1000000E'],
    [dq(1234567, 6), '1234567M', ''],
    [dq(1234567, -3, 'BinarySI'), '1234567m', ''],
    [dq(3, 3), '3k', ''],
    [dq(1025, 0, 'BinarySI'), '1025', ''],
    [dq(0, 0), '0', ''],
    [dq(0, 0, 'BinarySI'), '0', ''],
    [dq(1, 9, 'DecimalExponent'), '1e9', '.001e12'],
    [dq(1, -3, 'DecimalExponent'), '1e-3', '0.001e0'],
    [dq(1, -9, 'DecimalExponent'), '1e-9', '1000e-12'],
    [dq(80, -3, 'DecimalExponent'), '80e-3', ''],
    [dq(300, 6, 'DecimalExponent'), '300e6', ''],
    [dq(1, 12, 'DecimalExponent'), '1e12', ''],
    [dq(1, 3, 'DecimalExponent'), '1e3', ''],
    [dq(3, 3, 'DecimalExponent'), '3e3', ''],
    [dq(0, 0, 'DecimalExponent'), '0', '00'],
    [dq(1, -9), '1n', ''],
    [dq(80, -9), '80n', ''],
    [dq(1080, -9), '1080n', ''],
    [dq(108, -8), '1080n', ''],
    [dq(10800, -10), '1080n', ''],
    [dq(1, -6), '1u', ''],
    [dq(80, -6), '80u', ''],
    [dq(1080, -6), '1080u', ''],
  ];
  for (const [q, canonical, alternate] of table) {
    it(`prints ${canonical}${alternate ? ` (also for ${alternate})` : ''}`, () => {
      assert.equal(formatQuantity(q), canonical);
      assert.equal(formatQuantity(parseQuantity(canonical)), canonical);
      if (alternate !== '') assert.equal(formatQuantity(parseQuantity(alternate)), canonical);
      if (q.nanos !== 0n) assert.equal(formatQuantity(new Quantity(-q.nanos, q.format)), `-${canonical}`);
    });
  }

  // Kubernetes' TestQuantityParseEmit, and the examples of the API documentation.
  const emit: Array<[string, string]> = [
    ['1Ki', '1Ki'],
    ['1Mi', '1Mi'],
    ['1Gi', '1Gi'],
    ['1024Mi', '1Gi'],
    ['1000M', '1G'],
    ['.001Ki', '1024m'],
    ['.000001Ki', '1024u'],
    ['.000000001Ki', '1024n'],
    ['.000000000001Ki', '2n'],
    ['1000', '1k'],
    ['1.5Gi', '1536Mi'],
    ['0.1', '100m'],
    ['1e3', '1e3'],
    ['1E3', '1e3'],
    ['100k', '100k'],
    ['1500m', '1500m'],
    ['1.5', '1500m'],
    ['12e6', '12e6'],
    ['250m', '250m'],
    ['128Mi', '128Mi'],
    ['0.5Gi', '512Mi'],
    ['0.5Ki', '512'],
    ['1.5Ki', '1536'],
    ['100.035Ki', '102435840m'],
    ['+1', '1'],
    ['05', '5'],
    ['1.5e3', '1500'],
    ['8e-2', '80e-3'],
    ['0.0000000001', '1n'],
    ['0.0000000001e-5', '1e-9'],
    ['9Ei', '9223372036854775807'],
    ['8Ei', '9223372036854775807'],
    ['7Ei', '7Ei'],
    ['1000E', '1e21'],
  ];
  for (const [input, want] of emit) {
    it(`prints ${input} as ${want}`, () => {
      assert.equal(formatQuantity(parseQuantity(input)), want);
      if (input.startsWith('+')) return;
      const negative = parseQuantity(`-${input}`);
      if (!isZero(negative)) assert.equal(formatQuantity(negative), `-${want}`);
    });
  }

  // Kubernetes' TestParseQuantity: the reserialised form around the int64 limits.
  const limits: Array<[string, string?]> = [
    ['-999999999999999999'],
    ['999999999999999999'],
    ['-999999999999999999.0', '-999999999999999999'],
    ['999999999999999999.0', '999999999999999999'],
    ['-999999999999999999.1', '-999999999999999999100m'],
    ['999999999999999999.1', '999999999999999999100m'],
    ['-9999999999999999999'],
    ['9999999999999999999'],
    ['-1E'],
    ['1E'],
    ['-1000000000000000000', '-1E'],
    ['1000000000000000000', '1E'],
    ['-9999999999999999999.0', '-9999999999999999999'],
    ['9999999999999999999.0', '9999999999999999999'],
    ['-1.0E', '-1E'],
    ['1.0E', '1E'],
    ['-1000000000000000000.0', '-1E'],
    ['1000000000000000000.0', '1E'],
    ['-9999999999999999999000m', '-9999999999999999999'],
    ['9999999999999999999000m', '9999999999999999999'],
    ['-9999999999999999999.1', '-9999999999999999999100m'],
    ['9999999999999999999.1', '9999999999999999999100m'],
    ['-1.0000000000000000001E', '-1000000000000000000100m'],
    ['1.0000000000000000001E', '1000000000000000000100m'],
    ['-1000000000000000000.1', '-1000000000000000000100m'],
    ['1000000000000000000.1', '1000000000000000000100m'],
    ['-1.000000000000000001E', '-1000000000000000001'],
    ['1.000000000000000001E', '1000000000000000001'],
    ['-1000000000000000001'],
    ['1000000000000000001'],
    ['-10E'],
    ['10E'],
    ['-10000000000000000000', '-10E'],
    ['10000000000000000000', '10E'],
    ['-10.0E', '-10E'],
    ['10.0E', '10E'],
    ['-10000000000000000000.0', '-10E'],
    ['10000000000000000000.0', '10E'],
    ['-10000000000000000000000m', '-10E'],
    ['10000000000000000000000m', '10E'],
    ['-10.0000000000000000001E', '-10000000000000000000100m'],
    ['10.0000000000000000001E', '10000000000000000000100m'],
    ['-10000000000000000000.1', '-10000000000000000000100m'],
    ['10000000000000000000.1', '10000000000000000000100m'],
    ['-10.000000000000000001E', '-10000000000000000001'],
    ['10.000000000000000001E', '10000000000000000001'],
    ['-10000000000000000001'],
    ['10000000000000000001'],
    ['-9223372036854775809'],
    ['9223372036854775806'],
    ['-9223372036854775809.0', '-9223372036854775809'],
    ['9223372036854775806.0', '9223372036854775806'],
    ['-9223372036854775809000m', '-9223372036854775809'],
    ['9223372036854775806000m', '9223372036854775806'],
    ['-9223372036854775809.1', '-9223372036854775809100m'],
    ['9223372036854775806.1', '9223372036854775806100m'],
    ['-9223372036854775808'],
    ['9223372036854775807'],
    ['-9223372036854775808.0', '-9223372036854775808'],
    ['9223372036854775807.0', '9223372036854775807'],
    ['-9223372036854775808000m', '-9223372036854775808'],
    ['9223372036854775807000m', '9223372036854775807'],
    ['-9223372036854775808.1', '-9223372036854775808100m'],
    ['9223372036854775807.1', '9223372036854775807100m'],
    ['-9223372036854775807'],
    ['9223372036854775808'],
    ['-9223372036854775807.0', '-9223372036854775807'],
    ['9223372036854775808.0', '9223372036854775808'],
    ['-9223372036854775807000m', '-9223372036854775807'],
    ['9223372036854775808000m', '9223372036854775808'],
    ['-9223372036854775807.1', '-9223372036854775807100m'],
    ['9223372036854775808.1', '9223372036854775808100m'],
  ];
  for (const [input, canonical = input] of limits) {
    it(`reserialises ${input} as ${canonical}`, () => {
      assert.equal(formatQuantity(parseQuantity(input)), canonical);
    });
  }

  it('prints BinarySI values beyond Ei with the Ei suffix', () => {
    assert.equal(formatQuantity(dq(1024n ** 7n, 0, 'BinarySI')), '1024Ei');
    assert.equal(formatQuantity(dq(1n << 63n, 0, 'BinarySI')), '8Ei');
  });

  it('serialises to JSON as the canonical string', () => {
    const spec = { requests: { cpu: parseQuantity('0.25'), memory: parseQuantity('1024Mi') } };
    assert.equal(JSON.stringify(spec), '{"requests":{"cpu":"250m","memory":"1Gi"}}');
    assert.equal(String(parseQuantity('1000')), '1k');
  });
});

describe('milliValue and value', () => {
  // Kubernetes' TestQuantityRoundUp at scales 0 and -3, and TestScaledValue.
  const table: Array<[string, bigint, bigint]> = [
    ['9.01', 9010n, 10n],
    ['-9.01', -9010n, -10n],
    ['1n', 1n, 1n],
    ['1u', 1n, 1n],
    ['1m', 1n, 1n],
    ['1', 1000n, 1n],
    ['0', 0n, 0n],
    ['1.0001m', 2n, 1n],
    ['-0.5m', -1n, -1n],
    ['100m', 100n, 1n],
    ['1.5', 1500n, 2n],
    ['-1.5', -1500n, -2n],
    ['1Mi', 1048576000n, 1048576n],
    ['1Gi', 1073741824000n, 1073741824n],
    ['1.1Ki', 1126400n, 1127n],
    ['12E', 12n * 10n ** 21n, 12n * 10n ** 18n],
  ];
  for (const [input, milli, units] of table) {
    it(`${input}: milliValue ${milli}, value ${units}`, () => {
      const q = parseQuantity(input);
      assert.equal(milliValue(q), milli);
      assert.equal(quantityValue(q), units);
    });
  }

  // Kubernetes' TestNewSet and TestMilliNewSet.
  const created: Array<[Quantity, string, bigint, bigint]> = [
    [newQuantity(1), '1', 1n, 1000n],
    [newQuantity(1000), '1k', 1000n, 1_000_000n],
    [newQuantity(1234000), '1234k', 1234000n, 1_234_000_000n],
    [newQuantity(1024, 'BinarySI'), '1Ki', 1024n, 1_024_000n],
    [newQuantity(1000000, 'DecimalExponent'), '1e6', 1000000n, 1_000_000_000n],
    [newQuantity(1024 * 1024, 'BinarySI'), '1Mi', 1048576n, 1_048_576_000n],
    [newMilliQuantity(1), '1m', 1n, 1n],
    [newMilliQuantity(1000), '1', 1n, 1000n],
    [newMilliQuantity(1234000), '1234', 1234n, 1_234_000n],
    [newMilliQuantity(1024, 'BinarySI'), '1024m', 2n, 1024n],
    [newMilliQuantity(1000000, 'DecimalExponent'), '1e3', 1000n, 1_000_000n],
    [newMilliQuantity(1024 * 1024, 'BinarySI'), '1048576m', 1049n, 1_048_576n],
    [newQuantity(2n ** 70n, 'BinarySI'), '1024Ei', 2n ** 70n, 2n ** 70n * 1000n],
  ];
  for (const [q, text, units, milli] of created) {
    it(`creates ${text}`, () => {
      assert.equal(formatQuantity(q), text);
      assert.equal(quantityValue(q), units);
      assert.equal(milliValue(q), milli);
    });
  }

  it('refuses a number that is not a safe integer', () => {
    assert.throws(() => newQuantity(1.5), RangeError);
    assert.throws(() => newMilliQuantity(2 ** 60), RangeError);
  });
});

describe('compareQuantities, isZero, addQuantities, subtractQuantities', () => {
  // Kubernetes' TestQuantityCmp, plus cross-format cases.
  const cmp: Array<[string, string, -1 | 0 | 1]> = [
    ['0', '0', 0],
    ['100m', '50m', 1],
    ['50m', '100m', -1],
    ['10000T', '100Gi', 1],
    ['1Ki', '1024', 0],
    ['1k', '1e3', 0],
    ['0Ki', '0', 0],
    ['-1', '1n', -1],
    ['9.01', '9010m', 0],
    ['0.9', '901m', -1],
    ['9223372036854775807', '9223372036854775808', -1],
  ];
  for (const [a, b, want] of cmp) {
    it(`compares ${a} with ${b}: ${want}`, () => {
      assert.equal(compareQuantities(parseQuantity(a), parseQuantity(b)), want);
      assert.equal(compareQuantities(parseQuantity(b), parseQuantity(a)), negate(want));
    });
  }

  it('isZero is true for zero in every format', () => {
    for (const s of ['0', '0Ki', '0e3', '-0', '0.000n']) assert.equal(isZero(parseQuantity(s)), true, s);
    for (const s of ['1n', '-1n', '1Ki']) assert.equal(isZero(parseQuantity(s)), false, s);
  });

  const zero = (format: QuantityFormat = 'DecimalSI'): Quantity => new Quantity(0n, format);
  // Kubernetes' TestAdd and TestSub: [a, b, a+b, a-b].
  const arithmetic: Array<[Quantity, Quantity, Quantity, Quantity]> = [
    [dq(10, 0), dq(1, 1), dq(20, 0), dq(0, 0)],
    [dq(10, 0), dq(1, 0, 'BinarySI'), dq(11, 0), dq(9, 0)],
    [dq(10, 0, 'BinarySI'), dq(1, 0), dq(11, 0, 'BinarySI'), dq(9, 0, 'BinarySI')],
    [zero(), dq(50, 0), dq(50, 0), dq(-50, 0)],
    [dq(50, 0), zero(), dq(50, 0), dq(50, 0)],
    [zero(), zero(), dq(0, 0), dq(0, 0)],
    [zero(), dq(1, 0, 'BinarySI'), dq(1, 0, 'BinarySI'), dq(-1, 0, 'BinarySI')],
  ];
  for (const [a, b, sum, difference] of arithmetic) {
    it(`${formatQuantity(a)} ± ${formatQuantity(b)} (${a.format}, ${b.format})`, () => {
      assertSameQuantity(addQuantities(a, b), sum, 'sum');
      assertSameQuantity(subtractQuantities(a, b), difference, 'difference');
    });
  }

  // Kubernetes' TestQuantityAddZeroPreservesSuffix / SubZeroPreservesSuffix.
  for (const text of ['100m', '1Gi']) {
    it(`keeps the suffix of ${text} when zero is added or subtracted`, () => {
      const q = parseQuantity(text);
      const z = parseQuantity('0');
      assert.equal(formatQuantity(addQuantities(q, z)), text);
      assert.equal(formatQuantity(addQuantities(z, q)), text);
      assert.equal(formatQuantity(subtractQuantities(q, z)), text);
      assert.equal(formatQuantity(subtractQuantities(z, q)), `-${text}`);
    });
  }

  it('adds and subtracts across the int64 range exactly', () => {
    const mostNegative = parseQuantity('-9223372036854775808');
    assert.equal(formatQuantity(subtractQuantities(parseQuantity('0'), mostNegative)), '9223372036854775808');
    assert.equal(formatQuantity(subtractQuantities(parseQuantity('1'), mostNegative)), '9223372036854775809');
    assert.equal(formatQuantity(subtractQuantities(parseQuantity('10'), mostNegative)), '9223372036854775818');
    assert.equal(formatQuantity(subtractQuantities(parseQuantity('1m'), parseQuantity('-9223372036854775808m'))), '9223372036854775809m');
  });
});

describe('quantityToNumber', () => {
  const table: Array<[string, number]> = [
    ['0', 0],
    ['1', 1],
    ['2Ki', 2048],
    ['1.1Ki', 1126.4],
    ['1Mi', 1.048576e6],
    ['2Gi', 2.147483648e9],
    ['250m', 0.25],
    ['-1.5', -1.5],
    ['5n', 5e-9],
    ['12E', 1.2e19],
    ['9223372036854775807', 9223372036854775807],
    ['12e500', Infinity],
    ['-12e500', -Infinity],
  ];
  for (const [input, want] of table) {
    it(`${input} is about ${want}`, () => {
      assert.equal(quantityToNumber(parseQuantity(input)), want);
    });
  }
});

describe('properties', () => {
  const formatArb = fc.constantFrom<QuantityFormat>('DecimalSI', 'BinarySI', 'DecimalExponent');
  const suffixArb = fc.oneof(
    fc.constantFrom('', 'n', 'u', 'm', 'k', 'M', 'G', 'T', 'P', 'E', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei'),
    fc.tuple(fc.constantFrom('e', 'E'), fc.constantFrom('', '+', '-'), fc.integer({ min: 0, max: 40 })).map(([e, s, n]) => `${e}${s}${n}`),
  );
  const digitsArb = (max: number): fc.Arbitrary<string> => fc.string({ unit: fc.constantFrom(...'0123456789'), minLength: 1, maxLength: max });
  const quantityText = fc
    .tuple(fc.constantFrom('', '+', '-'), digitsArb(22), fc.option(fc.string({ unit: fc.constantFrom(...'0123456789'), maxLength: 14 })), suffixArb)
    .map(([sign, int, frac, suffix]) => `${sign}${int}${frac === null ? '' : `.${frac}`}${suffix}`);
  /** Any exact quantity Kubernetes can hold without its BinarySI cap getting in the way. */
  const quantityArb = fc
    .tuple(fc.bigInt({ min: -(10n ** 40n), max: 10n ** 40n }), formatArb)
    .map(([nanos, format]) => new Quantity(format === 'BinarySI' ? nanos % (9223372036854775807n * 1_000_000_000n) : nanos, format));

  it('formatQuantity(parseQuantity(x)) parses back to an equal quantity', () => {
    fc.assert(
      fc.property(quantityText, (text) => {
        const q = parseQuantity(text);
        const canonical = formatQuantity(q);
        const again = parseQuantity(canonical);
        assert.equal(compareQuantities(again, q), 0, `${text} → ${canonical}`);
        assert.equal(formatQuantity(again), canonical, `${text}: canonical form is a fixed point`);
      }),
      { numRuns: 2000 },
    );
  });

  it('every quantity prints to a string that parses back to it', () => {
    fc.assert(
      fc.property(quantityArb, (q) => {
        assert.equal(parseQuantity(formatQuantity(q)).nanos, q.nanos);
        assert.equal(JSON.stringify(q), JSON.stringify(formatQuantity(q)));
      }),
      { numRuns: 2000 },
    );
  });

  it('addition is commutative and exact; subtraction undoes it', () => {
    fc.assert(
      fc.property(quantityArb, quantityArb, (a, b) => {
        const ab = addQuantities(a, b);
        const ba = addQuantities(b, a);
        assert.equal(compareQuantities(ab, ba), 0);
        assert.equal(ab.nanos, a.nanos + b.nanos);
        assert.equal(compareQuantities(subtractQuantities(ab, b), a), 0);
      }),
    );
  });

  it('parsing text sums exactly: "x" + "y" equals the sum of the parts', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 30n }), fc.bigInt({ min: 0n, max: 10n ** 30n }), (x, y) => {
        const sum = addQuantities(parseQuantity(`${x}n`), parseQuantity(`${y}n`));
        assert.equal(formatQuantity(sum), formatQuantity(parseQuantity(`${x + y}n`)));
      }),
    );
  });

  it('compareQuantities agrees with milliValue ordering and is antisymmetric', () => {
    fc.assert(
      fc.property(quantityArb, quantityArb, (a, b) => {
        const c = compareQuantities(a, b);
        assert.equal(compareQuantities(b, a), negate(c));
        if (c < 0) assert.ok(milliValue(a) <= milliValue(b));
      }),
    );
  });
});
