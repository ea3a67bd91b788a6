/**
 * NoExecuteTainter: adds the NoExecute taints that evict pods, one zone queue at a time, each
 * behind its own token bucket (Kubernetes' zoneNoExecuteTainter, RateLimitedTimedQueue and
 * doNoExecuteTaintingPass). Evictions themselves are not rate-limited; tainting is, so that a
 * network blip across many nodes does not empty the cluster.
 *
 * Expected flow: the node monitor reports every node's zone and health (`report`), queues nodes
 * that need a NoExecute taint (`enqueue`) and takes back those that no longer do (`dequeue`,
 * `forget`). Each pass, once every node the cache holds has been reported (until then nothing is
 * tainted), recomputes the zone states and rates (zones.ts), then takes nodes off each zone's
 * queue, in order, while that zone's bucket has a token, calling `taint` for each; a report that
 * comes in meanwhile starts the pass again first. It then sleeps until the next token is due or
 * something changes.
 *
 * Guarantees: within a zone, at most 1 + rate × t nodes are tainted in any t seconds (burst 1);
 * a zone at rate 0 taints nothing; one pass at a time. A `taint` that fails keeps the node at the
 * head of its queue and is tried again after `retryMs` (and a token).
 * Assumes `taint` re-reads the node and re-checks that it still needs the taint.
 */
import type { Clock, Logger, Timer } from '@setpoint/api';
import type { Runnable } from '@setpoint/client';
import { planDisruption, type EvictionRates, type ZoneState } from './zones.js';

/** A token bucket of burst 1 (client-go's flowcontrol token bucket); rate 0 never accepts. */
export class TokenBucket {
  #rate: number;
  #tokens: number;
  #last: number;

  /** A full bucket filling at `rate` tokens per second. */
  constructor(rate: number, now: number) {
    this.#rate = rate;
    this.#tokens = rate > 0 ? 1 : 0;
    this.#last = now;
  }

  get rate(): number {
    return this.#rate;
  }

  #refill(now: number): void {
    if (this.#rate > 0) this.#tokens = Math.min(1, this.#tokens + ((now - this.#last) * this.#rate) / 1000);
    this.#last = Math.max(this.#last, now);
  }

