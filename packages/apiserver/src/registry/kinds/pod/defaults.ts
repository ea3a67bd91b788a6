/**
 * Pod defaulting as Kubernetes does it (pkg/apis/core/v1/defaults.go, the +default markers of
 * k8s.io/api core/v1, and the generated SetObjectDefaults_Pod / SetObjectDefaults_PodTemplate
 * walks): {@link defaultPodSpec} for every pod spec (pods and the templates of ReplicaSets and
 * Deployments), {@link defaultPod} for pods only (requests from limits, enableServiceLinks, host
 * ports under hostNetwork).
 *
 * Quantities are rewritten in canonical form ("1000m" → "1", 0.5 → "500m"), as Kubernetes prints
 * them after a round trip; resource lists are first rounded up to milli precision. A value that does
 * not parse is left alone for validation to report. Every function mutates its argument in place
 * and tolerates any shape: fields of the wrong type are skipped.
 */
import { Quantity, formatQuantity, tryParseQuantity, type KubeObject } from '@setpoint/api';
import { arrayAt, ensureObject, isObject, isSet, objectAt, objectsAt, setDefault, stringAt, type JsonObject } from '../../validation/json-fields.js';

/** Default file mode of secret, configMap, downwardAPI and projected volumes: 0644. */
export const DEFAULT_VOLUME_MODE = 0o644;
/** Default pod terminationGracePeriodSeconds. */
export const DEFAULT_TERMINATION_GRACE_PERIOD_SECONDS = 30;
/** Default pod schedulerName. */
export const DEFAULT_SCHEDULER_NAME = 'default-scheduler';
/** Default container terminationMessagePath. */
export const TERMINATION_MESSAGE_PATH_DEFAULT = '/dev/termination-log';

// ---------------------------------------------------------------------------------------------
// Images

// distribution/reference's grammar (what Kubernetes' parsers.ParseImageName accepts).
const PATH_COMPONENT = '[a-z0-9]+(?:(?:[._]|__|[-]+)[a-z0-9]+)*';
const DOMAIN_COMPONENT = '(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])';
const DOMAIN = `(?:${DOMAIN_COMPONENT}(?:\\.${DOMAIN_COMPONENT})*|\\[[a-fA-F0-9:]+\\])(?::[0-9]+)?`;
const TAG = '[\\w][\\w.-]{0,127}';
const DIGEST = '[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}';
const referenceRegexp = new RegExp(`^((?:${DOMAIN}/)?${PATH_COMPONENT}(?:/${PATH_COMPONENT})*)(?::(${TAG}))?(?:@(${DIGEST}))?$`);

/**
 * The pull policy Kubernetes gives a container without one: Always when the image's tag is
 * "latest" (or it has neither tag nor digest, which means latest), IfNotPresent otherwise —
 * including for an image reference that does not parse.
 */
export function imagePullPolicyFor(image: string): 'Always' | 'IfNotPresent' {
  const m = referenceRegexp.exec(image);
  if (m === null || m[1]!.length > 255) return 'IfNotPresent';
  const tag = m[2] ?? (m[3] === undefined ? 'latest' : '');
  return tag === 'latest' ? 'Always' : 'IfNotPresent';
}

// ---------------------------------------------------------------------------------------------
// Quantities

const MILLI_NANOS = 1_000_000n;

/** The quantity a JSON value holds (a string, or a number as Kubernetes' decoder reads it). */
function parseJsonQuantity(v: unknown): Quantity | undefined {
  if (typeof v === 'string') return tryParseQuantity(v);
  if (typeof v === 'number' && Number.isFinite(v)) return tryParseQuantity(String(v));
  return undefined;
}

/** A quantity value in canonical form; unchanged when it does not parse. */
export function canonicalQuantity(v: unknown): unknown {
  const q = parseJsonQuantity(v);
  return q === undefined ? v : formatQuantity(q);
}

/**
 * SetDefaults_ResourceList: every quantity rounded up (away from zero) to milli precision, then
 * written in canonical form ("0.5m" → "1m", "1000m" → "1"). Values that do not parse stay.
 */
export function defaultResourceList(list: unknown): void {
  if (!isObject(list)) return;
  for (const [name, v] of Object.entries(list)) {
    const q = parseJsonQuantity(v);
    if (q === undefined) continue;
    let nanos = q.nanos;
    const rest = nanos % MILLI_NANOS;
    if (rest !== 0n) nanos = nanos - rest + (nanos > 0n ? MILLI_NANOS : -MILLI_NANOS);
    list[name] = formatQuantity(new Quantity(nanos, q.format));
  }
}

function defaultResourceRequirements(resources: unknown): void {
  defaultResourceList(objectAt(resources, 'limits'));
  defaultResourceList(objectAt(resources, 'requests'));
}

