/** Pod runtimes: the PodRuntime contract, the process runtime, the simulated runtime, and the pod status they report. */
export { rfc3339, type ContainerObservation, type PodObservation, type PodRef, type PodRuntime } from './runtime.js';
export { DEFAULT_PODS_ROOT, podFilesDir, ProcessRuntime, type ProcessRuntimeOptions } from './process.js';
export { canChangeUser, containerUser, DEFAULT_POD_ID_RANGE, parseSubIds, PodUsers, SUBID_USER, type IdRange, type ProcessUser } from './users.js';
export { prepareWorkingDir, workingDirComponents } from './workdir.js';
export { SimulatedRuntime, type SimulatedRuntimeOptions } from './simulated.js';
export { podStatus, podPhase, isTerminalPhase, type PodAddresses } from './status.js';
export type { CrashLoopBackoffOptions } from './container.js';
export { ContainerConfigError, containerArgv, containerEnv, expand, type ConfigSource } from './env.js';
export {
  ContainerLog,
  containerLogPath,
  previousLogPath,
  rotatedLogPath,
  logTimesPath,
  parseLogTimes,
  DEFAULT_MAX_LOG_BYTES,
  DEFAULT_RECORD_INTERVAL_MS,
  type ContainerLogEvent,
  type ContainerLogOptions,
  type LogTime,
} from './logs.js';
export { readContainerLog, rfc3339Nano, type LogInstance, type LogReadOptions, type LogSink } from './logreader.js';
export { chooseLogInstance, isContainerLogSource, ContainerLogError, type ContainerLogSource } from './logsource.js';
export { markOf, podDir, type ContainerRecord, type PodRecord, type ProcessRun } from './records.js';
export { PodIdentities, podServiceAccount, SERVICE_ACCOUNT_SUBDIR, type PodIdentitiesOptions } from './serviceaccount.js';
