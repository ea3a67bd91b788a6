/**
 * Typed core/v1 kinds Setpoint serves besides pods and services: Namespace, ConfigMap, Secret,
 * Event, ServiceAccount and Node, with the shared ObjectReference and Taint. Their parts are the
 * types generated from Kubernetes 1.32's definitions (generated/core-v1.ts); the objects are
 * KubeObjects (Setpoint's ObjectMeta, and an index signature so fields a newer Kubernetes adds
 * survive a read-modify-write), as are the statuses controllers write back (WithUnknownFields).
 *
 * Timestamps are RFC 3339 strings: `Time` with seconds precision, `MicroTime` with six fractional
 * digits ("2026-11-29T15:47:44.123456Z"). Byte fields (Secret data, ConfigMap binaryData) are
 * base64 strings, as on the wire. Quantities are strings (ResourceList), as Kubernetes writes them.
 */
import type * as coreV1 from '../generated/core-v1.js';
import type { KubeObject, ObjectMeta } from '../meta/types.js';
// Shared with the workload kinds, which define them (one declaration each, so kinds/index.ts can
// re-export both files).
import type { LocalObjectReference, ObjectReference, ResourceList, TaintEffect } from './workloads.js';
import type { WithUnknownFields } from './workloads.js';

export type { LocalObjectReference, ObjectReference, ResourceList, TaintEffect };

/** metav1.Time on the wire: RFC 3339, seconds precision, UTC ("2026-11-29T15:47:44Z"). */
export type Time = string;
/** metav1.MicroTime on the wire: RFC 3339 with six fractional digits ("2026-11-29T15:47:44.123456Z"). */
export type MicroTime = string;

// ---------------------------------------------------------------------------------------------
// Namespace

export type NamespacePhase = 'Active' | 'Terminating';

export type NamespaceSpec = WithUnknownFields<coreV1.NamespaceSpec>;

/** A namespace condition (NamespaceDeletionDiscoveryFailure, NamespaceContentRemaining, ...). */
export type NamespaceCondition = coreV1.NamespaceCondition;

export type NamespaceStatus = WithUnknownFields<coreV1.NamespaceStatus>;

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

export type EventSource = coreV1.EventSource;

export type EventSeries = WithUnknownFields<coreV1.EventSeries>;

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
export type Taint = coreV1.Taint;

export type ConfigMapNodeConfigSource = coreV1.ConfigMapNodeConfigSource;

/** Deprecated dynamic kubelet configuration source. */
export type NodeConfigSource = coreV1.NodeConfigSource;

export type NodeSpec = coreV1.NodeSpec;

export type NodeConditionType = 'Ready' | 'MemoryPressure' | 'DiskPressure' | 'PIDPressure' | 'NetworkUnavailable' | (string & {});

/** A node condition: like Condition, with the heartbeat time the node agent refreshes. */
export type NodeCondition = coreV1.NodeCondition;

export type NodeAddressType = 'Hostname' | 'InternalIP' | 'ExternalIP' | 'InternalDNS' | 'ExternalDNS' | (string & {});

export type NodeAddress = coreV1.NodeAddress;

export type DaemonEndpoint = coreV1.DaemonEndpoint;

export type NodeDaemonEndpoints = coreV1.NodeDaemonEndpoints;

export type NodeSystemInfo = coreV1.NodeSystemInfo;

export type ContainerImage = coreV1.ContainerImage;

export type AttachedVolume = coreV1.AttachedVolume;

export type NodeConfigStatus = coreV1.NodeConfigStatus;

export type NodeRuntimeHandlerFeatures = coreV1.NodeRuntimeHandlerFeatures;

export type NodeRuntimeHandler = coreV1.NodeRuntimeHandler;

export type NodeFeatures = coreV1.NodeFeatures;

export type NodePhase = 'Pending' | 'Running' | 'Terminated';

export type NodeStatus = WithUnknownFields<coreV1.NodeStatus>;

/** A node (cluster-scoped): a machine pods run on, registered and kept alive by its agent. */
export interface Node extends KubeObject {
  apiVersion?: 'v1';
  kind?: 'Node';
  spec?: NodeSpec;
  status?: NodeStatus;
  [field: string]: unknown;
}
