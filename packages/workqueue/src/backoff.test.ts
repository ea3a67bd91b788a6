import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { exponentialBackoff } from './backoff.js';

describe('exponentialBackoff', () => {
  it('doubles from baseMs per attempt and stops at maxMs', () => {
    assert.deepEqual([0, 1, 2, 3, 4, 5].map((n) => exponentialBackoff(n, 10_000, 300_000)), [10_000, 20_000, 40_000, 80_000, 160_000, 300_000]);
  });

  it('treats a negative attempt as the first, absorbs overflow in the cap, and waits 0 for baseMs 0', () => {
    assert.equal(exponentialBackoff(-1, 5, 1000), 5);
    assert.equal(exponentialBackoff(5000, 5, 1000), 1000);
    assert.equal(exponentialBackoff(5000, 0, 1000), 0);
  });
});
