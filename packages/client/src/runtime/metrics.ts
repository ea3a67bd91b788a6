/**
 * The controller runtime's Prometheus metrics, with controller-runtime's names, in one prom-client
 * registry a manager exposes on /metrics.
 *
 * Failures contained per key (each logged with its key where it has one):
 * - controller_runtime_reconcile_errors_total{controller}: reconciles that failed, panics included;
 * - controller_runtime_reconcile_panics_total{controller}: reconciles that threw a JavaScript
 *   runtime error (TypeError, RangeError, ReferenceError, …) or a non-Error value, the analogue of a
 *   recovered Go panic (an object of a shape the code did not expect);
 * - controller_runtime_event_handler_errors_total{controller, stage}: events of a controller's
 *   watches whose predicate (stage "predicate"), handler or map function ("handler") threw, or whose
 *   handler produced a request without string namespace and name ("request"); the event is dropped;
 * - controller_runtime_informer_errors_total{informer, stage}: informer event handlers ("handler"),
 *   index functions ("index") and objects without a usable key ("key", not cached) that failed.
 */
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { InformerErrorStage, InformerMetrics } from '../informer/index.js';
import { PrometheusQueueMetrics, type QueueMetricsProvider } from '../workqueue/index.js';

export type ReconcileOutcome = 'success' | 'error' | 'requeue' | 'requeue_after';

/** Where in a controller's event plumbing a failure happened (see the file comment). */
export type EventHandlerStage = 'predicate' | 'handler' | 'request';

/** Whether a thrown value is a "panic": a JavaScript runtime error or not an Error at all (file comment). */
export function isPanic(err: unknown): boolean {
  return (
    !(err instanceof Error) ||
    err instanceof TypeError ||
    err instanceof RangeError ||
    err instanceof ReferenceError ||
    err instanceof SyntaxError ||
    err instanceof EvalError ||
    err instanceof URIError
  );
}

/** The runtime's metrics (file comment); also the InformerMetrics of the manager's informers. */
export class ControllerMetrics implements InformerMetrics {
  readonly registry: Registry;
  readonly queue: QueueMetricsProvider;
  readonly #total: Counter<'controller' | 'result'>;
  readonly #errors: Counter<'controller'>;
  readonly #panics: Counter<'controller'>;
  readonly #handlerErrors: Counter<'controller' | 'stage'>;
  readonly #informerErrors: Counter<'informer' | 'stage'>;
  readonly #time: Histogram<'controller'>;
  readonly #active: Gauge<'controller'>;
  readonly #maxConcurrent: Gauge<'controller'>;
  readonly leader: Gauge<'name'>;

  constructor(registry = new Registry()) {
    this.registry = registry;
    const registers = [registry];
    this.#total = new Counter({ name: 'controller_runtime_reconcile_total', help: 'Reconciles per controller and result.', labelNames: ['controller', 'result'], registers });
    this.#errors = new Counter({ name: 'controller_runtime_reconcile_errors_total', help: 'Reconciles that failed, per controller.', labelNames: ['controller'], registers });
    this.#panics = new Counter({
      name: 'controller_runtime_reconcile_panics_total',
      help: 'Reconciles that threw a runtime error (TypeError, RangeError, …) or a non-Error, per controller.',
      labelNames: ['controller'],
      registers,
    });
    this.#handlerErrors = new Counter({
      name: 'controller_runtime_event_handler_errors_total',
      help: "Events of a controller's watches dropped because a predicate or handler threw or made an invalid request, per controller and stage.",
      labelNames: ['controller', 'stage'],
      registers,
    });
    this.#informerErrors = new Counter({
      name: 'controller_runtime_informer_errors_total',
      help: 'Informer event handlers, index functions and object keys that failed, per informer and stage.',
      labelNames: ['informer', 'stage'],
      registers,
    });
    this.#time = new Histogram({
      name: 'controller_runtime_reconcile_time_seconds',
      help: 'Time per reconcile.',
      labelNames: ['controller'],
      buckets: [0.0005, 0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers,
    });
    this.#active = new Gauge({ name: 'controller_runtime_active_workers', help: 'Workers reconciling now.', labelNames: ['controller'], registers });
    this.#maxConcurrent = new Gauge({ name: 'controller_runtime_max_concurrent_reconciles', help: 'Workers per controller.', labelNames: ['controller'], registers });
    this.leader = new Gauge({ name: 'leader_election_master_status', help: '1 while this process holds the lease, else 0.', labelNames: ['name'], registers });
    this.queue = new PrometheusQueueMetrics(registry);
  }

  setMaxConcurrency(controller: string, n: number): void {
    this.#maxConcurrent.set({ controller }, n);
  }
  workerStarted(controller: string): void {
    this.#active.inc({ controller });
  }
  workerFinished(controller: string, seconds: number): void {
    this.#active.dec({ controller });
    this.#time.observe({ controller }, seconds);
  }
  reconciled(controller: string, result: ReconcileOutcome): void {
    this.#total.inc({ controller, result });
    if (result === 'error') this.#errors.inc({ controller });
  }
  /** A reconcile that threw a panic (counted as an error too, by reconciled(…, 'error')). */
  panicked(controller: string): void {
    this.#panics.inc({ controller });
  }
  /** An event of a controller's watches dropped at `stage`. */
  eventHandlerFailed(controller: string, stage: EventHandlerStage): void {
    this.#handlerErrors.inc({ controller, stage });
  }
  /** An informer's handler, index function or object key failed. */
  informerError(informer: string, stage: InformerErrorStage): void {
    this.#informerErrors.inc({ informer, stage });
  }
}
