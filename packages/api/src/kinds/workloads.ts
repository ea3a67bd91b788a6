/**
 * The workload kinds, typed as Kubernetes publishes them: Pod (core/v1) with its spec, containers,
 * volumes, scheduling constraints and status; ReplicaSet and Deployment (apps/v1); Binding (core/v1)
 * and Scale (autoscaling/v1), the bodies of the pods/binding and the scale subresources.
 *
 * Field names and shapes are Kubernetes' (k8s.io/api core/v1, apps/v1, autoscaling/v1). Every spec
 * and status field is optional, as in Kubernetes: the server fills defaults, clients may omit them.
 * Quantities are strings on the wire ("500m", "1Gi"); IntOrString fields are a number or a string.
 * The main objects and the larger sub-objects keep an index signature so fields this file does not
 * name (newer Kubernetes fields, alpha features) pass through unchanged.
 */
import type { KubeObject, ObjectMeta } from '../meta/types.js';
import type { LabelSelector } from '../selectors/index.js';

/** metav1.LabelSelector, re-exported for the selectors of ReplicaSets, Deployments and affinity terms. */
export type { LabelSelector } from '../selectors/index.js';

/** An integer or a string (a port name, a percentage such as "25%"): intstr.IntOrString. */
export type IntOrString = number | string;

/** Resource name → quantity ("cpu": "500m", "memory": "128Mi"). */
export type ResourceList = Record<string, string>;

/** A reference to an object in the same namespace, by name. */
export interface LocalObjectReference {
  name?: string;
}

/** A reference to any object (Binding.target, events). */
export interface ObjectReference {
  kind?: string;
  namespace?: string;
  name?: string;
  uid?: string;
  apiVersion?: string;
  resourceVersion?: string;
  fieldPath?: string;
}

// ---------------------------------------------------------------------------------------------
// Containers

/** A network protocol of a port. */
export type Protocol = 'TCP' | 'UDP' | 'SCTP';
/** When the kubelet pulls a container image. */
export type PullPolicy = 'Always' | 'IfNotPresent' | 'Never';
/** Where a container's termination message comes from: the file, or the log tail on error. */
export type TerminationMessagePolicy = 'File' | 'FallbackToLogsOnError';

/** A port a container listens on. `containerPort` is required; `protocol` defaults to TCP. */
export interface ContainerPort {
  name?: string;
  hostPort?: number;
  containerPort: number;
  protocol?: Protocol;
  hostIP?: string;
}

/** Selects a key of a ConfigMap. */
export interface ConfigMapKeySelector {
  name?: string;
  key: string;
  optional?: boolean;
}

/** Selects a key of a Secret. */
export interface SecretKeySelector {
  name?: string;
  key: string;
  optional?: boolean;
}

/** Selects a field of the pod (downward API), e.g. "metadata.name", "status.podIP". */
export interface ObjectFieldSelector {
  apiVersion?: string;
  fieldPath: string;
}

/** Selects a container resource (downward API), e.g. "limits.cpu". */
export interface ResourceFieldSelector {
  containerName?: string;
  resource: string;
  divisor?: string;
}

/** Selects a key of a file in an emptyDir volume (EnvFiles). */
export interface FileKeySelector {
  volumeName: string;
  path: string;
  key: string;
  optional?: boolean;
}

/** Where an environment variable's value comes from; exactly one source is set. */
export interface EnvVarSource {
  fieldRef?: ObjectFieldSelector;
  resourceFieldRef?: ResourceFieldSelector;
  configMapKeyRef?: ConfigMapKeySelector;
  secretKeyRef?: SecretKeySelector;
  fileKeyRef?: FileKeySelector;
}

/** An environment variable: a literal `value` or a `valueFrom` source. */
export interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: EnvVarSource;
}

/** Every key of a ConfigMap or Secret as environment variables, optionally prefixed. */
export interface EnvFromSource {
  prefix?: string;
  configMapRef?: LocalObjectReference & { optional?: boolean };
  secretRef?: LocalObjectReference & { optional?: boolean };
}

/** A claim (pod.spec.resourceClaims entry) a container uses. */
export interface ResourceClaim {
  name: string;
  request?: string;
}

/** Compute resources: requests (what scheduling reserves) and limits (the most that may be used). */
export interface ResourceRequirements {
  limits?: ResourceList;
  requests?: ResourceList;
  claims?: ResourceClaim[];
}

/** How a container reacts to an in-place resize of one resource. */
export interface ContainerResizePolicy {
  resourceName: string;
  restartPolicy: 'NotRequired' | 'RestartContainer';
}

