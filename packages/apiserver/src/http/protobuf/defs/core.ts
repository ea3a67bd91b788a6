/**
 * Protobuf messages of the core (v1) kinds other than pods: Namespace, ConfigMap, Secret, Event,
 * ServiceAccount, Node, Binding and their parts. Field names, numbers and types are the ones
 * Kubernetes publishes (v1.32); the options in brackets are Setpoint's own (see ../schema.ts).
 */

/** core/v1: namespaces, configuration, events, service accounts, nodes, bindings. */
export const coreProto = `
syntax = "proto2";
package k8s.io.api.core.v1;

message Namespace {
  optional k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional NamespaceSpec spec = 2;
  optional NamespaceStatus status = 3;
}

message NamespaceList {
  optional k8s.io.apimachinery.pkg.apis.meta.v1.ListMeta metadata = 1;
  repeated Namespace items = 2 [(keep) = true];
}

message ConfigMap {
  optional k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional bool immutable = 4 [(keep) = true];
  map<string, string> data = 2;
  map<string, bytes> binaryData = 3;
}

message ConfigMapList {
  optional k8s.io.apimachinery.pkg.apis.meta.v1.ListMeta metadata = 1;
  repeated ConfigMap items = 2 [(keep) = true];
}

message Secret {
  optional k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional bool immutable = 5 [(keep) = true];
  map<string, bytes> data = 2;
  map<string, string> stringData = 4;
  optional string type = 3;
}

message SecretList {
  optional k8s.io.apimachinery.pkg.apis.meta.v1.ListMeta metadata = 1;
  repeated Secret items = 2 [(keep) = true];
}

message Event {
  optional k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional ObjectReference involvedObject = 2;
  optional string reason = 3;
  optional string message = 4;
  optional EventSource source = 5;
  optional k8s.io.apimachinery.pkg.apis.meta.v1.Time firstTimestamp = 6;
  optional k8s.io.apimachinery.pkg.apis.meta.v1.Time lastTimestamp = 7;
  optional int32 count = 8;
  optional string type = 9;
  optional k8s.io.apimachinery.pkg.apis.meta.v1.MicroTime eventTime = 10;
  optional EventSeries series = 11;
  optional string action = 12;
  optional ObjectReference related = 13;
  optional string reportingComponent = 14 [(keep) = true];
  optional string reportingInstance = 15 [(keep) = true];
}

message EventList {
  optional k8s.io.apimachinery.pkg.apis.meta.v1.ListMeta metadata = 1;
  repeated Event items = 2 [(keep) = true];
}

message ServiceAccount {
  optional k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  repeated ObjectReference secrets = 2;
  repeated LocalObjectReference imagePullSecrets = 3;
  optional bool automountServiceAccountToken = 4 [(keep) = true];
}

message ServiceAccountList {
  optional k8s.io.apimachinery.pkg.apis.meta.v1.ListMeta metadata = 1;
  repeated ServiceAccount items = 2 [(keep) = true];
}

message Node {
  optional k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional NodeSpec spec = 2;
  optional NodeStatus status = 3;
}

message NodeList {
  optional k8s.io.apimachinery.pkg.apis.meta.v1.ListMeta metadata = 1;
  repeated Node items = 2 [(keep) = true];
}

message Binding {
  optional k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional ObjectReference target = 2;
}

message NamespaceSpec {
  repeated string finalizers = 1;
}

message NamespaceStatus {
  optional string phase = 1;
  repeated NamespaceCondition conditions = 2;
}

message ObjectReference {
  optional string kind = 1;
  optional string namespace = 2;
  optional string name = 3;
  optional string uid = 4;
  optional string apiVersion = 5;
  optional string resourceVersion = 6;
  optional string fieldPath = 7;
}

message EventSource {
  optional string component = 1;
  optional string host = 2;
}

message EventSeries {
  optional int32 count = 1;
  optional k8s.io.apimachinery.pkg.apis.meta.v1.MicroTime lastObservedTime = 2;
}

message LocalObjectReference {
  optional string name = 1;
}

message NodeSpec {
  optional string podCIDR = 1;
  repeated string podCIDRs = 7;
  optional string providerID = 3;
  optional bool unschedulable = 4;
  repeated Taint taints = 5;
  optional NodeConfigSource configSource = 6;
  optional string externalID = 2;
}

message NodeStatus {
  map<string, k8s.io.apimachinery.pkg.api.resource.Quantity> capacity = 1;
  map<string, k8s.io.apimachinery.pkg.api.resource.Quantity> allocatable = 2;
  optional string phase = 3;
  repeated NodeCondition conditions = 4;
  repeated NodeAddress addresses = 5;
  optional NodeDaemonEndpoints daemonEndpoints = 6;
  optional NodeSystemInfo nodeInfo = 7;
  repeated ContainerImage images = 8;
  repeated string volumesInUse = 9;
  repeated AttachedVolume volumesAttached = 10;
  optional NodeConfigStatus config = 11;
  repeated NodeRuntimeHandler runtimeHandlers = 12;
  optional NodeFeatures features = 13;
}

message NamespaceCondition {
  optional string type = 1 [(keep) = true];
  optional string status = 2 [(keep) = true];
  optional k8s.io.apimachinery.pkg.apis.meta.v1.Time lastTransitionTime = 4;
  optional string reason = 5;
  optional string message = 6;
}

message Taint {
  optional string key = 1 [(keep) = true];
  optional string value = 2;
  optional string effect = 3 [(keep) = true];
  optional k8s.io.apimachinery.pkg.apis.meta.v1.Time timeAdded = 4;
}

message NodeConfigSource {
  optional ConfigMapNodeConfigSource configMap = 2;
}

message NodeCondition {
  optional string type = 1 [(keep) = true];
  optional string status = 2 [(keep) = true];
  optional k8s.io.apimachinery.pkg.apis.meta.v1.Time lastHeartbeatTime = 3;
  optional k8s.io.apimachinery.pkg.apis.meta.v1.Time lastTransitionTime = 4;
  optional string reason = 5;
  optional string message = 6;
}

message NodeAddress {
  optional string type = 1 [(keep) = true];
  optional string address = 2 [(keep) = true];
}

message NodeDaemonEndpoints {
  optional DaemonEndpoint kubeletEndpoint = 1;
}

message NodeSystemInfo {
  optional string machineID = 1 [(keep) = true];
  optional string systemUUID = 2 [(keep) = true];
  optional string bootID = 3 [(keep) = true];
  optional string kernelVersion = 4 [(keep) = true];
  optional string osImage = 5 [(keep) = true];
  optional string containerRuntimeVersion = 6 [(keep) = true];
  optional string kubeletVersion = 7 [(keep) = true];
  optional string kubeProxyVersion = 8 [(keep) = true];
  optional string operatingSystem = 9 [(keep) = true];
  optional string architecture = 10 [(keep) = true];
}

message ContainerImage {
  repeated string names = 1;
  optional int64 sizeBytes = 2;
}

message AttachedVolume {
  optional string name = 1 [(keep) = true];
  optional string devicePath = 2 [(keep) = true];
}

message NodeConfigStatus {
  optional NodeConfigSource assigned = 1;
  optional NodeConfigSource active = 2;
  optional NodeConfigSource lastKnownGood = 3;
  optional string error = 4;
}

message NodeRuntimeHandler {
  optional string name = 1 [(keep) = true];
  optional NodeRuntimeHandlerFeatures features = 2;
}

message NodeFeatures {
  optional bool supplementalGroupsPolicy = 1 [(keep) = true];
}

message ConfigMapNodeConfigSource {
  optional string namespace = 1 [(keep) = true];
  optional string name = 2 [(keep) = true];
  optional string uid = 3;
  optional string resourceVersion = 4;
  optional string kubeletConfigKey = 5 [(keep) = true];
}

message DaemonEndpoint {
  optional int32 Port = 1 [(keep) = true];
}

message NodeRuntimeHandlerFeatures {
  optional bool recursiveReadOnlyMounts = 1 [(keep) = true];
  optional bool userNamespaces = 2 [(keep) = true];
}
`;
