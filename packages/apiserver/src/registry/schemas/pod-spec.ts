/**
 * OpenAPI v3 schemas of core/v1 PodSpec (with affinity, tolerations, topology spread, the pod
 * security context and DNS settings), PodTemplateSpec and PodStatus, as Kubernetes publishes them:
 * field names, types, required lists and the x-kubernetes-* list and strategic-merge metadata
 * (containers merge by name, volumes by name with retainKeys, tolerations are atomic, ...).
 * Read-only; shared by the Pod, ReplicaSet and Deployment schemas.
 */
import type { Schema } from '@setpoint/api';
import {
  atomicList,
  atomicStringList,
  booleanField,
  int32Field,
  int64Field,
  labelSelectorSchema,
  mapList,
  objectField,
  objectMetaSchema,
  stringField,
  stringMapField,
  timeField,
} from './meta.js';
import {
  appArmorProfileSchema,
  atomicObject,
  containerSchema,
  ephemeralContainerSchema,
  requiredInt32,
  requiredString,
  resourceList,
  resourceRequirementsSchema,
  seccompProfileSchema,
  seLinuxOptionsSchema,
  windowsOptionsSchema,
} from './pod-container.js';
import { localObjectReferenceSchema, volumeSchema } from './pod-volume.js';
import { goType } from './gotypes.js';

// ---------------------------------------------------------------------------------------------
// Affinity

const nodeSelectorRequirementSchema: Schema = objectField(
  'A requirement on a node label or field.',
  {
    key: requiredString('The label key or field name.'),
    operator: requiredString('In, NotIn, Exists, DoesNotExist, Gt or Lt.'),
    values: atomicStringList('Values: non-empty for In and NotIn, empty for Exists and DoesNotExist, one integer for Gt and Lt.'),
  },
  ['key', 'operator'],
);

/** core/v1 NodeSelectorTerm: requirements ANDed; atomic. */
const nodeSelectorTermSchema: Schema = atomicObject(
  objectField('Node requirements, ANDed; an empty term matches no node.', {
    matchExpressions: atomicList('Requirements on node labels.', nodeSelectorRequirementSchema),
    matchFields: atomicList('Requirements on node fields.', nodeSelectorRequirementSchema),
  }),
);

/** core/v1 PodAffinityTerm. */
const podAffinityTermSchema: Schema = objectField(
  'Pods matching a selector in some namespaces, located in the same topology domain.',
  {
    labelSelector: labelSelectorSchema,
    matchLabelKeys: atomicStringList("Label keys whose values are taken from the incoming pod and ANDed into labelSelector."),
    mismatchLabelKeys: atomicStringList("Label keys whose values from the incoming pod are excluded by labelSelector."),
    namespaceSelector: labelSelectorSchema,
    namespaces: atomicStringList("Namespaces the term applies to; the pod's namespace when empty and no namespaceSelector."),
    topologyKey: requiredString('The node label whose value defines a topology domain.'),
  },
  ['topologyKey'],
);

const weightedPodAffinityTermSchema: Schema = objectField(
  'A weighted pod affinity term.',
  { podAffinityTerm: podAffinityTermSchema, weight: requiredInt32('Weight, 1-100.') },
  ['weight', 'podAffinityTerm'],
);

const podAffinityLike = (description: string): Schema =>
  objectField(description, {
    preferredDuringSchedulingIgnoredDuringExecution: atomicList('Preferences, weighed by the scheduler.', weightedPodAffinityTermSchema),
    requiredDuringSchedulingIgnoredDuringExecution: atomicList('Requirements that must hold when the pod is scheduled.', podAffinityTermSchema),
  });

/** core/v1 Affinity. */
export const affinitySchema: Schema = objectField('Scheduling constraints of the pod.', {
  nodeAffinity: objectField('Node affinity scheduling rules.', {
    preferredDuringSchedulingIgnoredDuringExecution: atomicList(
      'Preferences, weighed by the scheduler.',
      objectField(
        'A weighted node selector term.',
        { preference: nodeSelectorTermSchema, weight: requiredInt32('Weight, 1-100.') },
        ['weight', 'preference'],
      ),
    ),
    requiredDuringSchedulingIgnoredDuringExecution: atomicObject(
      objectField(
        'Node selector terms, ORed, that must hold when the pod is scheduled.',
        { nodeSelectorTerms: atomicList('The terms, ORed.', nodeSelectorTermSchema) },
        ['nodeSelectorTerms'],
      ),
    ),
  }),
  podAffinity: podAffinityLike('Pod affinity: co-locate with other pods.'),
  podAntiAffinity: podAffinityLike('Pod anti-affinity: keep away from other pods.'),
});

