/**
 * Protobuf messages of apps/v1 Deployment and ReplicaSet. Field names, numbers and types are the
 * ones Kubernetes publishes (v1.32); the options in brackets are Setpoint's own (see ../schema.ts).
 */

/** apps/v1: deployments and replica sets. */
export const appsProto = `
syntax = "proto2";
package k8s.io.api.apps.v1;

message Deployment {
  optional k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional DeploymentSpec spec = 2;
  optional DeploymentStatus status = 3;
}

message DeploymentList {
  optional k8s.io.apimachinery.pkg.apis.meta.v1.ListMeta metadata = 1;
  repeated Deployment items = 2 [(keep) = true];
}

message ReplicaSet {
  optional k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional ReplicaSetSpec spec = 2;
  optional ReplicaSetStatus status = 3;
}

message ReplicaSetList {
  optional k8s.io.apimachinery.pkg.apis.meta.v1.ListMeta metadata = 1;
  repeated ReplicaSet items = 2 [(keep) = true];
}

message DeploymentSpec {
  optional int32 replicas = 1 [(keep) = true];
  optional k8s.io.apimachinery.pkg.apis.meta.v1.LabelSelector selector = 2;
  optional k8s.io.api.core.v1.PodTemplateSpec template = 3;
  optional DeploymentStrategy strategy = 4;
  optional int32 minReadySeconds = 5;
  optional int32 revisionHistoryLimit = 6 [(keep) = true];
  optional bool paused = 7;
  optional int32 progressDeadlineSeconds = 9 [(keep) = true];
}

message DeploymentStatus {
  optional int64 observedGeneration = 1;
  optional int32 replicas = 2;
  optional int32 updatedReplicas = 3;
  optional int32 readyReplicas = 7;
  optional int32 availableReplicas = 4;
  optional int32 unavailableReplicas = 5;
  repeated DeploymentCondition conditions = 6;
  optional int32 collisionCount = 8 [(keep) = true];
}

message ReplicaSetSpec {
  optional int32 replicas = 1 [(keep) = true];
  optional int32 minReadySeconds = 4;
  optional k8s.io.apimachinery.pkg.apis.meta.v1.LabelSelector selector = 2;
  optional k8s.io.api.core.v1.PodTemplateSpec template = 3;
}

message ReplicaSetStatus {
  optional int32 replicas = 1 [(keep) = true];
  optional int32 fullyLabeledReplicas = 2;
  optional int32 readyReplicas = 4;
  optional int32 availableReplicas = 5;
  optional int64 observedGeneration = 3;
  repeated ReplicaSetCondition conditions = 6;
}

message DeploymentStrategy {
  optional string type = 1;
  optional RollingUpdateDeployment rollingUpdate = 2;
}

message DeploymentCondition {
  optional string type = 1 [(keep) = true];
  optional string status = 2 [(keep) = true];
  optional k8s.io.apimachinery.pkg.apis.meta.v1.Time lastUpdateTime = 6;
  optional k8s.io.apimachinery.pkg.apis.meta.v1.Time lastTransitionTime = 7;
  optional string reason = 4;
  optional string message = 5;
}

message ReplicaSetCondition {
  optional string type = 1 [(keep) = true];
  optional string status = 2 [(keep) = true];
  optional k8s.io.apimachinery.pkg.apis.meta.v1.Time lastTransitionTime = 3;
  optional string reason = 4;
  optional string message = 5;
}

message RollingUpdateDeployment {
  optional k8s.io.apimachinery.pkg.util.intstr.IntOrString maxUnavailable = 1;
  optional k8s.io.apimachinery.pkg.util.intstr.IntOrString maxSurge = 2;
}
`;
