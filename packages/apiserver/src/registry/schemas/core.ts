/**
 * OpenAPI v3 schemas of the core/v1 kinds Namespace, ConfigMap, Secret, Event, ServiceAccount and
 * Node, with every field Kubernetes publishes (api/openapi-spec/v3/api__v1_openapi.json) and its
 * x-kubernetes-* list and patch metadata; inline trees, no $ref. Fields a manifest may carry but
 * that are missing here would be rejected under fieldValidation=Strict, so the trees are complete.
 */
import type { Schema } from '@setpoint/api';
import {
  atomicList,
  atomicStringList,
  booleanField,
  byteMapField,
  int32Field,
  int64Field,
  kindSchema,
  mapList,
  microTimeField,
  objectField,
  quantityMapField,
  stringField,
  stringMapField,
  timeField,
} from './meta.js';
import { goType } from './gotypes.js';

// ---------------------------------------------------------------------------------------------
// Shared parts

/** core/v1 ObjectReference (atomic under strategic merge). */
export const objectReferenceSchema: Schema = {
  type: 'object',
  description: 'A reference to an object: kind, namespace, name, and optionally uid and a field path.',
  properties: {
    apiVersion: stringField('API version of the referent.'),
    fieldPath: stringField('A path to a piece of the object, e.g. "spec.containers{name}".'),
    kind: stringField('Kind of the referent.'),
    name: stringField('Name of the referent.'),
    namespace: stringField('Namespace of the referent.'),
    resourceVersion: stringField('The resourceVersion the reference was made at.'),
    uid: goType('types.UID', stringField('UID of the referent.')),
  },
  'x-kubernetes-map-type': 'atomic',
};

/** core/v1 LocalObjectReference: a name in the same namespace (atomic). */
export const localObjectReferenceSchema: Schema = {
  type: 'object',
  description: 'A reference to an object in the same namespace, by name.',
  properties: {
    name: stringField('Name of the referent.', { default: '' }),
  },
  'x-kubernetes-map-type': 'atomic',
};

/** core/v1 Taint. */
export const taintSchema: Schema = objectField(
  'A taint: pods that do not tolerate it are kept off (or evicted from) the node.',
  {
    effect: stringField('NoSchedule, PreferNoSchedule or NoExecute.', { default: '', enum: ['NoExecute', 'NoSchedule', 'PreferNoSchedule'] }),
    key: stringField('The taint key.', { default: '' }),
    timeAdded: timeField('When the taint was added (NoExecute taints only).'),
    value: stringField('The taint value.'),
  },
  ['key', 'effect'],
);

// ---------------------------------------------------------------------------------------------
// Namespace

const namespaceConditionSchema: Schema = objectField(
  'The state of one aspect of a namespace.',
  {
    lastTransitionTime: timeField('When the condition last changed status.'),
    message: stringField('A human-readable message.'),
    reason: stringField('A CamelCase reason for the last transition.'),
    status: stringField('True, False or Unknown.', { default: '' }),
    type: stringField('The type of the condition.', { default: '' }),
  },
  ['type', 'status'],
);

/** v1 Namespace. */
export const namespaceSchema: Schema = kindSchema({
  group: '',
  version: 'v1',
  kind: 'Namespace',
  description: 'A scope for names (cluster-scoped).',
  properties: {
    spec: objectField('The behaviour of the namespace.', {
      finalizers: atomicStringList('Values that must be removed before the namespace is deleted from storage.'),
    }),
    status: objectField('The observed state of the namespace.', {
      conditions: mapList('The latest observations of the namespace state.', namespaceConditionSchema, 'type'),
      phase: stringField('Active or Terminating.', { enum: ['Active', 'Terminating'] }),
    }),
  },
});

// ---------------------------------------------------------------------------------------------
// ConfigMap and Secret

/** v1 ConfigMap. */
export const configMapSchema: Schema = kindSchema({
  group: '',
  version: 'v1',
  kind: 'ConfigMap',
  description: 'Configuration data for pods to consume.',
  properties: {
    binaryData: byteMapField('Binary values (base64); keys disjoint from data.'),
    data: stringMapField('UTF-8 values; keys disjoint from binaryData.'),
    immutable: booleanField('When true, data and binaryData cannot be updated.'),
  },
});

/** v1 Secret. */
export const secretSchema: Schema = kindSchema({
  group: '',
  version: 'v1',
  kind: 'Secret',
  description: 'Secret data, such as a password, token or key.',
  properties: {
    data: byteMapField('Secret values (base64); keys consist of alphanumerics, "-", "_" or ".".'),
    immutable: booleanField('When true, data cannot be updated.'),
    stringData: stringMapField('Write-only convenience: UTF-8 values merged into data on write, overriding it.'),
    type: stringField('Used to ease programmatic handling of secret data; defaults to Opaque.'),
  },
});

// ---------------------------------------------------------------------------------------------
// Event

