import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MAX_WARNING_LINES, decodeWarningHeaderValue, warningHeaderValues } from './warnings.js';

const texts = (values: string[]) => values.map(decodeWarningHeaderValue);

describe('warningHeaderValues', () => {
  it('quotes with " and \\ escaped and keeps other characters as UTF-8', () => {
    assert.deepEqual(texts(warningHeaderValues(['a "b" \\c', 'é😀\uffff'])), ['299 - "a \\"b\\" \\\\c"', '299 - "é😀\uffff"']);
  });

  it('sends a text once, drops empty ones and ones with control characters (C0, DEL, C1)', () => {
    assert.deepEqual(texts(warningHeaderValues(['x', '', 'x', 'a\rb', 'a\u007fb', 'a\u0085b', 'y'])), ['299 - "x"', '299 - "y"']);
  });

  it('reads a lone surrogate as U+FFFD, as Go decoded the JSON it came in', () => {
    assert.deepEqual(texts(warningHeaderValues(['a\ud800b'])), ['299 - "a\ufffdb"']);
  });

  it('over 4096 bytes in all, cuts every text to 256 bytes and stops once 4096 are written', () => {
    const long = Array.from({ length: 40 }, (_, i) => `${i}:${'x'.repeat(300)}`);
    const values = warningHeaderValues(long);
    // Each cut to 256: 16 fill 4096, the 17th is not added.
    assert.equal(values.length, 16);
    for (const [i, v] of values.entries()) assert.equal(v, `299 - "${long[i]!.slice(0, 256)}"`);
  });

  it('keeps texts whole while they fit, and cuts at whole characters', () => {
    const fit = ['a'.repeat(4000), 'b'.repeat(96)];
    assert.deepEqual(warningHeaderValues(fit), fit.map((t) => `299 - "${t}"`));
    const [cut] = texts(warningHeaderValues(['😀'.repeat(2000)]));
    assert.equal(cut, `299 - "${'😀'.repeat(64)}"`);
  });

  it(`sends at most ${MAX_WARNING_LINES} lines`, () => {
    assert.equal(warningHeaderValues(Array.from({ length: 500 }, (_, i) => `w${i}`)).length, MAX_WARNING_LINES);
  });
});
