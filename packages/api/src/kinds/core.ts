/**
 * Typed core/v1 kinds Setpoint serves besides pods and services: Namespace, ConfigMap, Secret,
 * Event, ServiceAccount and Node, with the shared ObjectReference and Taint. Field names and shapes
 * are Kubernetes' (k8s.io/api/core/v1), so objects round-trip through kubectl unchanged; main
 * objects keep an index signature so fields a newer Kubernetes adds survive a read-modify-write.
 *
 * Timestamps are RFC 3339 strings: `Time` with seconds precision, `MicroTime` with six fractional
 * digits ("2026-11-29T15:47:44.123456Z"). Byte fields (Secret data, ConfigMap binaryData) are
 * base64 strings, as on the wire. Quantities are strings (ResourceList), as Kubernetes writes them.
 */
import type { Condition, KubeObject, ObjectMeta } from '../meta/types.js';
// Shared with the workload kinds, which define them (one declaration each, so kinds/index.ts can
// re-export both files).
import type { LocalObjectReference, ObjectReference, ResourceList, TaintEffect } from './workloads.js';

export type { LocalObjectReference, ObjectReference, ResourceList, TaintEffect };

/** metav1.Time on the wire: RFC 3339, seconds precision, UTC ("2026-11-29T15:47:44Z"). */
export type Time = string;
/** metav1.MicroTime on the wire: RFC 3339 with six fractional digits ("2026-11-29T15:47:44.123456Z"). */
export type MicroTime = string;

// ---------------------------------------------------------------------------------------------
// Namespace

export type NamespacePhase = 'Active' | 'Terminating';

export interface NamespaceSpec {
  /** Finalizers the namespace controller must clear before the namespace goes ("kubernetes"). */
  finalizers?: string[];
}

/** A namespace condition (NamespaceDeletionDiscoveryFailure, NamespaceContentRemaining, ...). */
export interface NamespaceCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  lastTransitionTime?: Time;
  reason?: string;
  message?: string;
}

export interface NamespaceStatus {
  phase?: NamespacePhase;
  conditions?: NamespaceCondition[];
}

/** A namespace (cluster-scoped): a scope for names. */
export interface Namespace extends KubeObject {
  apiVersion?: 'v1';
  kind?: 'Namespace';
  spec?: NamespaceSpec;
  status?: NamespaceStatus;
  [field: string]: unknown;
}

// ---------------------------------------------------------------------------------------------
// ConfigMap and Secret

/** Non-secret configuration: UTF-8 `data` and base64 `binaryData`, keys disjoint, at most 1 MiB. */
export interface ConfigMap extends KubeObject {
  apiVersion?: 'v1';
  kind?: 'ConfigMap';
  data?: Record<string, string>;
  /** Values are base64 (standard alphabet, padded). */
  binaryData?: Record<string, string>;
  /** When true, data and binaryData can no longer change (and immutable cannot be unset). */
  immutable?: boolean;
  [field: string]: unknown;
}

/** The secret types Kubernetes knows (any other string is allowed and not checked). */
export type SecretType =
  | 'Opaque'
  | 'kubernetes.io/service-account-token'
  | 'kubernetes.io/dockercfg'
  | 'kubernetes.io/dockerconfigjson'
  | 'kubernetes.io/basic-auth'
  | 'kubernetes.io/ssh-auth'
  | 'kubernetes.io/tls'
  | 'bootstrap.kubernetes.io/token'
  | (string & {});

/**
 * A secret: base64 `data`; `stringData` is write-only (merged into `data` by the server, never
 * returned). `type` defaults to "Opaque" and cannot change.
 */
export interface Secret extends KubeObject {
  apiVersion?: 'v1';
  kind?: 'Secret';
  data?: Record<string, string>;
  stringData?: Record<string, string>;
  type?: SecretType;
  immutable?: boolean;
  [field: string]: unknown;
}

// ---------------------------------------------------------------------------------------------
// Event (core/v1)

export interface EventSource {
  component?: string;
  host?: string;
}

export interface EventSeries {
  count?: number;
  lastObservedTime?: MicroTime;
}

/** A core/v1 Event: something that happened to `involvedObject`. */
export interface Event extends KubeObject {
  apiVersion?: 'v1';
  kind?: 'Event';
  metadata: ObjectMeta;
  involvedObject: ObjectReference;
  /** Short CamelCase reason ("Scheduled", "Pulled"). */
  reason?: string;
  message?: string;
  source?: EventSource;
  firstTimestamp?: Time;
  lastTimestamp?: Time;
  count?: number;
  /** "Normal" or "Warning". */
  type?: string;
  eventTime?: MicroTime;
  series?: EventSeries;
  action?: string;
  related?: ObjectReference;
  reportingComponent?: string;
  reportingInstance?: string;
  [field: string]: unknown;
}

