/**
 * How Store keys, values and revisions travel to etcd and back.
 *
 * - A Store key K is the etcd key `etcdPrefix + K`, UTF-8 encoded; byte order is code-point order,
 *   the order the Store contract sets.
 * - Revisions are etcd's own (mod_revision, create_revision, header revisions), so resourceVersions
 *   read through any API server on one etcd cluster compare. The one exception: etcd counts its
 *   never-written state as revision 1 and gives no write that number; the store reports it as 0,
 *   the contract's revision of a store never written.
 */
import type { IKeyValue } from 'etcd3';
import type { KeyValue } from '../store.js';

/** Encodes and decodes the keys of one store in etcd. */
export class KeyCodec {
  private readonly prefix: string;
  private readonly prefixBytes: number;
  /** The etcd key of the prefix itself (the start of every range). */
  readonly prefixKey: Buffer;

  constructor(etcdPrefix: string) {
    this.prefix = etcdPrefix;
    this.prefixKey = Buffer.from(etcdPrefix, 'utf8');
    this.prefixBytes = this.prefixKey.length;
  }

  /** The etcd key of Store key `key`. */
  encode(key: string): Buffer {
    return Buffer.from(this.prefix + key, 'utf8');
  }

  /** The smallest etcd key after Store key `key`'s (its key plus a NUL byte). */
  encodeAfter(key: string): Buffer {
    return Buffer.from(`${this.prefix}${key}\u0000`, 'utf8');
  }

  /** The Store key of etcd key `raw` (which starts with the prefix). */
  decodeKey(raw: Buffer): string {
    return raw.toString('utf8', this.prefixBytes);
  }

  /** The etcd range [start, end) of the Store keys starting with `prefix`. */
  range(prefix: string): { key: Buffer; range_end: Buffer } {
    const key = this.encode(prefix);
    // etcd refuses an empty key; "\0" is the smallest key there is.
    return { key: key.length === 0 ? Buffer.from([0]) : key, range_end: rangeEnd(key) };
  }

  /** A KeyValue from etcd's. */
  decode(kv: IKeyValue): KeyValue {
    return {
      key: this.decodeKey(kv.key),
      value: kv.value.toString('utf8'),
      createRevision: Number(kv.create_revision),
      modRevision: Number(kv.mod_revision),
    };
  }
}

/**
 * The smallest byte string greater than every one starting with `start`: its last byte that is
 * not 0xff, plus one (etcd's prefix range). For an empty or all-0xff start, "\0": every key.
 */
export function rangeEnd(start: Buffer): Buffer {
  for (let i = start.length - 1; i >= 0; i--) {
    if (start[i]! < 0xff) {
      const end = Buffer.from(start.subarray(0, i + 1));
      end[i] = start[i]! + 1;
      return end;
    }
  }
  return Buffer.from([0]);
}

/** A revision etcd reports for the whole store (a header's), as the Store reports it. */
export function storeRevision(etcdRevision: string | number): number {
  const n = Number(etcdRevision);
  return n <= 1 ? 0 : n;
}
