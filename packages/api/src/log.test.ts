import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { recordingLogger, silentLogger } from './log.js';

describe('recordingLogger', () => {
  it("keeps every line, a child's with its bindings on top of its parent's, in one list", () => {
    const logger = recordingLogger();
    logger.info({ a: 1 }, 'first');
    const child = logger.child({ component: 'x' }).child({ resource: 'y' });
    child.warn({}, 'second');
    logger.error({}, 'third');
    assert.deepEqual(logger.lines, [
      { level: 'info', bindings: {}, fields: { a: 1 }, message: 'first' },
      { level: 'warn', bindings: { component: 'x', resource: 'y' }, fields: {}, message: 'second' },
      { level: 'error', bindings: {}, fields: {}, message: 'third' },
    ]);
  });

  it('silentLogger drops every line, and so do its children', () => {
    assert.equal(silentLogger.child({ a: 1 }), silentLogger);
  });
});