/** One rule of a container's restart policy (ContainerRestartRules). */
export interface ContainerRestartRule {
  action: 'Restart';
  exitCodes?: { operator: 'In' | 'NotIn'; values?: number[] };
}

/** A volume mounted into a container at `mountPath`. */
export interface VolumeMount {
  name: string;
  readOnly?: boolean;
  recursiveReadOnly?: 'Disabled' | 'IfPossible' | 'Enabled';
  mountPath: string;
  subPath?: string;
  mountPropagation?: 'None' | 'HostToContainer' | 'Bidirectional';
  subPathExpr?: string;
}

/** A raw block volume mapped into a container at `devicePath`. */
export interface VolumeDevice {
  name: string;
  devicePath: string;
}

/** Runs `command` in the container (not in a shell); exit status 0 is success. */
export interface ExecAction {
  command?: string[];
}

/** A header of an HTTP probe request. */
export interface HTTPHeader {
  name: string;
  value: string;
}

/** An HTTP GET against the pod; `port` is a number or a named container port. */
export interface HTTPGetAction {
  path?: string;
  port: IntOrString;
  host?: string;
  scheme?: 'HTTP' | 'HTTPS';
  httpHeaders?: HTTPHeader[];
}

/** Opens a TCP connection to `port` (a number or a named container port). */
export interface TCPSocketAction {
  port: IntOrString;
  host?: string;
}

/** A gRPC health check against `port`. */
export interface GRPCAction {
  port: number;
  service?: string;
}

/** Sleeps `seconds` (a lifecycle handler). */
export interface SleepAction {
  seconds: number;
}

/** A health check; exactly one of exec, httpGet, tcpSocket, grpc is set. */
export interface Probe {
  exec?: ExecAction;
  httpGet?: HTTPGetAction;
  tcpSocket?: TCPSocketAction;
  grpc?: GRPCAction;
  initialDelaySeconds?: number;
  timeoutSeconds?: number;
  periodSeconds?: number;
  successThreshold?: number;
  failureThreshold?: number;
  terminationGracePeriodSeconds?: number;
}

/** What runs after a container starts or before it stops; exactly one action is set. */
export interface LifecycleHandler {
  exec?: ExecAction;
  httpGet?: HTTPGetAction;
  tcpSocket?: TCPSocketAction;
  sleep?: SleepAction;
}

/** Handlers run after a container starts and before it stops. */
export interface Lifecycle {
  postStart?: LifecycleHandler;
  preStop?: LifecycleHandler;
  stopSignal?: string;
}

/** SELinux labels of a container or pod. */
export interface SELinuxOptions {
  user?: string;
  role?: string;
  type?: string;
  level?: string;
}

/** Windows-specific security options. */
export interface WindowsSecurityContextOptions {
  gmsaCredentialSpecName?: string;
  gmsaCredentialSpec?: string;
  runAsUserName?: string;
  hostProcess?: boolean;
}

/** A seccomp profile; `localhostProfile` only with type Localhost. */
export interface SeccompProfile {
  type: 'Unconfined' | 'RuntimeDefault' | 'Localhost';
  localhostProfile?: string;
}

/** An AppArmor profile; `localhostProfile` only with type Localhost. */
export interface AppArmorProfile {
  type: 'Unconfined' | 'RuntimeDefault' | 'Localhost';
  localhostProfile?: string;
}

/** Security options of one container (override the pod's where both are set). */
export interface SecurityContext {
  capabilities?: { add?: string[]; drop?: string[] };
  privileged?: boolean;
  seLinuxOptions?: SELinuxOptions;
  windowsOptions?: WindowsSecurityContextOptions;
  runAsUser?: number;
  runAsGroup?: number;
  runAsNonRoot?: boolean;
  readOnlyRootFilesystem?: boolean;
  allowPrivilegeEscalation?: boolean;
  procMount?: 'Default' | 'Unmasked';
  seccompProfile?: SeccompProfile;
  appArmorProfile?: AppArmorProfile;
}

/** One container of a pod. `name` is required (a DNS-1123 label, unique in the pod). */
export interface Container {
  name: string;
  image?: string;
  command?: string[];
  args?: string[];
  workingDir?: string;
  ports?: ContainerPort[];
  envFrom?: EnvFromSource[];
  env?: EnvVar[];
  resources?: ResourceRequirements;
  resizePolicy?: ContainerResizePolicy[];
  /** Only on init containers: "Always" makes a sidecar. */
  restartPolicy?: 'Always';
  restartPolicyRules?: ContainerRestartRule[];
  volumeMounts?: VolumeMount[];
  volumeDevices?: VolumeDevice[];
  livenessProbe?: Probe;
  readinessProbe?: Probe;
  startupProbe?: Probe;
  lifecycle?: Lifecycle;
  terminationMessagePath?: string;
  terminationMessagePolicy?: TerminationMessagePolicy;
  imagePullPolicy?: PullPolicy;
  securityContext?: SecurityContext;
  stdin?: boolean;
  stdinOnce?: boolean;
  tty?: boolean;
  [field: string]: unknown;
}

