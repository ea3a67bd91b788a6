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
import { ApiError, Backoff, labelSelectorAsSelector, silentLogger, type Clock, type KubeObject, type LabelSelector, type Logger, type Timer } from '@setpoint/api';
import type { PolicyRule, RoleObject } from '../registry/kinds/rbac.js';
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
  readonly #pending = new Set<string>();
  readonly #backoff = new Map<string, Backoff>();
  readonly #timers = new Set<Timer>();
  readonly #logger: Logger;
  #draining: Promise<void> | undefined;
  #unsubscribe: (() => void) | undefined;
  #stopped = false;

  constructor(
    private readonly clusterRoles: ResourceStorage,
    private readonly options: ClusterRoleAggregatorOptions,
  ) {
    this.#logger = (options.logger ?? silentLogger).child({ component: 'clusterrole-aggregation' });
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
        this.#logger.warn({ err }, 'the ClusterRole cache is behind the store; aggregating from what it holds');
      }
      let wrote = false;
      for (const role of this.clusterRoles.cache.snapshot()) {
        const name = role.metadata.name ?? '';
        if (aggregationSelectors(role) === undefined) continue;
        try {
          wrote = (await this.reconcile(name)) || wrote;
        } catch (err) {
          if (!(err instanceof ApiError && err.reason === 'Conflict')) this.#logger.warn({ err, clusterRole: name }, 'aggregating a ClusterRole failed at start; queued');
          wrote = true; // look again in the next pass
        }
      }
      if (!wrote) break;
    }
    // From now on every change queues the aggregated roles; what changed during the passes too.
    this.#unsubscribe = this.clusterRoles.cache.onChange(() => this.enqueueAll());
    this.enqueueAll();
    this.scheduleResync();
  }

  stop(): void {
    this.#stopped = true;
    this.#unsubscribe?.();
    for (const t of this.#timers) t.cancel();
    this.#timers.clear();
  }

  /** Resolves once the queue is empty (tests). */
  async idle(): Promise<void> {
    while (this.#draining !== undefined) await this.#draining;
  }

  enqueueAll(): void {
    for (const role of this.clusterRoles.cache.snapshot()) if (aggregationSelectors(role) !== undefined) this.enqueue(role.metadata.name ?? '');
  }

  enqueue(name: string): void {
    if (this.#stopped || name === '') return;
    this.#pending.add(name);
    this.#draining ??= this.drain().finally(() => {
      this.#draining = undefined;
      const next = this.#pending.values().next();
      if (!next.done) this.enqueue(next.value);
    });
  }

  private after(ms: number, fn: () => void): void {
    const timer = this.options.clock.setTimeout(() => {
      this.#timers.delete(timer);
      fn();
    }, ms);
    timer.unref();
    this.#timers.add(timer);
  }

  private scheduleResync(): void {
    this.after(this.options.resyncMs ?? 300_000, () => {
      this.enqueueAll();
      this.scheduleResync();
    });
  }

  private async drain(): Promise<void> {
    while (this.#pending.size > 0 && !this.#stopped) {
      const name = this.#pending.values().next().value as string;
      this.#pending.delete(name);
      try {
        await this.reconcile(name);
        this.#backoff.delete(name);
      } catch (err) {
        let b = this.#backoff.get(name);
        if (b === undefined) this.#backoff.set(name, (b = new Backoff({ initialMs: 100, maxMs: 10_000, clock: this.options.clock })));
        const delay = b.next();
        if (!(err instanceof ApiError && err.reason === 'Conflict')) this.#logger.warn({ err, clusterRole: name, retryInMs: delay }, 'aggregating a ClusterRole failed');
        this.after(delay, () => this.enqueue(name));
      }
    }
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
    this.#logger.info({ clusterRole: name, rules: rules.length }, 'aggregated ClusterRole rules');
    return true;
  }
}
