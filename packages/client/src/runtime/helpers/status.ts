/**
 * updateStatusIfChanged: write status only when it differs from what the object holds. A status
 * write with identical content still bumps the resourceVersion, emits a watch event and re-queues
 * the key: a loop that writes unconditionally reconciles itself forever.
 */
import { jsonEqual, type KubeObject } from '@setpoint/api';

/** What updateStatusIfChanged needs of a client: the status subresource's PUT. */
export interface StatusWriter<T extends KubeObject> {
  updateStatus(obj: T): Promise<T>;
}

export interface StatusUpdate<T> {
  /** Whether a write happened. */
  readonly updated: boolean;
  /** The object after the write (or the one given when nothing changed). */
  readonly object: T;
}

/**
 * Writes `status` as the status of `obj` when it differs from `obj.status` (deep comparison). The
 * write carries obj's resourceVersion as its precondition: if the object moved on, the API answers
 * 409 Conflict, and the caller (or retryOnConflict) reads again.
 */
export async function updateStatusIfChanged<T extends KubeObject>(client: StatusWriter<T>, obj: T, status: unknown): Promise<StatusUpdate<T>> {
  if (jsonEqual(obj.status, status)) return { updated: false, object: obj };
  const next = { ...obj, status } as T;
  return { updated: true, object: await client.updateStatus(next) };
}
