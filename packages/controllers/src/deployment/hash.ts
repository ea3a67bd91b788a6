/**
 * The pod-template-hash: what names a Deployment's ReplicaSets (`<deployment>-<hash>`) and labels
 * their selector, template and pods. Computed as Kubernetes' controller.ComputeHash computes it:
 * FNV-32a over a deterministic serialisation of the pod template, then — when the Deployment has a
 * status.collisionCount — the count as 4 little-endian bytes padded to 8, the 32-bit sum printed in
 * decimal and each digit mapped through rand.SafeEncodeString's alphabet (no vowels, no 0/1/3).
 *
 * The serialisation is canonical JSON (object keys sorted, undefined members left out), not Go's
 * spew dump of the typed struct, so the hash of a template differs from the one a Kubernetes
 * cluster would compute; it is stable across processes, key order and restarts, which is what the
 * controller needs (it finds its ReplicaSets by template equality, not by recomputing names).
 */
import type { PodTemplateSpec } from '@setpoint/api';

/** rand.SafeEncodeString's alphabet (k8s.io/apimachinery/pkg/util/rand). */
export const SAFE_ENCODE_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

const FNV32_OFFSET = 0x811c9dc5;
const FNV32_PRIME = 0x01000193;

/** FNV-1a, 32 bits (Go's hash/fnv New32a), continuing from `seed` (default the offset basis). */
export function fnv32a(bytes: Uint8Array, seed: number = FNV32_OFFSET): number {
  let h = seed >>> 0;
  for (const b of bytes) {
    h ^= b;
    h = Math.imul(h, FNV32_PRIME) >>> 0;
  }
  return h >>> 0;
}

/** rand.SafeEncodeString: every character replaced by the alphabet's letter at (code % 27). */
export function safeEncodeString(s: string): string {
  let out = '';
  for (const ch of s) out += SAFE_ENCODE_ALPHABET[ch.codePointAt(0)! % SAFE_ENCODE_ALPHABET.length];
  return out;
}

/** JSON with object keys sorted and undefined members dropped: equal values give equal text. */
/** `value` without its null object members, recursively (null == absent, as for Go's structs). */
export function withoutNulls<T>(value: T): T {
  if (Array.isArray(value)) return value.map((v) => withoutNulls(v)) as T;
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) if (v !== null && v !== undefined) out[k] = withoutNulls(v);
  return out as T;
}

export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : canonicalJson(v))).join(',')}]`;
  const record = value as Record<string, unknown>;
  // A null member is an absent one, as in Kubernetes' typed structs (kubectl sends
  // `creationTimestamp: null` inside templates it copies).
  const keys = Object.keys(record)
    .filter((k) => record[k] !== undefined && record[k] !== null)
    .sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(record[k])}`).join(',')}}`;
}

/**
 * The pod-template-hash of `template` with `collisionCount` (controller.ComputeHash). An absent
 * count and a count of 0 hash differently, as in Kubernetes (nil adds no bytes, 0 adds eight).
 */
export function computePodTemplateHash(template: PodTemplateSpec | undefined, collisionCount?: number): string {
  let h = fnv32a(new TextEncoder().encode(canonicalJson(template ?? {})));
  if (collisionCount !== undefined) {
    const bytes = new Uint8Array(8);
    new DataView(bytes.buffer).setUint32(0, collisionCount >>> 0, true);
    h = fnv32a(bytes, h);
  }
  return safeEncodeString(String(h));
}