// ---------------------------------------------------------------------------------------------
// Containers

function defaultObjectFieldSelector(fieldRef: JsonObject | undefined): void {
  if (fieldRef !== undefined) setDefault(fieldRef, 'apiVersion', 'v1');
}

function defaultResourceFieldSelector(ref: JsonObject | undefined): void {
  if (ref !== undefined && isSet(ref, 'divisor')) ref['divisor'] = canonicalQuantity(ref['divisor']);
}

function defaultHTTPGetAction(action: JsonObject | undefined): void {
  if (action === undefined) return;
  setDefault(action, 'path', '/');
  setDefault(action, 'scheme', 'HTTP');
}

/** SetDefaults_Probe and the defaults of its handler. */
function defaultProbe(probe: JsonObject | undefined): void {
  if (probe === undefined) return;
  // Go's zero value (0) counts as unset, so an explicit 0 is defaulted too.
  for (const [field, value] of [
    ['timeoutSeconds', 1],
    ['periodSeconds', 10],
    ['successThreshold', 1],
    ['failureThreshold', 3],
  ] as const) {
    if (probe[field] === undefined || probe[field] === null || probe[field] === 0) probe[field] = value;
  }
  defaultHTTPGetAction(objectAt(probe, 'httpGet'));
  const grpc = objectAt(probe, 'grpc');
  if (grpc !== undefined) setDefault(grpc, 'service', '');
}

/** SetDefaults_Container and the walk over a container's ports, env, resources, probes and lifecycle. */
export function defaultContainer(container: JsonObject): void {
  if (!isSet(container, 'imagePullPolicy') || container['imagePullPolicy'] === '') {
    container['imagePullPolicy'] = imagePullPolicyFor(stringAt(container, 'image'));
  }
  setDefault(container, 'terminationMessagePath', TERMINATION_MESSAGE_PATH_DEFAULT);
  setDefault(container, 'terminationMessagePolicy', 'File');
  for (const [port] of objectsAt(container, 'ports')) setDefault(port, 'protocol', 'TCP');
  for (const [env] of objectsAt(container, 'env')) {
    const from = objectAt(env, 'valueFrom');
    defaultObjectFieldSelector(objectAt(from, 'fieldRef'));
    defaultResourceFieldSelector(objectAt(from, 'resourceFieldRef'));
  }
  // A Go struct, never omitted: Kubernetes always prints "resources: {}".
  const resources = ensureObject(container, 'resources');
  defaultResourceRequirements(resources);
  defaultProbe(objectAt(container, 'livenessProbe'));
  defaultProbe(objectAt(container, 'readinessProbe'));
  defaultProbe(objectAt(container, 'startupProbe'));
  const lifecycle = objectAt(container, 'lifecycle');
  defaultHTTPGetAction(objectAt(objectAt(lifecycle, 'postStart'), 'httpGet'));
  defaultHTTPGetAction(objectAt(objectAt(lifecycle, 'preStop'), 'httpGet'));
}

// ---------------------------------------------------------------------------------------------
// Volumes

function defaultDownwardAPIItems(source: unknown): void {
  for (const [item] of objectsAt(source, 'items')) {
    defaultObjectFieldSelector(objectAt(item, 'fieldRef'));
    defaultResourceFieldSelector(objectAt(item, 'resourceFieldRef'));
  }
}

