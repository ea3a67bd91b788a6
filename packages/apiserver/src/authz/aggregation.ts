/**
 * ClusterRole aggregation: the API server's own controller that keeps the rules of every
 * ClusterRole with an aggregationRule equal to the union of the rules of the ClusterRoles its
 * selectors match (Kubernetes' clusterrole-aggregation controller). admin, edit and view are built
 * this way, so a ClusterRole labelled `rbac.authorization.k8s.io/aggregate-to-view: "true"` extends
 * view — and, through the chain, edit and admin — at once.
 *
 * Level-triggered: any change of any ClusterRole queues every aggregated ClusterRole (a coalescing
 * queue of names, per-name backoff on errors, a periodic resync); a pass reads the cache, computes
 * the union (the matched roles in name order, each rule once, the role itself excluded) and writes
 * the rules only when they differ, with the resourceVersion it read as precondition. Rules written
 * by hand into an aggregated ClusterRole are replaced.
 */
import { ApiError, labelSelectorAsSelector, silentLogger, type Clock, type KubeObject, type LabelSelector, type Logger } from '@setpoint/api';
import { KeyedLoop } from '@setpoint/workqueue';
import type { PolicyRule, RoleObject } from '../registry/kinds/rbac/rbac.js';
import type { ResourceStorage } from '../storage/rest.js';
import { namespaceFilter } from '../watchcache/filter.js';
import { rulesOf } from './policy.js';
import { rulesEqual } from './rules.js';

/** The selectors of an aggregated ClusterRole, or undefined when it has no aggregationRule. */
export function aggregationSelectors(role: KubeObject): LabelSelector[] | undefined {
  const rule = (role as RoleObject).aggregationRule;
  if (rule === undefined || rule === null) return undefined;
  return Array.isArray(rule.clusterRoleSelectors) ? rule.clusterRoleSelectors : [];
}

/** The rules `role` aggregates from `all` (every ClusterRole): each selector's matches in name order, each rule once. */
export function aggregatedRules(role: KubeObject, all: readonly KubeObject[]): PolicyRule[] {
  const selectors = aggregationSelectors(role) ?? [];
  const byName = [...all].sort((a, b) => ((a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : (a.metadata.name ?? '') > (b.metadata.name ?? '') ? 1 : 0));
  const out: PolicyRule[] = [];
  for (const selector of selectors) {
    let matcher;
    try {
      matcher = labelSelectorAsSelector(selector);
    } catch {
      continue; // validation refuses such selectors; one stored before is skipped
    }
    for (const other of byName) {
      if (other.metadata.name === role.metadata.name || !matcher.matches(other.metadata.labels ?? {})) continue;
      for (const r of rulesOf(other)) if (!out.some((o) => rulesEqual(o, r))) out.push(r);
    }
  }
  return out;
}

export interface ClusterRoleAggregatorOptions {
  readonly clock: Clock;
  readonly logger?: Logger;
  /** How often every aggregated ClusterRole is looked at again. Default 5 minutes. */
  readonly resyncMs?: number;
}

export class ClusterRoleAggregator {
  /** The queue of aggregated ClusterRole names, its per-name backoff (100 ms doubling to 10 s) and the resync. */
  private readonly loop: KeyedLoop<string>;
  private readonly logger: Logger;
  private unsubscribe: (() => void) | undefined;

  constructor(
    private readonly clusterRoles: ResourceStorage,
    private readonly options: ClusterRoleAggregatorOptions,
  ) {
    this.logger = (options.logger ?? silentLogger).child({ component: 'clusterrole-aggregation' });
    this.loop = new KeyedLoop<string>({
      clock: options.clock,
      reconcile: async (name) => {
        await this.reconcile(name);
        return undefined;
      },
      onError: (name, err, delay) => {
        if (!(err instanceof ApiError && err.reason === 'Conflict')) this.logger.warn({ err, clusterRole: name, retryInMs: delay }, 'aggregating a ClusterRole failed');
      },
    });
  }

  /**
   * Follows ClusterRole changes, and first brings every aggregated ClusterRole up to date (a few
   * passes, as aggregated roles may aggregate one another: view → edit → admin).
   */
  async start(): Promise<void> {
    for (let pass = 0; pass < 8; pass++) {
      try {
        await this.clusterRoles.cache.list(namespaceFilter(''), await this.clusterRoles.store.currentRevision());
      } catch (err) {
        this.logger.warn({ err }, 'the ClusterRole cache is behind the store; aggregating from what it holds');
      }
      let wrote = false;
      for (const role of this.clusterRoles.cache.snapshot()) {
        const name = role.metadata.name ?? '';
        if (aggregationSelectors(role) === undefined) continue;
        try {
          wrote = (await this.reconcile(name)) || wrote;
        } catch (err) {
          if (!(err instanceof ApiError && err.reason === 'Conflict')) this.logger.warn({ err, clusterRole: name }, 'aggregating a ClusterRole failed at start; queued');
          wrote = true; // look again in the next pass
        }
      }
      if (!wrote) break;
    }
    // From now on every change queues the aggregated roles; what changed during the passes too.
    this.unsubscribe = this.clusterRoles.cache.onChange(() => this.enqueueAll());
    this.enqueueAll();
    this.loop.resyncEvery(this.options.resyncMs ?? 300_000, () => this.enqueueAll());
  }

  stop(): void {
    this.unsubscribe?.();
    this.loop.stop();
  }

  /** Resolves once the queue is empty (tests). */
  async idle(): Promise<void> {
    await this.loop.idle();
  }

  enqueueAll(): void {
    for (const role of this.clusterRoles.cache.snapshot()) if (aggregationSelectors(role) !== undefined) this.enqueue(role.metadata.name ?? '');
  }

  enqueue(name: string): void {
    if (name !== '') this.loop.enqueue(name);
  }

  /**
   * One pass for one ClusterRole; true when it wrote. The role itself is read from the store (the
   * cache may not have seen this controller's last write yet); the roles it aggregates from the cache.
   */
  private async reconcile(name: string): Promise<boolean> {
    let role: KubeObject;
    try {
      role = await this.clusterRoles.get('', name);
    } catch (err) {
      if (err instanceof ApiError && err.reason === 'NotFound') return false;
      throw err;
    }
    if (aggregationSelectors(role) === undefined) return false;
    const rules = aggregatedRules(role, this.clusterRoles.cache.snapshot());
    const current = rulesOf(role);
    if (current.length === rules.length && current.every((r, i) => rulesEqual(r, rules[i]!))) return false;
    await this.clusterRoles.update('', name, { ...role, metadata: { ...role.metadata }, rules } as KubeObject);
    this.logger.info({ clusterRole: name, rules: rules.length }, 'aggregated ClusterRole rules');
    return true;
  }
}
