/**
 * OpenAPI v3 schemas of pod volumes (core/v1 Volume and every VolumeSource Kubernetes has, including
 * the in-tree cloud disks it still publishes), with Kubernetes' field names, types, required lists and
 * list metadata. A manifest naming any real Kubernetes volume source passes strict field validation.
 * Read-only; shared by every kind with a pod template.
 */
import type { Schema } from '@setpoint/api';
import { atomicList, atomicStringList, booleanField, int32Field, int64Field, labelSelectorSchema, objectField, objectMetaSchema, stringField, stringMapField } from './meta.js';
import { atomicObject, objectFieldSelectorSchema, quantity, requiredInt32, requiredString, resourceFieldSelectorSchema, resourceList } from './pod-container.js';
import { goType } from './gotypes.js';

/** core/v1 LocalObjectReference: a name in the same namespace; atomic. */
export const localObjectReferenceSchema: Schema = atomicObject(
  objectField('A reference to an object in the same namespace.', { name: stringField('Name of the referent.', { default: '' }) }),
);

const fileModeField = (description: string): Schema => int32Field(`${description} Octal 0000-0777 (YAML) or decimal 0-511 (JSON).`);
const fileUserField = int64Field('Owner UID of the file.');
const defaultUserField = int64Field('Owner UID of the created files.');
const readOnlyField = booleanField('Force read-only mounts.');
const fsTypeField = stringField('Filesystem type to mount, e.g. "ext4"; implicitly "ext4" when empty.');
const secretRefField = localObjectReferenceSchema;

/** core/v1 KeyToPath: a ConfigMap or Secret key projected to a file. */
export const keyToPathSchema: Schema = objectField(
  'Maps a key to a relative file path in the volume.',
  {
    key: requiredString('The key to project.'),
    mode: fileModeField('File mode bits; the volume default mode when unset.'),
    path: requiredString("Relative path of the file; may not contain '..' or start with '..'."),
    user: fileUserField,
  },
  ['key', 'path'],
);

/** core/v1 DownwardAPIVolumeFile. */
const downwardAPIVolumeFileSchema: Schema = objectField(
  'A file holding a pod field or a container resource.',
  {
    fieldRef: objectFieldSelectorSchema,
    mode: fileModeField('File mode bits.'),
    path: requiredString('Relative path of the file.'),
    resourceFieldRef: resourceFieldSelectorSchema,
    user: fileUserField,
  },
  ['path'],
);

// ---------------------------------------------------------------------------------------------
// Projected volume

const projectedKeysSource = (what: string): Schema =>
  objectField(`Projects keys of a ${what} into the volume.`, {
    items: atomicList('Keys to project; every key when empty.', keyToPathSchema),
    name: stringField(`Name of the ${what}.`, { default: '' }),
    optional: booleanField(`Whether the ${what} or its keys may be missing.`),
  });

/** core/v1 VolumeProjection: one source of a projected volume. */
const volumeProjectionSchema: Schema = objectField('One source of a projected volume; exactly one field is set.', {
  clusterTrustBundle: objectField(
    'Projects ClusterTrustBundle certificates into a file.',
    {
      labelSelector: labelSelectorSchema,
      name: stringField('Name of one ClusterTrustBundle; exclusive with signerName.'),
      optional: booleanField('Whether a missing bundle is tolerated.'),
      path: requiredString('Relative path of the file.'),
      signerName: stringField('Select bundles of this signer.'),
      user: fileUserField,
    },
    ['path'],
  ),
  configMap: projectedKeysSource('ConfigMap'),
  downwardAPI: objectField('Projects pod fields into files.', { items: atomicList('The files.', downwardAPIVolumeFileSchema) }),
  podCertificate: objectField(
    'Projects a kubelet-managed key and certificate into files.',
    {
      certificateChainPath: stringField('Relative path of the certificate chain file.'),
      credentialBundlePath: stringField('Relative path of a file holding key and chain.'),
      keyPath: stringField('Relative path of the private key file.'),
      keyType: requiredString('The key type to generate.'),
      maxExpirationSeconds: int32Field('Longest certificate lifetime requested.'),
      signerName: requiredString('The signer to request certificates from.'),
      user: fileUserField,
      userAnnotations: stringMapField('Annotations passed to the signer.'),
    },
    ['signerName', 'keyType'],
  ),
  secret: projectedKeysSource('Secret'),
  serviceAccountToken: objectField(
    'Projects a service account token into a file.',
    {
      audience: stringField('Intended audience of the token; the API server by default.'),
      expirationSeconds: int64Field('Requested token lifetime; 3600 by default, at least 600.'),
      path: requiredString('Relative path of the token file.'),
      user: fileUserField,
    },
    ['path'],
  ),
});

