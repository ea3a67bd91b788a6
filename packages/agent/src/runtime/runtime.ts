/**
 * PodRuntime: what pod sync asks of whatever runs a pod's containers (the kubelet's container
 * runtime interface, cut down to what a level-triggered sync needs). Two implementations:
 * ProcessRuntime (each container a local process) and SimulatedRuntime (nothing runs; pods are
 * reported Running and Ready after a delay, as KWOK does).
 *
 * Expected flow: `start()` once (a runtime recovers what it ran before an agent restart), then any
 * number of `syncPod(pod)` and `killPod(uid, graceMs)` calls from pod sync; `close()` when the
 * agent stops. Pod sync turns an observation into a PodStatus (status.ts).
 *
 * Guarantees every implementation gives: `syncPod` is idempotent (calling it again with the same pod
 * changes nothing that runs); calls for one pod uid are never concurrent with each other from pod
 * sync's side, but a runtime's own events (an exit, a probe, a delay) may interleave, and it reports
 * them through the change listener, never by writing to the API itself.
 */
import type { ContainerState, Pod } from '@setpoint/api';
import type { DeepReadonly } from '@setpoint/client';

/** A pod a runtime holds something for. */
export interface PodRef {
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
}

/** What a runtime observes of one container, in Kubernetes' ContainerStatus terms. */
export interface ContainerObservation {
  readonly name: string;
  /** Exactly one of waiting, running, terminated. */
  readonly state: ContainerState;
  /** The previous run's terminated state, or {} before any. */
  readonly lastState: ContainerState;
  readonly ready: boolean;
  /** Running and past its startup probe (or without one). */
  readonly started: boolean;
  readonly restartCount: number;
  /** "<runtime>://<id>" of the current or last run, absent before the first start. */
  readonly containerID?: string;
}

/** What a runtime observes of one pod. */
export interface PodObservation {
  readonly initContainers: readonly ContainerObservation[];
  readonly containers: readonly ContainerObservation[];
  /** When the runtime first took the pod on (RFC 3339, seconds): the pod's startTime. */
  readonly startTime: string;
}

/** Runs pods' containers on this node (see the file comment for the contract). */
export interface PodRuntime {
  /** Recovers what ran before (restart safety) and starts the runtime's own timers. Call once, before any sync. */
  start(): Promise<void>;
  /**
   * Brings what runs for `pod` toward its spec (starts containers that should run and may, in order)
   * and returns what it observes. A container's failures are part of the observation, not errors;
   * it throws only when it could not act at all (the data dir is not writable, say).
   */
  syncPod(pod: DeepReadonly<Pod>): Promise<PodObservation>;
  /**
   * Stops everything of pod `uid` — SIGTERM, then SIGKILL after `gracePeriodMs` — and forgets the
   * pod. Idempotent: a second call while one is in progress joins it (a shorter grace period
   * shortens it). Resolves once nothing of the pod runs.
   */
  killPod(uid: string, gracePeriodMs: number): Promise<void>;
  /** Whether `killPod(uid)` is in progress. */
  isTerminating(uid: string): boolean;
  /** The pods the runtime holds something for (running, stopping, or recovered after a restart). */
  pods(): PodRef[];
  /** The pods the runtime holds under namespace/name (normally at most one; more while a pod of the same name is replaced). */
  podsNamed(namespace: string, name: string): PodRef[];
  /** Sets the listener told when a pod's observation changed by itself (an exit, a probe result, a delay). */
  onChange(listener: (pod: PodRef) => void): void;
  /** Stops the runtime's timers. What runs keeps running (an agent restart keeps its pods). */
  close(): Promise<void>;
}

export { rfc3339 } from '@setpoint/api';
