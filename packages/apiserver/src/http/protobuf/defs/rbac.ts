/**
 * Protobuf messages of rbac.authorization.k8s.io/v1 (Role, ClusterRole, RoleBinding,
 * ClusterRoleBinding and their lists), which `kubectl create role|rolebinding|clusterrole|…`
 * sends. Field names, numbers and types are the ones Kubernetes publishes (v1.32); the options in
 * brackets are Setpoint's own (see ../schema.ts).
 */

/** rbac.authorization.k8s.io/v1. */
export const rbacProto = `
syntax = "proto2";
package k8s.io.api.rbac.v1;

message AggregationRule {
  repeated k8s.io.apimachinery.pkg.apis.meta.v1.LabelSelector clusterRoleSelectors = 1;
}

message ClusterRole {
  optional k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  repeated PolicyRule rules = 2;
  optional AggregationRule aggregationRule = 3;
}

message ClusterRoleBinding {
  optional k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  repeated Subject subjects = 2;
  optional RoleRef roleRef = 3;
}

message ClusterRoleBindingList {
  optional k8s.io.apimachinery.pkg.apis.meta.v1.ListMeta metadata = 1;
  repeated ClusterRoleBinding items = 2 [(keep) = true];
}

message ClusterRoleList {
  optional k8s.io.apimachinery.pkg.apis.meta.v1.ListMeta metadata = 1;
  repeated ClusterRole items = 2 [(keep) = true];
}

message PolicyRule {
  repeated string verbs = 1 [(keep) = true];
  repeated string apiGroups = 2;
  repeated string resources = 3;
  repeated string resourceNames = 4;
  repeated string nonResourceURLs = 5;
}

message Role {
  optional k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  repeated PolicyRule rules = 2;
}

message RoleBinding {
  optional k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  repeated Subject subjects = 2;
  optional RoleRef roleRef = 3;
}

message RoleBindingList {
  optional k8s.io.apimachinery.pkg.apis.meta.v1.ListMeta metadata = 1;
  repeated RoleBinding items = 2 [(keep) = true];
}

message RoleList {
  optional k8s.io.apimachinery.pkg.apis.meta.v1.ListMeta metadata = 1;
  repeated Role items = 2 [(keep) = true];
}

message RoleRef {
  optional string apiGroup = 1 [(keep) = true];
  optional string kind = 2 [(keep) = true];
  optional string name = 3 [(keep) = true];
}

message Subject {
  optional string kind = 1 [(keep) = true];
  optional string apiGroup = 2;
  optional string name = 3 [(keep) = true];
  optional string namespace = 4;
}
`;
