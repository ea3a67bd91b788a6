/**
 * TaintEvictionManager: removes the pods bound to one node that must go, reconciled per node:
 * - the node exists: pods that do not tolerate its NoExecute taints are deleted at once, pods
 *   tolerating them for tolerationSeconds when that runs out, pods tolerating them forever stay
 *   (Kubernetes' taint eviction controller; decisions in eviction.ts). A deletion is a DELETE
 *   with the pod's own grace period, after a DisruptionTarget condition (DeletionByTaintManager),
 *   and a TaintManagerEviction event ("Marking for deletion Pod ns/name"; "Cancelling deletion of
 *   Pod ns/name" when the taint goes before the toleration runs out);
 * - the node does not exist: after a quarantine (the cache may lag) and a check with the API, its
 *   pods are marked Failed (DisruptionTarget DeletionByPodGC) and deleted with grace period 0,
 *   since no agent is left to finish them (Kubernetes' pod GC, gcOrphaned).
 *
 * Guarantees: a pod is deleted at most once per pass, never before its toleration runs out on
 * this controller's clock; pods already being deleted are left alone (except orphans).
 * Caveat: the start of a toleration is kept in memory (as Kubernetes does), so a restart of the
 * controller starts every pending toleration again.
 * Errors: failed deletions are collected and thrown after the pass (the key is retried).
 */
import { isApiError, type Clock, type Logger, type Node, type Pod } from '@setpoint/api';
import { checkNode, checkPod, partitionWellFormed, throwMalformed, type CachedReader, type Client, type EventRecorder, type ReconcileResult } from '@setpoint/client';
import { formatTime } from './health.js';
import { decideEviction } from './eviction.js';
import { podRef } from './monitor.js';
import { disruptAndDelete } from './pods.js';

export interface TaintEvictionDeps {
  readonly client: Client;
  readonly nodes: CachedReader<Node>;
  readonly podsOnNode: (node: string) => Pod[];
  readonly events: EventRecorder;
  readonly clock: Clock;
  readonly logger: Logger;
  /** How long pods of a missing node wait before they are collected. */
  readonly orphanQuarantineMs: number;
}

function podKey(pod: Pod): string {
  return `${pod.metadata.namespace ?? ''}/${pod.metadata.name ?? ''}`;
}

/** The taint eviction and orphan collection of one node (see the file comment). */
export class TaintEvictionManager {
  readonly #deps: TaintEvictionDeps;
  /** node → pod key → when it was first seen needing eviction */
  readonly #pending = new Map<string, Map<string, number>>();
  /** node → when its pods were first seen without it */
  readonly #missingSince = new Map<string, number>();

  constructor(deps: TaintEvictionDeps) {
    this.#deps = deps;
  }

  /** When the eviction of pod namespace/name on `node` was scheduled, if it waits for a toleration to run out. */
  pendingSince(node: string, namespace: string, name: string): number | undefined {
    return this.#pending.get(node)?.get(`${namespace}/${name}`);
  }

  /** Since when pods of the missing node `node` have been seen (their quarantine started), if they have. */
  orphanedSince(node: string): number | undefined {
    return this.#missingSince.get(node);
  }

  async reconcile(name: string): Promise<ReconcileResult> {
    const node = this.#deps.nodes.get('', name) as Node | undefined;
    if (node !== undefined) checkNode(node);
    // Malformed pods are left out, and reported (thrown) once the others are handled.
    const { good: pods, malformed } = partitionWellFormed(this.#deps.podsOnNode(name), checkPod);
    let result: ReconcileResult;
    if (node === undefined) {
      this.#pending.delete(name);
      result = await this.#collectOrphans(name, pods);
    } else {
      this.#missingSince.delete(name);
      result = await this.#evict(node, pods);
    }
    throwMalformed(malformed);
    return result;
  }

  #ctx(now: number) {
    return { clock: this.#deps.clock, now: formatTime(now), logger: this.#deps.logger };
  }

  async #evict(node: Node, pods: readonly Pod[]): Promise<ReconcileResult> {
    const { clock, events } = this.#deps;
    const name = node.metadata.name ?? '';
    const now = clock.now();
    const taints = (node.spec?.taints ?? []).filter((t) => t.effect === 'NoExecute');
    const pending = this.#pending.get(name) ?? new Map<string, number>();
    const seen = new Set<string>();
    const errors: unknown[] = [];
    let next: number | undefined;
    for (const pod of pods) {
      if (pod.metadata.deletionTimestamp !== undefined) continue;
      const key = podKey(pod);
      seen.add(key);
      const since = pending.get(key) ?? now;
      const decision = decideEviction(pod.spec?.tolerations, taints, since, now);
      if (decision.kind === 'wait') {
        pending.set(key, since);
        next = Math.min(next ?? Infinity, decision.atMs);
        continue;
      }
      const wasPending = pending.delete(key);
      if (decision.kind === 'keep') {
        if (wasPending) events.eventf(podRef(pod), 'Normal', 'TaintManagerEviction', 'Cancelling deletion of Pod %s', key);
        continue;
      }
      events.eventf(podRef(pod), 'Normal', 'TaintManagerEviction', 'Marking for deletion Pod %s', key);
      this.#deps.logger.info({ pod: key, node: name }, 'deleting a pod that does not tolerate the NoExecute taints of its node');
      try {
        await disruptAndDelete(this.#deps.client, pod, { reason: 'DeletionByTaintManager', message: 'Taint manager: deleting due to NoExecute taint' }, this.#ctx(now));
      } catch (err) {
        errors.push(err);
      }
    }
    for (const key of pending.keys()) if (!seen.has(key)) pending.delete(key);
    if (pending.size > 0) this.#pending.set(name, pending);
    else this.#pending.delete(name);
    if (errors.length > 0) throw new Error(`could not delete ${errors.length} pod(s) from node ${name}`, { cause: errors[0] });
    return next === undefined ? undefined : { requeueAfterMs: Math.max(1, next - clock.now()) };
  }

  async #collectOrphans(name: string, pods: readonly Pod[]): Promise<ReconcileResult> {
    const { clock, client } = this.#deps;
    if (pods.length === 0) {
      this.#missingSince.delete(name);
      return undefined;
    }
    const now = clock.now();
    const since = this.#missingSince.get(name) ?? now;
    this.#missingSince.set(name, since);
    const due = since + this.#deps.orphanQuarantineMs;
    if (now < due) return { requeueAfterMs: due - now };
    const exists = await client
      .nodes()
      .get(name)
      .then(
        () => true,
        (err: unknown) => {
          if (isApiError(err, 'NotFound')) return false;
          throw err;
        },
      );
    if (exists) {
      this.#missingSince.delete(name);
      return undefined;
    }
    const errors: unknown[] = [];
    for (const pod of pods) {
      this.#deps.logger.info({ pod: podKey(pod), node: name }, 'deleting a pod bound to a node that no longer exists');
      try {
        await disruptAndDelete(client, pod, { reason: 'DeletionByPodGC', message: 'PodGC: node no longer exists', fail: true, gracePeriodSeconds: 0 }, this.#ctx(now));
      } catch (err) {
        errors.push(err);
      }
    }
    if (errors.length > 0) throw new Error(`could not delete ${errors.length} orphaned pod(s) of node ${name}`, { cause: errors[0] });
    return undefined;
  }
}