  /** Takes a token if one is there. */
  tryAccept(now: number): boolean {
    if (this.#rate <= 0) return false;
    this.#refill(now);
    if (this.#tokens < 1 - 1e-9) return false;
    this.#tokens = Math.max(0, this.#tokens - 1);
    return true;
  }

  /** When the next token is there (now if one is), or undefined at rate 0. */
  nextAt(now: number): number | undefined {
    if (this.#rate <= 0) return undefined;
    this.#refill(now);
    return this.#tokens >= 1 - 1e-9 ? now : now + Math.ceil(((1 - this.#tokens) * 1000) / this.#rate);
  }

  /** Changes the rate; the new bucket starts empty when the old one had no token (SwapLimiter). */
  setRate(rate: number, now: number): void {
    if (rate === this.#rate) return;
    const hadToken = this.tryAccept(now);
    this.#rate = rate;
    this.#tokens = rate > 0 && hadToken ? 1 : 0;
    this.#last = now;
  }
}

/** What the tainter knows of a node. */
export interface NodeReport {
  readonly zone: string;
  readonly healthy: boolean;
  /** Labelled node.kubernetes.io/exclude-disruption: not counted in zone states. */
  readonly excluded: boolean;
}

/** What the tainter needs from the node monitor. */
export interface TainterDeps {
  readonly clock: Clock;
  readonly logger: Logger;
  readonly rates: EvictionRates;
  /** Resolves true once the node cache has synced (false when `signal` aborts first). */
  waitForSync(signal: AbortSignal): Promise<boolean>;
  /** The names of the nodes in the cache. */
  nodeNames(): readonly string[];
  /** Adds the NoExecute taint the node needs now; true when done (or no longer needed), false to retry. */
  taint(name: string): Promise<boolean>;
  /** Every zone is fully disrupted: remove every NoExecute taint this controller set. */
  enterMasterDisruption(): Promise<void>;
  /** Some zone is healthy again after all were disrupted: fresh grace periods for every node. */
  exitMasterDisruption(): void;
}

interface Zone {
  readonly bucket: TokenBucket;
  /** Node names, in the order they were queued. */
  readonly queue: string[];
  /** A failed node at the head waits until then. */
  retryAt: number;
}

/** The rate-limited NoExecute tainter (see the file comment). A Runnable of the manager. */
export class NoExecuteTainter implements Runnable {
  readonly name = 'node-lifecycle-tainter';
  readonly needsLeaderElection = true;
  readonly #deps: TainterDeps;
  readonly #retryMs: number;
  readonly #reports = new Map<string, NodeReport>();
  readonly #zones = new Map<string, Zone>();
  /** node → the zone whose queue holds it */
  readonly #queued = new Map<string, string>();
  #states = new Map<string, ZoneState>();
  #dirty = true;
  #wake: (() => void) | undefined;

  constructor(deps: TainterDeps, options: { readonly retryMs?: number } = {}) {
    this.#deps = deps;
    this.#retryMs = options.retryMs ?? 50;
  }

  /** The current zone states (a copy). */
  zoneStates(): Map<string, ZoneState> {
    return new Map(this.#states);
  }

  /** The current rate of a zone's bucket, if the zone is known. */
  zoneRate(zone: string): number | undefined {
    return this.#zones.get(zone)?.bucket.rate;
  }

  /** Whether the node waits in a queue. */
  isQueued(name: string): boolean {
    return this.#queued.has(name);
  }

  /** Records a node's zone and health. */
  report(name: string, report: NodeReport): void {
    const before = this.#reports.get(name);
    this.#reports.set(name, report);
    this.#zone(report.zone);
    if (before?.zone !== report.zone || before.healthy !== report.healthy || before.excluded !== report.excluded) this.kick();
  }

  /** Queues a node for a NoExecute taint (no-op when already queued in `zone`). */
  enqueue(name: string, zone: string): void {
    if (this.#queued.get(name) === zone) return;
    this.dequeue(name);
    this.#zone(zone).queue.push(name);
    this.#queued.set(name, zone);
    this.kick();
  }

  /** Takes a node off its queue. */
  dequeue(name: string): void {
    const zone = this.#queued.get(name);
    if (zone === undefined) return;
    this.#queued.delete(name);
    const queue = this.#zones.get(zone)?.queue;
    const i = queue?.indexOf(name) ?? -1;
    if (queue !== undefined && i >= 0) queue.splice(i, 1);
  }

  /** Forgets a deleted node. */
  forget(name: string): void {
    this.dequeue(name);
    if (this.#reports.delete(name)) this.kick();
  }

  /** Asks for a pass soon. */
  kick(): void {
    this.#dirty = true;
    this.#wake?.();
  }

  async start(signal: AbortSignal): Promise<void> {
    if (!(await this.#deps.waitForSync(signal))) return;
    while (!signal.aborted) {
      this.#dirty = false;
      let next: number | undefined;
      try {
        next = await this.#pass();
      } catch (err) {
        this.#deps.logger.error({ err }, 'NoExecute tainting pass failed; trying again');
        next = this.#deps.clock.now() + this.#retryMs;
      }
      if (!this.#dirty) await this.#sleep(next, signal);
    }
  }

  #zone(zone: string): Zone {
    let z = this.#zones.get(zone);
    if (z === undefined) {
      z = { bucket: new TokenBucket(this.#deps.rates.evictionRate, this.#deps.clock.now()), queue: [], retryAt: 0 };
      this.#zones.set(zone, z);
    }
    return z;
  }

  /** Sleeps until `at`, a kick, or the signal. */
  async #sleep(at: number | undefined, signal: AbortSignal): Promise<void> {
    const { clock } = this.#deps;
    if (signal.aborted) return;
    await new Promise<void>((resolve) => {
      let timer: Timer | undefined;
      const done = () => {
        timer?.cancel();
        signal.removeEventListener('abort', done);
        this.#wake = undefined;
        resolve();
      };
      if (at !== undefined) timer = clock.setTimeout(done, at - clock.now());
      this.#wake = done;
      signal.addEventListener('abort', done, { once: true });
    });
  }

  /** One pass; returns when the next one is due by time alone. */
  async #pass(): Promise<number | undefined> {
    if (!(await this.#updateZoneStates())) return undefined;
    let next: number | undefined;
    for (const [key, zone] of this.#zones) {
      for (;;) {
        const head = zone.queue[0];
        if (head === undefined) break;
        // Reports came in while this pass ran: recompute the zone states before the next token.
        if (this.#dirty) return undefined;
        const now = this.#deps.clock.now();
        if (zone.retryAt > now) {
          next = Math.min(next ?? Infinity, zone.retryAt);
          break;
        }
        if (!zone.bucket.tryAccept(now)) {
          const at = zone.bucket.nextAt(now);
          if (at !== undefined) next = Math.min(next ?? Infinity, at);
          break;
        }
        zone.queue.shift();
        this.#queued.delete(head);
        const done = await this.#deps.taint(head).catch((err: unknown) => {
          this.#deps.logger.error({ err, node: head, zone: key }, 'adding the NoExecute taint failed; trying again');
          return false;
        });
        if (!done && !this.#queued.has(head) && this.#reports.has(head)) {
          zone.queue.unshift(head);
          this.#queued.set(head, key);
          zone.retryAt = this.#deps.clock.now() + this.#retryMs;
        }
      }
    }
    return next;
  }

  /**
   * Recomputes zone states; false (and nothing is tainted) until every cached node has been
   * reported, since a partial view could look like a disruption, or hide one.
   */
  async #updateZoneStates(): Promise<boolean> {
    const names = this.#deps.nodeNames();
    if (!names.every((n) => this.#reports.has(n))) return false;
    const zones = new Map<string, boolean[]>();
    for (const name of names) {
      const r = this.#reports.get(name);
      if (r === undefined || r.excluded) continue;
      const list = zones.get(r.zone) ?? [];
      list.push(r.healthy);
      zones.set(r.zone, list);
    }
    const plan = planDisruption(this.#states, zones, this.#deps.rates);
    const now = this.#deps.clock.now();
    for (const [zone, state] of plan.states) {
      if (this.#states.get(zone) !== state) this.#deps.logger.info({ zone, state }, 'zone is now in a new state');
    }
    this.#states = plan.states;
    for (const [zone, rate] of plan.rates) this.#zone(zone).bucket.setRate(rate, now);
    if (plan.enterMasterDisruption) {
      this.#deps.logger.info({}, 'every node is not ready: entering master disruption mode, stopping evictions');
      for (const zone of this.#zones.values()) zone.queue.length = 0;
      this.#queued.clear();
      await this.#deps.enterMasterDisruption();
    }
    if (plan.exitMasterDisruption) {
      this.#deps.logger.info({}, 'some nodes are ready: leaving master disruption mode');
      this.#deps.exitMasterDisruption();
    }
    return true;
  }
}