/** SetDefaults_Volume and the defaults of each volume source. */
export function defaultVolume(volume: JsonObject): void {
  const hasSource = Object.keys(volume).some((k) => k !== 'name' && volume[k] !== undefined && volume[k] !== null);
  if (!hasSource) volume['emptyDir'] = {};

  const emptyDir = objectAt(volume, 'emptyDir');
  if (emptyDir !== undefined && isSet(emptyDir, 'sizeLimit')) emptyDir['sizeLimit'] = canonicalQuantity(emptyDir['sizeLimit']);
  const hostPath = objectAt(volume, 'hostPath');
  if (hostPath !== undefined) setDefault(hostPath, 'type', '');
  for (const name of ['secret', 'configMap']) {
    const source = objectAt(volume, name);
    if (source !== undefined) setDefault(source, 'defaultMode', DEFAULT_VOLUME_MODE);
  }
  const downwardAPI = objectAt(volume, 'downwardAPI');
  if (downwardAPI !== undefined) {
    setDefault(downwardAPI, 'defaultMode', DEFAULT_VOLUME_MODE);
    defaultDownwardAPIItems(downwardAPI);
  }
  const projected = objectAt(volume, 'projected');
  if (projected !== undefined) {
    setDefault(projected, 'defaultMode', DEFAULT_VOLUME_MODE);
    for (const [source] of objectsAt(projected, 'sources')) {
      defaultDownwardAPIItems(objectAt(source, 'downwardAPI'));
      const token = objectAt(source, 'serviceAccountToken');
      if (token !== undefined) setDefault(token, 'expirationSeconds', 3600);
    }
  }
  const claimSpec = objectAt(objectAt(objectAt(volume, 'ephemeral'), 'volumeClaimTemplate'), 'spec');
  if (claimSpec !== undefined) {
    setDefault(claimSpec, 'volumeMode', 'Filesystem');
    defaultResourceRequirements(objectAt(claimSpec, 'resources'));
  }
  const image = objectAt(volume, 'image');
  if (image !== undefined && !isSet(image, 'pullPolicy')) {
    image['pullPolicy'] = imagePullPolicyFor(stringAt(image, 'reference'));
  }
  // The +default markers of the in-tree volume sources.
  const declarative: Array<[string, Array<[string, unknown]>]> = [
    ['rbd', [['pool', 'rbd'], ['user', 'admin'], ['keyring', '/etc/ceph/keyring']]],
    ['iscsi', [['iscsiInterface', 'default']]],
    ['azureDisk', [['cachingMode', 'ReadWrite'], ['fsType', 'ext4'], ['readOnly', false], ['kind', 'Shared']]],
    ['scaleIO', [['storageMode', 'ThinProvisioned'], ['fsType', 'xfs']]],
  ];
  for (const [name, fields] of declarative) {
    const source = objectAt(volume, name);
    if (source !== undefined) for (const [field, value] of fields) setDefault(source, field, value);
  }
}

// ---------------------------------------------------------------------------------------------
// Pod spec, template, pod

/**
 * SetDefaults_PodSpec and the walk over volumes and containers, for every pod spec (pods and pod
 * templates): restartPolicy Always, dnsPolicy ClusterFirst, securityContext {},
 * terminationGracePeriodSeconds 30, schedulerName default-scheduler; container, probe, port,
 * volume and resource-list defaults.
 */
export function defaultPodSpec(spec: JsonObject): void {
  setDefault(spec, 'dnsPolicy', 'ClusterFirst');
  setDefault(spec, 'restartPolicy', 'Always');
  setDefault(spec, 'securityContext', {});
  setDefault(spec, 'terminationGracePeriodSeconds', DEFAULT_TERMINATION_GRACE_PERIOD_SECONDS);
  setDefault(spec, 'schedulerName', DEFAULT_SCHEDULER_NAME);
  for (const [volume] of objectsAt(spec, 'volumes')) defaultVolume(volume);
  for (const list of ['initContainers', 'containers', 'ephemeralContainers']) {
    for (const [container] of objectsAt(spec, list)) defaultContainer(container);
  }
  defaultResourceList(objectAt(spec, 'overhead'));
  defaultResourceRequirements(objectAt(spec, 'resources'));
}

/** The defaults of a pod template (SetObjectDefaults_PodTemplate's walk): its spec gets {@link defaultPodSpec}. */
export function defaultPodTemplateSpec(template: unknown): void {
  const spec = objectAt(template, 'spec');
  if (spec !== undefined) defaultPodSpec(spec);
}

/** Requests missing from a container's resources are copied from its limits (SetDefaults_Pod). */
function defaultRequestsFromLimits(container: JsonObject): void {
  const resources = objectAt(container, 'resources');
  const limits = objectAt(resources, 'limits');
  if (resources === undefined || limits === undefined) return;
  const requests = ensureObject(resources, 'requests');
  if (requests === undefined) return;
  for (const [name, value] of Object.entries(limits)) if (!(name in requests)) requests[name] = value;
}

/**
 * SetObjectDefaults_Pod: the pod-only defaults of SetDefaults_Pod (container and init container
 * requests copied from limits, enableServiceLinks true, with hostNetwork each container port's
 * hostPort set to its containerPort), then {@link defaultPodSpec}.
 */
export function defaultPod(pod: KubeObject): void {
  const spec = isObject(pod['spec']) ? pod['spec'] : undefined;
  if (spec === undefined) return;
  for (const list of ['containers', 'initContainers']) {
    for (const [container] of objectsAt(spec, list)) defaultRequestsFromLimits(container);
  }
  setDefault(spec, 'enableServiceLinks', true);
  if (spec['hostNetwork'] === true) {
    for (const list of ['containers', 'initContainers']) {
      for (const [container] of objectsAt(spec, list)) {
        for (const port of arrayAt(container, 'ports')) {
          if (isObject(port) && (port['hostPort'] === undefined || port['hostPort'] === 0)) port['hostPort'] = port['containerPort'];
        }
      }
    }
  }
  defaultPodSpec(spec);
}
