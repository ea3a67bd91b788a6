/**
 * The controller runtime's Prometheus metrics, with controller-runtime's names, in one prom-client
 * registry a manager exposes on /metrics.
 */
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { PrometheusQueueMetrics, type QueueMetricsProvider } from '../workqueue/index.js';

export type ReconcileOutcome = 'success' | 'error' | 'requeue' | 'requeue_after';

export class ControllerMetrics {
  readonly registry: Registry;
  readonly queue: QueueMetricsProvider;
  private readonly total: Counter<'controller' | 'result'>;
  private readonly errors: Counter<'controller'>;
  private readonly time: Histogram<'controller'>;
  private readonly active: Gauge<'controller'>;
  private readonly maxConcurrent: Gauge<'controller'>;
  readonly leader: Gauge<'name'>;

  constructor(registry = new Registry()) {
    this.registry = registry;
    const registers = [registry];
    this.total = new Counter({ name: 'controller_runtime_reconcile_total', help: 'Reconciles per controller and result.', labelNames: ['controller', 'result'], registers });
    this.errors = new Counter({ name: 'controller_runtime_reconcile_errors_total', help: 'Reconciles that failed, per controller.', labelNames: ['controller'], registers });
    this.time = new Histogram({
      name: 'controller_runtime_reconcile_time_seconds',
      help: 'Time per reconcile.',
      labelNames: ['controller'],
      buckets: [0.0005, 0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers,
    });
    this.active = new Gauge({ name: 'controller_runtime_active_workers', help: 'Workers reconciling now.', labelNames: ['controller'], registers });
    this.maxConcurrent = new Gauge({ name: 'controller_runtime_max_concurrent_reconciles', help: 'Workers per controller.', labelNames: ['controller'], registers });
    this.leader = new Gauge({ name: 'leader_election_master_status', help: '1 while this process holds the lease, else 0.', labelNames: ['name'], registers });
    this.queue = new PrometheusQueueMetrics(registry);
  }

  setMaxConcurrency(controller: string, n: number): void {
    this.maxConcurrent.set({ controller }, n);
  }
  workerStarted(controller: string): void {
    this.active.inc({ controller });
  }
  workerFinished(controller: string, seconds: number): void {
    this.active.dec({ controller });
    this.time.observe({ controller }, seconds);
  }
  reconciled(controller: string, result: ReconcileOutcome): void {
    this.total.inc({ controller, result });
    if (result === 'error') this.errors.inc({ controller });
  }
}
