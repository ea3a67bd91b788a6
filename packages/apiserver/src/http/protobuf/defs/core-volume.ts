/**
 * Protobuf messages of core/v1 pod volumes: Volume, every volume source, projections and the
 * ephemeral volume claim template. Field names, numbers and types are the ones Kubernetes
 * publishes (v1.32); the options in brackets are Setpoint's own (see ../schema.ts).
 */

/** core/v1: volumes and volume sources. */
export const coreVolumeProto = `
syntax = "proto2";
package k8s.io.api.core.v1;

message Volume {
  optional string name = 1 [(keep) = true];
  optional VolumeSource volumeSource = 2 [(inline) = true];
}

message VolumeSource {
  optional HostPathVolumeSource hostPath = 1;
  optional EmptyDirVolumeSource emptyDir = 2;
  optional GCEPersistentDiskVolumeSource gcePersistentDisk = 3;
  optional AWSElasticBlockStoreVolumeSource awsElasticBlockStore = 4;
  optional GitRepoVolumeSource gitRepo = 5;
  optional SecretVolumeSource secret = 6;
  optional NFSVolumeSource nfs = 7;
  optional ISCSIVolumeSource iscsi = 8;
  optional GlusterfsVolumeSource glusterfs = 9;
  optional PersistentVolumeClaimVolumeSource persistentVolumeClaim = 10;
  optional RBDVolumeSource rbd = 11;
  optional FlexVolumeSource flexVolume = 12;
  optional CinderVolumeSource cinder = 13;
  optional CephFSVolumeSource cephfs = 14;
  optional FlockerVolumeSource flocker = 15;
  optional DownwardAPIVolumeSource downwardAPI = 16;
  optional FCVolumeSource fc = 17;
  optional AzureFileVolumeSource azureFile = 18;
  optional ConfigMapVolumeSource configMap = 19;
  optional VsphereVirtualDiskVolumeSource vsphereVolume = 20;
  optional QuobyteVolumeSource quobyte = 21;
  optional AzureDiskVolumeSource azureDisk = 22;
  optional PhotonPersistentDiskVolumeSource photonPersistentDisk = 23;
  optional ProjectedVolumeSource projected = 26;
  optional PortworxVolumeSource portworxVolume = 24;
  optional ScaleIOVolumeSource scaleIO = 25;
  optional StorageOSVolumeSource storageos = 27;
  optional CSIVolumeSource csi = 28;
  optional EphemeralVolumeSource ephemeral = 29;
  optional ImageVolumeSource image = 30;
}

message HostPathVolumeSource {
  optional string path = 1 [(keep) = true];
  optional string type = 2 [(keep) = true];
}

message EmptyDirVolumeSource {
  optional string medium = 1;
  optional k8s.io.apimachinery.pkg.api.resource.Quantity sizeLimit = 2;
}

message GCEPersistentDiskVolumeSource {
  optional string pdName = 1 [(keep) = true];
  optional string fsType = 2;
  optional int32 partition = 3;
  optional bool readOnly = 4;
}

message AWSElasticBlockStoreVolumeSource {
  optional string volumeID = 1 [(keep) = true];
  optional string fsType = 2;
  optional int32 partition = 3;
  optional bool readOnly = 4;
}

message GitRepoVolumeSource {
  optional string repository = 1 [(keep) = true];
  optional string revision = 2;
  optional string directory = 3;
}

message SecretVolumeSource {
  optional string secretName = 1;
  repeated KeyToPath items = 2;
  optional int32 defaultMode = 3 [(keep) = true];
  optional bool optional = 4 [(keep) = true];
}

message NFSVolumeSource {
  optional string server = 1 [(keep) = true];
  optional string path = 2 [(keep) = true];
  optional bool readOnly = 3;
}

message ISCSIVolumeSource {
  optional string targetPortal = 1 [(keep) = true];
  optional string iqn = 2 [(keep) = true];
  optional int32 lun = 3 [(keep) = true];
  optional string iscsiInterface = 4;
  optional string fsType = 5;
  optional bool readOnly = 6;
  repeated string portals = 7;
  optional bool chapAuthDiscovery = 8;
  optional bool chapAuthSession = 11;
  optional LocalObjectReference secretRef = 10;
  optional string initiatorName = 12 [(keep) = true];
}

message GlusterfsVolumeSource {
  optional string endpoints = 1 [(keep) = true];
  optional string path = 2 [(keep) = true];
  optional bool readOnly = 3;
}

message PersistentVolumeClaimVolumeSource {
  optional string claimName = 1 [(keep) = true];
  optional bool readOnly = 2;
}

message RBDVolumeSource {
  repeated string monitors = 1;
  optional string image = 2 [(keep) = true];
  optional string fsType = 3;
  optional string pool = 4;
  optional string user = 5;
  optional string keyring = 6;
  optional LocalObjectReference secretRef = 7;
  optional bool readOnly = 8;
}

message FlexVolumeSource {
  optional string driver = 1 [(keep) = true];
  optional string fsType = 2;
  optional LocalObjectReference secretRef = 3;
  optional bool readOnly = 4;
  map<string, string> options = 5;
}

message CinderVolumeSource {
  optional string volumeID = 1 [(keep) = true];
  optional string fsType = 2;
  optional bool readOnly = 3;
  optional LocalObjectReference secretRef = 4;
}

message CephFSVolumeSource {
  repeated string monitors = 1;
  optional string path = 2;
  optional string user = 3;
  optional string secretFile = 4;
  optional LocalObjectReference secretRef = 5;
  optional bool readOnly = 6;
}

message FlockerVolumeSource {
  optional string datasetName = 1;
  optional string datasetUUID = 2;
}

message DownwardAPIVolumeSource {
  repeated DownwardAPIVolumeFile items = 1;
  optional int32 defaultMode = 2 [(keep) = true];
}

message FCVolumeSource {
  repeated string targetWWNs = 1;
  optional int32 lun = 2 [(keep) = true];
  optional string fsType = 3;
  optional bool readOnly = 4;
  repeated string wwids = 5;
}

message AzureFileVolumeSource {
  optional string secretName = 1 [(keep) = true];
  optional string shareName = 2 [(keep) = true];
  optional bool readOnly = 3;
}

message ConfigMapVolumeSource {
  optional LocalObjectReference localObjectReference = 1 [(inline) = true];
  repeated KeyToPath items = 2;
  optional int32 defaultMode = 3 [(keep) = true];
  optional bool optional = 4 [(keep) = true];
}

message VsphereVirtualDiskVolumeSource {
  optional string volumePath = 1 [(keep) = true];
  optional string fsType = 2;
  optional string storagePolicyName = 3;
  optional string storagePolicyID = 4;
}

message QuobyteVolumeSource {
  optional string registry = 1 [(keep) = true];
  optional string volume = 2 [(keep) = true];
  optional bool readOnly = 3;
  optional string user = 4;
  optional string group = 5;
  optional string tenant = 6;
}

message AzureDiskVolumeSource {
  optional string diskName = 1 [(keep) = true];
  optional string diskURI = 2 [(keep) = true];
  optional string cachingMode = 3 [(keep) = true];
  optional string fsType = 4 [(keep) = true];
  optional bool readOnly = 5 [(keep) = true];
  optional string kind = 6 [(keep) = true];
}

message PhotonPersistentDiskVolumeSource {
  optional string pdID = 1 [(keep) = true];
  optional string fsType = 2;
}

message ProjectedVolumeSource {
  repeated VolumeProjection sources = 1;
  optional int32 defaultMode = 2 [(keep) = true];
}

message PortworxVolumeSource {
  optional string volumeID = 1 [(keep) = true];
  optional string fsType = 2;
  optional bool readOnly = 3;
}

message ScaleIOVolumeSource {
  optional string gateway = 1 [(keep) = true];
  optional string system = 2 [(keep) = true];
  optional LocalObjectReference secretRef = 3;
  optional bool sslEnabled = 4;
  optional string protectionDomain = 5;
  optional string storagePool = 6;
  optional string storageMode = 7;
  optional string volumeName = 8;
  optional string fsType = 9;
  optional bool readOnly = 10;
}

message StorageOSVolumeSource {
  optional string volumeName = 1;
  optional string volumeNamespace = 2;
  optional string fsType = 3;
  optional bool readOnly = 4;
  optional LocalObjectReference secretRef = 5;
}

message CSIVolumeSource {
  optional string driver = 1 [(keep) = true];
  optional bool readOnly = 2 [(keep) = true];
  optional string fsType = 3 [(keep) = true];
  map<string, string> volumeAttributes = 4;
  optional LocalObjectReference nodePublishSecretRef = 5;
}

message EphemeralVolumeSource {
  optional PersistentVolumeClaimTemplate volumeClaimTemplate = 1;
}

message ImageVolumeSource {
  optional string reference = 1;
  optional string pullPolicy = 2;
}

message KeyToPath {
  optional string key = 1 [(keep) = true];
  optional string path = 2 [(keep) = true];
  optional int32 mode = 3 [(keep) = true];
}

message DownwardAPIVolumeFile {
  optional string path = 1 [(keep) = true];
  optional ObjectFieldSelector fieldRef = 2;
  optional ResourceFieldSelector resourceFieldRef = 3;
  optional int32 mode = 4 [(keep) = true];
}

message VolumeProjection {
  optional SecretProjection secret = 1;
  optional DownwardAPIProjection downwardAPI = 2;
  optional ConfigMapProjection configMap = 3;
  optional ServiceAccountTokenProjection serviceAccountToken = 4;
  optional ClusterTrustBundleProjection clusterTrustBundle = 5;
}

message PersistentVolumeClaimTemplate {
  optional k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional PersistentVolumeClaimSpec spec = 2;
}

message SecretProjection {
  optional LocalObjectReference localObjectReference = 1 [(inline) = true];
  repeated KeyToPath items = 2;
  optional bool optional = 4 [(keep) = true];
}

message DownwardAPIProjection {
  repeated DownwardAPIVolumeFile items = 1;
}

message ConfigMapProjection {
  optional LocalObjectReference localObjectReference = 1 [(inline) = true];
  repeated KeyToPath items = 2;
  optional bool optional = 4 [(keep) = true];
}

message ServiceAccountTokenProjection {
  optional string audience = 1;
  optional int64 expirationSeconds = 2 [(keep) = true];
  optional string path = 3 [(keep) = true];
}

message ClusterTrustBundleProjection {
  optional string name = 1 [(keep) = true];
  optional string signerName = 2 [(keep) = true];
  optional k8s.io.apimachinery.pkg.apis.meta.v1.LabelSelector labelSelector = 3;
  optional bool optional = 5 [(keep) = true];
  optional string path = 4 [(keep) = true];
}

message PersistentVolumeClaimSpec {
  repeated string accessModes = 1;
  optional k8s.io.apimachinery.pkg.apis.meta.v1.LabelSelector selector = 4;
  optional VolumeResourceRequirements resources = 2;
  optional string volumeName = 3;
  optional string storageClassName = 5 [(keep) = true];
  optional string volumeMode = 6 [(keep) = true];
  optional TypedLocalObjectReference dataSource = 7;
  optional TypedObjectReference dataSourceRef = 8;
  optional string volumeAttributesClassName = 9 [(keep) = true];
}

message VolumeResourceRequirements {
  map<string, k8s.io.apimachinery.pkg.api.resource.Quantity> limits = 1;
  map<string, k8s.io.apimachinery.pkg.api.resource.Quantity> requests = 2;
}

message TypedLocalObjectReference {
  optional string apiGroup = 1 [(keep) = true];
  optional string kind = 2 [(keep) = true];
  optional string name = 3 [(keep) = true];
}

message TypedObjectReference {
  optional string apiGroup = 1 [(keep) = true];
  optional string kind = 2 [(keep) = true];
  optional string name = 3 [(keep) = true];
  optional string namespace = 4 [(keep) = true];
}
`;