// ---------------------------------------------------------------------------------------------
// PersistentVolumeClaimSpec (generic ephemeral volumes)

const typedLocalObjectReference = (description: string, extra: Record<string, Schema> = {}): Schema =>
  objectField(
    description,
    {
      apiGroup: stringField('API group of the referent; the core group when empty.'),
      kind: requiredString('Kind of the referent.'),
      name: requiredString('Name of the referent.'),
      ...extra,
    },
    ['kind', 'name'],
  );

/** core/v1 PersistentVolumeClaimSpec, as embedded in an ephemeral volume's claim template. */
const persistentVolumeClaimSpecSchema: Schema = objectField('The desired characteristics of a volume.', {
  accessModes: atomicStringList('ReadWriteOnce, ReadOnlyMany, ReadWriteMany or ReadWriteOncePod.'),
  dataSource: atomicObject(typedLocalObjectReference('A VolumeSnapshot, a PVC or a populator object to fill the volume from.')),
  dataSourceRef: typedLocalObjectReference('The object to fill the volume from, possibly in another namespace.', {
    namespace: stringField('Namespace of the referent.'),
  }),
  resources: objectField('The least resources the volume must have.', {
    limits: resourceList('The most storage allowed.'),
    requests: resourceList('The least storage required.'),
  }),
  selector: labelSelectorSchema,
  storageClassName: stringField('Name of the StorageClass.'),
  volumeAttributesClassName: stringField('Name of the VolumeAttributesClass.'),
  volumeMode: stringField('Filesystem or Block; Filesystem by default.'),
  volumeName: stringField('The PersistentVolume to bind to.'),
});

// ---------------------------------------------------------------------------------------------
// Volume sources

