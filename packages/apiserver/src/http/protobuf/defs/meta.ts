/**
 * Protobuf messages of meta.k8s.io/v1 and of the apimachinery types every kind embeds: the
 * runtime.Unknown envelope, IntOrString and Quantity. Field names, numbers and types are the ones
 * Kubernetes publishes (v1.32); the options in brackets are Setpoint's own (see ../schema.ts).
 */

/** k8s.io/apimachinery/pkg/runtime: the envelope of every protobuf body and the embedded raw object. */
export const runtimeProto = `
syntax = "proto2";
package k8s.io.apimachinery.pkg.runtime;

message TypeMeta {
  optional string apiVersion = 1;
  optional string kind = 2;
}

message Unknown {
  optional TypeMeta typeMeta = 1;
  optional bytes raw = 2;
  optional string contentEncoding = 3;
  optional string contentType = 4;
}

message RawExtension {
  optional bytes raw = 1;
}
`;

/** k8s.io/apimachinery/pkg/util/intstr: a port or a percentage (type 0: intVal, 1: strVal). */
export const intstrProto = `
syntax = "proto2";
package k8s.io.apimachinery.pkg.util.intstr;

message IntOrString {
  optional int64 type = 1;
  optional int32 intVal = 2;
  optional string strVal = 3;
}
`;

/** k8s.io/apimachinery/pkg/api/resource: a quantity as its string form ("100m", "1Gi"). */
export const resourceProto = `
syntax = "proto2";
package k8s.io.apimachinery.pkg.api.resource;

message Quantity {
  optional string string = 1;
}
`;

/** meta.k8s.io/v1: object and list metadata, times, label selectors, Status, DeleteOptions, WatchEvent. */
export const metaV1Proto = `
syntax = "proto2";
package k8s.io.apimachinery.pkg.apis.meta.v1;

message ObjectMeta {
  optional string name = 1;
  optional string generateName = 2;
  optional string namespace = 3;
  optional string selfLink = 4;
  optional string uid = 5;
  optional string resourceVersion = 6;
  optional int64 generation = 7;
  optional Time creationTimestamp = 8;
  optional Time deletionTimestamp = 9;
  optional int64 deletionGracePeriodSeconds = 10 [(keep) = true];
  map<string, string> labels = 11;
  map<string, string> annotations = 12;
  repeated OwnerReference ownerReferences = 13;
  repeated string finalizers = 14;
  repeated ManagedFieldsEntry managedFields = 17;
}

message ListMeta {
  optional string selfLink = 1;
  optional string resourceVersion = 2;
  optional string continue = 3;
  optional int64 remainingItemCount = 4 [(keep) = true];
}

message OwnerReference {
  optional string apiVersion = 5 [(keep) = true];
  optional string kind = 1 [(keep) = true];
  optional string name = 3 [(keep) = true];
  optional string uid = 4 [(keep) = true];
  optional bool controller = 6 [(keep) = true];
  optional bool blockOwnerDeletion = 7 [(keep) = true];
}

message ManagedFieldsEntry {
  optional string manager = 1;
  optional string operation = 2;
  optional string apiVersion = 3;
  optional Time time = 4;
  optional string fieldsType = 6;
  optional FieldsV1 fieldsV1 = 7;
  optional string subresource = 8;
}

message FieldsV1 {
  optional bytes Raw = 1;
}

message Time {
  optional int64 seconds = 1;
  optional int32 nanos = 2;
}

message MicroTime {
  optional int64 seconds = 1;
  optional int32 nanos = 2;
}

message LabelSelector {
  map<string, string> matchLabels = 1;
  repeated LabelSelectorRequirement matchExpressions = 2;
}

message LabelSelectorRequirement {
  optional string key = 1 [(keep) = true];
  optional string operator = 2 [(keep) = true];
  repeated string values = 3;
}

message Status {
  optional ListMeta metadata = 1;
  optional string status = 2;
  optional string message = 3;
  optional string reason = 4;
  optional StatusDetails details = 5;
  optional int32 code = 6;
}

message StatusDetails {
  optional string name = 1;
  optional string group = 2;
  optional string kind = 3;
  optional string uid = 6;
  repeated StatusCause causes = 4;
  optional int32 retryAfterSeconds = 5;
}

message StatusCause {
  optional string reason = 1;
  optional string message = 2;
  optional string field = 3;
}

message DeleteOptions {
  optional int64 gracePeriodSeconds = 1 [(keep) = true];
  optional Preconditions preconditions = 2;
  optional bool orphanDependents = 3 [(keep) = true];
  optional string propagationPolicy = 4 [(keep) = true];
  repeated string dryRun = 5;
  optional bool ignoreStoreReadErrorWithClusterBreakingPotential = 6 [(keep) = true];
}

message Preconditions {
  optional string uid = 1 [(keep) = true];
  optional string resourceVersion = 2 [(keep) = true];
}

message WatchEvent {
  optional string type = 1;
  optional k8s.io.apimachinery.pkg.runtime.RawExtension object = 2;
}
`;
