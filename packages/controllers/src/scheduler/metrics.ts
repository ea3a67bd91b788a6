/**
 * The scheduler's Prometheus metrics, named as kube-scheduler names them, in a manager's
 * prom-client registry:
 *
 * - scheduler_schedule_attempts_total{result}: attempts by outcome — scheduled (bound),
 *   unschedulable (no node fits), error (the binding or the attempt failed).
 * - scheduler_scheduling_attempt_duration_seconds{result}: from taking the pod off the queue to
 *   the outcome (for scheduled: until the binding succeeded).
 * - scheduler_pending_pods{queue}: pods waiting in active, backoff and unschedulable, read from
 *   the queue at scrape time.
 *
 * Throws when the registry already holds these metrics (one scheduler per registry).
 */
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

export type ScheduleAttemptResult = 'scheduled' | 'unschedulable' | 'error';

export class SchedulerMetrics {
  readonly #attempts: Counter<'result'>;
  readonly #duration: Histogram<'result'>;
  #counts: () => { active: number; backoff: number; unschedulable: number } = () => ({ active: 0, backoff: 0, unschedulable: 0 });

  constructor(registry: Registry) {
    const registers = [registry];
    this.#attempts = new Counter({
      name: 'scheduler_schedule_attempts_total',
      help: 'Number of attempts to schedule pods, by the result. unschedulable: the pod could not be scheduled; error: an internal or binding error.',
      labelNames: ['result'],
      registers,
    });
    this.#duration = new Histogram({
      name: 'scheduler_scheduling_attempt_duration_seconds',
      help: 'Scheduling attempt latency in seconds (scheduling algorithm + binding).',
      labelNames: ['result'],
      buckets: [0.001, 0.002, 0.004, 0.008, 0.016, 0.032, 0.064, 0.128, 0.256, 0.512, 1.024, 2.048, 4.096, 8.192, 16.384],
      registers,
    });
    const counts = () => this.#counts();
    new Gauge({
      name: 'scheduler_pending_pods',
      help: 'Number of pending pods, by the queue type: active, backoff or unschedulable.',
      labelNames: ['queue'],
      registers,
      collect() {
        const c = counts();
        this.set({ queue: 'active' }, c.active);
        this.set({ queue: 'backoff' }, c.backoff);
        this.set({ queue: 'unschedulable' }, c.unschedulable);
      },
    });
  }

  /** Where scheduler_pending_pods reads from (the current queue; replaced at each leadership term). */
  observeQueue(counts: () => { active: number; backoff: number; unschedulable: number }): void {
    this.#counts = counts;
  }

  /** Counts one attempt and its duration. */
  attempt(result: ScheduleAttemptResult, seconds: number): void {
    this.#attempts.inc({ result });
    this.#duration.observe({ result }, seconds);
  }
}