const sources: Record<string, Schema> = {
  awsElasticBlockStore: objectField(
    'An AWS EBS disk (deprecated).',
    { fsType: fsTypeField, partition: int32Field('Partition to mount.'), readOnly: readOnlyField, volumeID: requiredString('EBS volume ID.') },
    ['volumeID'],
  ),
  azureDisk: objectField(
    'An Azure data disk (deprecated).',
    {
      cachingMode: stringField('None, ReadOnly or ReadWrite.'),
      diskName: requiredString('Name of the disk.'),
      diskURI: requiredString('URI of the disk.'),
      fsType: stringField('Filesystem type; "ext4" by default.', { default: 'ext4' }),
      kind: stringField('Shared, Dedicated or Managed.'),
      readOnly: booleanField('Force read-only mounts.'),
    },
    ['diskName', 'diskURI'],
  ),
  azureFile: objectField(
    'An Azure File share (deprecated).',
    { readOnly: readOnlyField, secretName: requiredString('Secret with the account name and key.'), shareName: requiredString('Share name.') },
    ['secretName', 'shareName'],
  ),
  cephfs: objectField(
    'A CephFS mount (deprecated).',
    {
      monitors: atomicStringList('Ceph monitors.'),
      path: stringField('Path within the filesystem; / by default.'),
      readOnly: readOnlyField,
      secretFile: stringField('Path of the keyring file.'),
      secretRef: secretRefField,
      user: stringField('RADOS user; admin by default.'),
    },
    ['monitors'],
  ),
  cinder: objectField(
    'An OpenStack Cinder volume (deprecated).',
    { fsType: fsTypeField, readOnly: readOnlyField, secretRef: secretRefField, volumeID: requiredString('Cinder volume ID.') },
    ['volumeID'],
  ),
  configMap: objectField('A ConfigMap projected as files.', {
    defaultMode: fileModeField('Mode bits of the created files; 0644 by default.'),
    defaultUser: defaultUserField,
    items: atomicList('Keys to project; every key when empty.', keyToPathSchema),
    name: stringField('Name of the ConfigMap.', { default: '' }),
    optional: booleanField('Whether the ConfigMap or its keys may be missing.'),
  }),
  csi: objectField(
    'A volume provided by a CSI driver.',
    {
      driver: requiredString('Name of the CSI driver.'),
      fsType: stringField('Filesystem type to mount.'),
      nodePublishSecretRef: secretRefField,
      readOnly: booleanField('Read-only mount.'),
      volumeAttributes: stringMapField('Driver-specific properties.'),
    },
    ['driver'],
  ),
  downwardAPI: objectField('Pod fields projected as files.', {
    defaultMode: fileModeField('Mode bits of the created files; 0644 by default.'),
    defaultUser: defaultUserField,
    items: atomicList('The files.', downwardAPIVolumeFileSchema),
  }),
  emptyDir: objectField('A temporary directory sharing the pod lifetime.', {
    medium: stringField('Storage medium: "" (node default) or Memory.'),
    mode: int32Field('Mode bits of the directory.'),
    sizeLimit: quantity('The most local storage the volume may use.'),
  }),
  ephemeral: objectField('A volume backed by a PVC created for and deleted with the pod.', {
    volumeClaimTemplate: objectField(
      'The PVC to create.',
      { metadata: objectMetaSchema, spec: persistentVolumeClaimSpecSchema },
      ['spec'],
    ),
  }),
  fc: objectField('A Fibre Channel volume.', {
    fsType: fsTypeField,
    lun: int32Field('Target LUN number.'),
    readOnly: readOnlyField,
    targetWWNs: atomicStringList('Target world wide names.'),
    wwids: atomicStringList('Volume world wide identifiers.'),
  }),
  flexVolume: objectField(
    'A volume provided by an exec-based plugin (deprecated).',
    {
      driver: requiredString('Name of the driver.'),
      fsType: stringField('Filesystem type to mount.'),
      options: stringMapField('Extra command options.'),
      readOnly: readOnlyField,
      secretRef: secretRefField,
    },
    ['driver'],
  ),
  flocker: objectField('A Flocker dataset (deprecated).', {
    datasetName: stringField('Dataset name.'),
    datasetUUID: stringField('Dataset UUID.'),
  }),
  gcePersistentDisk: objectField(
    'A GCE persistent disk (deprecated).',
    { fsType: fsTypeField, partition: int32Field('Partition to mount.'), pdName: requiredString('Name of the disk.'), readOnly: readOnlyField },
    ['pdName'],
  ),
  gitRepo: objectField(
    'A git repository cloned into the volume (deprecated).',
    {
      directory: stringField('Target directory name.'),
      repository: requiredString('Repository URL.'),
      revision: stringField('Commit hash.'),
    },
    ['repository'],
  ),
  glusterfs: objectField(
    'A Glusterfs mount (deprecated).',
    { endpoints: requiredString('Endpoints naming the cluster.'), path: requiredString('Volume path.'), readOnly: readOnlyField },
    ['endpoints', 'path'],
  ),
  hostPath: objectField(
    'A file or directory of the node.',
    {
      path: requiredString('Path on the node; a symlink is followed.'),
      type: stringField('"", DirectoryOrCreate, Directory, FileOrCreate, File, Socket, CharDevice or BlockDevice.'),
    },
    ['path'],
  ),
  image: objectField('An OCI image or artifact mounted read-only.', {
    pullPolicy: stringField('Always, Never or IfNotPresent.'),
    reference: stringField('Image or artifact reference.'),
  }),
  iscsi: objectField(
    'An iSCSI disk.',
    {
      chapAuthDiscovery: booleanField('Use CHAP authentication for discovery.'),
      chapAuthSession: booleanField('Use CHAP authentication for the session.'),
      fsType: fsTypeField,
      initiatorName: stringField('Custom initiator name.'),
      iqn: requiredString('Target iSCSI qualified name.'),
      iscsiInterface: stringField('Interface name; "default" by default.', { default: 'default' }),
      lun: requiredInt32('Target LUN number.'),
      portals: atomicStringList('Target portals.'),
      readOnly: readOnlyField,
      secretRef: secretRefField,
      targetPortal: requiredString('Target portal, IP or ip:port.'),
    },
    ['targetPortal', 'iqn', 'lun'],
  ),
  nfs: objectField(
    'An NFS export.',
    { path: requiredString('Exported path.'), readOnly: readOnlyField, server: requiredString('Server host name or IP.') },
    ['server', 'path'],
  ),
  persistentVolumeClaim: objectField(
    'A PersistentVolumeClaim in the same namespace.',
    { claimName: requiredString('Name of the claim.'), readOnly: booleanField('Force a read-only mount.') },
    ['claimName'],
  ),
  photonPersistentDisk: objectField(
    'A Photon Controller disk (deprecated).',
    { fsType: fsTypeField, pdID: requiredString('Disk ID.') },
    ['pdID'],
  ),
  portworxVolume: objectField(
    'A Portworx volume (deprecated).',
    { fsType: fsTypeField, readOnly: readOnlyField, volumeID: requiredString('Volume ID.') },
    ['volumeID'],
  ),
  projected: objectField('Several sources projected into one directory.', {
    defaultMode: fileModeField('Mode bits of the created files; 0644 by default.'),
    defaultUser: defaultUserField,
    sources: atomicList('The sources.', volumeProjectionSchema),
  }),
  quobyte: objectField(
    'A Quobyte mount (deprecated).',
    {
      group: stringField('Group to map access to.'),
      readOnly: readOnlyField,
      registry: requiredString('Registries as host:port pairs, comma separated.'),
      tenant: stringField('Tenant owning the volume.'),
      user: stringField('User to map access to.'),
      volume: requiredString('Volume name.'),
    },
    ['registry', 'volume'],
  ),
  rbd: objectField(
    'A Rados block device (deprecated).',
    {
      fsType: fsTypeField,
      image: requiredString('RADOS image name.'),
      keyring: stringField('Keyring path; /etc/ceph/keyring by default.', { default: '/etc/ceph/keyring' }),
      monitors: atomicStringList('Ceph monitors.'),
      pool: stringField('RADOS pool; rbd by default.', { default: 'rbd' }),
      readOnly: readOnlyField,
      secretRef: secretRefField,
      user: stringField('RADOS user; admin by default.', { default: 'admin' }),
    },
    ['monitors', 'image'],
  ),
  scaleIO: objectField(
    'A ScaleIO volume (deprecated).',
    {
      fsType: stringField('Filesystem type; "xfs" by default.', { default: 'xfs' }),
      gateway: requiredString('Gateway host.'),
      protectionDomain: stringField('Protection domain.'),
      readOnly: readOnlyField,
      secretRef: secretRefField,
      sslEnabled: booleanField('Use SSL to the gateway.'),
      storageMode: stringField('ThickProvisioned or ThinProvisioned.', { default: 'ThinProvisioned' }),
      storagePool: stringField('Storage pool.'),
      system: requiredString('Storage system name.'),
      volumeName: stringField('Volume name.'),
    },
    ['gateway', 'system', 'secretRef'],
  ),
  secret: objectField('A Secret projected as files.', {
    defaultMode: fileModeField('Mode bits of the created files; 0644 by default.'),
    defaultUser: defaultUserField,
    items: atomicList('Keys to project; every key when empty.', keyToPathSchema),
    optional: booleanField('Whether the Secret or its keys may be missing.'),
    secretName: stringField('Name of the Secret.'),
  }),
  storageos: objectField('A StorageOS volume (deprecated).', {
    fsType: fsTypeField,
    readOnly: readOnlyField,
    secretRef: secretRefField,
    volumeName: stringField('Volume name.'),
    volumeNamespace: stringField('Volume namespace.'),
  }),
  vsphereVolume: objectField(
    'A vSphere disk (deprecated).',
    {
      fsType: fsTypeField,
      storagePolicyID: stringField('Storage policy ID.'),
      storagePolicyName: stringField('Storage policy name.'),
      volumePath: requiredString('Path of the disk.'),
    },
    ['volumePath'],
  ),
};

/** core/v1 Volume: a name and exactly one source. */
export const volumeSchema: Schema = objectField(
  'A named volume that containers of the pod can mount.',
  { name: requiredString('Name of the volume: a DNS label, unique in the pod.'), ...sources },
  ['name'],
);

// Go type names, for typed decoding's messages (registry/typecheck.ts).
goType('v1.LocalObjectReference', localObjectReferenceSchema);
goType('v1.KeyToPath', keyToPathSchema);
goType('v1.DownwardAPIVolumeFile', downwardAPIVolumeFileSchema);
goType('v1.VolumeProjection', volumeProjectionSchema);
goType('v1.PersistentVolumeClaimSpec', persistentVolumeClaimSpecSchema);
goType('v1.Volume', volumeSchema);
