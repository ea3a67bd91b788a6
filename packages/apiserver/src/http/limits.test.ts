import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Registry } from 'prom-client';
import { RequestLimits, parseGoDuration } from './limits.js';

describe('parseGoDuration', () => {
  it("reads Go's durations, in milliseconds", () => {
    assert.equal(parseGoDuration('30s'), 30_000);
    assert.equal(parseGoDuration('1m30s'), 90_000);
    assert.equal(parseGoDuration('1h2m3.5s'), 3_723_500);
    assert.equal(parseGoDuration('500ms'), 500);
    assert.equal(parseGoDuration('1.5h'), 5_400_000);
    assert.equal(parseGoDuration('.5s'), 500);
    assert.equal(parseGoDuration('250us'), 0.25);
    assert.equal(parseGoDuration('0'), 0);
    assert.equal(parseGoDuration('-1s'), -1000);
  });

  it("refuses what Go refuses, with Go's messages", () => {
    assert.throws(() => parseGoDuration(''), /^Error: time: invalid duration ""$/);
    assert.throws(() => parseGoDuration('abc'), /^Error: time: invalid duration "abc"$/);
    assert.throws(() => parseGoDuration('5'), /^Error: time: missing unit in duration "5"$/);
    assert.throws(() => parseGoDuration('5x'), /^Error: time: unknown unit "x" in duration "5x"$/);
    assert.throws(() => parseGoDuration('.s'), /^Error: time: invalid duration "\.s"$/);
    assert.throws(() => parseGoDuration('9999999999h'), /invalid duration/);
  });
});

describe('RequestLimits', () => {
  it("defaults to kube-apiserver's limits, with a lease pool a quarter of the others", () => {
    const limits = new RequestLimits();
    assert.equal(limits.maxRequestBodyBytes, 3 * 1024 * 1024);
    assert.equal(limits.requestTimeoutMs, 60_000);
    assert.equal(limits.minRequestTimeoutSeconds, 1800);
    assert.equal(limits.maxWatchesPerUser, 1000);
    assert.deepEqual(limits.usage(), { readOnly: 0, mutating: 0, lease: 0, watches: new Map() });
  });

  it('refuses limits that are not whole numbers', () => {
    assert.throws(() => new RequestLimits({ maxRequestsInflight: -1 }), /maxRequestsInflight must be a whole number/);
    assert.throws(() => new RequestLimits({ maxWatchesPerUser: 1.5 }), /maxWatchesPerUser must be a whole number/);
    assert.throws(() => new RequestLimits({ maxRequestBodyBytes: 0 }), /maxRequestBodyBytes must be positive/);
  });

  it('registers its metrics, at zero', async () => {
    const registry = new Registry();
    new RequestLimits({}, { registry });
    const text = await registry.metrics();
    assert.match(text, /apiserver_current_inflight_requests\{request_kind="lease"\} 0/);
    assert.match(text, /# TYPE apiserver_request_terminations_total counter/);
  });
});
