/**
 * The commit point of a request, so that a timeout never answers 504 for a write that then
 * commits — "a 5xx never leaves a change behind", which kube-apiserver's timeout filter does not
 * promise (its handler goes on after the 504 and may still write).
 *
 * Every store write a request's handler makes (create, update, delete) first passes the request's
 * gate (found through AsyncLocalStorage, so no storage code carries it): before the request was
 * answered by its timeout, the gate disarms the timeout — from then on the request is answered by
 * its handler, with what was committed, however long that takes; after the timeout's 504, the gate
 * refuses the write (it throws, and nothing is stored), so the 504 stays true.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { ApiError } from '@setpoint/api';
import type { Store } from '@setpoint/store';

/** A request's commit point (http/limits.ts makes one per request with a timeout). */
export interface CommitGate {
  /** Called right before a store write: throws ApiError Timeout when the client was already answered. */
  enter(): void;
}

const current = new AsyncLocalStorage<CommitGate>();

/** Runs `fn` with `gate` as the commit point of every store write it makes (directly or later, in its promises). */
export function runWithCommitGate<T>(gate: CommitGate | undefined, fn: () => T): T {
  return gate === undefined ? fn() : current.run(gate, fn);
}

/** The error a write gets once its request was answered 504: it is not written. */
export function answeredByTimeout(): ApiError {
  return new ApiError('Timeout', 'Timeout: request did not complete within the allotted timeout; the write was not made', { details: {} });
}

const WRITES = new Set<PropertyKey>(['create', 'update', 'delete']);

/**
 * `store`, whose writes pass the commit gate of the request they are made for (none outside a
 * request: controllers in the server, compaction). Everything else is `store`'s own.
 */
export function gatedStore(store: Store): Store {
  // The store's methods, bound once (reads are on the hot path), writes behind the gate.
  const methods = new Map<PropertyKey, (...args: unknown[]) => unknown>();
  return new Proxy(store, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target) as unknown;
      if (typeof value !== 'function') return value;
      let bound = methods.get(prop);
      if (bound === undefined) {
        const method = (value as (...args: unknown[]) => unknown).bind(target);
        bound = WRITES.has(prop)
          ? (...args: unknown[]) => {
              current.getStore()?.enter();
              return method(...args);
            }
          : method;
        methods.set(prop, bound);
      }
      return bound;
    },
  });
}
