/**
 * ControllerBuilder: the fluent way to declare what a controller watches (controller-runtime's
 * builder). `for` is the controller's own kind; `owns` enqueues the controller owner of a child
 * kind; `watches` maps any kind to keys with a function.
 *
 *   manager.controller('replicaset')
 *     .for(builtin.replicaSets)
 *     .owns(builtin.pods)
 *     .withConcurrency(5)
 *     .reconcile(async ({ namespace, name }, ctx) => { … });
 */
import type { KubeObject } from '@setpoint/api';
import type { InformerSelectors } from '../informer/index.js';
import type { ResourceRef } from '../types.js';
import type { RateLimiter } from '../workqueue/index.js';
import { Controller, type WatchedInformer } from './controller.js';
import { enqueueMapped, enqueueObject, enqueueOwner, type EventHandler } from './handlers.js';
import type { Manager } from './manager.js';
import type { Predicate } from './predicates.js';
import type { ReconcileFn, Request } from './reconciler.js';

export interface WatchOptions<T extends KubeObject> extends InformerSelectors {
  readonly predicates?: readonly Predicate<T>[];
}

interface Source {
  readonly ref: ResourceRef;
  readonly selectors: InformerSelectors;
  readonly handler: EventHandler<KubeObject>;
  readonly predicates: readonly Predicate<KubeObject>[];
}

export class ControllerBuilder {
  #primary: ResourceRef | undefined;
  readonly #sources: Source[] = [];
  #concurrency = 1;
  #rateLimiter: RateLimiter<string> | undefined;

  readonly #manager: Manager;
  readonly #name: string;

  constructor(manager: Manager, name: string) {
    this.#manager = manager;
    this.#name = name;
  }

  /** The kind this controller reconciles: its own events enqueue its own keys. */
  for<T extends KubeObject>(ref: ResourceRef, options: WatchOptions<T> = {}): this {
    if (this.#primary !== undefined) throw new Error(`controller ${this.#name}: for() was already called`);
    this.#primary = ref;
    this.#add(ref, options, enqueueObject());
    return this;
  }

  /** A kind this controller creates: a change to a child enqueues its controller owner. */
  owns<T extends KubeObject>(ref: ResourceRef, options: WatchOptions<T> = {}): this {
    const owner = this.#primary;
    if (owner === undefined) throw new Error(`controller ${this.#name}: call for() before owns()`);
    this.#add(ref, options, enqueueOwner({ group: owner.group, kind: owner.kind, namespaced: owner.namespaced }));
    return this;
  }

  /** Any kind, mapped to keys of this controller's kind by `map`. */
  watches<T extends KubeObject>(ref: ResourceRef, map: (obj: T) => readonly Request[], options: WatchOptions<T> = {}): this {
    this.#add(ref, options, enqueueMapped(map));
    return this;
  }

  /** Keys reconciled at once. Default 1. */
  withConcurrency(n: number): this {
    this.#concurrency = n;
    return this;
  }

  /** Per-key backoff. Default exponential 5 ms → 1000 s, max'd with a 10 qps / burst 100 bucket. */
  withRateLimiter(limiter: RateLimiter<string>): this {
    this.#rateLimiter = limiter;
    return this;
  }

  /** Builds the controller, adds it to the manager, and returns it. */
  reconcile(fn: ReconcileFn): Controller {
    if (this.#primary === undefined) throw new Error(`controller ${this.#name}: call for() before reconcile()`);
    const m = this.#manager;
    const controller = new Controller({
      name: this.#name,
      reconcile: fn,
      concurrency: this.#concurrency,
      gracefulShutdownMs: m.gracefulShutdownMs,
      clock: m.clock,
      logger: m.logger,
      metrics: m.metrics,
      ...(this.#rateLimiter ? { rateLimiter: this.#rateLimiter } : {}),
    });
    for (const source of this.#sources) {
      const { predicates: _p, ...selectors } = source.selectors as WatchOptions<KubeObject>;
      const informer = m.informer(source.ref, selectors) as unknown as WatchedInformer<KubeObject>;
      controller.watch(informer, source.handler, ...source.predicates);
    }
    m.add({ name: this.#name, needsLeaderElection: true, start: (signal) => controller.start(signal) });
    return controller;
  }

  #add<T extends KubeObject>(ref: ResourceRef, options: WatchOptions<T>, handler: EventHandler<T>): void {
    const { predicates = [], ...selectors } = options;
    this.#sources.push({
      ref,
      selectors,
      handler: handler as unknown as EventHandler<KubeObject>,
      predicates: predicates as unknown as Predicate<KubeObject>[],
    });
  }
}
