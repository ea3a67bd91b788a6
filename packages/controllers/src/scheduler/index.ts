/**
 * The scheduler: assigns pending pods to nodes as kube-scheduler does, and reports the pods it
 * cannot place (PodScheduled=False, reason Unschedulable, kube-scheduler's message, and a
 * FailedScheduling event) instead of retrying them silently.
 *
 * Wiring: `registerScheduler(manager)` adds a Scheduler runnable (leader-elected, like every
 * controller) that reads pods, nodes and namespaces through the manager's shared informers,
 * records events through `manager.eventRecorder('default-scheduler')`, and exports its metrics on
 * `manager.metrics.registry`. The manager's client should allow a few hundred requests per second
 * (kube-scheduler runs with qps 50 / burst 100): every placement is one binding request.
 *
 * The decisions are plain functions over PodInfo and NodeInfo (filters.ts, scores.ts, spread.ts,
 * interpod.ts, algorithm.ts); the queue (queue.ts) and the assume cache (cache.ts) stand alone.
 * Only the wiring, the queue and the algorithm are exported from here; the individual filters and
 * scorers stay inside the package (their tests import them from their files).
 */
import type { Namespace, Node, Pod } from '@setpoint/api';
import { builtin, type Manager } from '@setpoint/client';
import { DEFAULT_SCHEDULER_NAME } from './changes.js';
import { SchedulerMetrics } from './metrics.js';
import { Scheduler, type SchedulerOptions } from './scheduler.js';

export { Scheduler, type SchedulerDeps, type SchedulerOptions, type SchedulerStats } from './scheduler.js';
export { SchedulerMetrics, type ScheduleAttemptResult } from './metrics.js';
export { SchedulingQueue, type QueueAttributes, type QueuedPod, type SchedulingQueueOptions } from './queue.js';
export { SchedulingAlgorithm, fitErrorMessage, numFeasibleNodesToFind, type SchedulingAlgorithmOptions, type SchedulingView, type SchedulingDecision } from './algorithm.js';
export { DEFAULT_SCHEDULER_NAME } from './changes.js';

/**
 * Adds a Scheduler to `manager` and returns it. Options as documented on SchedulerOptions; the
 * clock defaults to the manager's. Throws when the manager's registry already has a scheduler's
 * metrics (one scheduler per manager).
 */
export function registerScheduler(manager: Manager, options: SchedulerOptions = {}): Scheduler {
  const scheduler = new Scheduler(
    {
      client: manager.client,
      pods: manager.informer<Pod>(builtin.pods),
      nodes: manager.informer<Node>(builtin.nodes),
      namespaces: manager.informer<Namespace>(builtin.namespaces),
      events: manager.eventRecorder(options.schedulerName ?? DEFAULT_SCHEDULER_NAME),
      metrics: new SchedulerMetrics(manager.metrics.registry),
      logger: manager.logger.child({ component: 'scheduler' }),
    },
    { clock: manager.clock, ...options },
  );
  manager.add(scheduler);
  return scheduler;
}
