/**
 * Validation of a pod's containers as Kubernetes' pkg/apis/core/validation does it: the checks every
 * container gets (validateContainerCommon: name, image, ports, env, envFrom, volume mounts and
 * devices, pull policy, resources), the rules of regular, init and ephemeral containers, probes and
 * lifecycle handlers, and host port conflicts. Field paths and messages are Kubernetes'; values of
 * the wrong JSON type read as Go's zero value.
 */
import { FieldError, QuantityError, isQualifiedName, nameIsDNSSubdomain, type Quantity } from '@setpoint/api';
import { isConfigMapKey } from '../configmap/configmap.js';
import { IS_NEGATIVE_ERROR_MSG } from '../../objectmeta.js';
import {
  isEnvVarName,
  isHTTPHeaderName,
  isValidPortName,
  isValidPortNum,
  readQuantity,
  validateDNS1123Label,
  validateLocalDescendingPath,
  validateNonnegative,
  validatePortNumOrName,
} from '../../validation/field-rules.js';
import { arrayAt, booleanAt, child, index, isObject, isSet, key, numberAt, objectAt, objectsAt, stringAt, type JsonObject } from '../../validation/json-fields.js';
import { validateContainerSecurityContext } from './validation-security.js';

/** What container validation needs to know about the pod. */
export interface ContainerContext {
  /** Volumes of the pod by name (only the valid ones, as Kubernetes passes them). */
  readonly volumes: ReadonlyMap<string, JsonObject>;
  /** Names of the pod's resource claims. */
  readonly claimNames: ReadonlySet<string>;
  /** spec.terminationGracePeriodSeconds, for sleep actions. */
  readonly gracePeriod: number | undefined;
  /** spec.restartPolicy (a Never pod may only resize without restarts). */
  readonly restartPolicy: string;
}

// ---------------------------------------------------------------------------------------------
// Resources

const STANDARD_CONTAINER_RESOURCES = new Set(['cpu', 'memory', 'ephemeral-storage']);
const STANDARD_RESOURCES = new Set([
  'cpu',
  'memory',
  'ephemeral-storage',
  'requests.cpu',
  'requests.memory',
  'requests.ephemeral-storage',
  'limits.cpu',
  'limits.memory',
  'limits.ephemeral-storage',
  'pods',
  'services',
  'replicationcontrollers',
  'resourcequotas',
  'secrets',
  'configmaps',
  'persistentvolumeclaims',
  'storage',
  'requests.storage',
  'services.nodeports',
  'services.loadbalancers',
]);
const isHugePages = (name: string): boolean => name.startsWith('hugepages-');
const isNative = (name: string): boolean => !name.includes('/') || name.includes('kubernetes.io/');
const isExtended = (name: string): boolean => !isNative(name) && !name.startsWith('requests.') && isQualifiedName(`requests.${name}`).length === 0;
const overcommitAllowed = (name: string): boolean => isNative(name) && !isHugePages(name);

/** validateContainerResourceName. */
function validateContainerResourceName(name: string, path: string): FieldError[] {
  const errs = isQualifiedName(name).map((msg) => FieldError.invalid(path, name, msg));
  if (errs.length > 0) return errs;
  if (!name.includes('/')) {
    if (!STANDARD_RESOURCES.has(name) && !isHugePages(name)) errs.push(FieldError.invalid(path, name, 'must be a standard resource type or fully qualified'));
    if (!STANDARD_CONTAINER_RESOURCES.has(name) && !isHugePages(name)) errs.push(FieldError.invalid(path, name, 'must be a standard resource for containers'));
  } else if (!isNative(name) && !isExtended(name)) {
    errs.push(FieldError.invalid(path, name, "doesn't follow extended resource name standard"));
  }
  return errs;
}

/** ValidateResourceQuantityValue, plus the decoder's refusal of a value that is not a quantity. */
function validateQuantityValue(name: string, raw: unknown, path: string): { q?: Quantity; errs: FieldError[] } {
  const q = readQuantity(raw);
  if (q instanceof QuantityError) return { errs: [FieldError.invalid(path, raw, q.message)] };
  const errs: FieldError[] = [];
  if (q.nanos < 0n) errs.push(FieldError.invalid(path, q.toString(), IS_NEGATIVE_ERROR_MSG));
  if (isExtended(name) && q.nanos % 1_000_000_000n !== 0n) errs.push(FieldError.invalid(path, q.toString(), 'must be an integer'));
  return { q, errs };
}

