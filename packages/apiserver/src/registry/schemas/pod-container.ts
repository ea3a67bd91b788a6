/**
 * OpenAPI v3 schemas of a pod's containers (core/v1 Container, EphemeralContainer and their parts:
 * ports, env, resources, probes, lifecycle, volume mounts, security context), with the field names,
 * types, required lists and x-kubernetes-* list and patch metadata Kubernetes publishes for them.
 * Shared by the Pod, ReplicaSet and Deployment schemas (schemas/workloads.ts); read-only.
 */
import type { Schema } from '@setpoint/api';
import {
  atomicList,
  atomicStringList,
  booleanField,
  int32Field,
  int64Field,
  mapList,
  objectField,
  quantityField,
  stringField,
} from './meta.js';
import { goType } from './gotypes.js';

// ---------------------------------------------------------------------------------------------
// Scalars Kubernetes gives special treatment

/**
 * A resource.Quantity ("500m", "1Gi"; numbers are accepted on input and printed as strings), marked
 * `x-kubernetes-int-or-string` as the published schemas of quantities are.
 */
export function quantity(description: string): Schema {
  return { ...quantityField(description), 'x-kubernetes-int-or-string': true };
}

/** A ResourceList: resource name → quantity. */
export function resourceList(description: string): Schema {
  return goType('v1.ResourceList', { type: 'object', description, additionalProperties: quantity('A resource quantity.') });
}

/** An intstr.IntOrString field: an integer or a string (a port name, a percentage). */
export function intOrString(description: string): Schema {
  return { description, anyOf: [{ type: 'integer' }, { type: 'string' }], 'x-kubernetes-int-or-string': true };
}

/** A required string: Kubernetes publishes `default: ""` for these. */
export function requiredString(description: string): Schema {
  return stringField(description, { default: '' });
}

/** `schema` marked `x-kubernetes-map-type: atomic` (a struct replaced whole by strategic merge). */
export function atomicObject(schema: Schema): Schema {
  return { ...schema, 'x-kubernetes-map-type': 'atomic' };
}

/** A required integer: Kubernetes publishes `default: 0` for these. */
export function requiredInt32(description: string): Schema {
  return { ...int32Field(description), default: 0 };
}

// ---------------------------------------------------------------------------------------------
// Selectors used by env and the downward API

/** core/v1 ObjectFieldSelector: a field of the pod ("metadata.name", "status.podIP"). */
export const objectFieldSelectorSchema: Schema = atomicObject(
  objectField(
    'Selects a field of the pod.',
    {
      apiVersion: stringField('Version of the schema fieldPath is written in; "v1" by default.'),
      fieldPath: requiredString('Path of the field to select, in the given API version.'),
    },
    ['fieldPath'],
  ),
);

/** core/v1 ResourceFieldSelector: a container resource ("limits.cpu") scaled by a divisor. */
export const resourceFieldSelectorSchema: Schema = atomicObject(
  objectField(
    'Selects a resource of a container: limits.cpu, limits.memory, requests.cpu, ...',
    {
      containerName: stringField('Container name; required for volumes, optional for env vars.'),
      divisor: quantity('Output format of the exposed value; 1 by default.'),
      resource: requiredString('The resource to select.'),
    },
    ['resource'],
  ),
);

function keySelector(what: string): Schema {
  return atomicObject(
    objectField(
      `Selects a key of a ${what}.`,
      {
        key: requiredString('The key to select.'),
        name: stringField(`Name of the ${what}.`, { default: '' }),
        optional: booleanField(`Whether the ${what} or its key may be missing.`),
      },
      ['key'],
    ),
  );
}

/** core/v1 EnvVarSource: where an environment variable's value comes from. */
export const envVarSourceSchema: Schema = objectField('The source of an environment variable value; exactly one field is set.', {
  configMapKeyRef: keySelector('ConfigMap'),
  fieldRef: objectFieldSelectorSchema,
  fileKeyRef: atomicObject(
    objectField(
      'Selects a key of an env file in an emptyDir volume.',
      {
        key: requiredString('The key within the env file.'),
        optional: booleanField('Whether the file or its key may be missing.'),
        path: requiredString('Path of the env file within the volume.'),
        volumeName: requiredString('Name of the volume holding the env file.'),
      },
      ['volumeName', 'path', 'key'],
    ),
  ),
  resourceFieldRef: resourceFieldSelectorSchema,
  secretKeyRef: keySelector('Secret'),
});

/** core/v1 EnvVar. */
export const envVarSchema: Schema = objectField(
  'An environment variable of a container.',
  {
    name: requiredString('Name of the variable.'),
    value: stringField('Literal value; $(VAR) references to earlier variables are expanded.'),
    valueFrom: envVarSourceSchema,
  },
  ['name'],
);

