/**
 * DELETE semantics (kube-apiserver's graceful deletion and finalizers):
 * - preconditions (uid, resourceVersion) → 409 when they do not hold;
 * - propagationPolicy Foreground adds the foregroundDeletion finalizer, Orphan the orphan
 *   finalizer, for the garbage collector; Background (the default) adds nothing;
 * - an object with finalizers gets deletionTimestamp and stays (a MODIFIED event) until an update
 *   empties them; a pod bound to a node gets deletionTimestamp now + its grace period and stays
 *   for the node agent to finish (a delete with gracePeriodSeconds 0 then removes it);
 * - otherwise the object is removed at once (a DELETED event), as is an object the store holds
 *   that cannot be decoded, whatever the policy (its grace period and finalizers cannot be read).
 */
import { ApiError, FieldError, type DeleteOptions, type KubeObject } from '@setpoint/api';
import { encode } from './codec.js';
import { clone, jsonEqual } from './equal.js';
import { guaranteedUpdate } from './guaranteed.js';
import { blockingFinalizers, rfc3339, type ResourceStorage } from './rest.js';

export interface DeleteOutcome {
  /** The object: its last state when removed, its current state when deletion is pending. */
  readonly object: KubeObject;
  /** True when the object is gone from the store. */
  readonly removed: boolean;
}

const ORPHAN = 'orphan';
const FOREGROUND = 'foregroundDeletion';

export async function deleteObject(storage: ResourceStorage, namespace: string, name: string, options: DeleteOptions = {}, dryRun = false): Promise<DeleteOutcome> {
  const { def, gr } = storage;
  const policy = propagationPolicy(options);
  return guaranteedUpdate<DeleteOutcome>(storage, namespace, name, ({ obj: current, kv, malformed }) => {
    const pre = options.preconditions;
    if (pre?.uid !== undefined && pre.uid !== null && pre.uid !== current.metadata.uid) {
      throw ApiError.conflict(gr, name, `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${current.metadata.uid ?? ''}`);
    }
    if (pre?.resourceVersion !== undefined && pre.resourceVersion !== null && pre.resourceVersion !== current.metadata.resourceVersion) {
      throw ApiError.conflict(
        gr,
        name,
        `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${current.metadata.resourceVersion ?? ''}`,
      );
    }
    const next = clone(current);
    const meta = next.metadata;
    const finalizers = new Set(meta.finalizers ?? []);
    if (policy === 'Foreground') {
      finalizers.delete(ORPHAN);
      finalizers.add(FOREGROUND);
    } else if (policy === 'Orphan') {
      finalizers.delete(FOREGROUND);
      finalizers.add(ORPHAN);
    }
    const now = storage.clock.now();
    const grace = gracePeriod(storage, current, options);
    const pending = finalizers.size > 0 || blockingFinalizers(def, current).length > 0;
    // An object that cannot be decoded is removed at once, whatever the policy: written back as
    // its identity with a finalizer, no update could ever take that finalizer off again.
    if (malformed === true || (!pending && grace === 0)) {
      if (dryRun) return { result: { object: current, removed: true } };
      return {
        write: async () => {
          const deleted = await storage.store.delete(storage.key(namespace, name), kv.modRevision);
          return { object: { ...current, metadata: { ...current.metadata, resourceVersion: String(deleted.revision) } }, removed: true };
        },
      };
    }
    // Deletion is pending: record it on the object.
    if (finalizers.size > 0) meta.finalizers = [...finalizers];
    if (meta.deletionTimestamp === undefined) {
      meta.deletionTimestamp = rfc3339(now + grace * 1000);
      meta.deletionGracePeriodSeconds = grace;
    } else if (grace < (meta.deletionGracePeriodSeconds ?? Infinity)) {
      // A shorter grace period may replace a longer one (kubectl delete --grace-period=0 --force).
      meta.deletionTimestamp = rfc3339(now + grace * 1000);
      meta.deletionGracePeriodSeconds = grace;
    }
    def.strategy.prepareForDelete?.(next);
    if (dryRun || jsonEqual(next, current)) return { result: { object: next, removed: false } };
    return {
      write: async () => {
        const written = await storage.store.update(storage.key(namespace, name), encode(next), kv.modRevision);
        return { object: { ...next, metadata: { ...next.metadata, resourceVersion: String(written.modRevision) } }, removed: false };
      },
    };
  }, { forDelete: true });
}

/** The policy a DeleteOptions asks for (orphanDependents is the deprecated form of Orphan). */
export function propagationPolicy(options: DeleteOptions): 'Orphan' | 'Background' | 'Foreground' {
  const policy = options.propagationPolicy;
  if (policy !== undefined && policy !== null) {
    // Kubernetes' ValidateDeleteOptions: a 422 Invalid on DeleteOptions.meta.k8s.io "".
    const errs: FieldError[] = [];
    if (options.orphanDependents !== undefined && options.orphanDependents !== null) {
      errs.push(FieldError.invalid('propagationPolicy', policy, 'orphanDependents and deletionPropagation cannot be both set'));
    }
    if (policy !== 'Orphan' && policy !== 'Background' && policy !== 'Foreground') {
      errs.push(FieldError.notSupported('propagationPolicy', policy, ['Foreground', 'Background', 'Orphan', 'nil']));
    }
    if (errs.length > 0) throw ApiError.invalid({ group: 'meta.k8s.io', kind: 'DeleteOptions' }, '', errs);
    return policy;
  }
  if (options.orphanDependents === true) return 'Orphan';
  return 'Background';
}

/**
 * Seconds an object gets before it is removed: 0 for everything but pods bound to a node, which
 * get the request's gracePeriodSeconds or their spec.terminationGracePeriodSeconds (30).
 */
function gracePeriod(storage: ResourceStorage, obj: KubeObject, options: DeleteOptions): number {
  if (storage.def.deletion !== 'graceful') return 0;
  const spec = obj.spec as { nodeName?: string; terminationGracePeriodSeconds?: number } | undefined;
  if (spec?.nodeName === undefined || spec.nodeName === '') return 0;
  const phase = (obj.status as { phase?: string } | undefined)?.phase;
  if (phase === 'Succeeded' || phase === 'Failed') return 0;
  const requested = options.gracePeriodSeconds;
  if (requested !== undefined && requested !== null) {
    if (!Number.isInteger(requested)) throw ApiError.badRequest(`gracePeriodSeconds must be an integer, got ${String(requested)}`);
    return Math.min(MAX_GRACE_PERIOD_SECONDS, Math.max(0, requested));
  }
  return Math.min(MAX_GRACE_PERIOD_SECONDS, Math.max(0, spec.terminationGracePeriodSeconds ?? 30));
}

/**
 * The longest grace period kept (about 6,300 years): an int64 one can outlast any timestamp
 * (now + 2^62 s has no date), so a longer one waits as long as the longest, and its
 * deletionTimestamp still has a four-digit year.
 */
export const MAX_GRACE_PERIOD_SECONDS = 200_000_000_000;
