import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Fifo } from './fifo.js';

describe('Fifo', () => {
  it('hands items out in push order across compactions, and peeks without taking', () => {
    const fifo = new Fifo<number>();
    assert.equal(fifo.peek(), undefined);
    let next = 0;
    let expected = 0;
    // Interleaved pushes and shifts keep the head far from the end, so the backing array compacts.
    for (let round = 0; round < 5000; round++) {
      fifo.push(next++);
      fifo.push(next++);
      assert.equal(fifo.peek(), expected);
      assert.equal(fifo.shift(), expected++);
      assert.equal(fifo.length, next - expected);
    }
    while (fifo.length > 0) assert.equal(fifo.shift(), expected++);
    assert.equal(expected, next);
  });

  it('clear drops every item', () => {
    const fifo = new Fifo<string>();
    fifo.push('a');
    fifo.push('b');
    fifo.shift();
    fifo.clear();
    assert.equal(fifo.length, 0);
    assert.equal(fifo.peek(), undefined);
    fifo.push('c');
    assert.equal(fifo.shift(), 'c');
  });
});
