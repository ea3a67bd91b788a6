/**
 * Protobuf messages of coordination.k8s.io/v1 Lease. Field names, numbers and types are the ones
 * Kubernetes publishes (v1.32); the options in brackets are Setpoint's own (see ../schema.ts).
 */

/** coordination.k8s.io/v1: leases. */
export const coordinationProto = `
syntax = "proto2";
package k8s.io.api.coordination.v1;

message Lease {
  optional k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional LeaseSpec spec = 2;
}

message LeaseList {
  optional k8s.io.apimachinery.pkg.apis.meta.v1.ListMeta metadata = 1;
  repeated Lease items = 2 [(keep) = true];
}

message LeaseSpec {
  optional string holderIdentity = 1 [(keep) = true];
  optional int32 leaseDurationSeconds = 2 [(keep) = true];
  optional k8s.io.apimachinery.pkg.apis.meta.v1.MicroTime acquireTime = 3;
  optional k8s.io.apimachinery.pkg.apis.meta.v1.MicroTime renewTime = 4;
  optional int32 leaseTransitions = 5 [(keep) = true];
  optional string strategy = 6 [(keep) = true];
  optional string preferredHolder = 7 [(keep) = true];
}
`;