/**
 * ValidateResourceRequirements (containers, pod-level resources, overhead): names, quantities,
 * requests ≤ limits (`<path>.requests: Invalid value: "2": must be less than or equal to cpu limit
 * of 1`), requests = limits for resources that cannot be overcommitted, hugepages need cpu or memory,
 * claims name pod resource claims.
 */
export function validateResourceRequirements(resources: unknown, claimNames: ReadonlySet<string>, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const limPath = child(path, 'limits');
  const reqPath = child(path, 'requests');
  const limits = new Map<string, Quantity>();
  let cpuOrMemory = false;
  let hugePages = false;
  for (const [name, raw] of Object.entries(objectAt(resources, 'limits') ?? {})) {
    const fld = key(limPath, name);
    errs.push(...validateContainerResourceName(name, fld));
    const { q, errs: qErrs } = validateQuantityValue(name, raw, fld);
    errs.push(...qErrs);
    if (q !== undefined) limits.set(name, q);
    if (isHugePages(name)) hugePages = true;
    if (name === 'cpu' || name === 'memory') cpuOrMemory = true;
  }
  for (const [name, raw] of Object.entries(objectAt(resources, 'requests') ?? {})) {
    const fld = key(reqPath, name);
    errs.push(...validateContainerResourceName(name, fld));
    const { q, errs: qErrs } = validateQuantityValue(name, raw, fld);
    errs.push(...qErrs);
    const limit = limits.get(name);
    if (q !== undefined && limit !== undefined) {
      if (q.nanos !== limit.nanos && !overcommitAllowed(name)) {
        errs.push(FieldError.invalid(reqPath, q.toString(), `must be equal to ${name} limit of ${limit.toString()}`));
      } else if (q.nanos > limit.nanos) {
        errs.push(FieldError.invalid(reqPath, q.toString(), `must be less than or equal to ${name} limit of ${limit.toString()}`));
      }
    } else if (q !== undefined && !overcommitAllowed(name) && !isSet(objectAt(resources, 'limits'), name)) {
      errs.push(FieldError.required(limPath, 'Limit must be set for non overcommitable resources'));
    }
    if (isHugePages(name)) hugePages = true;
    if (name === 'cpu' || name === 'memory') cpuOrMemory = true;
  }
  if (hugePages && !cpuOrMemory) errs.push(FieldError.forbidden(path, 'HugePages require cpu or memory'));
  const seen = new Set<string>();
  arrayAt(resources, 'claims').forEach((claim, i) => {
    const name = stringAt(claim, 'name');
    const fld = index(child(path, 'claims'), i);
    if (name === '') {
      errs.push(FieldError.required(fld));
      return;
    }
    if (seen.has(name)) errs.push(FieldError.duplicate(fld, name));
    else seen.add(name);
    if (!claimNames.has(name)) {
      const detail = `must be one of the names in pod.spec.resourceClaims${claimNames.size === 0 ? ' which is empty' : `: ${[...claimNames].sort().join(', ')}`}`;
      errs.push(new FieldError('FieldValueNotFound', fld, name, detail));
    }
  });
  return errs;
}

// ---------------------------------------------------------------------------------------------
// Ports, env, mounts

const PORT_PROTOCOLS = ['SCTP', 'TCP', 'UDP'];

function validateContainerPorts(container: JsonObject, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set<string>();
  for (const [port, i] of objectsAt(container, 'ports')) {
    const p = index(path, i);
    const name = stringAt(port, 'name');
    if (name !== '') {
      const msgs = isValidPortName(name);
      if (msgs.length > 0) errs.push(...msgs.map((msg) => FieldError.invalid(child(p, 'name'), name, msg)));
      else if (names.has(name)) errs.push(FieldError.duplicate(child(p, 'name'), name));
      else names.add(name);
    }
    const containerPort = numberAt(port, 'containerPort') ?? 0;
    if (containerPort === 0) errs.push(FieldError.required(child(p, 'containerPort')));
    else errs.push(...isValidPortNum(containerPort).map((msg) => FieldError.invalid(child(p, 'containerPort'), containerPort, msg)));
    const hostPort = numberAt(port, 'hostPort') ?? 0;
    if (hostPort !== 0) errs.push(...isValidPortNum(hostPort).map((msg) => FieldError.invalid(child(p, 'hostPort'), hostPort, msg)));
    const protocol = stringAt(port, 'protocol');
    if (protocol === '') errs.push(FieldError.required(child(p, 'protocol')));
    else if (!PORT_PROTOCOLS.includes(protocol)) errs.push(FieldError.notSupported(child(p, 'protocol'), protocol, PORT_PROTOCOLS));
  }
  return errs;
}

