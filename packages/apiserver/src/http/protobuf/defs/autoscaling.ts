/**
 * Protobuf messages of autoscaling/v1 Scale (the scale subresource of deployments and replica
 * sets). Field names, numbers and types are the ones Kubernetes publishes (v1.32); the options in
 * brackets are Setpoint's own (see ../schema.ts).
 */

/** autoscaling/v1: Scale. */
export const autoscalingProto = `
syntax = "proto2";
package k8s.io.api.autoscaling.v1;

message Scale {
  optional k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional ScaleSpec spec = 2;
  optional ScaleStatus status = 3;
}

message ScaleSpec {
  optional int32 replicas = 1;
}

message ScaleStatus {
  optional int32 replicas = 1 [(keep) = true];
  optional string selector = 2;
}
`;
