import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { humanDuration, timestampSince } from './duration.js';

const S = 1000;
const M = 60 * S;
const H = 60 * M;
const D = 24 * H;

describe('humanDuration (apimachinery duration.HumanDuration)', () => {
  const cases: Array<[number, string]> = [
    [0, '0s'],
    [999, '0s'],
    [-1500, '0s'], // up to a second ahead is clock skew
    [-2 * S, '<invalid>'],
    [59 * S, '59s'],
    [119 * S, '119s'],
    [2 * M, '2m'],
    [5 * M + 2 * S, '5m2s'],
    [9 * M + 59 * S, '9m59s'],
    [10 * M + 30 * S, '10m'],
    [179 * M, '179m'],
    [3 * H, '3h'],
    [3 * H + 5 * M, '3h5m'],
    [7 * H + 59 * M, '7h59m'],
    [8 * H + 30 * M, '8h'],
    [47 * H, '47h'],
    [2 * D, '2d'],
    [3 * D + 4 * H, '3d4h'],
    [7 * D + 23 * H, '7d23h'],
    [8 * D + 5 * H, '8d'],
    [729 * D, '729d'],
    [2 * 365 * D, '2y'],
    [2 * 365 * D + 30 * D, '2y30d'],
    [8 * 365 * D + 100 * D, '8y'],
  ];
  for (const [ms, want] of cases) {
    it(`${ms} ms → ${want}`, () => assert.equal(humanDuration(ms), want));
  }
});

describe('timestampSince (translateTimestampSince)', () => {
  const now = Date.parse('2026-03-01T12:00:00Z');
  it('is the age of an RFC 3339 time at the given server time', () => {
    assert.equal(timestampSince('2026-03-01T11:54:58Z', now), '5m2s');
    assert.equal(timestampSince('2026-02-26T12:00:00Z', now), '3d');
    assert.equal(timestampSince('2026-03-01T11:59:59.500000Z', now), '0s', 'fractions (MicroTime) parse');
  });
  it('reads "<unknown>" for an unset time and "<invalid>" for one that does not parse', () => {
    assert.equal(timestampSince(undefined, now), '<unknown>');
    assert.equal(timestampSince('', now), '<unknown>');
    assert.equal(timestampSince('yesterday', now), '<invalid>');
  });
});