const ENV_FIELD_PATHS = [
  'metadata.name',
  'metadata.namespace',
  'metadata.uid',
  'spec.nodeName',
  'spec.serviceAccountName',
  'status.hostIP',
  'status.hostIPs',
  'status.podIP',
  'status.podIPs',
].sort();
/** The pod fields a downward API volume file may select. */
export const VOLUME_FIELD_PATHS: readonly string[] = ['metadata.annotations', 'metadata.labels', 'metadata.name', 'metadata.namespace', 'metadata.uid'];
const RESOURCE_FIELD_PATHS = [
  'limits.cpu',
  'limits.ephemeral-storage',
  'limits.memory',
  'requests.cpu',
  'requests.ephemeral-storage',
  'requests.memory',
];

/** Field labels Kubernetes' ConvertDownwardAPIFieldLabel knows for pods (v1). */
const POD_FIELD_LABELS = new Set([
  'metadata.annotations',
  'metadata.labels',
  'metadata.name',
  'metadata.namespace',
  'metadata.uid',
  'spec.nodeName',
  'spec.restartPolicy',
  'spec.serviceAccountName',
  'spec.schedulerName',
  'status.phase',
  'status.hostIP',
  'status.hostIPs',
  'status.podIP',
  'status.podIPs',
]);

/**
 * validateObjectFieldSelector: a downward API field path Kubernetes can convert, among `allowed`;
 * `metadata.labels['k']` and `metadata.annotations['k']` with a qualified-name subscript.
 */
export function validateObjectFieldSelector(ref: JsonObject, allowed: readonly string[], path: string): FieldError[] {
  const apiVersion = stringAt(ref, 'apiVersion');
  if (apiVersion === '') return [FieldError.required(child(path, 'apiVersion'))];
  let fieldPath = stringAt(ref, 'fieldPath');
  if (fieldPath === '') return [FieldError.required(child(path, 'fieldPath'))];
  const converting = (msg: string) => [FieldError.invalid(child(path, 'fieldPath'), fieldPath, `error converting fieldPath: ${msg}`)];
  if (apiVersion !== 'v1') return converting(`unsupported pod version: ${apiVersion}`);
  // fieldpath.SplitMaybeSubscriptedPath: "base['subscript']".
  const open = fieldPath.indexOf("['");
  if (fieldPath.endsWith("']") && open > 0) {
    const base = fieldPath.slice(0, open);
    const subscript = fieldPath.slice(open + 2, -2);
    if (base === 'metadata.annotations') return isQualifiedName(subscript.toLowerCase()).map((msg) => FieldError.invalid(path, subscript.toLowerCase(), msg));
    if (base === 'metadata.labels') return isQualifiedName(subscript).map((msg) => FieldError.invalid(path, subscript, msg));
    return converting(`field label does not support subscript: ${fieldPath}`);
  }
  if (fieldPath === 'spec.host') fieldPath = 'spec.nodeName';
  else if (!POD_FIELD_LABELS.has(fieldPath)) return converting(`field label not supported: ${fieldPath}`);
  return allowed.includes(fieldPath) ? [] : [FieldError.notSupported(child(path, 'fieldPath'), fieldPath, allowed)];
}

/** validateContainerResourceFieldSelector. */
export function validateResourceFieldSelector(ref: JsonObject, path: string, volume: boolean): FieldError[] {
  const resource = stringAt(ref, 'resource');
  if (volume && stringAt(ref, 'containerName') === '') return [FieldError.required(child(path, 'containerName'))];
  if (resource === '') return [FieldError.required(child(path, 'resource'))];
  if (!RESOURCE_FIELD_PATHS.includes(resource) && !resource.startsWith('requests.hugepages-') && !resource.startsWith('limits.hugepages-')) {
    return [FieldError.notSupported(child(path, 'resource'), resource, RESOURCE_FIELD_PATHS)];
  }
  return [];
}

