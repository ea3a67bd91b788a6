/**
 * The workload kinds, typed as Kubernetes publishes them: Pod (core/v1) with its spec, containers,
 * volumes, scheduling constraints and status; ReplicaSet and Deployment (apps/v1); Binding (core/v1)
 * and Scale (autoscaling/v1), the bodies of the pods/binding and the scale subresources.
 *
 * The parts of a pod are the types generated from Kubernetes 1.32's published definitions
 * (generated/core-v1.ts, `npm run gen:api`), under their usual names; the objects themselves
 * (Pod, PodTemplate, Binding) are KubeObjects whose fields are those types, so that they keep
 * ObjectMeta as the rest of Setpoint reads it and an index signature for fields newer than 1.32.
 * Quantities are strings on the wire ("500m", "1Gi"); IntOrString fields are a number or a string.
 * The string unions below (Protocol, RestartPolicy…) name the values Kubernetes documents; the
 * generated fields are plain strings, as the wire may carry anything.
 */
import type * as coreV1 from '../generated/core-v1.js';
import type { KubeObject } from '../meta/types.js';

/** metav1.LabelSelector, re-exported for the selectors of ReplicaSets, Deployments and affinity terms. */
export type { LabelSelector } from '../selectors/index.js';

/**
 * A generated type that also keeps fields it does not name (`[field: string]: unknown`): the
 * specs and statuses that controllers read, modify and write back, so that a field a newer
 * Kubernetes adds survives the round trip.
 */
export type WithUnknownFields<T> = T & { [field: string]: unknown };

/** An integer or a string (a port name, a percentage such as "25%"): intstr.IntOrString. */
export type IntOrString = number | string;

/** Resource name → quantity ("cpu": "500m", "memory": "128Mi"). */
export type ResourceList = Record<string, string>;

/** A reference to an object in the same namespace, by name. */
export type LocalObjectReference = coreV1.LocalObjectReference;

/** A reference to any object (Binding.target, events). */
export type ObjectReference = coreV1.ObjectReference;

// ---------------------------------------------------------------------------------------------
// Containers

/** A network protocol of a port. */
export type Protocol = 'TCP' | 'UDP' | 'SCTP';
/** When the kubelet pulls a container image. */
export type PullPolicy = 'Always' | 'IfNotPresent' | 'Never';
/** Where a container's termination message comes from: the file, or the log tail on error. */
export type TerminationMessagePolicy = 'File' | 'FallbackToLogsOnError';

/** A port a container listens on. `containerPort` is required; `protocol` defaults to TCP. */
export type ContainerPort = coreV1.ContainerPort;

/** Selects a key of a ConfigMap. */
export type ConfigMapKeySelector = coreV1.ConfigMapKeySelector;

/** Selects a key of a Secret. */
export type SecretKeySelector = coreV1.SecretKeySelector;

/** Selects a field of the pod (downward API), e.g. "metadata.name", "status.podIP". */
export type ObjectFieldSelector = coreV1.ObjectFieldSelector;

/** Selects a container resource (downward API), e.g. "limits.cpu". */
export type ResourceFieldSelector = coreV1.ResourceFieldSelector;

/** Where an environment variable's value comes from; exactly one source is set. */
export type EnvVarSource = coreV1.EnvVarSource;

/** An environment variable: a literal `value` or a `valueFrom` source. */
export type EnvVar = coreV1.EnvVar;

/** Every key of a ConfigMap or Secret as environment variables, optionally prefixed. */
export type EnvFromSource = coreV1.EnvFromSource;

/** A claim (pod.spec.resourceClaims entry) a container uses. */
export type ResourceClaim = coreV1.ResourceClaim;

/** Compute resources: requests (what scheduling reserves) and limits (the most that may be used). */
export type ResourceRequirements = coreV1.ResourceRequirements;

/** How a container reacts to an in-place resize of one resource. */
export type ContainerResizePolicy = coreV1.ContainerResizePolicy;

/** A volume mounted into a container at `mountPath`. */
export type VolumeMount = coreV1.VolumeMount;

/** A raw block volume mapped into a container at `devicePath`. */
export type VolumeDevice = coreV1.VolumeDevice;

/** Runs `command` in the container (not in a shell); exit status 0 is success. */
export type ExecAction = coreV1.ExecAction;

/** A header of an HTTP probe request. */
export type HTTPHeader = coreV1.HTTPHeader;