/** v1 Event (core group). */
export const eventSchema: Schema = kindSchema({
  group: '',
  version: 'v1',
  kind: 'Event',
  description: 'A report of an event somewhere in the cluster.',
  required: ['metadata', 'involvedObject'],
  properties: {
    action: stringField('What action was taken or failed regarding the involved object.'),
    count: int32Field('The number of times this event has occurred.'),
    eventTime: microTimeField('When this event was first observed.'),
    firstTimestamp: timeField('When the event was first recorded.'),
    involvedObject: goType('v1.ObjectReference', { ...objectReferenceSchema, description: 'The object this event is about.' }),
    lastTimestamp: timeField('When the most recent occurrence of this event was recorded.'),
    message: stringField('A human-readable description of the status of this operation.'),
    reason: stringField('A short, machine-understandable reason for the transition.'),
    related: goType('v1.ObjectReference', { ...objectReferenceSchema, description: 'A secondary object for more complex actions.' }),
    reportingComponent: stringField('The controller that emitted this event, e.g. "kubernetes.io/kubelet".', { default: '' }),
    reportingInstance: stringField('The ID of the controller instance, e.g. "kubelet-xyzf".', { default: '' }),
    series: goType('v1.EventSeries', objectField('Data about the event series this event represents.', {
      count: int32Field('Number of occurrences in this series up to the last heartbeat time.'),
      lastObservedTime: microTimeField('When the last event of the series was observed.'),
    })),
    source: goType('v1.EventSource', objectField('The component reporting this event.', {
      component: stringField('Component from which the event is generated.'),
      host: stringField('Node name on which the event is generated.'),
    })),
    type: stringField('Type of this event (Normal, Warning).'),
  },
});

// ---------------------------------------------------------------------------------------------
// ServiceAccount

/** v1 ServiceAccount. */
export const serviceAccountSchema: Schema = kindSchema({
  group: '',
  version: 'v1',
  kind: 'ServiceAccount',
  description: 'An identity for processes in pods, with the secrets they may use.',
  properties: {
    automountServiceAccountToken: booleanField('Whether pods running as this account get an API token mounted.'),
    imagePullSecrets: atomicList('Secrets in the same namespace for pulling images.', localObjectReferenceSchema),
    secrets: {
      type: 'array',
      description: 'Secrets in the same namespace that pods running as this account may use.',
      items: objectReferenceSchema,
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['name'],
      'x-kubernetes-patch-merge-key': 'name',
      'x-kubernetes-patch-strategy': 'merge',
    },
  },
});

// ---------------------------------------------------------------------------------------------
// Node

const configMapNodeConfigSourceSchema: Schema = objectField(
  'A ConfigMap holding the kubelet configuration.',
  {
    kubeletConfigKey: stringField('The key of the kubelet configuration in the ConfigMap.', { default: '' }),
    name: stringField('ConfigMap name.', { default: '' }),
    namespace: stringField('ConfigMap namespace.', { default: '' }),
    resourceVersion: stringField('ConfigMap resourceVersion (status only).'),
    uid: stringField('ConfigMap uid (status only).'),
  },
  ['namespace', 'name', 'kubeletConfigKey'],
);

const nodeConfigSourceSchema: Schema = objectField('A source of node configuration (deprecated).', {
  configMap: configMapNodeConfigSourceSchema,
});

const nodeSpecSchema: Schema = objectField('The behaviour of the node.', {
  configSource: nodeConfigSourceSchema,
  externalID: stringField('Deprecated.'),
  podCIDR: stringField('The pod IP range assigned to the node.'),
  podCIDRs: {
    type: 'array',
    description: 'The pod IP ranges assigned to the node, at most one per IP family.',
    items: { type: 'string', default: '' },
    'x-kubernetes-list-type': 'set',
    'x-kubernetes-patch-strategy': 'merge',
  },
  providerID: stringField('The ID assigned by the cloud provider: <ProviderName>://<ProviderSpecificNodeID>.'),
  taints: atomicList("The node's taints.", taintSchema),
  unschedulable: booleanField('Keeps new pods off the node.'),
});

const nodeConditionSchema: Schema = objectField(
  'The state of one aspect of a node.',
  {
    lastHeartbeatTime: timeField('When the condition was last reported.'),
    lastTransitionTime: timeField('When the condition last changed status.'),
    message: stringField('A human-readable message.'),
    reason: stringField('A CamelCase reason for the last transition.'),
    status: stringField('True, False or Unknown.', { default: '' }),
    type: stringField('Ready, MemoryPressure, DiskPressure, PIDPressure, NetworkUnavailable, ...', { default: '' }),
  },
  ['type', 'status'],
);

const nodeAddressSchema: Schema = objectField(
  "One of the node's addresses.",
  {
    address: stringField('The address.', { default: '' }),
    type: stringField('Hostname, ExternalIP, InternalIP, ExternalDNS or InternalDNS.', { default: '' }),
  },
  ['type', 'address'],
);

