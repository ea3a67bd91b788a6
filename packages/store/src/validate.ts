/**
 * Checks every backend applies before writing: well-formed keys under the store's prefix, and
 * well-formed string values within the size limit. A write that fails a check writes nothing.
 */
import { DEFAULT_MAX_VALUE_BYTES, StoreError, type StoreOptions } from './store.js';

/** Resolved limits of one store. */
export interface StoreLimits {
  readonly prefix: string;
  readonly maxValueBytes: number;
}

export function resolveLimits(options: StoreOptions = {}): StoreLimits {
  const prefix = options.prefix ?? '/';
  if (typeof prefix !== 'string' || !prefix.isWellFormed()) {
    throw new StoreError('InvalidKey', 'the store prefix must be a well-formed string');
  }
  return { prefix, maxValueBytes: options.maxValueBytes ?? DEFAULT_MAX_VALUE_BYTES };
}

/** Throws InvalidKey unless `key` is a non-empty, well-formed string under the prefix. */
export function checkKey(limits: StoreLimits, key: unknown): asserts key is string {
  if (typeof key !== 'string') throw new StoreError('InvalidKey', `key must be a string, got ${typeof key}`);
  if (key === '') throw new StoreError('InvalidKey', 'key must not be empty');
  if (!key.isWellFormed()) throw new StoreError('InvalidKey', 'key must be a well-formed Unicode string', { key });
  if (!key.startsWith(limits.prefix)) {
    throw new StoreError('InvalidKey', `key ${JSON.stringify(key)} is outside the store's prefix ${JSON.stringify(limits.prefix)}`, { key });
  }
}

/** Throws InvalidKey unless `prefix` (of a list, count or watch) is a well-formed string under the store's prefix. */
export function checkPrefix(limits: StoreLimits, prefix: unknown): asserts prefix is string {
  if (typeof prefix !== 'string' || !prefix.isWellFormed()) {
    throw new StoreError('InvalidKey', 'prefix must be a well-formed string');
  }
  if (!prefix.startsWith(limits.prefix) && !limits.prefix.startsWith(prefix)) {
    throw new StoreError('InvalidKey', `prefix ${JSON.stringify(prefix)} is outside the store's prefix ${JSON.stringify(limits.prefix)}`);
  }
}

/** Throws InvalidValue unless `value` is a well-formed string, ValueTooLarge when over the limit. */
export function checkValue(limits: StoreLimits, key: string, value: unknown): asserts value is string {
  if (typeof value !== 'string') {
    throw new StoreError('InvalidValue', `value of ${JSON.stringify(key)} must be a string, got ${value === null ? 'null' : typeof value}`, { key });
  }
  if (!value.isWellFormed()) {
    throw new StoreError('InvalidValue', `value of ${JSON.stringify(key)} is not serialisable: it holds a lone surrogate`, { key });
  }
  // Every UTF-16 unit is at most 3 UTF-8 bytes: skip the exact count for values that surely fit.
  if (value.length * 3 > limits.maxValueBytes) {
    const bytes = Buffer.byteLength(value, 'utf8');
    if (bytes > limits.maxValueBytes) {
      throw new StoreError('ValueTooLarge', `value of ${JSON.stringify(key)} is ${bytes} bytes, more than the limit of ${limits.maxValueBytes}`, { key });
    }
  }
}

/** Throws InvalidValue unless `revision` is a non-negative safe integer. */
export function checkRevision(what: string, revision: unknown): asserts revision is number {
  if (typeof revision !== 'number' || !Number.isSafeInteger(revision) || revision < 0) {
    throw new StoreError('InvalidValue', `${what} must be a non-negative integer, got ${String(revision)}`);
  }
}

/** Throws InvalidValue unless a list's `limit` is absent or an integer (0 or less: no limit). */
export function checkLimit(limit: unknown): void {
  if (limit !== undefined && (typeof limit !== 'number' || !Number.isSafeInteger(limit))) {
    throw new StoreError('InvalidValue', `limit must be an integer, got ${String(limit)}`);
  }
}

/**
 * Orders keys by code point, which is the order of their UTF-8 bytes (SQLite's and etcd's order).
 * JavaScript's `<` compares UTF-16 units, which puts U+E000–U+FFFF after astral characters.
 */
export function compareKeys(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    // A surrogate (0xD800–0xDFFF) stands for a code point above 0xFFFF: it sorts after every BMP unit.
    const xs = x >= 0xd800 && x <= 0xdfff;
    const ys = y >= 0xd800 && y <= 0xdfff;
    if (xs !== ys) return xs ? 1 : -1;
    return x < y ? -1 : 1;
  }
  return a.length - b.length;
}

/**
 * The smallest string greater than every string that starts with `prefix` (in code-point order), or
 * undefined when there is none (a prefix of only U+10FFFF characters). With it, "starts with
 * prefix" becomes the range [prefix, prefixEnd(prefix)), which an index can scan.
 */
export function prefixEnd(prefix: string): string | undefined {
  const points = Array.from(prefix);
  while (points.length > 0) {
    const last = points.pop()!.codePointAt(0)!;
    if (last < 0x10ffff) {
      // Skip the surrogate range: it holds no code points.
      const next = last + 1 === 0xd800 ? 0xe000 : last + 1;
      return points.join('') + String.fromCodePoint(next);
    }
  }
  return undefined;
}