// ---------------------------------------------------------------------------------------------
// Tolerations and topology spread

/** core/v1 Toleration. */
export const tolerationSchema: Schema = objectField('Lets the pod tolerate a matching taint.', {
  effect: stringField('NoSchedule, PreferNoSchedule or NoExecute; all effects when empty.'),
  key: stringField('The taint key; with operator Exists, empty matches all taints.'),
  operator: stringField('Exists or Equal; Equal by default.'),
  tolerationSeconds: int64Field('For NoExecute: how long the pod stays bound after the taint appears.'),
  value: stringField('The taint value; empty with operator Exists.'),
});

/** core/v1 TopologySpreadConstraint. */
export const topologySpreadConstraintSchema: Schema = objectField(
  'How matching pods are spread across topology domains.',
  {
    labelSelector: labelSelectorSchema,
    matchLabelKeys: atomicStringList("Label keys whose values are taken from the incoming pod and ANDed into labelSelector."),
    maxSkew: requiredInt32('The largest allowed difference in matching pods between two domains; at least 1.'),
    minDomains: int32Field('The least number of eligible domains; only with DoNotSchedule.'),
    nodeAffinityPolicy: stringField('Honor or Ignore the pod node affinity when counting; Honor by default.'),
    nodeTaintsPolicy: stringField('Honor or Ignore node taints when counting; Ignore by default.'),
    topologyKey: requiredString('The node label whose value defines a domain.'),
    whenUnsatisfiable: requiredString('DoNotSchedule or ScheduleAnyway.'),
  },
  ['maxSkew', 'topologyKey', 'whenUnsatisfiable'],
);

// ---------------------------------------------------------------------------------------------
// Pod-level settings

/** core/v1 PodSecurityContext. */
export const podSecurityContextSchema: Schema = objectField('Security options applied to every container of the pod.', {
  appArmorProfile: appArmorProfileSchema,
  fsGroup: int64Field('A supplemental group that owns volumes and is added to every container.'),
  fsGroupChangePolicy: stringField('OnRootMismatch or Always.'),
  runAsGroup: int64Field('GID to run container entrypoints as.'),
  runAsNonRoot: booleanField('Refuse to start containers that would run as UID 0.'),
  runAsUser: int64Field('UID to run container entrypoints as.'),
  seLinuxChangePolicy: stringField('How SELinux labels are applied to volumes: Recursive or MountOption.'),
  seLinuxOptions: seLinuxOptionsSchema,
  seccompProfile: seccompProfileSchema,
  supplementalGroups: {
    type: 'array',
    description: 'Extra groups of the first process of each container.',
    items: { type: 'integer', format: 'int64', default: 0 },
    'x-kubernetes-list-type': 'atomic',
  },
  supplementalGroupsPolicy: stringField('Merge or Strict.'),
  sysctls: atomicList(
    'Namespaced sysctls.',
    objectField('A kernel parameter.', { name: requiredString('Parameter name.'), value: requiredString('Parameter value.') }, ['name', 'value']),
  ),
  windowsOptions: windowsOptionsSchema,
});

const hostAliasSchema: Schema = objectField(
  "An entry for the pod's /etc/hosts.",
  { hostnames: atomicStringList('Host names for the IP.'), ip: requiredString('The IP address.') },
  ['ip'],
);

const podDNSConfigSchema: Schema = objectField('DNS parameters merged with those dnsPolicy generates.', {
  nameservers: atomicStringList('DNS server IPs.'),
  options: atomicList(
    'Resolver options.',
    objectField('A resolver option.', { name: stringField('Option name.'), value: stringField('Option value.') }),
  ),
  searches: atomicStringList('DNS search domains.'),
});

const podResourceClaimSchema: Schema = objectField(
  'A DRA resource claim of the pod.',
  {
    name: requiredString('Name of the claim within the pod: a DNS label.'),
    resourceClaimName: stringField('Name of an existing ResourceClaim.'),
    resourceClaimTemplateName: stringField('Name of a ResourceClaimTemplate to make a claim from.'),
  },
  ['name'],
);

// ---------------------------------------------------------------------------------------------
// PodSpec

