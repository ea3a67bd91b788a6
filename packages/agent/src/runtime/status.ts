/**
 * The PodStatus a node reports, computed from what the runtime observes — as the kubelet's
 * generateAPIPodStatus and getPhase do it. Pure: the same pod, observation and time give the same
 * status, and a condition's lastTransitionTime moves only when its status does, so that writing
 * the result with updateStatusIfChanged writes nothing when nothing changed.
 */
import type { ContainerStatus, Pod, PodCondition, PodPhase, PodStatus } from '@setpoint/api';
import type { DeepReadonly } from '@setpoint/client';
import type { ContainerObservation, PodObservation } from './runtime.js';

/** The addresses a pod is reported with. */
export interface PodAddresses {
  readonly hostIP: string;
  readonly podIP: string;
}

/** Whether a phase is final: a pod in it is never run again. */
export function isTerminalPhase(phase: string | undefined): phase is 'Succeeded' | 'Failed' {
  return phase === 'Succeeded' || phase === 'Failed';
}

function exitCodeOf(c: ContainerObservation): number | undefined {
  return c.state.terminated?.exitCode;
}

/** Whether every init container has completed successfully. */
export function initialized(obs: PodObservation): boolean {
  return obs.initContainers.every((c) => exitCodeOf(c) === 0);
}

/**
 * The pod's phase (the kubelet's getPhase): Pending while initializing or while a container has
 * never run; Running while any runs or will be restarted; Succeeded when all exited 0 and none will
 * restart; Failed when all exited, some not 0, and none will restart.
 */
export function podPhase(restartPolicy: string, obs: PodObservation): PodPhase {
  if (!initialized(obs)) {
    const failedInit = obs.initContainers.some((c) => c.state.terminated !== undefined && c.state.terminated.exitCode !== 0);
    return restartPolicy === 'Never' && failedInit ? 'Failed' : 'Pending';
  }
  let running = 0;
  let waiting = 0;
  let stopped = 0;
  let succeeded = 0;
  for (const c of obs.containers) {
    if (c.state.running !== undefined) running++;
    else if (c.state.terminated !== undefined) {
      stopped++;
      if (c.state.terminated.exitCode === 0) succeeded++;
    } else if (c.lastState.terminated !== undefined) stopped++; // waiting to restart
    else waiting++;
  }
  if (waiting > 0) return 'Pending';
  if (running > 0) return 'Running';
  if (stopped === 0) return 'Pending';
  if (restartPolicy === 'Always') return 'Running';
  if (stopped === succeeded && obs.containers.every((c) => c.state.terminated !== undefined)) return 'Succeeded';
  if (restartPolicy === 'Never') return 'Failed';
  return 'Running'; // OnFailure: the failed ones restart
}

function conditionsWith(conditions: readonly DeepReadonly<PodCondition>[], next: PodCondition, now: string): PodCondition[] {
  const list = conditions.map((c) => ({ ...c }) as PodCondition);
  const i = list.findIndex((c) => c.type === next.type);
  const previous = i >= 0 ? list[i] : undefined;
  const lastTransitionTime = previous !== undefined && previous.status === next.status && previous.lastTransitionTime ? previous.lastTransitionTime : now;
  const merged: PodCondition = { type: next.type, status: next.status, lastProbeTime: null, lastTransitionTime };
  if (next.reason !== undefined) merged.reason = next.reason;
  if (next.message !== undefined) merged.message = next.message;
  if (i >= 0) list[i] = merged;
  else list.push(merged);
  return list;
}

function names(list: readonly ContainerObservation[]): string {
  return `[${list.map((c) => c.name).join(' ')}]`;
}

function containerStatus(c: ContainerObservation, image: string): ContainerStatus {
  const status: ContainerStatus = {
    name: c.name,
    state: c.state,
    lastState: c.lastState,
    ready: c.ready,
    restartCount: c.restartCount,
    image,
    imageID: '',
    started: c.started,
  };
  if (c.containerID !== undefined) status.containerID = c.containerID;
  return status;
}

/**
 * The status to write for `pod`: what it has (qosClass, nominatedNodeName, other conditions) with
 * the node's fields replaced — phase, the PodScheduled, Initialized, ContainersReady and Ready
 * conditions, container statuses, startTime (kept once set), host and pod IPs. `now` is RFC 3339.
 */
export function podStatus(pod: DeepReadonly<Pod>, obs: PodObservation, now: string, addresses: PodAddresses): PodStatus {
  const spec = pod.spec;
  const restartPolicy = spec?.restartPolicy ?? 'Always';
  const previous = (pod.status ?? {}) as DeepReadonly<PodStatus>;
  const phase = podPhase(restartPolicy, obs);
  const completed = isTerminalPhase(phase);
  let conditions = [...(previous.conditions ?? [])] as DeepReadonly<PodCondition>[];
  if (!conditions.some((c) => c.type === 'PodScheduled')) conditions = conditionsWith(conditions, { type: 'PodScheduled', status: 'True' }, now);
  const incomplete = obs.initContainers.filter((c) => exitCodeOf(c) !== 0);
  conditions = conditionsWith(
    conditions,
    incomplete.length === 0 || completed
      ? { type: 'Initialized', status: 'True' }
      : { type: 'Initialized', status: 'False', reason: 'ContainersNotInitialized', message: `containers with incomplete status: ${names(incomplete)}` },
    now,
  );
  const unready = obs.containers.filter((c) => !c.ready);
  const containersReady: PodCondition = completed
    ? { type: 'ContainersReady', status: 'False', reason: 'PodCompleted' }
    : unready.length === 0
      ? { type: 'ContainersReady', status: 'True' }
      : { type: 'ContainersReady', status: 'False', reason: 'ContainersNotReady', message: `containers with unready status: ${names(unready)}` };
  conditions = conditionsWith(conditions, containersReady, now);
  const gates = (spec?.readinessGates ?? []).map((g) => g.conditionType);
  const gatesFalse = gates.filter((type) => !previous.conditions?.some((c) => c.type === type && c.status === 'True'));
  const ready: PodCondition =
    containersReady.status !== 'True'
      ? { ...containersReady, type: 'Ready' }
      : gatesFalse.length > 0
        ? { type: 'Ready', status: 'False', reason: 'ReadinessGatesNotReady', message: `corresponding condition of pod readiness gate "${gatesFalse[0] ?? ''}" does not exist.` }
        : { type: 'Ready', status: 'True' };
  conditions = conditionsWith(conditions, ready, now);

  const images = new Map<string, string>();
  for (const c of [...(spec?.initContainers ?? []), ...(spec?.containers ?? [])]) images.set(c.name, c.image ?? '');
  const status: PodStatus = {
    ...(previous as PodStatus),
    phase,
    conditions,
    hostIP: addresses.hostIP,
    hostIPs: [{ ip: addresses.hostIP }],
    podIP: addresses.podIP,
    podIPs: [{ ip: addresses.podIP }],
    startTime: previous.startTime ?? obs.startTime,
    containerStatuses: obs.containers.map((c) => containerStatus(c, images.get(c.name) ?? '')),
  };
  // An init container that completed counts as ready, as the kubelet reports it.
  const initStatus = (c: ContainerObservation) => containerStatus({ ...c, ready: c.ready || exitCodeOf(c) === 0 }, images.get(c.name) ?? '');
  if (obs.initContainers.length > 0) status.initContainerStatuses = obs.initContainers.map(initStatus);
  else delete status.initContainerStatuses;
  return status;
}