/** An HTTP GET against the pod; `port` is a number or a named container port. */
export type HTTPGetAction = coreV1.HTTPGetAction;

/** Opens a TCP connection to `port` (a number or a named container port). */
export type TCPSocketAction = coreV1.TCPSocketAction;

/** A gRPC health check against `port`. */
export type GRPCAction = coreV1.GRPCAction;

/** Sleeps `seconds` (a lifecycle handler). */
export type SleepAction = coreV1.SleepAction;

/** A health check; exactly one of exec, httpGet, tcpSocket, grpc is set. */
export type Probe = coreV1.Probe;

/** What runs after a container starts or before it stops; exactly one action is set. */
export type LifecycleHandler = coreV1.LifecycleHandler;

/** Handlers run after a container starts and before it stops. */
export type Lifecycle = coreV1.Lifecycle;

/** SELinux labels of a container or pod. */
export type SELinuxOptions = coreV1.SELinuxOptions;

/** Windows-specific security options. */
export type WindowsSecurityContextOptions = coreV1.WindowsSecurityContextOptions;

/** A seccomp profile; `localhostProfile` only with type Localhost. */
export type SeccompProfile = coreV1.SeccompProfile;

/** An AppArmor profile; `localhostProfile` only with type Localhost. */
export type AppArmorProfile = coreV1.AppArmorProfile;

/** Security options of one container (override the pod's where both are set). */
export type SecurityContext = coreV1.SecurityContext;

/** One container of a pod. `name` is required (a DNS-1123 label, unique in the pod). */
export type Container = WithUnknownFields<coreV1.Container>;

/** A debugging container added to a running pod; `targetContainerName` names the container it targets. */
export type EphemeralContainer = coreV1.EphemeralContainer;

// ---------------------------------------------------------------------------------------------
// Volumes

/** Maps a key of a ConfigMap or Secret to a file path in the volume. */
export type KeyToPath = coreV1.KeyToPath;

/** A scratch directory that lives as long as the pod. */
export type EmptyDirVolumeSource = coreV1.EmptyDirVolumeSource;

/** A ConfigMap's keys as files; defaultMode 0644 when unset. */
export type ConfigMapVolumeSource = coreV1.ConfigMapVolumeSource;

/** A Secret's keys as files; defaultMode 0644 when unset. */
export type SecretVolumeSource = coreV1.SecretVolumeSource;

/** What a hostPath must be (or be created as); '' checks nothing. */
export type HostPathType = '' | 'DirectoryOrCreate' | 'Directory' | 'FileOrCreate' | 'File' | 'Socket' | 'CharDevice' | 'BlockDevice';

/** A file or directory of the node. */
export type HostPathVolumeSource = coreV1.HostPathVolumeSource;

/** A PersistentVolumeClaim of the pod's namespace. */
export type PersistentVolumeClaimVolumeSource = coreV1.PersistentVolumeClaimVolumeSource;

/** A file of a downward API volume: a pod field or a container resource. */
export type DownwardAPIVolumeFile = WithUnknownFields<coreV1.DownwardAPIVolumeFile>;

/** Pod fields and container resources as files; defaultMode 0644 when unset. */
export type DownwardAPIVolumeSource = WithUnknownFields<coreV1.DownwardAPIVolumeSource>;

/** A service account token written to `path`; 3600 s lifetime when unset. */
export type ServiceAccountTokenProjection = WithUnknownFields<coreV1.ServiceAccountTokenProjection>;

/** One source of a projected volume; exactly one field is set. */
export type VolumeProjection = WithUnknownFields<coreV1.VolumeProjection>;

/** Several sources in one directory; defaultMode 0644 when unset. */
export type ProjectedVolumeSource = coreV1.ProjectedVolumeSource;

/**
 * A named volume of a pod; exactly one source is set (a volume without one defaults to emptyDir).
 * The sources named here are the common ones; the others Kubernetes has (nfs, csi, ephemeral,
 * image, the in-tree cloud disks, ...) are carried by the index signature.
 */
export type Volume = coreV1.Volume;

// ---------------------------------------------------------------------------------------------
// Scheduling

/** The operator of a node selector requirement (Gt and Lt compare integers). */
export type NodeSelectorOperator = 'In' | 'NotIn' | 'Exists' | 'DoesNotExist' | 'Gt' | 'Lt';

/** A requirement on a node label or field. */
export type NodeSelectorRequirement = coreV1.NodeSelectorRequirement;