function envSourceRef(what: string): Schema {
  return objectField(`A ${what} whose keys become environment variables.`, {
    name: stringField(`Name of the ${what}.`, { default: '' }),
    optional: booleanField(`Whether the ${what} may be missing.`),
  });
}

/** core/v1 EnvFromSource. */
export const envFromSourceSchema: Schema = objectField('A set of environment variables taken from a ConfigMap or a Secret.', {
  configMapRef: envSourceRef('ConfigMap'),
  prefix: stringField('A prefix added to every key.'),
  secretRef: envSourceRef('Secret'),
});

// ---------------------------------------------------------------------------------------------
// Ports and resources

/** core/v1 ContainerPort. */
export const containerPortSchema: Schema = objectField(
  'A network port of a container.',
  {
    containerPort: int32Field('Port number on the pod IP, 1-65535.'),
    hostIP: stringField('Host IP to bind the host port to.'),
    hostPort: int32Field('Port number on the host, 1-65535; with hostNetwork it equals containerPort.'),
    name: stringField('An IANA_SVC_NAME, unique in the pod; services refer to the port by it.'),
    protocol: stringField('UDP, TCP or SCTP; TCP by default.', { default: 'TCP' }),
  },
  ['containerPort'],
);

/** core/v1 ResourceClaim (a container's use of a pod resource claim). */
const resourceClaimSchema: Schema = objectField(
  'A pod resource claim a container uses.',
  {
    name: requiredString('Name of an entry of pod.spec.resourceClaims.'),
    request: stringField('One request of the claim; all requests when empty.'),
  },
  ['name'],
);

/** core/v1 ResourceRequirements. */
export const resourceRequirementsSchema: Schema = objectField('Compute resource requirements.', {
  claims: {
    ...atomicList('Resource claims used by this container.', resourceClaimSchema),
    'x-kubernetes-list-type': 'map',
    'x-kubernetes-list-map-keys': ['name'],
  },
  limits: resourceList('The most of each resource the container may use.'),
  requests: resourceList('The least of each resource the container needs; defaults to limits when only limits are set.'),
});

const containerResizePolicySchema: Schema = objectField(
  'How a container reacts to an in-place resize of a resource.',
  {
    resourceName: requiredString('The resource: cpu or memory.'),
    restartPolicy: requiredString('NotRequired or RestartContainer.'),
  },
  ['resourceName', 'restartPolicy'],
);

const containerRestartRuleSchema: Schema = objectField(
  'A rule deciding whether an exited container restarts.',
  {
    action: requiredString('What to do when the rule matches: Restart.'),
    exitCodes: objectField(
      'Exit codes the rule matches.',
      {
        operator: requiredString('In or NotIn.'),
        values: { type: 'array', description: 'The exit codes.', items: { type: 'integer', format: 'int32', default: 0 }, 'x-kubernetes-list-type': 'set' },
      },
      ['operator'],
    ),
  },
  ['action'],
);

// ---------------------------------------------------------------------------------------------
// Volume mounts

/** core/v1 VolumeMount. */
export const volumeMountSchema: Schema = objectField(
  'A volume mounted into a container.',
  {
    bindMountOptions: { ...atomicStringList('Extra options of the bind mount.'), 'x-kubernetes-list-type': 'set' },
    mountPath: requiredString("Path in the container where the volume is mounted; must not contain ':'."),
    mountPropagation: stringField('None, HostToContainer or Bidirectional.'),
    name: requiredString('Name of a volume of the pod.'),
    readOnly: booleanField('Mount read-only.'),
    recursiveReadOnly: stringField('Disabled, IfPossible or Enabled: whether read-only applies to sub-mounts.'),
    subPath: stringField("Path within the volume to mount instead of its root."),
    subPathExpr: stringField('Like subPath, with $(VAR) references expanded from the environment.'),
  },
  ['name', 'mountPath'],
);

/** core/v1 VolumeDevice. */
export const volumeDeviceSchema: Schema = objectField(
  'A raw block volume mapped into a container.',
  {
    devicePath: requiredString('Path in the container the device is mapped to.'),
    name: requiredString('Name of a persistentVolumeClaim volume of the pod.'),
  },
  ['name', 'devicePath'],
);

// ---------------------------------------------------------------------------------------------
// Probes and lifecycle

const execActionSchema: Schema = objectField('Runs a command in the container.', {
  command: atomicStringList('The command line; not run in a shell. Exit status 0 is success.'),
});