function validateKeySelector(ref: JsonObject, path: string): FieldError[] {
  const errs = nameIsDNSSubdomain(stringAt(ref, 'name'), false).map((msg) => FieldError.invalid(child(path, 'name'), stringAt(ref, 'name'), msg));
  const k = stringAt(ref, 'key');
  if (k === '') errs.push(FieldError.required(child(path, 'key')));
  else errs.push(...isConfigMapKey(k).map((msg) => FieldError.invalid(child(path, 'key'), k, msg)));
  return errs;
}

function validateEnv(container: JsonObject, path: string): FieldError[] {
  const errs: FieldError[] = [];
  for (const [env, i] of objectsAt(container, 'env')) {
    const p = index(path, i);
    const name = stringAt(env, 'name');
    if (name === '') errs.push(FieldError.required(child(p, 'name')));
    else errs.push(...isEnvVarName(name).map((msg) => FieldError.invalid(child(p, 'name'), name, msg)));
    const from = objectAt(env, 'valueFrom');
    if (from === undefined) continue;
    const fp = child(p, 'valueFrom');
    let sources = 0;
    const fieldRef = objectAt(from, 'fieldRef');
    if (fieldRef !== undefined) {
      sources++;
      errs.push(...validateObjectFieldSelector(fieldRef, ENV_FIELD_PATHS, child(fp, 'fieldRef')));
    }
    const resourceFieldRef = objectAt(from, 'resourceFieldRef');
    if (resourceFieldRef !== undefined) {
      sources++;
      errs.push(...validateResourceFieldSelector(resourceFieldRef, child(fp, 'resourceFieldRef'), false));
    }
    for (const name of ['configMapKeyRef', 'secretKeyRef']) {
      const ref = objectAt(from, name);
      if (ref === undefined) continue;
      sources++;
      errs.push(...validateKeySelector(ref, child(fp, name)));
    }
    if (objectAt(from, 'fileKeyRef') !== undefined) sources++;
    if (sources === 0) errs.push(FieldError.invalid(fp, '', 'must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`'));
    else if (stringAt(env, 'value') !== '') errs.push(FieldError.invalid(fp, '', 'may not be specified when `value` is not empty'));
    else if (sources > 1) errs.push(FieldError.invalid(fp, '', 'may not have more than one field specified at a time'));
  }
  return errs;
}

function validateEnvFrom(container: JsonObject, path: string): FieldError[] {
  const errs: FieldError[] = [];
  for (const [source, i] of objectsAt(container, 'envFrom')) {
    const p = index(path, i);
    const prefix = stringAt(source, 'prefix');
    if (prefix !== '') errs.push(...isEnvVarName(prefix).map((msg) => FieldError.invalid(child(p, 'prefix'), prefix, msg)));
    let sources = 0;
    for (const name of ['configMapRef', 'secretRef']) {
      const ref = objectAt(source, name);
      if (ref === undefined) continue;
      sources++;
      const refName = stringAt(ref, 'name');
      if (refName === '') errs.push(FieldError.required(child(child(p, name), 'name')));
      else errs.push(...nameIsDNSSubdomain(refName, true).map((msg) => FieldError.invalid(child(child(p, name), 'name'), refName, msg)));
    }
    if (sources === 0) errs.push(FieldError.invalid(path, '', 'must specify one of: `configMapRef` or `secretRef`'));
    else if (sources > 1) errs.push(FieldError.invalid(path, '', 'may not have more than one field specified at a time'));
  }
  return errs;
}

const MOUNT_PROPAGATIONS = ['Bidirectional', 'HostToContainer', 'None'];