/** matchExpressions (on node labels) ANDed with matchFields (on node fields). */
export type NodeSelectorTerm = coreV1.NodeSelectorTerm;

/** The terms are ORed. */
export type NodeSelector = coreV1.NodeSelector;

/** A node preference with a weight of 1-100. */
export type PreferredSchedulingTerm = coreV1.PreferredSchedulingTerm;

/** Node constraints: required at scheduling time, or preferred. */
export type NodeAffinity = coreV1.NodeAffinity;

/** Pods matching `labelSelector` in `namespaces` (or `namespaceSelector`), co-located by `topologyKey`. */
export type PodAffinityTerm = coreV1.PodAffinityTerm;

/** A pod affinity preference with a weight of 1-100. */
export type WeightedPodAffinityTerm = coreV1.WeightedPodAffinityTerm;

/** Pods this pod should run near. */
export type PodAffinity = coreV1.PodAffinity;

/** Pods this pod should run away from. */
export type PodAntiAffinity = coreV1.PodAntiAffinity;

/** The scheduling constraints of a pod. */
export type Affinity = coreV1.Affinity;

/** What a taint does to pods that do not tolerate it. */
export type TaintEffect = 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute';

/** Lets the pod schedule onto (or stay on) nodes with a matching taint. */
export type Toleration = coreV1.Toleration;

/** Spreads matching pods evenly across the domains of `topologyKey`. */
export type TopologySpreadConstraint = coreV1.TopologySpreadConstraint;

// ---------------------------------------------------------------------------------------------
// Pod

/** When a pod's containers restart; ReplicaSets and Deployments need Always. */
export type RestartPolicy = 'Always' | 'OnFailure' | 'Never';
/** How a pod's DNS is configured; None requires dnsConfig. */
export type DNSPolicy = 'ClusterFirstWithHostNet' | 'ClusterFirst' | 'Default' | 'None';

/** Security options for every container of the pod. */
export type PodSecurityContext = coreV1.PodSecurityContext;

/** Extra entries of the pod's /etc/hosts. */
export type HostAlias = coreV1.HostAlias;

/** DNS settings merged with those dnsPolicy generates. */
export type PodDNSConfig = coreV1.PodDNSConfig;

/** A claim on a DRA resource (a ResourceClaim or a template that makes one). */
export type PodResourceClaim = coreV1.PodResourceClaim;

/** The desired state of a pod. `containers` is required. */
export type PodSpec = coreV1.PodSpec;

/** Where a pod is in its lifecycle. */
export type PodPhase = 'Pending' | 'Running' | 'Succeeded' | 'Failed' | 'Unknown';
/** A pod's quality-of-service class, derived from its requests and limits. */
export type PodQOSClass = 'Guaranteed' | 'Burstable' | 'BestEffort';

/** One condition of a pod: PodScheduled, Initialized, ContainersReady, Ready, or a readiness gate's. */
export type PodCondition = coreV1.PodCondition;

/** A container not running yet, and why. */
export type ContainerStateWaiting = coreV1.ContainerStateWaiting;

/** A running container. */
export type ContainerStateRunning = coreV1.ContainerStateRunning;

/** A container that ran and exited. */
export type ContainerStateTerminated = coreV1.ContainerStateTerminated;

/** A container's state; at most one member is set (none means waiting). */
export type ContainerState = WithUnknownFields<coreV1.ContainerState>;

/** What the node reports about one container. */
export type ContainerStatus = WithUnknownFields<coreV1.ContainerStatus>;

/** The observed state of a pod. */
export type PodStatus = WithUnknownFields<coreV1.PodStatus>;

/** A pod: one or more containers scheduled together onto a node. */
export interface Pod extends KubeObject {
  apiVersion?: 'v1';
  kind?: 'Pod';
  spec?: PodSpec;
  status?: PodStatus;
}

/** The pod a controller creates: metadata (labels the selector matches) and a spec. */
export type PodTemplateSpec = coreV1.PodTemplateSpec;

/** A pod template stored on its own (core/v1 PodTemplate); nothing acts on it but its clients. */
export interface PodTemplate extends KubeObject {
  apiVersion?: 'v1';
  kind?: 'PodTemplate';
  template?: PodTemplateSpec;
}

/** The body of POST pods/{name}/binding: assigns the pod to the node `target.name`. */
export interface Binding extends KubeObject {
  apiVersion?: 'v1';
  kind?: 'Binding';
  target: ObjectReference;
}
