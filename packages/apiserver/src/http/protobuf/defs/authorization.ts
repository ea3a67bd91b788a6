/**
 * Protobuf messages of authorization.k8s.io/v1's reviews, which `kubectl auth can-i` sends. Field
 * names, numbers and types are the ones Kubernetes publishes (v1.32); the options in brackets are
 * Setpoint's own (see ../schema.ts).
 */

/** authorization.k8s.io/v1. */
export const authorizationProto = `
syntax = "proto2";
package k8s.io.api.authorization.v1;

message ExtraValue {
  repeated string items = 1;
}

message FieldSelectorAttributes {
  optional string rawSelector = 1;
  repeated FieldSelectorRequirement requirements = 2;
}

message FieldSelectorRequirement {
  optional string key = 1 [(keep) = true];
  optional string operator = 2 [(keep) = true];
  repeated string values = 3;
}

message LabelSelectorAttributes {
  optional string rawSelector = 1;
  repeated k8s.io.apimachinery.pkg.apis.meta.v1.LabelSelectorRequirement requirements = 2;
}

message LocalSubjectAccessReview {
  optional k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional SubjectAccessReviewSpec spec = 2;
  optional SubjectAccessReviewStatus status = 3;
}

message NonResourceAttributes {
  optional string path = 1;
  optional string verb = 2;
}

message NonResourceRule {
  repeated string verbs = 1 [(keep) = true];
  repeated string nonResourceURLs = 2;
}

message ResourceAttributes {
  optional string namespace = 1;
  optional string verb = 2;
  optional string group = 3;
  optional string version = 4;
  optional string resource = 5;
  optional string subresource = 6;
  optional string name = 7;
  optional FieldSelectorAttributes fieldSelector = 8;
  optional LabelSelectorAttributes labelSelector = 9;
}

message ResourceRule {
  repeated string verbs = 1 [(keep) = true];
  repeated string apiGroups = 2;
  repeated string resources = 3;
  repeated string resourceNames = 4;
}

message SelfSubjectAccessReview {
  optional k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional SelfSubjectAccessReviewSpec spec = 2;
  optional SubjectAccessReviewStatus status = 3;
}

message SelfSubjectAccessReviewSpec {
  optional ResourceAttributes resourceAttributes = 1;
  optional NonResourceAttributes nonResourceAttributes = 2;
}

message SelfSubjectRulesReview {
  optional k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional SelfSubjectRulesReviewSpec spec = 2;
  optional SubjectRulesReviewStatus status = 3;
}

message SelfSubjectRulesReviewSpec {
  optional string namespace = 1;
}

message SubjectAccessReview {
  optional k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional SubjectAccessReviewSpec spec = 2;
  optional SubjectAccessReviewStatus status = 3;
}

message SubjectAccessReviewSpec {
  optional ResourceAttributes resourceAttributes = 1;
  optional NonResourceAttributes nonResourceAttributes = 2;
  optional string user = 3;
  repeated string groups = 4;
  map<string, ExtraValue> extra = 5;
  optional string uid = 6;
}

message SubjectAccessReviewStatus {
  optional bool allowed = 1 [(keep) = true];
  optional bool denied = 4;
  optional string reason = 2;
  optional string evaluationError = 3;
}

message SubjectRulesReviewStatus {
  repeated ResourceRule resourceRules = 1 [(keep) = true];
  repeated NonResourceRule nonResourceRules = 2 [(keep) = true];
  optional bool incomplete = 3 [(keep) = true];
  optional string evaluationError = 4;
}
`;
