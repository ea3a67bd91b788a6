/**
 * Manager: runs a process's controllers and everything they share — one informer per kind and
 * selector (SharedInformerFactory), leader election, metrics, and the /healthz, /readyz and
 * /metrics endpoints.
 *
 * Expected flow: build controllers with `manager.controller(name)…reconcile(fn)` (or `add` any
 * Runnable), then `await manager.start(signal)`. Informers start at once on every replica, so a
 * follower's caches are warm when it wins the lease. Runnables that need leader election (every
 * controller) run only while this process leads; when the lease is lost their signal aborts and
 * the manager waits for them to stop before the elector may release or re-campaign, so two
 * processes never reconcile at the same time. While it campaigns or leads, the manager fences its
 * client: a write is refused, unsent, whenever the lease is not held by the clock
 * (LeaderElector.leadingNow), but for the Lease's own requests while campaigning — so a leader
 * paused past its lease and resumed writes nothing for its controllers before its timers stop
 * them (a renewal it had begun may still reach the server, which refuses it: it carries the
 * Lease's old resourceVersion). One leader-elected manager per Client. On `signal` abort (SIGTERM)
 * controllers stop taking keys, in-flight reconciles get `gracefulShutdownMs`, the lease is
 * released, and `start` resolves.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { ApiError, realClock, silentLogger, type Clock, type KubeObject, type Logger } from '@setpoint/api';
import { builtin } from '../client/builtin.js';
import type { Client } from '../client/index.js';
import { resourcePath } from '../client/paths.js';
import { SharedInformerFactory, type InformerSelectors, type SharedInformer } from '../informer/index.js';
import type { ResourceRef } from '../types.js';
import { ControllerBuilder } from './builder.js';
import { LeaderElector, LeaseLock, type LeaseClient } from './leaderelection/index.js';
import { EventBroadcaster, type EventClient, type EventRecorder } from './events/index.js';
import { ControllerMetrics } from './metrics.js';
import { CachedReader } from './reader.js';

/** Anything the manager runs. */
export interface Runnable {
  /** Runs until `signal` aborts, then returns once stopped. */
  start(signal: AbortSignal): Promise<void>;
  /** Run only while this process holds the leader lease. Default true for controllers. */
  readonly needsLeaderElection?: boolean;
  readonly name?: string;
}

export interface LeaderElectionConfig {
  /** The Lease's name. */
  readonly name: string;
  /** The Lease's namespace. Default kube-system. */
  readonly namespace?: string;
  /** This replica's identity. Default hostname + random suffix. */
  readonly identity?: string;
  readonly leaseDurationMs?: number;
  readonly renewDeadlineMs?: number;
  readonly retryPeriodMs?: number;
  /** Release the lease on a clean stop, so a successor takes over at once. Default true. */
  readonly releaseOnCancel?: boolean;
}

export interface ManagerOptions {
  readonly client: Client;
  /** Without it every runnable runs at once (one replica). */
  readonly leaderElection?: LeaderElectionConfig;
  /** Serve /healthz, /readyz and /metrics here (port 0: any free port). Absent: no server. */
  readonly httpAddress?: { readonly host?: string; readonly port: number };
  /** How long in-flight reconciles get when stopping. Default 30 s. */
  readonly gracefulShutdownMs?: number;
  /** Informer resync period. Default none. */
  readonly resyncPeriodMs?: number;
  /** Watch one namespace only (every informer). Default all. */
  readonly namespace?: string;
  readonly clock?: Clock;
  readonly logger?: Logger;
}

export class Manager {
  readonly client: Client;
  readonly informers: SharedInformerFactory;
  readonly metrics = new ControllerMetrics();
  readonly clock: Clock;
  readonly logger: Logger;
  readonly gracefulShutdownMs: number;
  readonly #runnables: Runnable[] = [];
  readonly #options: ManagerOptions;
  #server: Server | undefined;
  #leadingNow = false;
  #startedSignal: AbortSignal | undefined;
  #elector: LeaderElector | undefined;
  #broadcaster: EventBroadcaster | undefined;

