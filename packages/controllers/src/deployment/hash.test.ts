import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { jsonClone, type PodTemplateSpec } from '@setpoint/api';
import { SAFE_ENCODE_ALPHABET, canonicalJson, computePodTemplateHash, fnv32a, safeEncodeString } from './hash.js';

const bytes = (s: string) => new TextEncoder().encode(s);
const template = (image: string): PodTemplateSpec => ({ metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'app', image }] } });

describe('fnv32a', () => {
  it('matches the FNV-1a 32-bit reference vectors (Go hash/fnv New32a)', () => {
    for (const [input, want] of [
      ['', 0x811c9dc5],
      ['a', 0xe40c292c],
      ['foobar', 0xbf9cf968],
    ] as const) {
      assert.equal(fnv32a(bytes(input)), want, JSON.stringify(input));
    }
  });

  it('continues from a seed as writing more bytes to the same hasher does', () => {
    assert.equal(fnv32a(bytes('bar'), fnv32a(bytes('foo'))), fnv32a(bytes('foobar')));
  });
});

describe('safeEncodeString', () => {
  it("maps each character to rand.SafeEncodeString's alphabet by code % 27", () => {
    assert.equal(SAFE_ENCODE_ALPHABET, 'bcdfghjklmnpqrstvwxz2456789');
    assert.equal(safeEncodeString('0123456789'), '456789bcdf');
  });
});

describe('computePodTemplateHash', () => {
  it('is a pinned value for a pinned template (stable across processes and releases)', () => {
    // If this changes, every existing Deployment would get a new ReplicaSet name on its next rollout.
    const h = computePodTemplateHash(template('nginx:1'));
    assert.equal(h, 'f6c9c4f89');
    assert.equal(computePodTemplateHash(template('nginx:1'), 1), '67c5f95b5b');
    assert.equal(h, safeEncodeString(String(fnv32a(bytes(canonicalJson(template('nginx:1')))))));
    assert.match(h, /^[4-9bcdf]{1,10}$/, 'decimal digits render only as 4-9 and b, c, d, f');
  });

  it('does not depend on key order or on undefined members', () => {
    const a: PodTemplateSpec = { spec: { containers: [{ name: 'app', image: 'x' }] }, metadata: { labels: { b: '2', a: '1' } } };
    const b: PodTemplateSpec = { metadata: { annotations: undefined, labels: { a: '1', b: '2' } }, spec: { containers: [{ image: 'x', name: 'app' }] } };
    assert.equal(computePodTemplateHash(a), computePodTemplateHash(b));
  });

  it('changes with the template and with collisionCount (absent, 0 and 1 all differ)', () => {
    const t = template('nginx:1');
    const hashes = [computePodTemplateHash(t), computePodTemplateHash(template('nginx:2')), computePodTemplateHash(t, 0), computePodTemplateHash(t, 1), computePodTemplateHash(t, 2)];
    assert.equal(new Set(hashes).size, hashes.length);
    assert.equal(computePodTemplateHash(t, 1), computePodTemplateHash(jsonClone(t), 1));
  });

  it('collisionCount is hashed as 8 bytes: uint32 little-endian, then 4 zero bytes', () => {
    const base = fnv32a(bytes(canonicalJson(template('a'))));
    const withCount = fnv32a(new Uint8Array([7, 0, 0, 0, 0, 0, 0, 0]), base);
    assert.equal(computePodTemplateHash(template('a'), 7), safeEncodeString(String(withCount)));
  });

  it('property: equal templates hash equally; different templates serialise differently', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), fc.nat(1000), (i1, i2, c) => {
        assert.equal(computePodTemplateHash(template(i1), c), computePodTemplateHash(jsonClone(template(i1)), c));
        if (i1 !== i2) assert.notEqual(canonicalJson(template(i1)), canonicalJson(template(i2)));
      }),
    );
  });
});
