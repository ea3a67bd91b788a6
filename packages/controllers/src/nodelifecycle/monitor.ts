/**
 * NodeMonitor: the node lifecycle controller's reconcile of one node (Kubernetes'
 * monitorNodeHealth, tryUpdateNodeHealth, doNoScheduleTaintingPass and processTaintBaseEviction,
 * turned from a 5 s poll into a reconcile that looks again when the node's grace period ends).
 *
 * Expected flow for a node:
 * 1. observe its heartbeats (Lease renewTime, Ready lastHeartbeatTime; health.ts);
 * 2. silent longer than its grace period: its agent-owned conditions become Unknown (status
 *    written only when it changes, carrying the resourceVersion read; a NodeNotReady event and its
 *    pods' Ready conditions set False when Ready was True);
 * 3. make its NoSchedule taints match its health and conditions, swap or remove its NoExecute
 *    taint at once where that is allowed (taints.ts), and queue it for the zone's rate-limited
 *    tainter when it needs a NoExecute taint it does not have (tainter.ts);
 * 4. report its zone and health to the tainter; look again when its grace period would end.
 * The conditions are the agent's to restore: when the node heartbeats again this controller only
 * removes its taints (the node is Reachable), it never writes Ready True.
 * Errors: a failed write throws (the key is retried with backoff); a node gone meanwhile ends the pass.
 */
import { isApiError, type Clock, type Lease, type Logger, type Node, type Pod, type Taint } from '@setpoint/api';
import { retryOnConflict, updateStatusIfChanged, type CachedReader, type Client, type EventRecorder, type ReconcileResult, checkNode, isWellFormed } from '@setpoint/client';
import {
  NODE_LEASE_NAMESPACE,
  acknowledgeOwnWrite,
  formatTime,
  isHealthy,
  isSilent,
  nodeCondition,
  nodeHealth,
  observeHeartbeat,
  silentAt,
  unknownConditions,
  type GracePeriods,
  type NodeHealth,
  type Probe,
} from './health.js';
import { noExecuteTaintKey, planTaints, sameTaints, withNoExecute, withoutNoExecute } from './taints.js';
import { isExcludedFromDisruption, zoneKey } from './zones.js';

/** What the monitor tells the rate-limited tainter (NoExecuteTainter implements it). */
export interface TaintQueue {
  report(name: string, report: { readonly zone: string; readonly healthy: boolean; readonly excluded: boolean }): void;
  enqueue(name: string, zone: string): void;
  dequeue(name: string): void;
  forget(name: string): void;
}

export interface NodeMonitorDeps {
  readonly client: Client;
  readonly nodes: CachedReader<Node>;
  readonly leases: CachedReader<Lease>;
  readonly podsOnNode: (node: string) => Pod[];
  readonly queue: TaintQueue;
  readonly events: EventRecorder;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly periods: GracePeriods;
}

/** The node monitor (see the file comment). Holds the heartbeat probes, in memory. */
export class NodeMonitor {
  readonly #deps: NodeMonitorDeps;
  readonly #probes = new Map<string, Probe>();
  /** Nodes whose pods still have to be marked not ready. */
  readonly #podsToMark = new Set<string>();

  constructor(deps: NodeMonitorDeps) {
    this.#deps = deps;
  }

  /** The probe of a node, if seen. */
  probe(name: string): Probe | undefined {
    return this.#probes.get(name);
  }