  constructor(options: ManagerOptions) {
    this.#options = options;
    this.client = options.client;
    this.clock = options.clock ?? realClock;
    this.logger = options.logger ?? silentLogger;
    this.gracefulShutdownMs = options.gracefulShutdownMs ?? 30_000;
    this.informers = new SharedInformerFactory((ref) => this.client.resource(ref), {
      clock: this.clock,
      logger: this.logger,
      metrics: this.metrics,
      ...(options.resyncPeriodMs !== undefined ? { resyncPeriodMs: options.resyncPeriodMs } : {}),
      ...(options.namespace !== undefined ? { namespace: options.namespace } : {}),
    });
  }

  /** The shared informer of a kind (and selectors): one watch per process. */
  informer<T extends KubeObject = KubeObject>(ref: ResourceRef, selectors: InformerSelectors = {}): SharedInformer<T> {
    return this.informers.forResource(ref, selectors) as unknown as SharedInformer<T>;
  }

  /** Reads from the shared cache of a kind (never the API): get by key, list by namespace and labels. */
  reader<T extends KubeObject = KubeObject>(ref: ResourceRef, selectors: InformerSelectors = {}): CachedReader<T> {
    return new CachedReader<T>(this.informer<T>(ref, selectors));
  }

  /**
   * A recorder of core/v1 Events for `component` (aggregated and rate-limited; writes never block
   * the caller). Pending events are flushed when the manager stops.
   */
  eventRecorder(component: string): EventRecorder {
    this.#broadcaster ??= new EventBroadcaster({ client: this.client.events() as unknown as EventClient, clock: this.clock, logger: this.logger });
    return this.#broadcaster.newRecorder({ component });
  }

  /** Starts building a controller; `.reconcile(fn)` adds it to this manager. */
  controller(name: string): ControllerBuilder {
    return new ControllerBuilder(this, name);
  }