/** core/v1 PodSpec. */
export const podSpecSchema: Schema = objectField(
  'The desired state of a pod.',
  {
    activeDeadlineSeconds: int64Field('Seconds the pod may be active before the system fails it.'),
    affinity: affinitySchema,
    automountServiceAccountToken: booleanField('Mount a service account token automatically.'),
    containers: mapList('The containers; at least one.', containerSchema, 'name'),
    dnsConfig: podDNSConfigSchema,
    dnsPolicy: stringField('ClusterFirstWithHostNet, ClusterFirst, Default or None; ClusterFirst by default.'),
    enableServiceLinks: booleanField('Inject service environment variables; true by default.'),
    ephemeralContainers: mapList('Debugging containers added through the ephemeralcontainers subresource.', ephemeralContainerSchema, 'name'),
    evictionResponders: mapList(
      'Components that respond to eviction requests for the pod, by priority.',
      objectField('An eviction responder.', { name: requiredString('Name of the responder.'), priority: requiredInt32('Priority of the responder.') }, ['name', 'priority']),
      'name',
    ),
    hostAliases: mapList("Entries for the pod's /etc/hosts.", hostAliasSchema, 'ip'),
    hostIPC: booleanField("Use the host's IPC namespace."),
    hostNetwork: booleanField("Use the host's network namespace."),
    hostPID: booleanField("Use the host's PID namespace."),
    hostUsers: booleanField("Use the host's user namespace; true by default."),
    hostname: stringField('Hostname of the pod; the pod name by default.'),
    hostnameOverride: stringField('An explicit hostname, overriding hostname and subdomain.'),
    imagePullSecrets: mapList('Secrets used to pull the images.', localObjectReferenceSchema, 'name'),
    initContainers: mapList('Containers run in order, to completion, before the app containers.', containerSchema, 'name'),
    nodeName: stringField('The node the pod is bound to; set through the binding subresource.'),
    nodeSelector: { ...stringMapField('Labels a node must have for the pod to fit.'), 'x-kubernetes-map-type': 'atomic' },
    os: objectField('The operating system of the containers.', { name: requiredString('linux or windows.') }, ['name']),
    overhead: resourceList('Resources of the pod sandbox, set from the RuntimeClass.'),
    preemptionPolicy: stringField('Never or PreemptLowerPriority.'),
    priority: int32Field('Priority of the pod, set from priorityClassName.'),
    priorityClassName: stringField('Name of a PriorityClass.'),
    readinessGates: atomicList(
      'Extra conditions required for pod readiness.',
      objectField('A readiness gate.', { conditionType: requiredString('A condition type of the pod.') }, ['conditionType']),
    ),
    resourceClaims: {
      ...mapList('DRA resource claims of the pod.', podResourceClaimSchema, 'name'),
      'x-kubernetes-patch-strategy': 'merge,retainKeys',
    },
    resources: resourceRequirementsSchema,
    restartPolicy: stringField('Always, OnFailure or Never; Always by default.'),
    runtimeClassName: stringField('Name of the RuntimeClass to run the pod with.'),
    schedulerName: stringField('The scheduler that places the pod; default-scheduler by default.'),
    schedulingGates: mapList(
      'Gates that keep the pod from being scheduled while present.',
      objectField('A scheduling gate.', { name: requiredString('Name of the gate.') }, ['name']),
      'name',
    ),
    schedulingGroup: objectField('The group the pod is scheduled with.', { podGroupName: stringField('Name of the pod group.') }),
    securityContext: podSecurityContextSchema,
    serviceAccount: stringField('Deprecated alias of serviceAccountName.'),
    serviceAccountName: stringField('The service account the pod runs as.'),
    setHostnameAsFQDN: booleanField('Set the hostname to the fully qualified domain name.'),
    shareProcessNamespace: booleanField('Share one PID namespace between all containers.'),
    subdomain: stringField('Subdomain of the pod: <hostname>.<subdomain>.<namespace>.svc.<cluster-domain>.'),
    terminationGracePeriodSeconds: int64Field('Seconds the pod has to stop gracefully; 30 by default.'),
    tolerations: atomicList('Taints the pod tolerates.', tolerationSchema),
    topologySpreadConstraints: mapList(
      'How the pod spreads across topology domains.',
      topologySpreadConstraintSchema,
      'topologyKey',
      ['topologyKey', 'whenUnsatisfiable'],
    ),
    volumes: {
      ...mapList('Volumes containers can mount.', volumeSchema, 'name'),
      'x-kubernetes-patch-strategy': 'merge,retainKeys',
    },
  },
  ['containers'],
);