function validateVolumeMounts(container: JsonObject, volumes: ReadonlyMap<string, JsonObject>, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const mountPaths = new Set<string>();
  const devices = objectsAt(container, 'volumeDevices').map(([d]) => [stringAt(d, 'name'), stringAt(d, 'devicePath')] as const);
  for (const [mount, i] of objectsAt(container, 'volumeMounts')) {
    const p = index(path, i);
    const name = stringAt(mount, 'name');
    const mountPath = stringAt(mount, 'mountPath');
    if (name === '') errs.push(FieldError.required(child(p, 'name')));
    if (!volumes.has(name)) errs.push(FieldError.notFound(child(p, 'name'), name));
    if (mountPath === '') errs.push(FieldError.required(child(p, 'mountPath')));
    if (mountPaths.has(mountPath)) errs.push(FieldError.invalid(child(p, 'mountPath'), mountPath, 'must be unique'));
    mountPaths.add(mountPath);
    if (devices.some(([n]) => n === name)) errs.push(FieldError.invalid(child(p, 'name'), name, 'must not already exist in volumeDevices'));
    if (devices.some(([, d]) => d === mountPath)) errs.push(FieldError.invalid(child(p, 'mountPath'), mountPath, 'must not already exist as a path in volumeDevices'));
    const subPath = stringAt(mount, 'subPath');
    const subPathExpr = stringAt(mount, 'subPathExpr');
    // Kubernetes reports these two on the list path, not the item's.
    if (subPath !== '') errs.push(...validateLocalDescendingPath(subPath, child(path, 'subPath')));
    if (subPathExpr !== '') {
      if (subPath !== '') errs.push(FieldError.invalid(child(p, 'subPathExpr'), subPathExpr, 'subPathExpr and subPath are mutually exclusive'));
      errs.push(...validateLocalDescendingPath(subPathExpr, child(path, 'subPathExpr')));
    }
    const propagation = mount['mountPropagation'];
    if (typeof propagation === 'string') {
      if (!MOUNT_PROPAGATIONS.includes(propagation)) errs.push(FieldError.notSupported(child(path, 'mountPropagation'), propagation, MOUNT_PROPAGATIONS));
      const privileged = booleanAt(objectAt(container, 'securityContext'), 'privileged') === true;
      if (propagation === 'Bidirectional' && !privileged) {
        errs.push(FieldError.forbidden(child(path, 'mountPropagation'), 'Bidirectional mount propagation is available only to privileged containers'));
      }
    }
  }
  return errs;
}

function validateVolumeDevices(container: JsonObject, volumes: ReadonlyMap<string, JsonObject>, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set<string>();
  const paths = new Set<string>();
  const mounts = objectsAt(container, 'volumeMounts').map(([m]) => [stringAt(m, 'name'), stringAt(m, 'mountPath')] as const);
  for (const [device, i] of objectsAt(container, 'volumeDevices')) {
    const p = index(path, i);
    const name = stringAt(device, 'name');
    const devicePath = stringAt(device, 'devicePath');
    const volume = volumes.get(name);
    if (name === '') errs.push(FieldError.required(child(p, 'name')));
    if (names.has(name)) errs.push(FieldError.invalid(child(p, 'name'), name, 'must be unique'));
    if (volume !== undefined && !isObject(volume['persistentVolumeClaim']) && !isObject(volume['ephemeral'])) {
      errs.push(FieldError.invalid(child(p, 'name'), name, 'can only use volume source type of PersistentVolumeClaim or Ephemeral for block mode'));
    }
    if (volume === undefined) errs.push(FieldError.notFound(child(p, 'name'), name));
    if (devicePath === '') errs.push(FieldError.required(child(p, 'devicePath')));
    if (paths.has(devicePath)) errs.push(FieldError.invalid(child(p, 'devicePath'), devicePath, 'must be unique'));
    if (devicePath.split('/').includes('..')) errs.push(FieldError.invalid(child(p, 'devicePath'), devicePath, "can not contain backsteps ('..')"));
    else paths.add(devicePath);
    if (mounts.some(([n]) => n === name)) errs.push(FieldError.invalid(child(p, 'name'), name, 'must not already exist in volumeMounts'));
    if (mounts.some(([, m]) => m === devicePath)) errs.push(FieldError.invalid(child(p, 'devicePath'), devicePath, 'must not already exist as a path in volumeMounts'));
    if (name !== '') names.add(name);
  }
  return errs;
}

// ---------------------------------------------------------------------------------------------
// Probes and lifecycle