const nodeSystemInfoSchema: Schema = objectField(
  'Identifiers of the node.',
  {
    architecture: stringField('The architecture reported by the node.', { default: '' }),
    bootID: stringField('Boot ID reported by the node.', { default: '' }),
    containerRuntimeVersion: stringField('Container runtime version, e.g. containerd://1.7.0.', { default: '' }),
    kernelVersion: stringField('Kernel version (uname -r).', { default: '' }),
    kubeProxyVersion: stringField('Deprecated: kube-proxy version.', { default: '' }),
    kubeletVersion: stringField('Kubelet version.', { default: '' }),
    machineID: stringField('Machine ID reported by the node.', { default: '' }),
    operatingSystem: stringField('The operating system reported by the node.', { default: '' }),
    osImage: stringField('OS image, from /etc/os-release.', { default: '' }),
    swap: objectField('Swap memory information.', {
      capacity: int64Field('Total swap memory in bytes.'),
    }),
    systemUUID: stringField('System UUID reported by the node.', { default: '' }),
  },
  [
    'machineID',
    'systemUUID',
    'bootID',
    'kernelVersion',
    'osImage',
    'containerRuntimeVersion',
    'kubeletVersion',
    'kubeProxyVersion',
    'operatingSystem',
    'architecture',
  ],
);

const nodeStatusSchema: Schema = objectField('The observed state of the node.', {
  addresses: mapList('Addresses reachable to the node.', nodeAddressSchema, 'type'),
  allocatable: quantityMapField('Resources available for scheduling; defaults to capacity.'),
  capacity: quantityMapField('Total resources of the node.'),
  conditions: mapList('The current observed node conditions.', nodeConditionSchema, 'type'),
  config: objectField('The status of the (deprecated) dynamic kubelet configuration.', {
    active: nodeConfigSourceSchema,
    assigned: nodeConfigSourceSchema,
    error: stringField('Errors applying the configuration.'),
    lastKnownGood: nodeConfigSourceSchema,
  }),
  daemonEndpoints: objectField('Endpoints of daemons running on the node.', {
    kubeletEndpoint: objectField('The port the kubelet listens on.', { Port: int32Field('Port number.') }, ['Port']),
  }),
  declaredFeatures: atomicStringList('Features the node declares, sorted, without duplicates.'),
  features: objectField('Features implemented by the node CRI.', {
    supplementalGroupsPolicy: booleanField('Whether the SupplementalGroupsPolicy feature is supported.'),
  }),
  images: atomicList(
    'Container images on the node.',
    objectField('A container image.', {
      names: atomicStringList('Names by which the image is known.'),
      sizeBytes: int64Field('The size of the image in bytes.'),
    }),
  ),
  nodeInfo: nodeSystemInfoSchema,
  phase: stringField('Deprecated: the lifecycle phase of the node.', { enum: ['Pending', 'Running', 'Terminated'] }),
  runtimeHandlers: atomicList(
    'The available runtime handlers.',
    objectField('A runtime handler.', {
      features: objectField('Features the handler supports.', {
        recursiveReadOnlyMounts: booleanField('Whether recursive read-only mounts are supported.'),
        userNamespaces: booleanField('Whether user namespaces are supported.'),
      }),
      name: stringField('Runtime handler name; empty for the default one.'),
    }),
  ),
  volumesAttached: atomicList(
    'Volumes attached to the node.',
    objectField(
      'A volume attached to the node.',
      {
        devicePath: stringField('Where the volume should be available.', { default: '' }),
        name: stringField('Name of the attached volume.', { default: '' }),
      },
      ['name', 'devicePath'],
    ),
  ),
  volumesInUse: atomicStringList('Volumes in use (mounted) by the node.'),
});

/** v1 Node. */
export const nodeSchema: Schema = kindSchema({
  group: '',
  version: 'v1',
  kind: 'Node',
  description: 'A worker machine (cluster-scoped).',
  properties: {
    spec: nodeSpecSchema,
    status: nodeStatusSchema,
  },
});

// Go type names, for typed decoding's messages (registry/typecheck.ts).
goType('v1.ObjectReference', objectReferenceSchema);
goType('v1.LocalObjectReference', localObjectReferenceSchema);
goType('v1.Taint', taintSchema);
goType('v1.NamespaceCondition', namespaceConditionSchema);
goType('v1.ConfigMapNodeConfigSource', configMapNodeConfigSourceSchema);
goType('v1.NodeConfigSource', nodeConfigSourceSchema);
goType('v1.NodeSpec', nodeSpecSchema);
goType('v1.NodeCondition', nodeConditionSchema);
goType('v1.NodeAddress', nodeAddressSchema);
goType('v1.NodeSystemInfo', nodeSystemInfoSchema);
goType('v1.NodeStatus', nodeStatusSchema);