/** core/v1 HTTPGetAction. */
const httpGetActionSchema: Schema = objectField(
  'An HTTP GET request to the container.',
  {
    host: stringField('Host name to connect to; the pod IP by default.'),
    httpHeaders: atomicList(
      'Custom request headers.',
      objectField(
        'An HTTP header.',
        {
          name: requiredString('Header name; normalized on output.'),
          value: requiredString('Header value.'),
        },
        ['name', 'value'],
      ),
    ),
    path: stringField('Path to request.'),
    port: intOrString('Port number or name to request.'),
    protocol: stringField('HTTP protocol of the request, e.g. H2C.'),
    scheme: stringField('HTTP or HTTPS; HTTP by default.'),
  },
  ['port'],
);

const tcpSocketActionSchema: Schema = objectField(
  'Opens a TCP connection to the container.',
  {
    host: stringField('Host name to connect to; the pod IP by default.'),
    port: intOrString('Port number or name to connect to.'),
  },
  ['port'],
);

const grpcActionSchema: Schema = objectField(
  'A gRPC health check.',
  {
    mode: stringField('Connection mode, e.g. TLS (without certificate verification).'),
    port: requiredInt32('Port of the gRPC service, 1-65535.'),
    service: stringField('Service name sent in the HealthCheckRequest.', { default: '' }),
  },
  ['port'],
);

const sleepActionSchema: Schema = objectField('Sleeps for a while.', { seconds: { ...int64Field('Seconds to sleep.'), default: 0 } }, ['seconds']);

/** core/v1 Probe. */
export const probeSchema: Schema = objectField('A health check of a container; exactly one action is set.', {
  exec: execActionSchema,
  failureThreshold: int32Field('Consecutive failures after which the probe has failed; 3 by default.'),
  grpc: grpcActionSchema,
  httpGet: httpGetActionSchema,
  initialDelaySeconds: int32Field('Seconds after the container starts before probing begins.'),
  periodSeconds: int32Field('How often to probe, in seconds; 10 by default.'),
  successThreshold: int32Field('Consecutive successes after a failure for the probe to succeed; 1 by default.'),
  tcpSocket: tcpSocketActionSchema,
  terminationGracePeriodSeconds: int64Field('Grace period when the probe fails; overrides the pod value.'),
  timeoutSeconds: int32Field('Seconds after which the probe times out; 1 by default.'),
});

const lifecycleHandlerSchema: Schema = objectField('An action run at a lifecycle event; exactly one is set.', {
  exec: execActionSchema,
  httpGet: httpGetActionSchema,
  sleep: sleepActionSchema,
  tcpSocket: tcpSocketActionSchema,
});

/** core/v1 Lifecycle. */
export const lifecycleSchema: Schema = objectField('Actions the system runs at container lifecycle events.', {
  postStart: lifecycleHandlerSchema,
  preStop: lifecycleHandlerSchema,
  stopSignal: stringField('The signal that stops the container.'),
});

// ---------------------------------------------------------------------------------------------
// Security context

/** core/v1 SELinuxOptions. */
export const seLinuxOptionsSchema: Schema = objectField('SELinux labels applied to the container.', {
  level: stringField('SELinux level label.'),
  role: stringField('SELinux role label.'),
  type: stringField('SELinux type label.'),
  user: stringField('SELinux user label.'),
});

/** core/v1 WindowsSecurityContextOptions. */
export const windowsOptionsSchema: Schema = objectField('Windows-specific options.', {
  gmsaCredentialSpec: stringField('Inlined GMSA credential spec.'),
  gmsaCredentialSpecName: stringField('Name of the GMSA credential spec to use.'),
  hostProcess: booleanField('Run as a Windows HostProcess container.'),
  runAsUserName: stringField('Windows user name to run as.'),
});

function profileSchema(what: string): Schema {
  return {
    ...objectField(
      `The ${what} profile.`,
      {
        localhostProfile: stringField('Path of a profile on the node; only with type Localhost.'),
        type: requiredString('Localhost, RuntimeDefault or Unconfined.'),
      },
      ['type'],
    ),
    'x-kubernetes-unions': [{ discriminator: 'type', 'fields-to-discriminateBy': { localhostProfile: 'LocalhostProfile' } }],
  };
}

/** core/v1 SeccompProfile. */
export const seccompProfileSchema: Schema = profileSchema('seccomp');
/** core/v1 AppArmorProfile. */
export const appArmorProfileSchema: Schema = profileSchema('AppArmor');

/** core/v1 SecurityContext (per container). */
export const securityContextSchema: Schema = objectField('Security options of a container; they override the pod security context.', {
  allowPrivilegeEscalation: booleanField('Whether a process may gain more privileges than its parent.'),
  appArmorProfile: appArmorProfileSchema,
  capabilities: objectField('Linux capabilities to add and drop.', {
    add: atomicStringList('Capabilities to add.'),
    drop: atomicStringList('Capabilities to drop.'),
  }),
  privileged: booleanField('Run as privileged: root on the host.'),
  procMount: stringField('Default or Unmasked.'),
  readOnlyRootFilesystem: booleanField('Mount the root filesystem read-only.'),
  runAsGroup: int64Field('GID to run the entrypoint as.'),
  runAsNonRoot: booleanField('Refuse to start if the image would run as UID 0.'),
  runAsUser: int64Field('UID to run the entrypoint as.'),
  seLinuxOptions: seLinuxOptionsSchema,
  seccompProfile: seccompProfileSchema,
  windowsOptions: windowsOptionsSchema,
});