/** core/v1 PodTemplateSpec: the pod a controller creates. */
export const podTemplateSpecSchema: Schema = objectField('A template for the pods a controller creates.', {
  metadata: objectMetaSchema,
  spec: podSpecSchema,
});

// ---------------------------------------------------------------------------------------------
// PodStatus

/** core/v1 ContainerState. */
const containerStateSchema: Schema = objectField('The state of a container; at most one member is set.', {
  running: objectField('A running container.', { startedAt: timeField('When the container last started.') }),
  terminated: objectField(
    'A container that ran and exited.',
    {
      containerID: stringField('ID of the container.'),
      exitCode: requiredInt32('Exit status of its last termination.'),
      finishedAt: timeField('When it last terminated.'),
      message: stringField('Message about the termination.'),
      reason: stringField('Brief reason for the termination.'),
      signal: int32Field('Signal of its last termination.'),
      startedAt: timeField('When it last started.'),
    },
    ['exitCode'],
  ),
  waiting: objectField('A container not yet running.', {
    message: stringField('Why it is not running yet.'),
    reason: stringField('Brief reason it is not running yet.'),
  }),
});

/** core/v1 ContainerStatus. */
const containerStatusSchema: Schema = objectField(
  'What the node reports about one container.',
  {
    allocatedResources: resourceList('Resources the node allocated to the container.'),
    allocatedResourcesStatus: mapList(
      'Health of the devices allocated to the container.',
      objectField(
        'Health of one resource.',
        {
          name: requiredString('Resource name.'),
          resources: {
            ...atomicList(
              'Health of each device.',
              objectField(
                'Health of one device.',
                { health: stringField('Healthy, Unhealthy or Unknown.'), message: stringField('Details.'), resourceID: requiredString('Device ID.') },
                ['resourceID'],
              ),
            ),
            'x-kubernetes-list-type': 'map',
            'x-kubernetes-list-map-keys': ['resourceID'],
          },
        },
        ['name'],
      ),
      'name',
    ),
    containerID: stringField('ID of the container: <type>://<id>.'),
    image: requiredString('The image the container runs.'),
    imageID: requiredString('ID of that image.'),
    lastState: containerStateSchema,
    name: requiredString('Name of the container.'),
    ready: { ...booleanField('Whether the container passes its readiness probe.'), default: false },
    resources: resourceRequirementsSchema,
    restartCount: requiredInt32('How many times the container restarted.'),
    started: booleanField('Whether the container passed its startup probe.'),
    state: containerStateSchema,
    stopSignal: stringField('The signal that stops the container.'),
    user: objectField('Identities of the first process of the container.', {
      linux: objectField(
        'Linux identities.',
        {
          gid: { ...int64Field('Primary GID.'), default: 0 },
          supplementalGroups: {
            type: 'array',
            description: 'Supplemental groups.',
            items: { type: 'integer', format: 'int64', default: 0 },
            'x-kubernetes-list-type': 'atomic',
          },
          uid: { ...int64Field('UID.'), default: 0 },
        },
        ['uid', 'gid'],
      ),
    }),
    volumeMounts: mapList(
      'Status of the volume mounts.',
      objectField(
        'A mounted volume.',
        {
          mountPath: requiredString('Where the volume is mounted.'),
          name: requiredString('Name of the volume.'),
          readOnly: booleanField('Mounted read-only.'),
          recursiveReadOnly: stringField('Whether read-only applies to sub-mounts.'),
          volumeStatus: { type: 'object', description: 'Status of the volume source.', 'x-kubernetes-preserve-unknown-fields': true },
        },
        ['name', 'mountPath'],
      ),
      'mountPath',
    ),
  },
  ['name', 'ready', 'restartCount', 'image', 'imageID'],
);

/** core/v1 PodCondition. */
const podConditionSchema: Schema = objectField(
  'One condition of a pod.',
  {
    // Kubernetes writes a zero time as null ("lastProbeTime: null"), so null must validate.
    lastProbeTime: { ...timeField('When the condition was last probed.'), nullable: true },
    lastTransitionTime: { ...timeField('When the condition last changed status.'), nullable: true },
    message: stringField('Human-readable details.'),
    observedGeneration: int64Field('The metadata.generation the condition was set for.'),
    reason: stringField('CamelCase reason of the last transition.'),
    status: requiredString('True, False or Unknown.'),
    type: requiredString('The condition type.'),
  },
  ['type', 'status'],
);

