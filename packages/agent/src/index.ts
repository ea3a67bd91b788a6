/**
 * @setpoint/agent: the node agent — registers a Node, heartbeats its Lease, and runs the pods bound
 * to it, as local processes or simulated; and many simulated nodes in one process.
 */
export { runAgent, type AgentOptions } from './agent.js';
export { startKubeletServer, KUBELET_CLIENT_COMMON_NAME, type KubeletServer, type KubeletServerOptions } from './kubeletserver.js';
export { runSimulatedNodes, simulatedMachine, concurrencyLimit, SIMULATED_NODE_LABEL, type SimulatedNodesOptions } from './simulated.js';
export {
  NodeHeartbeat,
  machineInfo,
  desiredNodeStatus,
  nodeLabels,
  goArch,
  goOS,
  primaryAddress,
  KUBELET_VERSION,
  CONTAINER_RUNTIME_VERSION,
  NODE_LEASE_NAMESPACE,
  type MachineInfo,
  type NodeHeartbeatOptions,
} from './node.js';
export { addPodSync, gracePeriodMs, type PodSyncOptions } from './podsync.js';
export { TimerWheel, clockScheduler, type Scheduler, type ScheduledJob, type TimerWheelOptions } from './wheel.js';
export * from './runtime/index.js';
