/**
 * Pod validation beyond the spec: what Kubernetes' ValidatePodCreate adds for pods (annotations,
 * image whitespace, projected tokens need a service account), the update rules of
 * ValidatePodUpdate (the spec is immutable but for images, activeDeadlineSeconds, added tolerations,
 * removed scheduling gates and a negative grace period set to 1), ValidatePodStatusUpdate, and
 * ValidatePodBinding. Metadata is validated by the REST layer, not here.
 */
import { FieldError, isQualifiedName, jsonClone, nameIsDNSSubdomain } from '@setpoint/api';
import { deepEqual, validateImmutableField } from '../../objectmeta.js';
import { inclusiveRangeError } from '../../validation/field-rules.js';
import { arrayAt, child, index, isObject, isSet, numberAt, objectAt, objectsAt, stringAt, stringMapAt, type JsonObject } from '../../validation/json-fields.js';
import { validateImageWhitespace } from './validation-container.js';
import { validateIP } from './validation-scheduling.js';
import { validatePodSpec, validatePodSpecificAnnotations } from './validation-spec.js';

const MAX_INT32 = 2147483647;

/** Kubernetes' list of what a pod update may change, as it prints it. */
export const UPDATABLE_POD_SPEC_FIELDS = [
  '`spec.containers[*].image`',
  '`spec.initContainers[*].image`',
  '`spec.activeDeadlineSeconds`',
  '`spec.tolerations` (only additions to existing tolerations)',
  '`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)',
];

/** The message of a forbidden pod spec change (Kubernetes appends a diff of the specs). */
export const POD_UPDATE_FORBIDDEN_MSG = `pod updates may not change fields other than ${UPDATABLE_POD_SPEC_FIELDS.join(',')}`;

function specOf(obj: JsonObject): JsonObject {
  return objectAt(obj, 'spec') ?? {};
}

/** validatePodMetadataAndSpec without ValidateObjectMeta: pod-specific annotations, the spec, pod-only rules. */
export function validatePod(pod: JsonObject): FieldError[] {
  const meta = objectAt(pod, 'metadata');
  const spec = specOf(pod);
  const errs = validatePodSpecificAnnotations(stringMapAt(meta, 'annotations'), spec, 'metadata.annotations');
  errs.push(...validatePodSpec(spec, 'spec', { isPod: true, podName: stringAt(meta, 'name') }));
  if (stringAt(spec, 'serviceAccountName') === '') {
    for (const [volume, vi] of objectsAt(spec, 'volumes')) {
      for (const [source, si] of objectsAt(objectAt(volume, 'projected'), 'sources')) {
        if (isSet(source, 'serviceAccountToken')) {
          const p = `spec.volumes[${vi}].projected.sources[${si}].serviceAccountToken`;
          errs.push(FieldError.forbidden(p, 'must not be specified when serviceAccountName is not set'));
        }
      }
    }
  }
  for (const list of ['containers', 'initContainers']) {
    for (const [container, i] of objectsAt(spec, list)) errs.push(...validateImageWhitespace(container, index(`spec.${list}`, i)));
  }
  return errs;
}

// ---------------------------------------------------------------------------------------------
// Update

/** ValidateContainerUpdates: same number of containers; each still has an image. */
function validateContainerUpdates(spec: JsonObject, oldSpec: JsonObject, list: string): { errs: FieldError[]; stop: boolean } {
  const path = `spec.${list}`;
  const containers = arrayAt(spec, list);
  if (containers.length !== arrayAt(oldSpec, list).length) return { errs: [FieldError.forbidden(path, 'pod updates may not add or remove containers')], stop: true };
  const errs: FieldError[] = [];
  containers.forEach((c, i) => {
    const image = stringAt(c, 'image');
    if (image === '') errs.push(FieldError.required(child(index(path, i), 'image')));
    if (image !== image.trim()) errs.push(FieldError.invalid(child(index(path, i), 'image'), image, 'must not have leading or trailing whitespace'));
  });
  return { errs, stop: false };
}

/** validateOnlyAddedTolerations: every old toleration is still there (its tolerationSeconds may change). */
function validateOnlyAddedTolerations(spec: JsonObject, oldSpec: JsonObject): FieldError[] {
  const current = arrayAt(spec, 'tolerations').filter(isObject);
  for (const old of arrayAt(oldSpec, 'tolerations').filter(isObject)) {
    const found = current.some((t) => deepEqual({ ...old, tolerationSeconds: t['tolerationSeconds'] }, t));
    if (!found) return [FieldError.forbidden('spec.tolerations', 'existing toleration can not be modified except its tolerationSeconds')];
  }
  return [];
}

