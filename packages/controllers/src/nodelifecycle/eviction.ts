/**
 * Which pods a NoExecute taint evicts, and when (Kubernetes' taint eviction controller,
 * pkg/controller/tainteviction): a pod that does not tolerate every NoExecute taint of its node is
 * evicted at once; one that tolerates them all stays for the smallest tolerationSeconds among the
 * tolerations used (counted from when the controller first saw it needing eviction), or forever
 * when none of them sets tolerationSeconds. Every function here is pure.
 */
import type { Taint, Toleration } from '@setpoint/api';

/** Whether `toleration` tolerates `taint` (Kubernetes' Toleration.ToleratesTaint). */
export function toleratesTaint(toleration: Toleration, taint: Taint): boolean {
  if (toleration.effect !== undefined && toleration.effect !== '' && toleration.effect !== taint.effect) return false;
  if (toleration.key !== undefined && toleration.key !== '' && toleration.key !== taint.key) return false;
  switch (toleration.operator ?? 'Equal') {
    case 'Exists':
      return true;
    case 'Equal':
      return (toleration.value ?? '') === (taint.value ?? '');
    default:
      return false;
  }
}

/**
 * Whether every taint is tolerated, and the tolerations that do it (for each taint, the first
 * toleration that tolerates it: Kubernetes' GetMatchingTolerations).
 */
export function matchingTolerations(taints: readonly Taint[], tolerations: readonly Toleration[]): { readonly all: boolean; readonly used: Toleration[] } {
  const used: Toleration[] = [];
  for (const taint of taints) {
    const match = tolerations.find((t) => toleratesTaint(t, taint));
    if (match === undefined) return { all: false, used: [] };
    used.push(match);
  }
  return { all: true, used };
}

/**
 * How long the used tolerations let a pod stay, in ms: the smallest tolerationSeconds (0 for a
 * value ≤ 0), or undefined (forever) when none sets it.
 */
export function tolerationMs(used: readonly Toleration[]): number | undefined {
  let min: number | undefined;
  for (const t of used) {
    if (t.tolerationSeconds === undefined || t.tolerationSeconds === null) continue;
    const ms = Math.max(0, t.tolerationSeconds) * 1000;
    min = min === undefined ? ms : Math.min(min, ms);
  }
  return min;
}

/** What to do with one pod on a node: keep it, evict it now, or look again at `atMs`. */
export type EvictionDecision = { readonly kind: 'keep' } | { readonly kind: 'evict' } | { readonly kind: 'wait'; readonly atMs: number };

/**
 * The decision for a pod with `tolerations` on a node with `taints` (only the NoExecute ones
 * count), first seen needing eviction at `sinceMs`, at `now`.
 */
export function decideEviction(tolerations: readonly Toleration[] | undefined, taints: readonly Taint[], sinceMs: number, now: number): EvictionDecision {
  const noExecute = taints.filter((t) => t.effect === 'NoExecute');
  if (noExecute.length === 0) return { kind: 'keep' };
  const { all, used } = matchingTolerations(noExecute, tolerations ?? []);
  if (!all) return { kind: 'evict' };
  const ms = tolerationMs(used);
  if (ms === undefined) return { kind: 'keep' };
  const atMs = sinceMs + ms;
  return atMs <= now ? { kind: 'evict' } : { kind: 'wait', atMs };
}
