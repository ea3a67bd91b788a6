/**
 * withFinalizer: clean up external state before an object is deleted.
 *
 * Expected flow:
 * - object not being deleted, finalizer absent → the finalizer is added (nothing else runs; the
 *   write brings the key back for an `apply`);
 * - object not being deleted, finalizer present → `apply`;
 * - object being deleted (deletionTimestamp set), finalizer present → `cleanup`, and when it
 *   succeeds the finalizer is removed (the API server then deletes the object);
 * - object being deleted, finalizer absent → nothing (another party holds it).
 *
 * Guarantees: the finalizer is added before any `apply` runs, so cleanup cannot be skipped for an
 * object that was ever applied; it is removed only after cleanup returned without throwing.
 * Both writes are JSON patches whose `test` operations are the preconditions (the resourceVersion
 * when adding; the finalizer's position when removing), so a stale cache read makes them fail with
 * a conflict instead of overwriting someone else's change.
 *
 * Assumptions: `cleanup` is idempotent (it may run again if removing the finalizer fails).
 * Errors: whatever `apply`/`cleanup` throw, and the API's errors for the patches.
 */
import type { KubeObject } from '@setpoint/api';
import type { ReconcileResult } from '../reconciler.js';

/** What withFinalizer needs of a client: a JSON patch of one object. */
export interface FinalizerPatcher {
  patch(name: string, patch: unknown, options: { type: 'json'; namespace?: string }): Promise<unknown>;
}

export type FinalizerEvent<T> = { readonly type: 'apply'; readonly object: T } | { readonly type: 'cleanup'; readonly object: T };

export async function withFinalizer<T extends KubeObject>(
  client: FinalizerPatcher,
  finalizer: string,
  obj: T,
  handle: (event: FinalizerEvent<T>) => Promise<ReconcileResult>,
): Promise<ReconcileResult> {
  const finalizers = obj.metadata.finalizers ?? [];
  const index = finalizers.indexOf(finalizer);
  const target = { namespace: obj.metadata.namespace ?? '', type: 'json' as const };
  const name = obj.metadata.name!;
  if (obj.metadata.deletionTimestamp === undefined) {
    if (index >= 0) return handle({ type: 'apply', object: obj });
    const patch =
      obj.metadata.finalizers === undefined
        ? [
            { op: 'test', path: '/metadata/resourceVersion', value: obj.metadata.resourceVersion },
            { op: 'add', path: '/metadata/finalizers', value: [finalizer] },
          ]
        : [
            { op: 'test', path: '/metadata/resourceVersion', value: obj.metadata.resourceVersion },
            { op: 'add', path: '/metadata/finalizers/-', value: finalizer },
          ];
    await client.patch(name, patch, target);
    return undefined;
  }
  if (index < 0) return undefined;
  const result = await handle({ type: 'cleanup', object: obj });
  await client.patch(
    name,
    [
      { op: 'test', path: `/metadata/finalizers/${index}`, value: finalizer },
      { op: 'remove', path: `/metadata/finalizers/${index}` },
    ],
    target,
  );
  return result;
}