/** validateOnlyDeletedSchedulingGates. */
function validateOnlyDeletedSchedulingGates(spec: JsonObject, oldSpec: JsonObject): FieldError[] {
  const oldNames = new Set(objectsAt(oldSpec, 'schedulingGates').map(([g]) => stringAt(g, 'name')));
  const errs: FieldError[] = [];
  for (const [gate, i] of objectsAt(spec, 'schedulingGates')) {
    const name = stringAt(gate, 'name');
    if (!oldNames.has(name)) {
      errs.push(FieldError.forbidden(child(index('spec.schedulingGates', i), 'name'), `only deletion is allowed, but found new scheduling gate '${name}'`));
    }
  }
  return errs;
}

/** The leaves where two JSON values differ, as "path: old → new" lines (Kubernetes prints a Go diff here). */
export function jsonDiff(oldValue: unknown, newValue: unknown, path = ''): string[] {
  if (deepEqual(oldValue, newValue)) return [];
  if (isObject(oldValue) && isObject(newValue)) {
    const keys = [...new Set([...Object.keys(oldValue), ...Object.keys(newValue)])].sort();
    return keys.flatMap((k) => jsonDiff(oldValue[k], newValue[k], path === '' ? k : `${path}.${k}`));
  }
  if (Array.isArray(oldValue) && Array.isArray(newValue) && oldValue.length === newValue.length) {
    return oldValue.flatMap((v, i) => jsonDiff(v, newValue[i], `${path}[${i}]`));
  }
  const show = (v: unknown) => (v === undefined ? '<unset>' : JSON.stringify(v));
  return [`  ${path}: ${show(oldValue)} → ${show(newValue)}`];
}

/**
 * The update rules of ValidatePodUpdate (the create rules run too): container images may change,
 * activeDeadlineSeconds may be set or lowered, tolerations may only be added, scheduling gates only
 * removed, a negative terminationGracePeriodSeconds may become 1; any other spec change gives
 * `spec: Forbidden: pod updates may not change fields other than …` followed by the differences.
 * spec.nodeName is set once, through the binding subresource, never by an update.
 */
export function validatePodUpdate(pod: JsonObject, old: JsonObject): FieldError[] {
  const spec = specOf(pod);
  const oldSpec = specOf(old);
  const errs: FieldError[] = [];
  for (const list of ['containers', 'initContainers']) {
    const r = validateContainerUpdates(spec, oldSpec, list);
    errs.push(...r.errs);
    if (r.stop) return errs;
  }
  const deadline = numberAt(spec, 'activeDeadlineSeconds');
  const oldDeadline = numberAt(oldSpec, 'activeDeadlineSeconds');
  if (deadline !== undefined) {
    if (deadline < 0 || deadline > MAX_INT32) {
      return [...errs, FieldError.invalid('spec.activeDeadlineSeconds', deadline, inclusiveRangeError(0, MAX_INT32))];
    }
    if (oldDeadline !== undefined && oldDeadline < deadline) {
      return [...errs, FieldError.invalid('spec.activeDeadlineSeconds', deadline, 'must be less than or equal to previous value')];
    }
  } else if (oldDeadline !== undefined) {
    errs.push(FieldError.invalid('spec.activeDeadlineSeconds', null, 'must not update from a positive integer to nil value'));
  }
  errs.push(...validateOnlyAddedTolerations(spec, oldSpec));
  errs.push(...validateOnlyDeletedSchedulingGates(spec, oldSpec));
  if (deepEqual(spec, oldSpec)) return errs;

  // Put the fields that may change back to their old values; whatever still differs is forbidden.
  const munged: JsonObject = jsonClone(spec);
  for (const list of ['containers', 'initContainers']) {
    const oldContainers = arrayAt(oldSpec, list);
    arrayAt(munged, list).forEach((c, i) => {
      if (isObject(c)) {
        const oldContainer = oldContainers[i];
        const oldImage = isObject(oldContainer) ? oldContainer['image'] : undefined;
        if (oldImage === undefined) delete c['image'];
        else c['image'] = oldImage;
      }
    });
  }
  for (const field of ['activeDeadlineSeconds', 'schedulingGates', 'tolerations']) {
    if (oldSpec[field] === undefined) delete munged[field];
    else munged[field] = oldSpec[field];
  }
  const oldGrace = numberAt(oldSpec, 'terminationGracePeriodSeconds');
  if (oldGrace !== undefined && oldGrace < 0 && munged['terminationGracePeriodSeconds'] === 1) munged['terminationGracePeriodSeconds'] = oldGrace;
  const diff = jsonDiff(oldSpec, munged);
  if (diff.length > 0) errs.push(FieldError.forbidden('spec', `${POD_UPDATE_FORBIDDEN_MSG}\n${diff.join('\n')}`));
  return errs;
}

// ---------------------------------------------------------------------------------------------
// Status

const SYSTEM_CONDITIONS = new Set(['PodScheduled', 'Ready', 'Initialized']);

