/**
 * Validation of a pod spec and a pod template as Kubernetes' ValidatePodSpec and
 * ValidatePodTemplateSpec do it, in Kubernetes' order, with its paths and messages. The spec may
 * belong to a pod (`isPod`: host ports must equal container ports under hostNetwork, ephemeral
 * volume claim names are checked) or to a template of a ReplicaSet or Deployment.
 */
import { FieldError, isDNS1123Label, isQualifiedName, nameIsDNSSubdomain, validateAnnotations, validateLabels } from '@setpoint/api';
import { inclusiveRangeError, validateDNS1123Label } from '../../validation/field-rules.js';
import { arrayAt, child, index, isObject, isSet, key, numberAt, objectAt, objectsAt, stringAt, stringMapAt, type JsonObject } from '../../validation/json-fields.js';
import { validateContainers, validateEphemeralContainers, validateInitContainers, validateResourceRequirements } from './validation-container.js';
import { validateAffinity, validateDNSConfig, validateHostAliases, validateTolerations, validateTopologySpreadConstraints } from './validation-scheduling.js';
import { validatePodSecurityContext } from './validation-security.js';
import { validateVolumes } from './validation-volume.js';

/** Whose pod spec is validated. */
export interface PodSpecOptions {
  /** The spec is a pod's (not a template's). */
  readonly isPod: boolean;
  /** The pod's name ('' for templates and generated names), for ephemeral volume claim names. */
  readonly podName: string;
}

const RESTART_POLICIES = ['Always', 'OnFailure', 'Never'];
const DNS_POLICIES = ['ClusterFirstWithHostNet', 'ClusterFirst', 'Default', 'None'];
const PREEMPTION_POLICIES = ['PreemptLowerPriority', 'Never'];
const MAX_INT32 = 2147483647;

function validateName(spec: JsonObject, field: string, path: string, check: (v: string) => string[]): FieldError[] {
  const value = stringAt(spec, field);
  return value === '' ? [] : check(value).map((msg) => FieldError.invalid(child(path, field), value, msg));
}

const subdomain = (v: string) => nameIsDNSSubdomain(v, false);

/** validatePodResourceClaims: spec.resourceClaims. */
function validateResourceClaims(spec: JsonObject, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set<string>();
  for (const [claim, i] of objectsAt(spec, 'resourceClaims')) {
    const p = index(path, i);
    const name = stringAt(claim, 'name');
    if (name === '') errs.push(FieldError.required(child(p, 'name')));
    else if (names.has(name)) errs.push(FieldError.duplicate(child(p, 'name'), name));
    else {
      errs.push(...validateDNS1123Label(name, child(p, 'name')));
      names.add(name);
    }
    const byName = isSet(claim, 'resourceClaimName');
    const byTemplate = isSet(claim, 'resourceClaimTemplateName');
    if (byName && byTemplate) errs.push(FieldError.invalid(p, claim, 'at most one of `resourceClaimName` or `resourceClaimTemplateName` may be specified'));
    if (!byName && !byTemplate) errs.push(FieldError.invalid(p, claim, 'must specify one of: `resourceClaimName`, `resourceClaimTemplateName`'));
    errs.push(...validateName(claim, 'resourceClaimName', p, subdomain));
    errs.push(...validateName(claim, 'resourceClaimTemplateName', p, subdomain));
  }
  return errs;
}

/** validatePodHostNetworkDeps: with hostNetwork, host ports equal container ports (0 allowed in templates). */
function validateHostNetworkDeps(spec: JsonObject, path: string, isPod: boolean): FieldError[] {
  if (spec['hostNetwork'] !== true) return [];
  const errs: FieldError[] = [];
  for (const [container, i] of objectsAt(spec, 'containers')) {
    for (const [port, j] of objectsAt(container, 'ports')) {
      const hostPort = numberAt(port, 'hostPort') ?? 0;
      const containerPort = numberAt(port, 'containerPort') ?? 0;
      if ((isPod || hostPort !== 0) && hostPort !== containerPort) {
        const p = child(index(child(index(child(path, 'containers'), i), 'ports'), j), 'hostPort');
        errs.push(FieldError.invalid(p, hostPort, 'must match `containerPort` when `hostNetwork` is true'));
      }
    }
  }
  return errs;
}

function validateEnum(spec: JsonObject, field: string, path: string, supported: readonly string[]): FieldError[] {
  const value = stringAt(spec, field);
  if (value === '') return [FieldError.required(child(path, field))];
  return supported.includes(value) ? [] : [FieldError.notSupported(child(path, field), value, supported)];
}