  /** One pass over node `name` (steps 1–4 of the file comment). */
  async reconcile(name: string): Promise<ReconcileResult> {
    const { clock, periods, queue } = this.#deps;
    const cached = this.#deps.nodes.get('', name) as Node | undefined;
    if (cached === undefined) {
      this.#probes.delete(name);
      this.#podsToMark.delete(name);
      queue.forget(name);
      return undefined;
    }
    checkNode(cached);
    const now = clock.now();
    let node = cached;
    const zone = zoneKey(node);
    const excluded = isExcludedFromDisruption(node);
    // Reported before any write, so that a node whose writes fail still counts in its zone.
    queue.report(name, { zone, healthy: isHealthy(this.#health(node, now)), excluded });
    if (this.#silent(node, now)) {
      const marked = await this.#markUnknown(node, now);
      if (marked === undefined) return undefined;
      node = marked.node;
      if (marked.readyWasTrue) {
        this.#deps.events.eventf(nodeRef(node), 'Normal', 'NodeNotReady', 'Node %s status is now: %s', name, 'NodeNotReady');
        this.#podsToMark.add(name);
      }
    }
    const synced = await this.#syncTaints(node, now);
    if (synced === undefined) return undefined;
    node = synced.node;
    queue.report(name, { zone, healthy: isHealthy(synced.health), excluded });
    if (synced.queue !== undefined) queue.enqueue(name, zone);
    else queue.dequeue(name);
    if (isHealthy(synced.health)) this.#podsToMark.delete(name);
    else if (this.#podsToMark.has(name)) await this.#markPodsNotReady(name, now);
    const probe = this.#probes.get(name);
    if (probe === undefined || this.#silent(node, now)) return undefined;
    return { requeueAfterMs: Math.max(1, silentAt(probe, node, periods) - now + 1) };
  }

  /**
   * Adds the NoExecute taint node `name` needs now, if it still needs one (for the tainter).
   * Resolves true when done or not needed, false when the write failed (logged).
   */
  async taint(name: string): Promise<boolean> {
    if (this.#deps.nodes.get('', name) === undefined) return true;
    const now = this.#deps.clock.now();
    try {
      // Read live: the monitor has usually just written this node, and the cache may lag.
      const live = await this.#deps.client.nodes().get(name);
      await this.#updateTaints(live, (node) => {
        const want = noExecuteTaintKey(this.#health(node, now));
        return want === undefined ? undefined : withNoExecute(node.spec?.taints ?? [], want, formatTime(now));
      });
      return true;
    } catch (err) {
      if (isApiError(err, 'NotFound')) return true;
      this.#deps.logger.warn({ err, node: name }, 'could not add the NoExecute taint; the tainter tries again');
      return false;
    }
  }

  /** Removes this controller's NoExecute taints from every node (master disruption). Failures are logged. */
  async untaintAll(): Promise<void> {
    for (const cached of this.#deps.nodes.list() as Node[]) {
      if (!isWellFormed(checkNode, cached)) continue;
      if (sameTaints(cached.spec?.taints ?? [], withoutNoExecute(cached.spec?.taints ?? []))) continue;
      await this.#updateTaints(cached, (node) => withoutNoExecute(node.spec?.taints ?? [])).catch((err: unknown) => {
        if (!isApiError(err, 'NotFound')) this.#deps.logger.warn({ err, node: cached.metadata.name }, 'could not remove the NoExecute taints');
      });
    }
  }

  /** Gives every node a fresh grace period from now (leaving master disruption). */
  resetProbes(): void {
    const now = this.#deps.clock.now();
    for (const [name, probe] of this.#probes) this.#probes.set(name, { ...probe, probeMs: now });
  }

  #observe(node: Node, now: number): Probe {
    const name = node.metadata.name ?? '';
    const lease = this.#deps.leases.get(NODE_LEASE_NAMESPACE, name) as Lease | undefined;
    const probe = observeHeartbeat(this.#probes.get(name), node, lease, now);
    this.#probes.set(name, probe);
    return probe;
  }

  #silent(node: Node, now: number): boolean {
    const probe = this.#probes.get(node.metadata.name ?? '') ?? this.#observe(node, now);
    return isSilent(probe, node, this.#deps.periods, now);
  }

  /** The node's health, after observing this copy of it. */
  #health(node: Node, now: number): NodeHealth {
    const probe = this.#observe(node, now);
    return nodeHealth(node, probe, isSilent(probe, node, this.#deps.periods, now));
  }

  /** Step 2. Undefined when the node is gone. */
  async #markUnknown(node: Node, now: number): Promise<{ node: Node; readyWasTrue: boolean } | undefined> {
    const api = this.#deps.client.nodes();
    const name = node.metadata.name ?? '';
    let current = node;
    let first = true;
    try {
      return await retryOnConflict(
        async () => {
          if (!first) current = await api.get(name);
          first = false;
          if (!isSilent(this.#observe(current, now), current, this.#deps.periods, now)) return { node: current, readyWasTrue: false };
          const readyWasTrue = nodeCondition(current, 'Ready')?.status === 'True';
          const conditions = unknownConditions(current.status?.conditions, formatTime(now), current.metadata.creationTimestamp);
          const { updated, object } = await updateStatusIfChanged(api, current, { ...current.status, conditions });
          if (updated) {
            this.#deps.logger.info({ node: name }, 'node stopped posting status; its conditions are now Unknown');
            const probe = this.#probes.get(name);
            if (probe !== undefined) this.#probes.set(name, acknowledgeOwnWrite(probe, object));
          }
          return { node: object, readyWasTrue: updated && readyWasTrue };
        },
        { clock: this.#deps.clock },
      );
    } catch (err) {
      if (isApiError(err, 'NotFound')) return undefined;
      throw err;
    }
  }

  /** Step 3 (the writes). Undefined when the node is gone. */
  async #syncTaints(node: Node, now: number): Promise<{ node: Node; health: NodeHealth; queue: string | undefined } | undefined> {
    let health: NodeHealth = 'Unreported';
    let queue: string | undefined;
    try {
      const updated = await this.#updateTaints(node, (current) => {
        health = this.#health(current, now);
        const plan = planTaints(current, health, formatTime(now));
        queue = plan.queue;
        return plan.changed ? plan.taints : undefined;
      });
      return { node: updated, health, queue };
    } catch (err) {
      if (isApiError(err, 'NotFound')) return undefined;
      throw err;
    }
  }

  /**
   * Writes the taints `next` computes from the node (undefined: no change), carrying the
   * resourceVersion read; on a conflict reads the node again and recomputes. Returns the node after.
   */
  async #updateTaints(node: Node, next: (node: Node) => Taint[] | undefined): Promise<Node> {
    const api = this.#deps.client.nodes();
    const name = node.metadata.name ?? '';
    let current = node;
    let first = true;
    return retryOnConflict(
      async () => {
        if (!first) current = await api.get(name);
        first = false;
        const taints = next(current);
        if (taints === undefined || sameTaints(current.spec?.taints ?? [], taints)) return current;
        const { taints: _old, ...spec } = current.spec ?? {};
        return api.update({ ...current, spec: taints.length > 0 ? { ...spec, taints } : spec });
      },
      { clock: this.#deps.clock },
    );
  }

  /** Sets the Ready condition of the node's pods False (Kubernetes' MarkPodsNotReady). Throws when a write failed. */
  async #markPodsNotReady(name: string, now: number): Promise<void> {
    const api = this.#deps.client.pods();
    const errors: unknown[] = [];
    for (const pod of this.#deps.podsOnNode(name)) {
      const ready = pod.status?.conditions?.find((c) => c.type === 'Ready');
      if (ready === undefined || ready.status === 'False') continue;
      const conditions = (pod.status?.conditions ?? []).map((c) => (c.type === 'Ready' ? { ...c, status: 'False' as const, lastTransitionTime: formatTime(now) } : c));
      try {
        await api.updateStatus({ ...pod, status: { ...pod.status, conditions } });
        this.#deps.events.event(podRef(pod), 'Warning', 'NodeNotReady', 'Node is not ready');
      } catch (err) {
        if (!isApiError(err, 'NotFound')) errors.push(err);
      }
    }
    if (errors.length > 0) throw new Error(`could not mark ${errors.length} pod(s) on node ${name} not ready`, { cause: errors[0] });
    this.#podsToMark.delete(name);
  }
}

function nodeRef(node: Node) {
  return { apiVersion: 'v1', kind: 'Node', name: node.metadata.name ?? '', ...(node.metadata.uid !== undefined ? { uid: node.metadata.uid } : {}) };
}

/** An ObjectReference to a pod, for events. */
export function podRef(pod: Pod) {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    name: pod.metadata.name ?? '',
    namespace: pod.metadata.namespace ?? '',
    ...(pod.metadata.uid !== undefined ? { uid: pod.metadata.uid } : {}),
  };
}