/** A debugging container added to a running pod; `targetContainerName` names the container it targets. */
export interface EphemeralContainer extends Container {
  targetContainerName?: string;
}

// ---------------------------------------------------------------------------------------------
// Volumes

/** Maps a key of a ConfigMap or Secret to a file path in the volume. */
export interface KeyToPath {
  key: string;
  path: string;
  mode?: number;
}

/** A scratch directory that lives as long as the pod. */
export interface EmptyDirVolumeSource {
  medium?: '' | 'Memory' | 'HugePages' | `HugePages-${string}`;
  sizeLimit?: string;
}

/** A ConfigMap's keys as files; defaultMode 0644 when unset. */
export interface ConfigMapVolumeSource {
  name?: string;
  items?: KeyToPath[];
  defaultMode?: number;
  optional?: boolean;
}

/** A Secret's keys as files; defaultMode 0644 when unset. */
export interface SecretVolumeSource {
  secretName?: string;
  items?: KeyToPath[];
  defaultMode?: number;
  optional?: boolean;
}

/** What a hostPath must be (or be created as); '' checks nothing. */
export type HostPathType = '' | 'DirectoryOrCreate' | 'Directory' | 'FileOrCreate' | 'File' | 'Socket' | 'CharDevice' | 'BlockDevice';

/** A file or directory of the node. */
export interface HostPathVolumeSource {
  path: string;
  type?: HostPathType;
}

/** A PersistentVolumeClaim of the pod's namespace. */
export interface PersistentVolumeClaimVolumeSource {
  claimName: string;
  readOnly?: boolean;
}

/** A file of a downward API volume: a pod field or a container resource. */
export interface DownwardAPIVolumeFile {
  path: string;
  fieldRef?: ObjectFieldSelector;
  resourceFieldRef?: ResourceFieldSelector;
  mode?: number;
}

/** Pod fields and container resources as files; defaultMode 0644 when unset. */
export interface DownwardAPIVolumeSource {
  items?: DownwardAPIVolumeFile[];
  defaultMode?: number;
}

/** A service account token written to `path`; 3600 s lifetime when unset. */
export interface ServiceAccountTokenProjection {
  audience?: string;
  expirationSeconds?: number;
  path: string;
}

/** One source of a projected volume; exactly one field is set. */
export interface VolumeProjection {
  secret?: { name?: string; items?: KeyToPath[]; optional?: boolean };
  configMap?: { name?: string; items?: KeyToPath[]; optional?: boolean };
  downwardAPI?: { items?: DownwardAPIVolumeFile[] };
  serviceAccountToken?: ServiceAccountTokenProjection;
  clusterTrustBundle?: { name?: string; signerName?: string; labelSelector?: LabelSelector; optional?: boolean; path: string };
  [field: string]: unknown;
}

/** Several sources in one directory; defaultMode 0644 when unset. */
export interface ProjectedVolumeSource {
  sources?: VolumeProjection[];
  defaultMode?: number;
}

/**
 * A named volume of a pod; exactly one source is set (a volume without one defaults to emptyDir).
 * The sources named here are the common ones; the others Kubernetes has (nfs, csi, ephemeral,
 * image, the in-tree cloud disks, ...) are carried by the index signature.
 */
export interface Volume {
  name: string;
  emptyDir?: EmptyDirVolumeSource;
  configMap?: ConfigMapVolumeSource;
  secret?: SecretVolumeSource;
  hostPath?: HostPathVolumeSource;
  persistentVolumeClaim?: PersistentVolumeClaimVolumeSource;
  projected?: ProjectedVolumeSource;
  downwardAPI?: DownwardAPIVolumeSource;
  [source: string]: unknown;
}

// ---------------------------------------------------------------------------------------------
// Scheduling

/** The operator of a node selector requirement (Gt and Lt compare integers). */
export type NodeSelectorOperator = 'In' | 'NotIn' | 'Exists' | 'DoesNotExist' | 'Gt' | 'Lt';

/** A requirement on a node label or field. */
export interface NodeSelectorRequirement {
  key: string;
  operator: NodeSelectorOperator;
  values?: string[];
}