/** validateHandler: exactly one action, each valid. */
function validateHandler(handler: JsonObject, kinds: readonly string[], gracePeriod: number | undefined, path: string): FieldError[] {
  const errs: FieldError[] = [];
  let handlers = 0;
  for (const kind of kinds) {
    const action = objectAt(handler, kind);
    if (action === undefined) continue;
    const p = child(path, kind);
    if (handlers > 0) {
      errs.push(FieldError.forbidden(p, 'may not specify more than 1 handler type'));
      continue;
    }
    handlers++;
    switch (kind) {
      case 'exec':
        if (arrayAt(action, 'command').length === 0) errs.push(FieldError.required(child(p, 'command')));
        break;
      case 'httpGet': {
        if (stringAt(action, 'path') === '') errs.push(FieldError.required(child(p, 'path')));
        errs.push(...validatePortNumOrName(action['port'], child(p, 'port')));
        const scheme = stringAt(action, 'scheme');
        if (scheme !== 'HTTP' && scheme !== 'HTTPS') errs.push(FieldError.notSupported(child(p, 'scheme'), scheme, ['HTTP', 'HTTPS']));
        for (const [header] of objectsAt(action, 'httpHeaders')) {
          const name = stringAt(header, 'name');
          errs.push(...isHTTPHeaderName(name).map((msg) => FieldError.invalid(child(p, 'httpHeaders'), name, msg)));
        }
        break;
      }
      case 'tcpSocket':
        errs.push(...validatePortNumOrName(action['port'], child(p, 'port')));
        break;
      case 'grpc':
        errs.push(...validatePortNumOrName(numberAt(action, 'port') ?? 0, child(p, 'port')));
        break;
      case 'sleep': {
        const seconds = numberAt(action, 'seconds') ?? 0;
        if (gracePeriod !== undefined && (seconds < 0 || seconds > gracePeriod)) {
          errs.push(FieldError.invalid(p, seconds, `must be non-negative and less than terminationGracePeriodSeconds (${gracePeriod})`));
        }
        break;
      }
    }
  }
  if (handlers === 0) errs.push(FieldError.required(path, 'must specify a handler type'));
  return errs;
}

const PROBE_HANDLERS = ['exec', 'httpGet', 'tcpSocket', 'grpc'];
const LIFECYCLE_HANDLERS = ['exec', 'httpGet', 'tcpSocket', 'sleep'];

/** validateLivenessProbe / validateReadinessProbe / validateStartupProbe. */
function validateProbe(container: JsonObject, which: 'livenessProbe' | 'readinessProbe' | 'startupProbe', ctx: ContainerContext, path: string): FieldError[] {
  const probe = objectAt(container, which);
  if (probe === undefined) return [];
  const p = child(path, which);
  const errs = validateHandler(probe, PROBE_HANDLERS, ctx.gracePeriod, p);
  for (const field of ['initialDelaySeconds', 'timeoutSeconds', 'periodSeconds', 'successThreshold', 'failureThreshold']) {
    errs.push(...validateNonnegative(probe, field, p));
  }
  const grace = numberAt(probe, 'terminationGracePeriodSeconds');
  if (grace !== undefined && grace <= 0) errs.push(FieldError.invalid(child(p, 'terminationGracePeriodSeconds'), grace, 'must be greater than 0'));
  const success = numberAt(probe, 'successThreshold') ?? 0;
  if (which !== 'readinessProbe' && success !== 1) errs.push(FieldError.invalid(child(p, 'successThreshold'), success, 'must be 1'));
  if (which === 'readinessProbe' && grace !== undefined) {
    errs.push(FieldError.invalid(child(p, 'terminationGracePeriodSeconds'), grace, 'must not be set for readinessProbes'));
  }
  return errs;
}

function validateLifecycleAndProbes(container: JsonObject, ctx: ContainerContext, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const lifecycle = objectAt(container, 'lifecycle');
  if (lifecycle !== undefined) {
    for (const hook of ['postStart', 'preStop']) {
      const handler = objectAt(lifecycle, hook);
      if (handler !== undefined) errs.push(...validateHandler(handler, LIFECYCLE_HANDLERS, ctx.gracePeriod, child(child(path, 'lifecycle'), hook)));
    }
  }
  errs.push(...validateProbe(container, 'livenessProbe', ctx, path));
  errs.push(...validateProbe(container, 'readinessProbe', ctx, path));
  errs.push(...validateProbe(container, 'startupProbe', ctx, path));
  return errs;
}

// ---------------------------------------------------------------------------------------------
// Containers