  /**
   * Adds a runnable. Added after start, it starts at once (under the same leadership rules); if it
   * then fails, the failure is logged and the manager runs on (nothing awaits it, so it must not
   * become an unhandled rejection that ends the process).
   */
  add(runnable: Runnable): void {
    this.#runnables.push(runnable);
    const signal = this.#startedSignal;
    if (signal === undefined || signal.aborted) return;
    const contained = () => undefined; // run() has logged it
    if (!(runnable.needsLeaderElection ?? true)) this.#run(runnable, signal).catch(contained);
    else if (this.#leadingNow && this.#leaderSignal !== undefined) this.#run(runnable, this.#leaderSignal).catch(contained);
  }

  /** Whether this process runs its leader-only runnables now. */
  get leading(): boolean {
    return this.#leadingNow;
  }

  /** The port of the health and metrics server, once started. */
  get httpPort(): number | undefined {
    return (this.#server?.address() as AddressInfo | null)?.port;
  }

  /** Whether every informer has synced. */
  ready(): boolean {
    return this.informers.informers().every((i) => i.hasSynced());
  }

  #leaderSignal: AbortSignal | undefined;

  /** Runs everything until `signal` aborts; resolves once all of it has stopped. */
  async start(signal: AbortSignal): Promise<void> {
    if (this.#startedSignal !== undefined) throw new Error('the manager is already started');
    this.#startedSignal = signal;
    if (this.#options.httpAddress) await this.#serve(this.#options.httpAddress);
    try {
      this.informers.start(signal);
      const always = this.#runnables.filter((r) => !(r.needsLeaderElection ?? true)).map((r) => this.#run(r, signal));
      const election = this.#options.leaderElection;
      if (election === undefined) {
        this.#setLeading(true, signal);
        await Promise.all([...always, ...this.#leaderRunnables().map((r) => this.#run(r, signal))]);
      } else {
        await Promise.all([...always, this.#elect(election, signal)]);
      }
    } finally {
      this.#setLeading(false, undefined);
      await this.#broadcaster?.shutdown();
      await new Promise<void>((resolve) => (this.#server ? this.#server.close(() => resolve()) : resolve()));
    }
  }

  #leaderRunnables(): Runnable[] {
    return this.#runnables.filter((r) => r.needsLeaderElection ?? true);
  }

  async #elect(config: LeaderElectionConfig, signal: AbortSignal): Promise<void> {
    const namespace = config.namespace ?? 'kube-system';
    const identity = config.identity ?? `${hostname()}_${randomBytes(4).toString('hex')}`;
    const lock = new LeaseLock({ client: this.client.leases() as unknown as LeaseClient, namespace, name: config.name });
    this.#elector = new LeaderElector({
      lock,
      identity,
      clock: this.clock,
      logger: this.logger.child({ component: 'leaderelection', lease: `${namespace}/${config.name}` }),
      ...(config.leaseDurationMs !== undefined ? { leaseDurationMs: config.leaseDurationMs } : {}),
      ...(config.renewDeadlineMs !== undefined ? { renewDeadlineMs: config.renewDeadlineMs } : {}),
      ...(config.retryPeriodMs !== undefined ? { retryPeriodMs: config.retryPeriodMs } : {}),
      ...(config.releaseOnCancel !== undefined ? { releaseOnCancel: config.releaseOnCancel } : {}),
      callbacks: {
        onStartedLeading: async (leaderSignal) => {
          this.logger.info({ identity }, 'became the leader; starting controllers');
          this.#setLeading(true, leaderSignal);
          await Promise.all(this.#leaderRunnables().map((r) => this.#run(r, leaderSignal)));
        },
        onStoppedLeading: () => {
          this.logger.warn({ identity }, 'stopped leading; controllers stopped');
          this.#setLeading(false, undefined);
        },
      },
    });
    // Writes go out only while the lease is held by the clock. The lease's own requests go out
    // while campaigning too, but not from a leader past its renew deadline (a late renewal).
    const elector = this.#elector;
    const leases = resourcePath(builtin.leases, { namespace });
    const lease = resourcePath(builtin.leases, { namespace, name: config.name });
    this.client.http.setWriteFence((method, path) => {
      const own = path === lease || path === leases;
      if (elector.leadingNow() || (own && !elector.isLeader())) return undefined;
      return new ApiError('ServiceUnavailable', `${method} ${path} was not sent: this process does not hold the lease ${namespace}/${config.name}`);
    });
    try {
      await elector.run(signal);
    } finally {
      this.client.http.setWriteFence(undefined);
    }
  }

  #setLeading(leading: boolean, signal: AbortSignal | undefined): void {
    this.#leadingNow = leading;
    this.#leaderSignal = signal;
    this.metrics.leader.set({ name: this.#options.leaderElection?.name ?? 'none' }, leading ? 1 : 0);
  }

  async #run(runnable: Runnable, signal: AbortSignal): Promise<void> {
    try {
      await runnable.start(signal);
    } catch (err) {
      this.logger.error({ err, runnable: runnable.name }, 'a runnable failed');
      throw err;
    }
  }

  async #serve(address: { host?: string; port: number }): Promise<void> {
    const server = createServer((req, res) => {
      const path = (req.url ?? '/').split('?')[0];
      if (path === '/healthz' || path === '/livez') {
        res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      } else if (path === '/readyz') {
        const ready = this.ready();
        res.writeHead(ready ? 200 : 503, { 'content-type': 'text/plain' }).end(ready ? 'ok' : 'informers not synced');
      } else if (path === '/metrics') {
        this.metrics.registry.metrics().then(
          (text) => res.writeHead(200, { 'content-type': this.metrics.registry.contentType }).end(text),
          (err: unknown) => res.writeHead(500, { 'content-type': 'text/plain' }).end(String(err)),
        );
      } else {
        res.writeHead(404, { 'content-type': 'text/plain' }).end('404 page not found\n');
      }
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(address.port, address.host ?? '127.0.0.1', () => resolve());
    });
    this.#server = server;
  }
}

/** An AbortSignal that aborts at the first SIGINT or SIGTERM (for `manager.start`). */
export function signalOnTermination(): AbortSignal {
  const controller = new AbortController();
  const stop = (sig: NodeJS.Signals) => {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
    controller.abort(new Error(`received ${sig}`));
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  return controller.signal;
}

