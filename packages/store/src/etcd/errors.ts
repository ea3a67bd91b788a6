/**
 * etcd's errors as StoreErrors.
 *
 * etcd answers a read below its compact revision with gRPC OutOfRange "etcdserver: mvcc: required
 * revision has been compacted" (ErrCompacted) and one above its current revision with "required
 * revision is a future revision" (ErrFutureRev); neither names the revision, so callers add it.
 * Everything that means "etcd cannot answer now" — no connection, deadline exceeded, no leader,
 * too many requests, a full database (NOSPACE alarm), a closed circuit after repeated failures —
 * becomes Unavailable, which the API server answers 503 with Retry-After. So does any error this
 * mapping does not know: the request did not do what it asked, and retrying is the caller's choice.
 */
import { StoreError } from '../store.js';

const COMPACTED = 'required revision has been compacted';
const FUTURE = 'required revision is a future revision';
const TOO_LARGE = 'request is too large';

/** What an etcd error means for the store. */
export type EtcdErrorKind = 'compacted' | 'future' | 'too-large' | 'unavailable';

export function classify(err: unknown): EtcdErrorKind {
  const message = err instanceof Error ? err.message : String(err);
  if (message.includes(COMPACTED)) return 'compacted';
  if (message.includes(FUTURE)) return 'future';
  if (message.includes(TOO_LARGE)) return 'too-large';
  return 'unavailable';
}

/** A StoreError for an etcd failure that is not about revisions (callers handle those first). */
export function unavailable(what: string, err: unknown, key?: string): StoreError {
  if (err instanceof StoreError) return err;
  const kind = classify(err);
  const message = err instanceof Error ? err.message : String(err);
  if (kind === 'too-large') {
    return new StoreError('ValueTooLarge', `${what}: etcd refused the request as too large (raise etcd's --max-request-bytes): ${message}`, {
      cause: err,
      ...(key === undefined ? {} : { key }),
    });
  }
  return new StoreError('Unavailable', `${what}: etcd did not answer: ${message}`, { cause: err, ...(key === undefined ? {} : { key }) });
}