/**
 * ValidatePodSpec: `spec` at `path` ("spec" for a pod, "spec.template.spec" for a template).
 * Assumes defaults were applied (a missing restartPolicy is `Required value`, as in Kubernetes).
 */
export function validatePodSpec(spec: JsonObject, path: string, opts: PodSpecOptions): FieldError[] {
  const errs: FieldError[] = [];
  if (!isSet(spec, 'terminationGracePeriodSeconds')) errs.push(FieldError.required(child(path, 'terminationGracePeriodSeconds')));
  const { errs: volumeErrs, volumes } = validateVolumes(spec, child(path, 'volumes'), opts.isPod ? opts.podName : '');
  errs.push(...volumeErrs);
  const claimNames = new Set(objectsAt(spec, 'resourceClaims').map(([c]) => stringAt(c, 'name')).filter((n) => n !== ''));
  errs.push(...validateResourceClaims(spec, child(path, 'resourceClaims')));
  const ctx = { volumes, claimNames, gracePeriod: numberAt(spec, 'terminationGracePeriodSeconds'), restartPolicy: stringAt(spec, 'restartPolicy') };
  errs.push(...validateContainers(spec, ctx, child(path, 'containers')));
  errs.push(...validateInitContainers(spec, ctx, child(path, 'initContainers')));
  errs.push(...validateEphemeralContainers(spec, ctx, child(path, 'ephemeralContainers')));
  const podResources = objectAt(spec, 'resources');
  if (podResources !== undefined) {
    if (isSet(podResources, 'claims')) errs.push(FieldError.forbidden(child(child(path, 'resources'), 'claims'), 'claims cannot be set for Resources at pod-level'));
    errs.push(...validateResourceRequirements({ limits: podResources['limits'], requests: podResources['requests'] }, claimNames, child(path, 'resources')));
  }
  errs.push(...validateHostNetworkDeps(spec, path, opts.isPod));
  errs.push(...validateEnum(spec, 'restartPolicy', path, RESTART_POLICIES));
  errs.push(...validateEnum(spec, 'dnsPolicy', path, DNS_POLICIES));
  errs.push(...validateLabels(stringMapAt(spec, 'nodeSelector'), child(path, 'nodeSelector')));
  errs.push(...validatePodSecurityContext(spec['securityContext'], spec['hostPID'] === true, child(path, 'securityContext')));
  arrayAt(spec, 'imagePullSecrets').forEach((ref, i) => {
    if (isObject(ref) && Object.keys(ref).some((k) => k !== 'name')) errs.push(FieldError.invalid(index(child(path, 'imagePullSecrets'), i), ref, 'only name may be set'));
  });
  errs.push(...validateAffinity(spec['affinity'], child(path, 'affinity')));
  errs.push(...validateDNSConfig(spec, child(path, 'dnsConfig')));
  for (const [gate, i] of objectsAt(spec, 'readinessGates')) {
    const type = stringAt(gate, 'conditionType');
    errs.push(...isQualifiedName(type).map((msg) => FieldError.invalid(child(index(child(path, 'readinessGates'), i), 'conditionType'), type, msg)));
  }
  const gates = new Set<string>();
  for (const [gate, i] of objectsAt(spec, 'schedulingGates')) {
    const name = stringAt(gate, 'name');
    const p = index(child(path, 'schedulingGates'), i);
    errs.push(...isQualifiedName(name).map((msg) => FieldError.invalid(p, name, msg)));
    if (gates.has(name)) errs.push(FieldError.duplicate(p, name));
    gates.add(name);
  }
  errs.push(...validateTopologySpreadConstraints(spec, child(path, 'topologySpreadConstraints')));
  if (spec['hostUsers'] === false) {
    const forbidden = 'when `pod.Spec.HostUsers` is false';
    if (spec['hostNetwork'] === true) errs.push(FieldError.forbidden(child(path, 'hostNetwork'), forbidden));
    if (spec['hostPID'] === true) errs.push(FieldError.forbidden(child(path, 'HostPID'), forbidden));
    if (spec['hostIPC'] === true) errs.push(FieldError.forbidden(child(path, 'HostIPC'), forbidden));
  }
  errs.push(...validateName(spec, 'serviceAccountName', path, subdomain));
  errs.push(...validateName(spec, 'nodeName', path, subdomain));
  const deadline = numberAt(spec, 'activeDeadlineSeconds');
  if (deadline !== undefined && (deadline < 1 || deadline > MAX_INT32)) {
    errs.push(FieldError.invalid(child(path, 'activeDeadlineSeconds'), deadline, inclusiveRangeError(1, MAX_INT32)));
  }
  errs.push(...validateName(spec, 'hostname', path, isDNS1123Label));
  errs.push(...validateName(spec, 'subdomain', path, isDNS1123Label));
  errs.push(...validateTolerations(spec['tolerations'], child(path, 'tolerations')));
  errs.push(...validateHostAliases(spec, child(path, 'hostAliases')));
  errs.push(...validateName(spec, 'priorityClassName', path, subdomain));
  if (typeof spec['runtimeClassName'] === 'string') {
    const name = spec['runtimeClassName'];
    errs.push(...subdomain(name).map((msg) => FieldError.invalid(child(path, 'runtimeClassName'), name, msg)));
  }
  if (isSet(spec, 'preemptionPolicy')) errs.push(...validateEnum(spec, 'preemptionPolicy', path, PREEMPTION_POLICIES));
  if (isObject(spec['overhead'])) errs.push(...validateResourceRequirements({ limits: spec['overhead'] }, new Set(), child(path, 'overhead')));
  const os = objectAt(spec, 'os');
  if (os !== undefined) {
    const name = stringAt(os, 'name');
    if (name !== 'linux' && name !== 'windows') errs.push(FieldError.notSupported(child(child(path, 'os'), 'name'), name, ['linux', 'windows']));
    else if (name === 'linux') errs.push(...validateNoWindowsOptions(spec, path));
  }
  return errs;
}