/** matchExpressions (on node labels) ANDed with matchFields (on node fields). */
export interface NodeSelectorTerm {
  matchExpressions?: NodeSelectorRequirement[];
  matchFields?: NodeSelectorRequirement[];
}

/** The terms are ORed. */
export interface NodeSelector {
  nodeSelectorTerms: NodeSelectorTerm[];
}

/** A node preference with a weight of 1-100. */
export interface PreferredSchedulingTerm {
  weight: number;
  preference: NodeSelectorTerm;
}

/** Node constraints: required at scheduling time, or preferred. */
export interface NodeAffinity {
  requiredDuringSchedulingIgnoredDuringExecution?: NodeSelector;
  preferredDuringSchedulingIgnoredDuringExecution?: PreferredSchedulingTerm[];
}

/** Pods matching `labelSelector` in `namespaces` (or `namespaceSelector`), co-located by `topologyKey`. */
export interface PodAffinityTerm {
  labelSelector?: LabelSelector;
  namespaces?: string[];
  topologyKey: string;
  namespaceSelector?: LabelSelector;
  matchLabelKeys?: string[];
  mismatchLabelKeys?: string[];
}

/** A pod affinity preference with a weight of 1-100. */
export interface WeightedPodAffinityTerm {
  weight: number;
  podAffinityTerm: PodAffinityTerm;
}

/** Pods this pod should run near. */
export interface PodAffinity {
  requiredDuringSchedulingIgnoredDuringExecution?: PodAffinityTerm[];
  preferredDuringSchedulingIgnoredDuringExecution?: WeightedPodAffinityTerm[];
}

/** Pods this pod should run away from. */
export interface PodAntiAffinity {
  requiredDuringSchedulingIgnoredDuringExecution?: PodAffinityTerm[];
  preferredDuringSchedulingIgnoredDuringExecution?: WeightedPodAffinityTerm[];
}

/** The scheduling constraints of a pod. */
export interface Affinity {
  nodeAffinity?: NodeAffinity;
  podAffinity?: PodAffinity;
  podAntiAffinity?: PodAntiAffinity;
}

/** What a taint does to pods that do not tolerate it. */
export type TaintEffect = 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute';

/** Lets the pod schedule onto (or stay on) nodes with a matching taint. */
export interface Toleration {
  key?: string;
  operator?: 'Exists' | 'Equal';
  value?: string;
  effect?: TaintEffect | '';
  tolerationSeconds?: number;
}

/** Spreads matching pods evenly across the domains of `topologyKey`. */
export interface TopologySpreadConstraint {
  maxSkew: number;
  topologyKey: string;
  whenUnsatisfiable: 'DoNotSchedule' | 'ScheduleAnyway';
  labelSelector?: LabelSelector;
  minDomains?: number;
  nodeAffinityPolicy?: 'Honor' | 'Ignore';
  nodeTaintsPolicy?: 'Honor' | 'Ignore';
  matchLabelKeys?: string[];
}

// ---------------------------------------------------------------------------------------------
// Pod

/** When a pod's containers restart; ReplicaSets and Deployments need Always. */
export type RestartPolicy = 'Always' | 'OnFailure' | 'Never';
/** How a pod's DNS is configured; None requires dnsConfig. */
export type DNSPolicy = 'ClusterFirstWithHostNet' | 'ClusterFirst' | 'Default' | 'None';

/** Security options for every container of the pod. */
export interface PodSecurityContext {
  seLinuxOptions?: SELinuxOptions;
  windowsOptions?: WindowsSecurityContextOptions;
  runAsUser?: number;
  runAsGroup?: number;
  runAsNonRoot?: boolean;
  supplementalGroups?: number[];
  supplementalGroupsPolicy?: 'Merge' | 'Strict';
  fsGroup?: number;
  sysctls?: Array<{ name: string; value: string }>;
  fsGroupChangePolicy?: 'OnRootMismatch' | 'Always';
  seccompProfile?: SeccompProfile;
  appArmorProfile?: AppArmorProfile;
  seLinuxChangePolicy?: string;
}

/** Extra entries of the pod's /etc/hosts. */
export interface HostAlias {
  ip: string;
  hostnames?: string[];
}

/** DNS settings merged with those dnsPolicy generates. */
export interface PodDNSConfig {
  nameservers?: string[];
  searches?: string[];
  options?: Array<{ name?: string; value?: string }>;
}

/** A claim on a DRA resource (a ResourceClaim or a template that makes one). */
export interface PodResourceClaim {
  name: string;
  resourceClaimName?: string;
  resourceClaimTemplateName?: string;
}

