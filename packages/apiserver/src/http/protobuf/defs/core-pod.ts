/**
 * Protobuf messages of core/v1 Pod: the pod, its template, spec (containers, probes, security
 * contexts, affinity, tolerations, topology spread) and status. Volumes are in core-volume.ts.
 * Field names, numbers and types are the ones Kubernetes publishes (v1.32); the options in
 * brackets are Setpoint's own (see ../schema.ts).
 */

/** core/v1: Pod, PodTemplateSpec and what a pod spec and status hold. */
export const corePodProto = `
syntax = "proto2";
package k8s.io.api.core.v1;

message Pod {
  optional k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional PodSpec spec = 2;
  optional PodStatus status = 3;
}

message PodList {
  optional k8s.io.apimachinery.pkg.apis.meta.v1.ListMeta metadata = 1;
  repeated Pod items = 2 [(keep) = true];
}

message PodSpec {
  repeated Volume volumes = 1;
  repeated Container initContainers = 20;
  repeated Container containers = 2;
  repeated EphemeralContainer ephemeralContainers = 34;
  optional string restartPolicy = 3;
  optional int64 terminationGracePeriodSeconds = 4 [(keep) = true];
  optional int64 activeDeadlineSeconds = 5 [(keep) = true];
  optional string dnsPolicy = 6;
  map<string, string> nodeSelector = 7;
  optional string serviceAccountName = 8;
  optional string serviceAccount = 9;
  optional bool automountServiceAccountToken = 21 [(keep) = true];
  optional string nodeName = 10;
  optional bool hostNetwork = 11;
  optional bool hostPID = 12;
  optional bool hostIPC = 13;
  optional bool shareProcessNamespace = 27 [(keep) = true];
  optional PodSecurityContext securityContext = 14;
  repeated LocalObjectReference imagePullSecrets = 15;
  optional string hostname = 16;
  optional string subdomain = 17;
  optional Affinity affinity = 18;
  optional string schedulerName = 19;
  repeated Toleration tolerations = 22;
  repeated HostAlias hostAliases = 23;
  optional string priorityClassName = 24;
  optional int32 priority = 25 [(keep) = true];
  optional PodDNSConfig dnsConfig = 26;
  repeated PodReadinessGate readinessGates = 28;
  optional string runtimeClassName = 29 [(keep) = true];
  optional bool enableServiceLinks = 30 [(keep) = true];
  optional string preemptionPolicy = 31 [(keep) = true];
  map<string, k8s.io.apimachinery.pkg.api.resource.Quantity> overhead = 32;
  repeated TopologySpreadConstraint topologySpreadConstraints = 33;
  optional bool setHostnameAsFQDN = 35 [(keep) = true];
  optional PodOS os = 36;
  optional bool hostUsers = 37 [(keep) = true];
  repeated PodSchedulingGate schedulingGates = 38;
  repeated PodResourceClaim resourceClaims = 39;
  optional ResourceRequirements resources = 40;
}

message PodStatus {
  optional string phase = 1;
  repeated PodCondition conditions = 2;
  optional string message = 3;
  optional string reason = 4;
  optional string nominatedNodeName = 11;
  optional string hostIP = 5;
  repeated HostIP hostIPs = 16;
  optional string podIP = 6;
  repeated PodIP podIPs = 12;
  optional k8s.io.apimachinery.pkg.apis.meta.v1.Time startTime = 7;
  repeated ContainerStatus initContainerStatuses = 10;
  repeated ContainerStatus containerStatuses = 8;
  optional string qosClass = 9;
  repeated ContainerStatus ephemeralContainerStatuses = 13;
  optional string resize = 14;
  repeated PodResourceClaimStatus resourceClaimStatuses = 15;
}

message Container {
  optional string name = 1 [(keep) = true];
  optional string image = 2;
  repeated string command = 3;
  repeated string args = 4;
  optional string workingDir = 5;
  repeated ContainerPort ports = 6;
  repeated EnvFromSource envFrom = 19;
  repeated EnvVar env = 7;
  optional ResourceRequirements resources = 8;
  repeated ContainerResizePolicy resizePolicy = 23;
  optional string restartPolicy = 24 [(keep) = true];
  repeated VolumeMount volumeMounts = 9;
  repeated VolumeDevice volumeDevices = 21;
  optional Probe livenessProbe = 10;
  optional Probe readinessProbe = 11;
  optional Probe startupProbe = 22;
  optional Lifecycle lifecycle = 12;
  optional string terminationMessagePath = 13;
  optional string terminationMessagePolicy = 20;
  optional string imagePullPolicy = 14;
  optional SecurityContext securityContext = 15;
  optional bool stdin = 16;
  optional bool stdinOnce = 17;
  optional bool tty = 18;
}

message EphemeralContainer {
  optional EphemeralContainerCommon ephemeralContainerCommon = 1 [(inline) = true];
  optional string targetContainerName = 2;
}

message PodSecurityContext {
  optional SELinuxOptions seLinuxOptions = 1;
  optional WindowsSecurityContextOptions windowsOptions = 8;
  optional int64 runAsUser = 2 [(keep) = true];
  optional int64 runAsGroup = 6 [(keep) = true];
  optional bool runAsNonRoot = 3 [(keep) = true];
  repeated int64 supplementalGroups = 4;
  optional string supplementalGroupsPolicy = 12 [(keep) = true];
  optional int64 fsGroup = 5 [(keep) = true];
  repeated Sysctl sysctls = 7;
  optional string fsGroupChangePolicy = 9 [(keep) = true];
  optional SeccompProfile seccompProfile = 10;
  optional AppArmorProfile appArmorProfile = 11;
  optional string seLinuxChangePolicy = 13 [(keep) = true];
}

message Affinity {
  optional NodeAffinity nodeAffinity = 1;
  optional PodAffinity podAffinity = 2;
  optional PodAntiAffinity podAntiAffinity = 3;
}

message Toleration {
  optional string key = 1;
  optional string operator = 2;
  optional string value = 3;
  optional string effect = 4;
  optional int64 tolerationSeconds = 5 [(keep) = true];
}

message HostAlias {
  optional string ip = 1 [(keep) = true];
  repeated string hostnames = 2;
}

message PodDNSConfig {
  repeated string nameservers = 1;
  repeated string searches = 2;
  repeated PodDNSConfigOption options = 3;
}

message PodReadinessGate {
  optional string conditionType = 1 [(keep) = true];
}

message TopologySpreadConstraint {
  optional int32 maxSkew = 1 [(keep) = true];
  optional string topologyKey = 2 [(keep) = true];
  optional string whenUnsatisfiable = 3 [(keep) = true];
  optional k8s.io.apimachinery.pkg.apis.meta.v1.LabelSelector labelSelector = 4;
  optional int32 minDomains = 5 [(keep) = true];
  optional string nodeAffinityPolicy = 6 [(keep) = true];
  optional string nodeTaintsPolicy = 7 [(keep) = true];
  repeated string matchLabelKeys = 8;
}

message PodOS {
  optional string name = 1 [(keep) = true];
}

message PodSchedulingGate {
  optional string name = 1 [(keep) = true];
}

message PodResourceClaim {
  optional string name = 1 [(keep) = true];
  optional string resourceClaimName = 3 [(keep) = true];
  optional string resourceClaimTemplateName = 4 [(keep) = true];
}

message ResourceRequirements {
  map<string, k8s.io.apimachinery.pkg.api.resource.Quantity> limits = 1;
  map<string, k8s.io.apimachinery.pkg.api.resource.Quantity> requests = 2;
  repeated ResourceClaim claims = 3;
}

message PodCondition {
  optional string type = 1 [(keep) = true];
  optional string status = 2 [(keep) = true];
  optional k8s.io.apimachinery.pkg.apis.meta.v1.Time lastProbeTime = 3;
  optional k8s.io.apimachinery.pkg.apis.meta.v1.Time lastTransitionTime = 4;
  optional string reason = 5;
  optional string message = 6;
}

message HostIP {
  optional string ip = 1 [(keep) = true];
}

message PodIP {
  optional string ip = 1 [(keep) = true];
}

message ContainerStatus {
  optional string name = 1 [(keep) = true];
  optional ContainerState state = 2;
  optional ContainerState lastState = 3;
  optional bool ready = 4 [(keep) = true];
  optional int32 restartCount = 5 [(keep) = true];
  optional string image = 6 [(keep) = true];
  optional string imageID = 7 [(keep) = true];
  optional string containerID = 8;
  optional bool started = 9 [(keep) = true];
  map<string, k8s.io.apimachinery.pkg.api.resource.Quantity> allocatedResources = 10;
  optional ResourceRequirements resources = 11;
  repeated VolumeMountStatus volumeMounts = 12;
  optional ContainerUser user = 13;
  repeated ResourceStatus allocatedResourcesStatus = 14;
}

message PodResourceClaimStatus {
  optional string name = 1 [(keep) = true];
  optional string resourceClaimName = 2 [(keep) = true];
}

message PodTemplateSpec {
  optional k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional PodSpec spec = 2;
}

message ContainerPort {
  optional string name = 1;
  optional int32 hostPort = 2;
  optional int32 containerPort = 3 [(keep) = true];
  optional string protocol = 4;
  optional string hostIP = 5;
}

message EnvFromSource {
  optional string prefix = 1;
  optional ConfigMapEnvSource configMapRef = 2;
  optional SecretEnvSource secretRef = 3;
}

message EnvVar {
  optional string name = 1 [(keep) = true];
  optional string value = 2;
  optional EnvVarSource valueFrom = 3;
}

message ContainerResizePolicy {
  optional string resourceName = 1 [(keep) = true];
  optional string restartPolicy = 2 [(keep) = true];
}

message VolumeMount {
  optional string name = 1 [(keep) = true];
  optional bool readOnly = 2;
  optional string recursiveReadOnly = 7 [(keep) = true];
  optional string mountPath = 3 [(keep) = true];
  optional string subPath = 4;
  optional string mountPropagation = 5 [(keep) = true];
  optional string subPathExpr = 6;
}

message VolumeDevice {
  optional string name = 1 [(keep) = true];
  optional string devicePath = 2 [(keep) = true];
}

message Probe {
  optional ProbeHandler handler = 1 [(inline) = true];
  optional int32 initialDelaySeconds = 2;
  optional int32 timeoutSeconds = 3;
  optional int32 periodSeconds = 4;
  optional int32 successThreshold = 5;
  optional int32 failureThreshold = 6;
  optional int64 terminationGracePeriodSeconds = 7 [(keep) = true];
}

message Lifecycle {
  optional LifecycleHandler postStart = 1;
  optional LifecycleHandler preStop = 2;
}

message SecurityContext {
  optional Capabilities capabilities = 1;
  optional bool privileged = 2 [(keep) = true];
  optional SELinuxOptions seLinuxOptions = 3;
  optional WindowsSecurityContextOptions windowsOptions = 10;
  optional int64 runAsUser = 4 [(keep) = true];
  optional int64 runAsGroup = 8 [(keep) = true];
  optional bool runAsNonRoot = 5 [(keep) = true];
  optional bool readOnlyRootFilesystem = 6 [(keep) = true];
  optional bool allowPrivilegeEscalation = 7 [(keep) = true];
  optional string procMount = 9 [(keep) = true];
  optional SeccompProfile seccompProfile = 11;
  optional AppArmorProfile appArmorProfile = 12;
}

message EphemeralContainerCommon {
  optional string name = 1 [(keep) = true];
  optional string image = 2;
  repeated string command = 3;
  repeated string args = 4;
  optional string workingDir = 5;
  repeated ContainerPort ports = 6;
  repeated EnvFromSource envFrom = 19;
  repeated EnvVar env = 7;
  optional ResourceRequirements resources = 8;
  repeated ContainerResizePolicy resizePolicy = 23;
  optional string restartPolicy = 24 [(keep) = true];
  repeated VolumeMount volumeMounts = 9;
  repeated VolumeDevice volumeDevices = 21;
  optional Probe livenessProbe = 10;
  optional Probe readinessProbe = 11;
  optional Probe startupProbe = 22;
  optional Lifecycle lifecycle = 12;
  optional string terminationMessagePath = 13;
  optional string terminationMessagePolicy = 20;
  optional string imagePullPolicy = 14;
  optional SecurityContext securityContext = 15;
  optional bool stdin = 16;
  optional bool stdinOnce = 17;
  optional bool tty = 18;
}

message SELinuxOptions {
  optional string user = 1;
  optional string role = 2;
  optional string type = 3;
  optional string level = 4;
}

message WindowsSecurityContextOptions {
  optional string gmsaCredentialSpecName = 1 [(keep) = true];
  optional string gmsaCredentialSpec = 2 [(keep) = true];
  optional string runAsUserName = 3 [(keep) = true];
  optional bool hostProcess = 4 [(keep) = true];
}

message Sysctl {
  optional string name = 1 [(keep) = true];
  optional string value = 2 [(keep) = true];
}

message SeccompProfile {
  optional string type = 1 [(keep) = true];
  optional string localhostProfile = 2 [(keep) = true];
}

message AppArmorProfile {
  optional string type = 1 [(keep) = true];
  optional string localhostProfile = 2 [(keep) = true];
}

message NodeAffinity {
  optional NodeSelector requiredDuringSchedulingIgnoredDuringExecution = 1;
  repeated PreferredSchedulingTerm preferredDuringSchedulingIgnoredDuringExecution = 2;
}

message PodAffinity {
  repeated PodAffinityTerm requiredDuringSchedulingIgnoredDuringExecution = 1;
  repeated WeightedPodAffinityTerm preferredDuringSchedulingIgnoredDuringExecution = 2;
}

message PodAntiAffinity {
  repeated PodAffinityTerm requiredDuringSchedulingIgnoredDuringExecution = 1;
  repeated WeightedPodAffinityTerm preferredDuringSchedulingIgnoredDuringExecution = 2;
}

message PodDNSConfigOption {
  optional string name = 1;
  optional string value = 2 [(keep) = true];
}

message ResourceClaim {
  optional string name = 1 [(keep) = true];
  optional string request = 2;
}

message ContainerState {
  optional ContainerStateWaiting waiting = 1;
  optional ContainerStateRunning running = 2;
  optional ContainerStateTerminated terminated = 3;
}

message VolumeMountStatus {
  optional string name = 1 [(keep) = true];
  optional string mountPath = 2 [(keep) = true];
  optional bool readOnly = 3;
  optional string recursiveReadOnly = 4 [(keep) = true];
}

message ContainerUser {
  optional LinuxContainerUser linux = 1;
}

message ResourceStatus {
  optional string name = 1 [(keep) = true];
  repeated ResourceHealth resources = 2;
}

message ConfigMapEnvSource {
  optional LocalObjectReference localObjectReference = 1 [(inline) = true];
  optional bool optional = 2 [(keep) = true];
}

message SecretEnvSource {
  optional LocalObjectReference localObjectReference = 1 [(inline) = true];
  optional bool optional = 2 [(keep) = true];
}

message EnvVarSource {
  optional ObjectFieldSelector fieldRef = 1;
  optional ResourceFieldSelector resourceFieldRef = 2;
  optional ConfigMapKeySelector configMapKeyRef = 3;
  optional SecretKeySelector secretKeyRef = 4;
}

message ProbeHandler {
  optional ExecAction exec = 1;
  optional HTTPGetAction httpGet = 2;
  optional TCPSocketAction tcpSocket = 3;
  optional GRPCAction grpc = 4;
}

message LifecycleHandler {
  optional ExecAction exec = 1;
  optional HTTPGetAction httpGet = 2;
  optional TCPSocketAction tcpSocket = 3;
  optional SleepAction sleep = 4;
}

message Capabilities {
  repeated string add = 1;
  repeated string drop = 2;
}

message NodeSelector {
  repeated NodeSelectorTerm nodeSelectorTerms = 1;
}

message PreferredSchedulingTerm {
  optional int32 weight = 1 [(keep) = true];
  optional NodeSelectorTerm preference = 2;
}

message PodAffinityTerm {
  optional k8s.io.apimachinery.pkg.apis.meta.v1.LabelSelector labelSelector = 1;
  repeated string namespaces = 2;
  optional string topologyKey = 3 [(keep) = true];
  optional k8s.io.apimachinery.pkg.apis.meta.v1.LabelSelector namespaceSelector = 4;
  repeated string matchLabelKeys = 5;
  repeated string mismatchLabelKeys = 6;
}

message WeightedPodAffinityTerm {
  optional int32 weight = 1 [(keep) = true];
  optional PodAffinityTerm podAffinityTerm = 2;
}

message ContainerStateWaiting {
  optional string reason = 1;
  optional string message = 2;
}

message ContainerStateRunning {
  optional k8s.io.apimachinery.pkg.apis.meta.v1.Time startedAt = 1;
}

message ContainerStateTerminated {
  optional int32 exitCode = 1 [(keep) = true];
  optional int32 signal = 2;
  optional string reason = 3;
  optional string message = 4;
  optional k8s.io.apimachinery.pkg.apis.meta.v1.Time startedAt = 5;
  optional k8s.io.apimachinery.pkg.apis.meta.v1.Time finishedAt = 6;
  optional string containerID = 7;
}

message LinuxContainerUser {
  optional int64 uid = 1 [(keep) = true];
  optional int64 gid = 2 [(keep) = true];
  repeated int64 supplementalGroups = 3;
}

message ResourceHealth {
  optional string resourceID = 1 [(keep) = true];
  optional string health = 2;
}

message ObjectFieldSelector {
  optional string apiVersion = 1;
  optional string fieldPath = 2 [(keep) = true];
}

message ResourceFieldSelector {
  optional string containerName = 1;
  optional string resource = 2 [(keep) = true];
  optional k8s.io.apimachinery.pkg.api.resource.Quantity divisor = 3;
}

message ConfigMapKeySelector {
  optional LocalObjectReference localObjectReference = 1 [(inline) = true];
  optional string key = 2 [(keep) = true];
  optional bool optional = 3 [(keep) = true];
}

message SecretKeySelector {
  optional LocalObjectReference localObjectReference = 1 [(inline) = true];
  optional string key = 2 [(keep) = true];
  optional bool optional = 3 [(keep) = true];
}

message ExecAction {
  repeated string command = 1;
}

message HTTPGetAction {
  optional string path = 1;
  optional k8s.io.apimachinery.pkg.util.intstr.IntOrString port = 2;
  optional string host = 3;
  optional string scheme = 4;
  repeated HTTPHeader httpHeaders = 5;
}

message TCPSocketAction {
  optional k8s.io.apimachinery.pkg.util.intstr.IntOrString port = 1;
  optional string host = 2;
}

message GRPCAction {
  optional int32 port = 1 [(keep) = true];
  optional string service = 2 [(keep) = true];
}

message SleepAction {
  optional int64 seconds = 1 [(keep) = true];
}

message NodeSelectorTerm {
  repeated NodeSelectorRequirement matchExpressions = 1;
  repeated NodeSelectorRequirement matchFields = 2;
}

message HTTPHeader {
  optional string name = 1 [(keep) = true];
  optional string value = 2 [(keep) = true];
}

message NodeSelectorRequirement {
  optional string key = 1 [(keep) = true];
  optional string operator = 2 [(keep) = true];
  repeated string values = 3;
}
`;
