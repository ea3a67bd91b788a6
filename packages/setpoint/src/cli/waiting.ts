/**
 * Waiting for one object, as kubectl wait does: read it with a list on its name (for a
 * resourceVersion to watch from), check, then watch changes on that name until the check passes,
 * the deadline passes or the caller gives up. A watch the server closes is opened again.
 */
import { isApiError, isGone, type KubeObject } from '@setpoint/api';
import type { ResourceClient } from '@setpoint/client';
import { CliError } from './io.js';

/** `--for=condition=Ready[=true]`, `--for=delete`. */
export type WaitCondition = { readonly kind: 'delete' } | { readonly kind: 'condition'; readonly type: string; readonly status: string };

/** Parses a --for value; throws CliError for anything else. */
export function parseWaitCondition(text: string): WaitCondition {
  if (text.toLowerCase() === 'delete') return { kind: 'delete' };
  if (text.startsWith('condition=')) {
    const rest = text.slice('condition='.length);
    const eq = rest.indexOf('=');
    const type = eq === -1 ? rest : rest.slice(0, eq);
    const status = eq === -1 ? 'True' : rest.slice(eq + 1);
    if (type === '') throw new CliError('--for=condition= needs a condition type, e.g. --for=condition=Ready');
    return { kind: 'condition', type, status };
  }
  throw new CliError(`unrecognized condition: "${text}" (use --for=condition=TYPE[=STATUS] or --for=delete)`);
}

/**
 * Whether `obj` has the condition with the status (both compared case-insensitively, as kubectl
 * does), and the condition is not stale: its observedGeneration, when set, is the object's generation.
 */
export function conditionMet(obj: KubeObject, type: string, status: string): boolean {
  const conditions = (obj as { status?: { conditions?: unknown } }).status?.conditions;
  if (!Array.isArray(conditions)) return false;
  for (const c of conditions as Array<Record<string, unknown>>) {
    if (typeof c['type'] !== 'string' || c['type'].toLowerCase() !== type.toLowerCase()) continue;
    if (typeof c['status'] !== 'string') continue;
    const generation = obj.metadata?.generation;
    if (typeof c['observedGeneration'] === 'number' && typeof generation === 'number' && c['observedGeneration'] < generation) return false;
    return c['status'].toLowerCase() === status.toLowerCase();
  }
  return false;
}

export interface WaitTarget {
  readonly resource: ResourceClient;
  readonly name: string;
  readonly namespace: string;
  /** With delete: an object of this name but another uid counts as deleted (it was replaced). */
  readonly uid?: string;
}

/**
 * Resolves when the target meets `condition` (for delete: it is gone, or replaced by another uid)
 * with the last object seen (undefined when deleted). Rejects with `signal.reason` when the signal
 * aborts first, with WaitTimeout when `once` and the first read does not meet it, and with ApiError
 * for failures other than a closed watch.
 */
export async function waitFor(target: WaitTarget, condition: WaitCondition, signal: AbortSignal, once = false): Promise<KubeObject | undefined> {
  const fieldSelector = `metadata.name=${target.name}`;
  const namespace = target.resource.ref.namespaced ? target.namespace : '';
  const done = (obj: KubeObject | undefined): boolean => {
    if (condition.kind === 'delete') return obj === undefined || (target.uid !== undefined && obj.metadata?.uid !== target.uid);
    return obj !== undefined && conditionMet(obj, condition.type, condition.status);
  };
  for (;;) {
    signal.throwIfAborted();
    let list;
    try {
      list = await target.resource.list({ namespace, fieldSelector, signal });
    } catch (err) {
      if (signal.aborted) throw signal.reason;
      if (condition.kind === 'delete' && isApiError(err, 'NotFound')) return undefined;
      throw err;
    }
    let current = list.items[0];
    if (done(current)) return current;
    if (once) throw new WaitTimeout('the condition is not met');
    const stream = target.resource.watch({ namespace, fieldSelector, ...(list.metadata.resourceVersion === undefined ? {} : { resourceVersion: list.metadata.resourceVersion }), signal });
    try {
      for await (const event of stream) {
        if (event.type === 'BOOKMARK') continue;
        current = event.type === 'DELETED' ? undefined : event.object;
        if (done(current)) {
          await stream.return();
          return current;
        }
      }
    } catch (err) {
      // A watch too old to resume (410) is read again from a fresh list; anything else fails.
      if (!isGone(err)) throw err;
    }
    if (signal.aborted) throw signal.reason;
  }
}

/** Why a wait ended early: the deadline passed (the caller reports a timeout). */
export class WaitTimeout extends Error {
  override readonly name = 'WaitTimeout';
}

/**
 * A signal that aborts when `parent` aborts or after `timeoutMs` (with a WaitTimeout reason);
 * `timeoutMs` undefined or <= 0 means no deadline. Call dispose() to clear the timer.
 */
export function deadline(parent: AbortSignal, timeoutMs: number | undefined): { signal: AbortSignal; dispose(): void } {
  const controller = new AbortController();
  const onAbort = () => controller.abort(parent.reason);
  if (parent.aborted) controller.abort(parent.reason);
  else parent.addEventListener('abort', onAbort, { once: true });
  const timer = timeoutMs !== undefined && timeoutMs > 0 ? setTimeout(() => controller.abort(new WaitTimeout('timed out')), timeoutMs) : undefined;
  return {
    signal: controller.signal,
    dispose() {
      if (timer !== undefined) clearTimeout(timer);
      parent.removeEventListener('abort', onAbort);
    },
  };
}
