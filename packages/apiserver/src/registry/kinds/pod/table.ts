/**
 * Pods as `kubectl get pods` prints them (Kubernetes' printPod): NAME READY STATUS RESTARTS AGE,
 * and with -o wide IP NODE NOMINATED NODE READINESS GATES. STATUS is kubectl's summary, not the
 * phase alone: an init container's progress ("Init:1/2", "Init:CrashLoopBackOff"), a container's
 * waiting or terminated reason ("ContainerCreating", "CrashLoopBackOff", "Completed",
 * "ExitCode:1"), "Terminating" once deletion started, "Unknown" for a pod on a lost node.
 */
import type { KubeObject } from '@setpoint/api';
import { ageColumn, column, int, list, nameColumn, record, str } from '../../../tables/columns.js';
import { humanDuration, timestampSince } from '../../../tables/duration.js';
import type { PrintedRow, TablePrinter, TableRowCondition } from '../../../tables/table.js';

/** The reason the node lifecycle controller gives pods of an unreachable node. */
const NODE_LOST_REASON = 'NodeLost';

/** What kubectl's READY, STATUS and RESTARTS columns summarise. */
export interface PodSummary {
  /** Containers ready (running and ready; restartable init containers once started and ready). */
  readonly ready: number;
  /** Containers plus restartable (sidecar) init containers. */
  readonly total: number;
  /** The STATUS column. */
  readonly status: string;
  readonly restarts: number;
  /** When a container last terminated before a restart (ms since the epoch); undefined if never. */
  readonly lastRestart: number | undefined;
}

type Obj = Record<string, unknown>;

function finishedAt(containerStatus: Obj | undefined): number | undefined {
  const at = Date.parse(str(record(record(containerStatus?.['lastState'])?.['terminated'])?.['finishedAt']));
  return Number.isNaN(at) ? undefined : at;
}

function later(a: number | undefined, b: number | undefined): number | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return Math.max(a, b);
}

function hasCondition(status: Obj | undefined, type: string): boolean {
  return list(status?.['conditions']).some((c) => record(c)?.['type'] === type && record(c)?.['status'] === 'True');
}

/**
 * Computes the READY, STATUS and RESTARTS of a pod exactly as kubectl's printPod does: the phase
 * (or status.reason), overridden by a scheduling gate, then by the first init container not done,
 * then (once initialised) by the last container with a waiting or terminated reason; "Completed"
 * with a container still running reads "Running" (pod Ready) or "NotReady"; with deletionTimestamp,
 * "Unknown" on a lost node, else "Terminating" unless the phase is terminal.
 */
export function summarizePod(pod: KubeObject): PodSummary {
  const spec = record(pod['spec']);
  const status = record(pod['status']);
  const phase = str(status?.['phase']);
  let reason = str(status?.['reason']) || phase;
  for (const c of list(status?.['conditions'])) {
    if (record(c)?.['type'] === 'PodScheduled' && record(c)?.['reason'] === 'SchedulingGated') reason = 'SchedulingGated';
  }

  const initSpecs = list(spec?.['initContainers']).map(record);
  const restartable = new Set(initSpecs.filter((c) => c?.['restartPolicy'] === 'Always').map((c) => str(c?.['name'])));
  const total = list(spec?.['containers']).length + restartable.size;
  let ready = 0;
  let restarts = 0;
  let sidecarRestarts = 0;
  let lastRestart: number | undefined;
  let lastSidecarRestart: number | undefined;

  let initializing = false;
  const initStatuses = list(status?.['initContainerStatuses']).map(record);
  for (let i = 0; i < initStatuses.length; i++) {
    const cs = initStatuses[i];
    const isSidecar = restartable.has(str(cs?.['name']));
    restarts += int(cs?.['restartCount']);
    lastRestart = later(lastRestart, finishedAt(cs));
    if (isSidecar) {
      sidecarRestarts += int(cs?.['restartCount']);
      lastSidecarRestart = later(lastSidecarRestart, finishedAt(cs));
    }
    const state = record(cs?.['state']);
    const terminated = record(state?.['terminated']);
    const waiting = record(state?.['waiting']);
    if (terminated !== undefined && int(terminated['exitCode']) === 0) continue;
    if (isSidecar && cs?.['started'] === true) {
      if (cs['ready'] === true) ready++;
      continue;
    }
    if (terminated !== undefined) {
      const why = str(terminated['reason']);
      if (why !== '') reason = `Init:${why}`;
      else if (int(terminated['signal']) !== 0) reason = `Init:Signal:${int(terminated['signal'])}`;
      else reason = `Init:ExitCode:${int(terminated['exitCode'])}`;
    } else if (waiting !== undefined && str(waiting['reason']) !== '' && waiting['reason'] !== 'PodInitializing') {
      reason = `Init:${str(waiting['reason'])}`;
    } else {
      reason = `Init:${i}/${initSpecs.length}`;
    }
    initializing = true;
    break;
  }

  if (!initializing || hasCondition(status, 'Initialized')) {
    restarts = sidecarRestarts;
    lastRestart = lastSidecarRestart;
    let hasRunning = false;
    const statuses = list(status?.['containerStatuses']).map(record);
    for (let i = statuses.length - 1; i >= 0; i--) {
      const cs = statuses[i];
      restarts += int(cs?.['restartCount']);
      lastRestart = later(lastRestart, finishedAt(cs));
      const state = record(cs?.['state']);
      const waiting = record(state?.['waiting']);
      const terminated = record(state?.['terminated']);
      if (waiting !== undefined && str(waiting['reason']) !== '') {
        reason = str(waiting['reason']);
      } else if (terminated !== undefined && str(terminated['reason']) !== '') {
        reason = str(terminated['reason']);
      } else if (terminated !== undefined) {
        reason = int(terminated['signal']) !== 0 ? `Signal:${int(terminated['signal'])}` : `ExitCode:${int(terminated['exitCode'])}`;
      } else if (cs?.['ready'] === true && state?.['running'] !== undefined) {
        hasRunning = true;
        ready++;
      }
    }
    if (reason === 'Completed' && hasRunning) reason = hasCondition(status, 'Ready') ? 'Running' : 'NotReady';
  }

  const deleting = str(pod.metadata.deletionTimestamp) !== '';
  if (deleting && str(status?.['reason']) === NODE_LOST_REASON) reason = 'Unknown';
  else if (deleting && phase !== 'Succeeded' && phase !== 'Failed') reason = 'Terminating';

  return { ready, total, status: reason, restarts, lastRestart };
}

