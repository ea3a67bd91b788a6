/**
 * SimulatedRuntime: a PodRuntime that runs nothing, as KWOK's fake kubelet: a pod is reported
 * Pending (containers ContainerCreating) for `readyDelayMs` after the runtime first sees it, then
 * Running with every init container Completed and every container running, started and ready.
 * Killing a pod completes at once.
 *
 * A pod that is already reported Running with all its containers running (the agent restarted) is
 * taken as started when it was: it does not go back to Pending. State per pod is a few fields, and
 * the delay uses the given Scheduler, so one timer wheel can serve every simulated node's pods.
 */
import { realClock, type Clock, type ContainerState, type Pod } from '@setpoint/api';
import type { DeepReadonly } from '@setpoint/client';
import { clockScheduler, type ScheduledJob, type Scheduler } from '../wheel.js';
import { rfc3339, type ContainerObservation, type PodObservation, type PodRef, type PodRuntime } from './runtime.js';

/** Options of a SimulatedRuntime; each default is stated on its field. */
export interface SimulatedRuntimeOptions {
  /** How long a new pod stays Pending. Default 1000 ms. */
  readonly readyDelayMs?: number;
  readonly clock?: Clock;
  /** Where the end of the delay is scheduled. Default one clock timer per pod. */
  readonly scheduler?: Scheduler;
}

interface SimulatedPod {
  readonly ref: PodRef;
  /** When the pod counts as started (epoch ms). */
  readonly readyAt: number;
  readonly startedAt: string;
  readonly startTime: string;
  job: ScheduledJob | undefined;
}

function keyOf(namespace: string, name: string): string {
  return `${namespace}/${name}`;
}

/** A PodRuntime that starts nothing (see the file comment). */
export class SimulatedRuntime implements PodRuntime {
  readonly #clock: Clock;
  readonly #scheduler: Scheduler;
  readonly #delayMs: number;
  readonly #pods = new Map<string, SimulatedPod>();
  readonly #byName = new Map<string, Set<string>>();
  #listener: (pod: PodRef) => void = () => {};

  constructor(options: SimulatedRuntimeOptions = {}) {
    this.#clock = options.clock ?? realClock;
    this.#scheduler = options.scheduler ?? clockScheduler(this.#clock);
    this.#delayMs = Math.max(0, options.readyDelayMs ?? 1000);
  }

  async start(): Promise<void> {}

  onChange(listener: (pod: PodRef) => void): void {
    this.#listener = listener;
  }

  pods(): PodRef[] {
    return [...this.#pods.values()].map((p) => p.ref);
  }

  podsNamed(namespace: string, name: string): PodRef[] {
    const uids = this.#byName.get(keyOf(namespace, name));
    if (uids === undefined) return [];
    return [...uids].flatMap((uid) => {
      const pod = this.#pods.get(uid);
      return pod === undefined ? [] : [pod.ref];
    });
  }

  isTerminating(): boolean {
    return false;
  }

  async syncPod(pod: DeepReadonly<Pod>): Promise<PodObservation> {
    const uid = pod.metadata.uid ?? '';
    let state = this.#pods.get(uid);
    const now = this.#clock.now();
    if (state === undefined) {
      const ref: PodRef = { namespace: pod.metadata.namespace ?? '', name: pod.metadata.name ?? '', uid };
      const running = pod.status?.phase === 'Running' && (pod.status.containerStatuses ?? []).every((c) => c.state?.running !== undefined);
      const startedAt = running ? (pod.status?.containerStatuses?.[0]?.state?.running?.startedAt ?? pod.status?.startTime) : undefined;
      const readyAt = running ? now : now + this.#delayMs;
      state = { ref, readyAt, startedAt: startedAt ?? rfc3339(readyAt), startTime: pod.status?.startTime ?? rfc3339(now), job: undefined };
      if (readyAt > now) state.job = this.#scheduler.schedule(readyAt - now, () => this.#listener(ref));
      this.#pods.set(uid, state);
      const key = keyOf(ref.namespace, ref.name);
      let uids = this.#byName.get(key);
      if (uids === undefined) this.#byName.set(key, (uids = new Set()));
      uids.add(uid);
    }
    const ready = now >= state.readyAt;
    const waiting = (reason: string): ContainerState => ({ waiting: { reason } });
    const observe = (name: string, state: ContainerState, isReady: boolean): ContainerObservation => ({ name, state, lastState: {}, ready: isReady, started: isReady, restartCount: 0 });
    const startedAt = state.startedAt;
    return {
      initContainers: (pod.spec?.initContainers ?? []).map((c) =>
        observe(c.name, ready ? { terminated: { exitCode: 0, reason: 'Completed', startedAt, finishedAt: startedAt } } : waiting('PodInitializing'), false),
      ),
      containers: (pod.spec?.containers ?? []).map((c) => observe(c.name, ready ? { running: { startedAt } } : waiting('ContainerCreating'), ready)),
      startTime: state.startTime,
    };
  }

  async killPod(uid: string): Promise<void> {
    const state = this.#pods.get(uid);
    if (state === undefined) return;
    state.job?.cancel();
    this.#pods.delete(uid);
    const key = keyOf(state.ref.namespace, state.ref.name);
    const uids = this.#byName.get(key);
    uids?.delete(uid);
    if (uids?.size === 0) this.#byName.delete(key);
  }

  async close(): Promise<void> {
    for (const state of this.#pods.values()) state.job?.cancel();
  }
}