/** The desired state of a pod. `containers` is required. */
export interface PodSpec {
  volumes?: Volume[];
  initContainers?: Container[];
  containers?: Container[];
  ephemeralContainers?: EphemeralContainer[];
  restartPolicy?: RestartPolicy;
  terminationGracePeriodSeconds?: number;
  activeDeadlineSeconds?: number;
  dnsPolicy?: DNSPolicy;
  nodeSelector?: Record<string, string>;
  serviceAccountName?: string;
  /** Deprecated alias of serviceAccountName. */
  serviceAccount?: string;
  automountServiceAccountToken?: boolean;
  nodeName?: string;
  hostNetwork?: boolean;
  hostPID?: boolean;
  hostIPC?: boolean;
  shareProcessNamespace?: boolean;
  securityContext?: PodSecurityContext;
  imagePullSecrets?: LocalObjectReference[];
  hostname?: string;
  subdomain?: string;
  affinity?: Affinity;
  schedulerName?: string;
  tolerations?: Toleration[];
  hostAliases?: HostAlias[];
  priorityClassName?: string;
  priority?: number;
  dnsConfig?: PodDNSConfig;
  readinessGates?: Array<{ conditionType: string }>;
  runtimeClassName?: string;
  enableServiceLinks?: boolean;
  preemptionPolicy?: 'PreemptLowerPriority' | 'Never';
  overhead?: ResourceList;
  topologySpreadConstraints?: TopologySpreadConstraint[];
  setHostnameAsFQDN?: boolean;
  os?: { name: 'linux' | 'windows' };
  hostUsers?: boolean;
  schedulingGates?: Array<{ name: string }>;
  resourceClaims?: PodResourceClaim[];
  resources?: ResourceRequirements;
  hostnameOverride?: string;
  [field: string]: unknown;
}

/** Where a pod is in its lifecycle. */
export type PodPhase = 'Pending' | 'Running' | 'Succeeded' | 'Failed' | 'Unknown';
/** A pod's quality-of-service class, derived from its requests and limits. */
export type PodQOSClass = 'Guaranteed' | 'Burstable' | 'BestEffort';

/** One condition of a pod: PodScheduled, Initialized, ContainersReady, Ready, or a readiness gate's. */
export interface PodCondition {
  type: string;
  observedGeneration?: number;
  status: 'True' | 'False' | 'Unknown';
  lastProbeTime?: string | null;
  lastTransitionTime?: string | null;
  reason?: string;
  message?: string;
}

/** A container not running yet, and why. */
export interface ContainerStateWaiting {
  reason?: string;
  message?: string;
}

/** A running container. */
export interface ContainerStateRunning {
  startedAt?: string;
}

/** A container that ran and exited. */
export interface ContainerStateTerminated {
  exitCode: number;
  signal?: number;
  reason?: string;
  message?: string;
  startedAt?: string;
  finishedAt?: string;
  containerID?: string;
}

/** A container's state; at most one member is set (none means waiting). */
export interface ContainerState {
  waiting?: ContainerStateWaiting;
  running?: ContainerStateRunning;
  terminated?: ContainerStateTerminated;
}

/** What the node reports about one container. */
export interface ContainerStatus {
  name: string;
  state?: ContainerState;
  lastState?: ContainerState;
  ready: boolean;
  restartCount: number;
  image: string;
  imageID: string;
  containerID?: string;
  started?: boolean;
  allocatedResources?: ResourceList;
  resources?: ResourceRequirements;
  volumeMounts?: Array<{ name: string; mountPath: string; readOnly?: boolean; recursiveReadOnly?: string }>;
  [field: string]: unknown;
}

/** The observed state of a pod. */
export interface PodStatus {
  observedGeneration?: number;
  phase?: PodPhase;
  conditions?: PodCondition[];
  message?: string;
  reason?: string;
  nominatedNodeName?: string;
  hostIP?: string;
  hostIPs?: Array<{ ip: string }>;
  podIP?: string;
  podIPs?: Array<{ ip: string }>;
  startTime?: string;
  initContainerStatuses?: ContainerStatus[];
  containerStatuses?: ContainerStatus[];
  qosClass?: PodQOSClass;
  ephemeralContainerStatuses?: ContainerStatus[];
  resize?: string;
  [field: string]: unknown;
}

/** A pod: one or more containers scheduled together onto a node. */
export interface Pod extends KubeObject {
  apiVersion?: 'v1';
  kind?: 'Pod';
  spec?: PodSpec;
  status?: PodStatus;
}

/** The pod a controller creates: metadata (labels the selector matches) and a spec. */
export interface PodTemplateSpec {
  metadata?: ObjectMeta;
  spec?: PodSpec;
}

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