const ipSchema = (what: string): Schema => objectField(`An IP address of the ${what}.`, { ip: requiredString('The IP address.') }, ['ip']);

/** core/v1 PodStatus. */
export const podStatusSchema: Schema = objectField('The observed state of a pod, written by the system.', {
  allocatedResources: resourceList('Pod-level resources the node allocated.'),
  conditions: mapList('The conditions of the pod.', podConditionSchema, 'type'),
  containerStatuses: atomicList('One status per container.', containerStatusSchema),
  ephemeralContainerStatuses: atomicList('One status per ephemeral container.', containerStatusSchema),
  extendedResourceClaimStatus: { type: 'object', description: 'The claim backing extended resource requests.', 'x-kubernetes-preserve-unknown-fields': true },
  hostIP: stringField('Primary IP of the node the pod runs on.'),
  hostIPs: { ...atomicList('IPs of the node the pod runs on.', ipSchema('node')), 'x-kubernetes-patch-merge-key': 'ip', 'x-kubernetes-patch-strategy': 'merge' },
  initContainerStatuses: atomicList('One status per init container.', containerStatusSchema),
  message: stringField('Why the pod is in its phase.'),
  nodeAllocatableResourceClaimStatuses: mapList(
    'Node-allocatable resources claimed through DRA.',
    { type: 'object', description: 'One claim of node-allocatable resources.', 'x-kubernetes-preserve-unknown-fields': true },
    'resourceClaimName',
  ),
  nominatedNodeName: stringField('The node the pod may run on once preemption there completes.'),
  observedGeneration: int64Field('The metadata.generation the status was written for.'),
  phase: stringField('Pending, Running, Succeeded, Failed or Unknown.'),
  podIP: stringField('Primary IP of the pod.'),
  podIPs: mapList('IPs of the pod.', ipSchema('pod'), 'ip'),
  qosClass: stringField('Guaranteed, Burstable or BestEffort, from the resource requirements.'),
  reason: stringField('Brief CamelCase reason for the phase, e.g. Evicted.'),
  resize: stringField('Status of an in-place resize (deprecated).'),
  resourceClaimStatuses: {
    ...mapList(
      'The ResourceClaims generated for the pod.',
      objectField(
        'A generated claim.',
        { name: requiredString('Name of the pod resource claim.'), resourceClaimName: stringField('Name of the generated ResourceClaim.') },
        ['name'],
      ),
      'name',
    ),
    'x-kubernetes-patch-strategy': 'merge,retainKeys',
  },
  resources: resourceRequirementsSchema,
  startTime: timeField('When the node acknowledged the pod.'),
  volumeHealth: {
    ...atomicList('Health of the volumes of the pod.', { type: 'object', description: 'Health of one volume.', 'x-kubernetes-preserve-unknown-fields': true }),
    'x-kubernetes-list-type': 'map',
    'x-kubernetes-list-map-keys': ['name'],
  },
});

// Go type names, for typed decoding's messages (registry/typecheck.ts).
goType('v1.NodeSelectorRequirement', nodeSelectorRequirementSchema);
goType('v1.NodeSelectorTerm', nodeSelectorTermSchema);
goType('v1.PodAffinityTerm', podAffinityTermSchema);
goType('v1.WeightedPodAffinityTerm', weightedPodAffinityTermSchema);
goType('v1.Affinity', affinitySchema);
goType('v1.Toleration', tolerationSchema);
goType('v1.TopologySpreadConstraint', topologySpreadConstraintSchema);
goType('v1.PodSecurityContext', podSecurityContextSchema);
goType('v1.HostAlias', hostAliasSchema);
goType('v1.PodDNSConfig', podDNSConfigSchema);
goType('v1.PodResourceClaim', podResourceClaimSchema);
goType('v1.PodSpec', podSpecSchema);
goType('v1.PodTemplateSpec', podTemplateSpecSchema);
goType('v1.ContainerState', containerStateSchema);
goType('v1.ContainerStatus', containerStatusSchema);
goType('v1.PodCondition', podConditionSchema);
goType('v1.PodStatus', podStatusSchema);