/** validateResizePolicy: cpu and memory at most once each, NotRequired in a pod that never restarts. */
function validateResizePolicy(container: JsonObject, restartPolicy: string, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  for (const [policy, i] of objectsAt(container, 'resizePolicy')) {
    const resource = stringAt(policy, 'resourceName');
    const restart = stringAt(policy, 'restartPolicy');
    if (seen.has(resource)) errs.push(FieldError.duplicate(index(path, i), resource));
    seen.add(resource);
    if (resource === '') errs.push(FieldError.required(path));
    else if (resource !== 'cpu' && resource !== 'memory') errs.push(FieldError.notSupported(path, resource, ['cpu', 'memory']));
    if (restart === '') errs.push(FieldError.required(path));
    else if (restart !== 'NotRequired' && restart !== 'RestartContainer') errs.push(FieldError.notSupported(path, restart, ['NotRequired', 'RestartContainer']));
    if (restartPolicy === 'Never' && restart !== 'NotRequired') errs.push(FieldError.invalid(path, restart, "must be 'NotRequired' when `restartPolicy` is 'Never'"));
  }
  return errs;
}

const PULL_POLICIES = ['Always', 'IfNotPresent', 'Never'];
const TERMINATION_MESSAGE_POLICIES = ['File', 'FallbackToLogsOnError'];

/** validateContainerCommon: what every container (regular, init, ephemeral) must satisfy. */
function validateContainerCommon(container: JsonObject, ctx: ContainerContext, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const name = stringAt(container, 'name');
  if (name === '') errs.push(FieldError.required(child(path, 'name')));
  else errs.push(...validateDNS1123Label(name, child(path, 'name')));
  if (stringAt(container, 'image') === '') errs.push(FieldError.required(child(path, 'image')));
  const tmp = stringAt(container, 'terminationMessagePolicy');
  if (tmp === '') errs.push(FieldError.required(child(path, 'terminationMessagePolicy')));
  else if (!TERMINATION_MESSAGE_POLICIES.includes(tmp)) errs.push(FieldError.notSupported(child(path, 'terminationMessagePolicy'), tmp, TERMINATION_MESSAGE_POLICIES));
  errs.push(...validateContainerPorts(container, child(path, 'ports')));
  errs.push(...validateEnv(container, child(path, 'env')));
  errs.push(...validateEnvFrom(container, child(path, 'envFrom')));
  errs.push(...validateVolumeMounts(container, ctx.volumes, child(path, 'volumeMounts')));
  errs.push(...validateVolumeDevices(container, ctx.volumes, child(path, 'volumeDevices')));
  const pull = stringAt(container, 'imagePullPolicy');
  if (pull === '') errs.push(FieldError.required(child(path, 'imagePullPolicy')));
  else if (!PULL_POLICIES.includes(pull)) errs.push(FieldError.notSupported(child(path, 'imagePullPolicy'), pull, PULL_POLICIES));
  errs.push(...validateResourceRequirements(container['resources'], ctx.claimNames, child(path, 'resources')));
  errs.push(...validateResizePolicy(container, ctx.restartPolicy, child(path, 'resizePolicy')));
  errs.push(...validateContainerSecurityContext(container['securityContext'], child(path, 'securityContext')));
  return errs;
}

/** checkHostPortConflicts: one protocol/hostIP/hostPort used twice across `containers`. */
function checkHostPortConflicts(containers: ReadonlyArray<[JsonObject, number]>, path: string, seen = new Set<string>()): FieldError[] {
  const errs: FieldError[] = [];
  for (const [container, ci] of containers) {
    for (const [port, pi] of objectsAt(container, 'ports')) {
      const hostPort = numberAt(port, 'hostPort') ?? 0;
      if (hostPort === 0) continue;
      const id = `${stringAt(port, 'protocol')}/${stringAt(port, 'hostIP')}/${hostPort}`;
      if (seen.has(id)) errs.push(FieldError.duplicate(child(index(child(index(path, ci), 'ports'), pi), 'hostPort'), id));
      else seen.add(id);
    }
  }
  return errs;
}