/** The RESTARTS cell: "3", or "3 (5m ago)" when the last restart's time is known. */
export function restartsCell(summary: PodSummary, now: number): string {
  if (summary.restarts === 0 || summary.lastRestart === undefined) return String(summary.restarts);
  return `${summary.restarts} (${humanDuration(now - summary.lastRestart)} ago)`;
}

const COMPLETED: Readonly<Record<string, readonly TableRowCondition[]>> = {
  Succeeded: [{ type: 'Completed', status: 'True', reason: 'Succeeded', message: 'The pod has completed successfully.' }],
  Failed: [{ type: 'Completed', status: 'True', reason: 'Failed', message: 'The pod failed.' }],
};

function readinessGates(spec: Obj | undefined, status: Obj | undefined): string {
  const gates = list(spec?.['readinessGates']).map((g) => str(record(g)?.['conditionType']));
  if (gates.length === 0) return '<none>';
  const conditions = list(status?.['conditions']).map(record);
  let trueCount = 0;
  for (const gate of gates) {
    const condition = conditions.find((c) => c?.['type'] === gate);
    if (condition?.['status'] === 'True') trueCount++;
  }
  return `${trueCount}/${gates.length}`;
}

function podRow(pod: KubeObject, now: number): PrintedRow {
  const spec = record(pod['spec']);
  const status = record(pod['status']);
  const summary = summarizePod(pod);
  const podIP = str(record(list(status?.['podIPs'])[0])?.['ip']);
  const phase = str(status?.['phase']);
  const conditions = COMPLETED[phase];
  return {
    cells: [
      str(pod.metadata.name),
      `${summary.ready}/${summary.total}`,
      summary.status,
      restartsCell(summary, now),
      timestampSince(pod.metadata.creationTimestamp, now),
      podIP || '<none>',
      str(spec?.['nodeName']) || '<none>',
      str(status?.['nominatedNodeName']) || '<none>',
      readinessGates(spec, status),
    ],
    ...(conditions !== undefined ? { conditions } : {}),
  };
}

/** pods (v1). */
export const podPrinter: TablePrinter = {
  columns: [
    nameColumn(),
    column('Ready', 'string', 'The aggregate readiness state of this pod for accepting traffic.'),
    column('Status', 'string', 'The aggregate status of the containers in this pod.'),
    column('Restarts', 'string', 'The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.'),
    ageColumn(),
    column('IP', 'string', 'podIP address allocated to the pod. Routable at least within the cluster. Empty if not yet allocated.', 1),
    column('Node', 'string', 'NodeName indicates in which node this pod is scheduled.', 1),
    column('Nominated Node', 'string', 'nominatedNodeName is set only when this pod preempts other pods on the node, but it cannot be scheduled right away as preemption victims receive their graceful termination periods.', 1),
    column('Readiness Gates', 'string', 'If specified, all readiness gates will be evaluated for pod readiness.', 1),
  ],
  row: podRow,
};
