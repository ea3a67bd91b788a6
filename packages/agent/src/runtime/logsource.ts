/**
 * Which run of a container a log request reads, decided as the kubelet decides it
 * (validateContainerLogStatus) from what the runtime observes of the container, with its words
 * for the requests it refuses.
 */
import type { ContainerLog } from './logs.js';
import type { LogInstance } from './logreader.js';
import type { ContainerObservation } from './runtime.js';

/** Why a container's log cannot be served: the kubelet's HTTP status (404, 400) and message. */
export class ContainerLogError extends Error {
  override readonly name = 'ContainerLogError';
  constructor(
    readonly status: 400 | 404,
    message: string,
  ) {
    super(message);
  }
}

/** A runtime that keeps its containers' logs, so the agent's endpoint can serve them. */
export interface ContainerLogSource {
  /**
   * The run whose log a request reads (see chooseLogInstance). Synchronous, so that the caller
   * opens the files in the same tick. Throws ContainerLogError: 404 when this node holds no such
   * pod or container, 400 when there is no run to read.
   */
  containerLog(namespace: string, pod: string, container: string, previous: boolean): LogInstance;
}

/** Whether a runtime serves container logs. */
export function isContainerLogSource(runtime: object): runtime is ContainerLogSource {
  return typeof (runtime as Partial<ContainerLogSource>).containerLog === 'function';
}

/**
 * The run to read, as the kubelet picks it: `previous` reads the run of lastState.terminated (the
 * last run while the container waits to restart, else the one before the current); otherwise the
 * running run, else the last terminated one. The log's current file holds the latest run and its
 * previousPath the one before (logs.ts moves it aside at a restart).
 * Throws ContainerLogError 400 with the kubelet's messages when there is no such run.
 */
export function chooseLogInstance(observed: ContainerObservation, log: ContainerLog, pod: string, previous: boolean): LogInstance {
  const name = observed.name;
  const { state, lastState } = observed;
  if (previous) {
    if (lastState.terminated === undefined) throw new ContainerLogError(400, `previous terminated container "${name}" in pod "${pod}" not found`);
    return { path: state.waiting !== undefined ? log.path : log.previousPath };
  }
  if (state.running !== undefined) return log.recording ? { path: log.path, live: log } : { path: log.path };
  if (state.terminated !== undefined || lastState.terminated !== undefined) return { path: log.path };
  throw new ContainerLogError(400, `container "${name}" in pod "${pod}" is waiting to start: ${state.waiting?.reason ?? 'ContainerCreating'}`);
}