// ---------------------------------------------------------------------------------------------
// ServiceAccount

export interface ServiceAccount extends KubeObject {
  apiVersion?: 'v1';
  kind?: 'ServiceAccount';
  secrets?: ObjectReference[];
  imagePullSecrets?: LocalObjectReference[];
  automountServiceAccountToken?: boolean;
  [field: string]: unknown;
}

// ---------------------------------------------------------------------------------------------
// Node

/** A taint: pods that do not tolerate it are kept off (or evicted from) the node. */
export interface Taint {
  key: string;
  value?: string;
  effect: TaintEffect;
  /** When a NoExecute taint was added. */
  timeAdded?: Time;
}

export interface ConfigMapNodeConfigSource {
  namespace: string;
  name: string;
  uid?: string;
  resourceVersion?: string;
  kubeletConfigKey: string;
}

/** Deprecated dynamic kubelet configuration source. */
export interface NodeConfigSource {
  configMap?: ConfigMapNodeConfigSource;
}

export interface NodeSpec {
  podCIDR?: string;
  podCIDRs?: string[];
  /** "<provider>://<id>" of the machine. */
  providerID?: string;
  /** Keeps new pods off the node (kubectl cordon). */
  unschedulable?: boolean;
  taints?: Taint[];
  configSource?: NodeConfigSource;
  /** Deprecated. */
  externalID?: string;
}

export type NodeConditionType = 'Ready' | 'MemoryPressure' | 'DiskPressure' | 'PIDPressure' | 'NetworkUnavailable' | (string & {});

/** A node condition: like Condition, with the heartbeat time the node agent refreshes. */
export interface NodeCondition {
  type: NodeConditionType;
  status: Condition['status'];
  lastHeartbeatTime?: Time;
  lastTransitionTime?: Time;
  reason?: string;
  message?: string;
}

export type NodeAddressType = 'Hostname' | 'InternalIP' | 'ExternalIP' | 'InternalDNS' | 'ExternalDNS' | (string & {});

export interface NodeAddress {
  type: NodeAddressType;
  address: string;
}

export interface DaemonEndpoint {
  Port: number;
}

export interface NodeDaemonEndpoints {
  kubeletEndpoint?: DaemonEndpoint;
}

export interface NodeSwapStatus {
  capacity?: number;
}

export interface NodeSystemInfo {
  machineID: string;
  systemUUID: string;
  bootID: string;
  kernelVersion: string;
  osImage: string;
  containerRuntimeVersion: string;
  kubeletVersion: string;
  kubeProxyVersion: string;
  operatingSystem: string;
  architecture: string;
  swap?: NodeSwapStatus;
}

export interface ContainerImage {
  names?: string[];
  sizeBytes?: number;
}

export interface AttachedVolume {
  name: string;
  devicePath: string;
}

export interface NodeConfigStatus {
  assigned?: NodeConfigSource;
  active?: NodeConfigSource;
  lastKnownGood?: NodeConfigSource;
  error?: string;
}

export interface NodeRuntimeHandlerFeatures {
  recursiveReadOnlyMounts?: boolean;
  userNamespaces?: boolean;
}

export interface NodeRuntimeHandler {
  name?: string;
  features?: NodeRuntimeHandlerFeatures;
}

export interface NodeFeatures {
  supplementalGroupsPolicy?: boolean;
}

export type NodePhase = 'Pending' | 'Running' | 'Terminated';

export interface NodeStatus {
  capacity?: ResourceList;
  /** Defaults to capacity when unset. */
  allocatable?: ResourceList;
  /** Deprecated. */
  phase?: NodePhase;
  conditions?: NodeCondition[];
  addresses?: NodeAddress[];
  daemonEndpoints?: NodeDaemonEndpoints;
  nodeInfo?: NodeSystemInfo;
  images?: ContainerImage[];
  volumesInUse?: string[];
  volumesAttached?: AttachedVolume[];
  config?: NodeConfigStatus;
  runtimeHandlers?: NodeRuntimeHandler[];
  features?: NodeFeatures;
  declaredFeatures?: string[];
}

/** A node (cluster-scoped): a machine pods run on, registered and kept alive by its agent. */
export interface Node extends KubeObject {
  apiVersion?: 'v1';
  kind?: 'Node';
  spec?: NodeSpec;
  status?: NodeStatus;
  [field: string]: unknown;
}
