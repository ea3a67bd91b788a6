/**
 * guaranteedUpdate: Kubernetes' GuaranteedUpdate (storage.Interface), the one read → check →
 * change → conditional write loop that every change of an existing object goes through (PUT,
 * every PATCH, apply, DELETE, status, scale and binding).
 *
 * Expected flow: `guaranteedUpdate(storage, namespace, name, tryUpdate, options)`. Each attempt
 * reads the object with its store revision and hands both to `tryUpdate`, which throws to refuse
 * (a precondition that does not hold, an invalid result), returns `{ result }` when nothing is to
 * be written (a dry run, no change), or returns `{ write }`: the write, made conditional on the
 * revision read (`kv.modRevision`).
 *
 * Guarantees: a write that loses a race (the store's Conflict: someone wrote between the read and
 * the write) is never a lost update: the object is read again and `tryUpdate` runs again on what
 * is there now, up to {@link MAX_CONFLICT_RETRIES} times, unless the write was `pinned` to a
 * resourceVersion the client named (then a retry cannot succeed, and the client gets 409 as from
 * Kubernetes). With `ignoreNotFound`, a missing object is handed over as undefined (apply creates
 * it); a create that finds it made meanwhile (AlreadyExists) is retried like a conflict.
 *
 * Errors: a store error leaves as the Kubernetes error of the object (`fromStoreError`: 409, 404,
 * 503 …); `tryUpdate`'s own errors leave as they are.
 */
import { isApiError, type KubeObject } from '@setpoint/api';
import { isStoreError, type KeyValue } from '@setpoint/store';
import { fromStoreError } from './errors.js';
import type { ResourceStorage } from './rest.js';

/** Attempts after the first when writes keep losing races (Kubernetes retries without a limit; a bound keeps a hot key from holding a request forever). */
export const MAX_CONFLICT_RETRIES = 16;

/** The object as read for one attempt. */
export interface Current {
  readonly obj: KubeObject;
  readonly kv: KeyValue;
  /** Read for a DELETE from a stored object that cannot be decoded: `obj` is only its identity. */
  readonly malformed?: boolean;
}

/** What one attempt decided: nothing to write (`result`), or a write conditional on the revision read. */
export type UpdateStep<T> =
  | { readonly result: T }
  | {
      readonly write: () => Promise<T>;
      /** The client named the resourceVersion to write over: a conflict is its answer, not a reason to retry. */
      readonly pinned?: boolean;
    };

export interface GuaranteedUpdateOptions {
  /** Read as a DELETE reads (a malformed object reads as its identity, so it can be removed). */
  readonly forDelete?: boolean;
  /** A missing object is handed to tryUpdate as undefined instead of answering 404. */
  readonly ignoreNotFound?: boolean;
}

export function guaranteedUpdate<T>(storage: ResourceStorage, namespace: string, name: string, tryUpdate: (current: Current, attempt: number) => UpdateStep<T> | Promise<UpdateStep<T>>, options?: GuaranteedUpdateOptions & { readonly ignoreNotFound?: false }): Promise<T>;
export function guaranteedUpdate<T>(storage: ResourceStorage, namespace: string, name: string, tryUpdate: (current: Current | undefined, attempt: number) => UpdateStep<T> | Promise<UpdateStep<T>>, options: GuaranteedUpdateOptions & { readonly ignoreNotFound: true }): Promise<T>;
export async function guaranteedUpdate<T>(
  storage: ResourceStorage,
  namespace: string,
  name: string,
  tryUpdate: (current: Current, attempt: number) => UpdateStep<T> | Promise<UpdateStep<T>>,
  options: GuaranteedUpdateOptions = {},
): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    let current: Current | undefined;
    try {
      current = options.forDelete === true ? await storage.readForDelete(namespace, name) : await storage.read(namespace, name);
    } catch (err) {
      if (!(options.ignoreNotFound === true && isApiError(err, 'NotFound'))) throw err;
    }
    const step = await tryUpdate(current as Current, attempt);
    if ('result' in step) return step.result;
    try {
      return await step.write();
    } catch (err) {
      const lostRace = isStoreError(err, 'Conflict') || (current === undefined && (isStoreError(err, 'AlreadyExists') || isApiError(err, 'AlreadyExists')));
      if (lostRace && step.pinned !== true && attempt < MAX_CONFLICT_RETRIES) continue;
      throw fromStoreError(err, storage.gr, name);
    }
  }
}