// ---------------------------------------------------------------------------------------------
// Container

/** The properties shared by Container and EphemeralContainer. */
const containerProperties: Record<string, Schema> = {
  args: atomicStringList('Arguments to the entrypoint; the image CMD when empty.'),
  command: atomicStringList('Entrypoint array, not run in a shell; the image ENTRYPOINT when empty.'),
  env: mapList('Environment variables.', envVarSchema, 'name'),
  envFrom: atomicList('Sources of environment variables; env entries win over these.', envFromSourceSchema),
  image: stringField('Container image name.'),
  imagePullPolicy: stringField('Always, Never or IfNotPresent; Always for :latest or no tag, else IfNotPresent.'),
  lifecycle: lifecycleSchema,
  livenessProbe: probeSchema,
  name: requiredString('Name of the container: a DNS label, unique in the pod.'),
  ports: mapList('Ports the container exposes.', containerPortSchema, 'containerPort', ['containerPort', 'protocol']),
  readinessProbe: probeSchema,
  resizePolicy: atomicList('How the container reacts to in-place resource resizes.', containerResizePolicySchema),
  resources: resourceRequirementsSchema,
  restartPolicy: stringField('Only for init containers: Always makes a sidecar that runs for the life of the pod.'),
  restartPolicyRules: atomicList('Rules deciding whether an exited container restarts.', containerRestartRuleSchema),
  securityContext: securityContextSchema,
  startupProbe: probeSchema,
  stdin: booleanField('Allocate a buffer for stdin.'),
  stdinOnce: booleanField('Close stdin after the first attach session ends.'),
  terminationMessagePath: stringField('File the termination message is read from; /dev/termination-log by default.'),
  terminationMessagePolicy: stringField('File or FallbackToLogsOnError; File by default.'),
  tty: booleanField('Allocate a TTY.'),
  volumeDevices: mapList('Block devices the container uses.', volumeDeviceSchema, 'devicePath'),
  volumeMounts: mapList('Volumes mounted into the container filesystem.', volumeMountSchema, 'mountPath'),
  workingDir: stringField('Working directory; the image default when empty.'),
};

/** core/v1 Container. */
export const containerSchema: Schema = objectField('A container of a pod.', containerProperties, ['name']);

/** core/v1 EphemeralContainer: a debugging container added to a running pod. */
export const ephemeralContainerSchema: Schema = objectField(
  'A temporary container added to a running pod for debugging.',
  {
    ...containerProperties,
    targetContainerName: stringField('Name of the container whose namespaces this one joins.'),
  },
  ['name'],
);

// Go type names, for typed decoding's messages (registry/typecheck.ts).
goType('v1.ObjectFieldSelector', objectFieldSelectorSchema);
goType('v1.ResourceFieldSelector', resourceFieldSelectorSchema);
goType('v1.EnvVarSource', envVarSourceSchema);
goType('v1.EnvVar', envVarSchema);
goType('v1.EnvFromSource', envFromSourceSchema);
goType('v1.ContainerPort', containerPortSchema);
goType('v1.ResourceClaim', resourceClaimSchema);
goType('v1.ResourceRequirements', resourceRequirementsSchema);
goType('v1.ContainerResizePolicy', containerResizePolicySchema);
goType('v1.ContainerRestartRule', containerRestartRuleSchema);
goType('v1.VolumeMount', volumeMountSchema);
goType('v1.VolumeDevice', volumeDeviceSchema);
goType('v1.ExecAction', execActionSchema);
goType('v1.HTTPGetAction', httpGetActionSchema);
goType('v1.TCPSocketAction', tcpSocketActionSchema);
goType('v1.GRPCAction', grpcActionSchema);
goType('v1.SleepAction', sleepActionSchema);
goType('v1.Probe', probeSchema);
goType('v1.LifecycleHandler', lifecycleHandlerSchema);
goType('v1.Lifecycle', lifecycleSchema);
goType('v1.SELinuxOptions', seLinuxOptionsSchema);
goType('v1.WindowsOptions', windowsOptionsSchema);
goType('v1.SeccompProfile', seccompProfileSchema);
goType('v1.AppArmorProfile', appArmorProfileSchema);
goType('v1.SecurityContext', securityContextSchema);
goType('v1.Container', containerSchema);
goType('v1.EphemeralContainer', ephemeralContainerSchema);