/** validateLinux: a linux pod may not carry Windows options, in the pod or any container. */
function validateNoWindowsOptions(spec: JsonObject, path: string): FieldError[] {
  const msg = 'windows options cannot be set for a linux pod';
  const errs: FieldError[] = [];
  if (isSet(objectAt(spec, 'securityContext'), 'windowsOptions')) errs.push(FieldError.forbidden(child(child(path, 'securityContext'), 'windowsOptions'), msg));
  for (const list of ['initContainers', 'containers', 'ephemeralContainers']) {
    for (const [container, i] of objectsAt(spec, list)) {
      if (isSet(objectAt(container, 'securityContext'), 'windowsOptions')) {
        errs.push(FieldError.forbidden(child(child(index(child(path, list), i), 'securityContext'), 'windowsOptions'), msg));
      }
    }
  }
  return errs;
}

const MIRROR_POD_ANNOTATION = 'kubernetes.io/config.mirror';
const POD_DELETION_COST_ANNOTATION = 'controller.kubernetes.io/pod-deletion-cost';

/** ValidatePodSpecificAnnotations: the mirror pod annotation needs a node, the deletion cost is an int32. */
export function validatePodSpecificAnnotations(annotations: Record<string, string>, spec: JsonObject, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const mirror = annotations[MIRROR_POD_ANNOTATION];
  if (mirror !== undefined && stringAt(spec, 'nodeName') === '') {
    errs.push(FieldError.invalid(key(path, MIRROR_POD_ANNOTATION), mirror, 'must set spec.nodeName if mirror pod annotation is set'));
  }
  const cost = annotations[POD_DELETION_COST_ANNOTATION];
  if (cost !== undefined) {
    const n = /^[+-]?[0-9]+$/.test(cost) ? Number(cost) : NaN;
    if (!Number.isInteger(n) || n < -2147483648 || n > MAX_INT32) {
      errs.push(FieldError.invalid(key(path, POD_DELETION_COST_ANNOTATION), cost, 'must be a 32bit integer'));
    }
  }
  return errs;
}

/**
 * ValidatePodTemplateSpec: a template at `path` ("spec.template"): its labels and annotations (at
 * `<path>.labels` and `<path>.annotations`, as Kubernetes reports them), its spec, and no ephemeral
 * containers.
 */
export function validatePodTemplateSpec(template: JsonObject, path: string): FieldError[] {
  const meta = objectAt(template, 'metadata');
  const annotations = stringMapAt(meta, 'annotations');
  const spec = objectAt(template, 'spec') ?? {};
  const errs = validateLabels(stringMapAt(meta, 'labels'), child(path, 'labels'));
  errs.push(...validateAnnotations(annotations, child(path, 'annotations')));
  errs.push(...validatePodSpecificAnnotations(annotations, spec, child(path, 'annotations')));
  errs.push(...validatePodSpec(spec, child(path, 'spec'), { isPod: false, podName: '' }));
  if (arrayAt(spec, 'ephemeralContainers').length > 0) {
    errs.push(FieldError.forbidden(child(child(path, 'spec'), 'ephemeralContainers'), 'ephemeral containers not allowed in pod template'));
  }
  return errs;
}