/** ValidateContainerStateTransition: a terminated container that may not restart stays terminated. */
function validateStateTransitions(statuses: unknown[], oldStatuses: unknown[], path: string, restartPolicy: string, sidecars: ReadonlySet<string>): FieldError[] {
  if (restartPolicy === 'Always') return [];
  const errs: FieldError[] = [];
  oldStatuses.forEach((old, i) => {
    const terminated = objectAt(objectAt(old, 'state'), 'terminated');
    if (terminated === undefined) return;
    if ((numberAt(terminated, 'exitCode') ?? 0) !== 0 && restartPolicy === 'OnFailure') return;
    const name = stringAt(old, 'name');
    if (sidecars.has(name)) return;
    for (const status of statuses) {
      if (stringAt(status, 'name') === name && objectAt(objectAt(status, 'state'), 'terminated') === undefined) {
        errs.push(FieldError.forbidden(child(index(path, i), 'state'), 'may not be transitioned to non-terminated state'));
      }
    }
  });
  return errs;
}

/**
 * The rules of ValidatePodStatusUpdate: custom condition types are qualified names (reported at
 * `metadata.conditions[i].Type`, as Kubernetes does), spec.nodeName does not change, a new
 * nominatedNodeName is a DNS subdomain, qosClass is immutable, terminated containers that may not
 * restart stay terminated, pod and host IPs are IPs and hostIPs[0] is hostIP.
 */
export function validatePodStatusUpdate(pod: JsonObject, old: JsonObject): FieldError[] {
  const status = objectAt(pod, 'status') ?? {};
  const oldStatus = objectAt(old, 'status') ?? {};
  const errs: FieldError[] = [];
  for (const [condition, i] of objectsAt(status, 'conditions')) {
    const type = stringAt(condition, 'type');
    if (SYSTEM_CONDITIONS.has(type)) continue;
    errs.push(...isQualifiedName(type).map((msg) => FieldError.invalid(`metadata.conditions[${i}].Type`, type, msg)));
  }
  if (stringAt(specOf(pod), 'nodeName') !== stringAt(specOf(old), 'nodeName')) errs.push(FieldError.forbidden('status.nodeName', 'may not be changed directly'));
  const nominated = stringAt(status, 'nominatedNodeName');
  if (nominated !== '' && nominated !== stringAt(oldStatus, 'nominatedNodeName')) {
    errs.push(...nameIsDNSSubdomain(nominated, false).map((msg) => FieldError.invalid('status.nominatedNodeName', nominated, msg)));
  }
  errs.push(...validateImmutableField(status['qosClass'], oldStatus['qosClass'], 'status.qosClass'));
  const oldSpec = specOf(old);
  const restartPolicy = stringAt(oldSpec, 'restartPolicy');
  const sidecars = new Set(objectsAt(oldSpec, 'initContainers').filter(([c]) => c['restartPolicy'] === 'Always').map(([c]) => stringAt(c, 'name')));
  errs.push(...validateStateTransitions(arrayAt(status, 'containerStatuses'), arrayAt(oldStatus, 'containerStatuses'), 'status.containerStatuses', restartPolicy, new Set()));
  errs.push(...validateStateTransitions(arrayAt(status, 'initContainerStatuses'), arrayAt(oldStatus, 'initContainerStatuses'), 'status.initContainerStatuses', restartPolicy, sidecars));
  errs.push(...validateStateTransitions(arrayAt(status, 'ephemeralContainerStatuses'), arrayAt(oldStatus, 'ephemeralContainerStatuses'), 'status.ephemeralContainerStatuses', 'Never', new Set()));
  for (const [ip, i] of objectsAt(status, 'podIPs')) errs.push(...validateIP(stringAt(ip, 'ip'), index('status.podIPs', i)));
  const hostIPs = objectsAt(status, 'hostIPs');
  if (hostIPs.length > 0 && stringAt(hostIPs[0]![0], 'ip') !== stringAt(status, 'hostIP')) {
    errs.push(FieldError.invalid('status.hostIPs[0].ip', stringAt(hostIPs[0]![0], 'ip'), 'must be equal to `hostIP`'));
  }
  for (const [ip, i] of hostIPs) errs.push(...validateIP(stringAt(ip, 'ip'), index('status.hostIPs', i)));
  return errs;
}

// ---------------------------------------------------------------------------------------------
// Binding

/** ValidatePodBinding: target.kind empty or "Node", target.name set. */
export function validateBinding(binding: JsonObject): FieldError[] {
  const errs: FieldError[] = [];
  const target = objectAt(binding, 'target');
  const kind = stringAt(target, 'kind');
  if (kind !== '' && kind !== 'Node') errs.push(FieldError.notSupported('target.kind', kind, ['Node', '<empty>']));
  if (stringAt(target, 'name') === '') errs.push(FieldError.required('target.name'));
  return errs;
}