/** validateContainers: spec.containers (required, unique names, probes, no restartPolicy). */
export function validateContainers(spec: JsonObject, ctx: ContainerContext, path: string): FieldError[] {
  const containers = objectsAt(spec, 'containers');
  if (arrayAt(spec, 'containers').length === 0) return [FieldError.required(path)];
  const errs: FieldError[] = [];
  const names = new Set<string>();
  for (const [container, i] of containers) {
    const p = index(path, i);
    errs.push(...validateContainerCommon(container, ctx, p));
    const name = stringAt(container, 'name');
    if (names.has(name)) errs.push(FieldError.duplicate(child(p, 'name'), name));
    else names.add(name);
    errs.push(...validateLifecycleAndProbes(container, ctx, p));
    if (isSet(container, 'restartPolicy')) errs.push(FieldError.forbidden(child(p, 'restartPolicy'), 'may not be set for non-init containers'));
  }
  errs.push(...checkHostPortConflicts(containers, path));
  return errs;
}

const INIT_ONLY_WITH_ALWAYS = 'may not be set for init containers without restartPolicy=Always';

/** validateInitContainers: spec.initContainers (sidecars with restartPolicy Always may have probes). */
export function validateInitContainers(spec: JsonObject, ctx: ContainerContext, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set(objectsAt(spec, 'containers').map(([c]) => stringAt(c, 'name')));
  for (const [container, i] of objectsAt(spec, 'initContainers')) {
    const p = index(path, i);
    errs.push(...validateContainerCommon(container, ctx, p));
    const restartPolicy = container['restartPolicy'];
    if (typeof restartPolicy === 'string' && restartPolicy !== 'Always') {
      errs.push(FieldError.notSupported(child(p, 'restartPolicy'), restartPolicy, ['Always']));
    }
    const name = stringAt(container, 'name');
    if (names.has(name)) errs.push(FieldError.duplicate(child(p, 'name'), name));
    else if (name !== '') names.add(name);
    errs.push(...checkHostPortConflicts([[container, i]], path));
    if (restartPolicy === 'Always') {
      errs.push(...validateLifecycleAndProbes(container, ctx, p));
    } else {
      for (const field of ['lifecycle', 'livenessProbe', 'readinessProbe', 'startupProbe']) {
        if (isSet(container, field)) errs.push(FieldError.forbidden(child(p, field), INIT_ONLY_WITH_ALWAYS));
      }
    }
  }
  return errs;
}

/** Fields an ephemeral container may not set (Kubernetes' allowedEphemeralContainerFields, negated). */
const EPHEMERAL_FORBIDDEN = [
  'ports',
  'resources',
  'resizePolicy',
  'restartPolicy',
  'restartPolicyRules',
  'livenessProbe',
  'readinessProbe',
  'startupProbe',
  'lifecycle',
];

/** validateEphemeralContainers: unique names across all containers, a known target, no pod-service fields. */
export function validateEphemeralContainers(spec: JsonObject, ctx: ContainerContext, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const others = new Set([...objectsAt(spec, 'containers'), ...objectsAt(spec, 'initContainers')].map(([c]) => stringAt(c, 'name')));
  const all = new Set(others);
  for (const [container, i] of objectsAt(spec, 'ephemeralContainers')) {
    const p = index(path, i);
    errs.push(...validateContainerCommon(container, ctx, p));
    errs.push(...validateImageWhitespace(container, p));
    const name = stringAt(container, 'name');
    if (all.has(name)) errs.push(FieldError.duplicate(child(p, 'name'), name));
    else all.add(name);
    const target = stringAt(container, 'targetContainerName');
    if (target !== '' && !others.has(target)) errs.push(FieldError.notFound(child(p, 'targetContainerName'), target));
    for (const field of EPHEMERAL_FORBIDDEN) {
      const v = container[field];
      const empty = v === undefined || v === null || (isObject(v) && Object.keys(v).length === 0) || (Array.isArray(v) && v.length === 0);
      if (!empty) errs.push(FieldError.forbidden(child(p, field), 'cannot be set for an Ephemeral Container'));
    }
    for (const [mount, mi] of objectsAt(container, 'volumeMounts')) {
      for (const field of ['subPath', 'subPathExpr']) {
        if (stringAt(mount, field) !== '') errs.push(FieldError.forbidden(child(index(child(p, 'volumeMounts'), mi), field), 'cannot be set for an Ephemeral Container'));
      }
    }
  }
  return errs;
}

/** validateContainerOnlyForPod: a pod's image may not have leading or trailing whitespace. */
export function validateImageWhitespace(container: JsonObject, path: string): FieldError[] {
  const image = stringAt(container, 'image');
  return image !== image.trim() ? [FieldError.invalid(child(path, 'image'), image, 'must not have leading or trailing whitespace')] : [];
}
