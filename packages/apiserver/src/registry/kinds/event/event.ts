/**
 * Event (core/v1, namespaced, short name ev), as Kubernetes validates events written through the
 * v1 API (legacyValidateEvent): the involved object's namespace must agree with the event's, and
 * events in the newer style (with eventTime) need reportingController, reportingInstance, action
 * and reason within Kubernetes' length limits. Names need only be path segments. Field selectors:
 * involvedObject.*, reason, reportingComponent, source, type (what `kubectl describe` uses).
 * No defaults; eventTime and series.lastObservedTime are written back as Kubernetes serialises
 * MicroTime (six fractional digits, UTC).
 */
import { FieldError, isDNS1123Subdomain, isQualifiedName, validatePathSegmentName, type KubeObject } from '@setpoint/api';
import { formatMicroTime } from '../../objectmeta.js';
import { eventSchema } from '../../schemas/core.js';
import type { ResourceDef } from '../../types.js';
import { eventPrinter } from './table.js';

/** Kubernetes' limits on event fields (pkg/apis/core/validation/events.go). */
export const REPORTING_INSTANCE_LENGTH_LIMIT = 128;
export const ACTION_LENGTH_LIMIT = 128;
export const REASON_LENGTH_LIMIT = 128;
export const NOTE_LENGTH_LIMIT = 1024;

function record(v: unknown): Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

function text(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

function involved(obj: KubeObject, field: string): string {
  return text(record(obj['involvedObject'])[field]);
}

function byteLength(s: string): number {
  return Buffer.byteLength(s, 'utf8');
}

/**
 * legacyValidateEvent, the validation of events written through core/v1:
 * - without eventTime: involvedObject.namespace empty requires the event's namespace to be "" or
 *   "default"; otherwise they must be equal (`involvedObject.namespace: Invalid value: "a": does
 *   not match event.namespace`);
 * - with eventTime: involvedObject.namespace may be empty only in "default" or "kube-system";
 *   reportingController (a qualified name), reportingInstance (≤ 128), action (≤ 128) and reason
 *   (≤ 128) are required, message ≤ 1024 bytes;
 * - the event's namespace is a DNS-1123 subdomain (`namespace: Invalid value`).
 * Field paths use Kubernetes' internal names (reportingController for reportingComponent).
 */
export function validateEvent(obj: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const namespace = text(obj.metadata.namespace);
  const involvedNamespace = involved(obj, 'namespace');
  const mismatch = () => FieldError.invalid('involvedObject.namespace', involvedNamespace, 'does not match event.namespace');
  const eventTime = text(obj['eventTime']);
  if (eventTime === '') {
    if (involvedNamespace === '') {
      if (namespace !== '' && namespace !== 'default') errs.push(mismatch());
    } else if (namespace !== involvedNamespace) {
      errs.push(mismatch());
    }
  } else {
    if (involvedNamespace === '' && namespace !== 'default' && namespace !== 'kube-system') errs.push(mismatch());
    const controller = text(obj['reportingComponent']);
    if (controller === '') errs.push(FieldError.required('reportingController'));
    for (const msg of isQualifiedName(controller)) errs.push(FieldError.invalid('reportingController', controller, msg));
    const instance = text(obj['reportingInstance']);
    if (instance === '') errs.push(FieldError.required('reportingInstance'));
    if (byteLength(instance) > REPORTING_INSTANCE_LENGTH_LIMIT) {
      errs.push(FieldError.invalid('reportingInstance', '', `can have at most ${REPORTING_INSTANCE_LENGTH_LIMIT} characters`));
    }
    const action = text(obj['action']);
    if (action === '') errs.push(FieldError.required('action'));
    if (byteLength(action) > ACTION_LENGTH_LIMIT) {
      errs.push(FieldError.invalid('action', '', `can have at most ${ACTION_LENGTH_LIMIT} characters`));
    }
    const reason = text(obj['reason']);
    if (reason === '') errs.push(FieldError.required('reason'));
    if (byteLength(reason) > REASON_LENGTH_LIMIT) {
      errs.push(FieldError.invalid('reason', '', `can have at most ${REASON_LENGTH_LIMIT} characters`));
    }
    if (byteLength(text(obj['message'])) > NOTE_LENGTH_LIMIT) {
      errs.push(FieldError.invalid('message', '', `can have at most ${NOTE_LENGTH_LIMIT} characters`));
    }
  }
  for (const msg of isDNS1123Subdomain(namespace)) errs.push(FieldError.invalid('namespace', namespace, msg));
  return errs;
}

/** The `source` field label: source.component, or reportingComponent when that is empty. */
function eventSource(obj: KubeObject): string {
  const component = text(record(obj['source'])['component']);
  return component !== '' ? component : text(obj['reportingComponent']);
}

/** eventTime and series.lastObservedTime in MicroTime's wire form (see formatMicroTime). */
export function normalizeEventTimes(obj: KubeObject): void {
  if (typeof obj['eventTime'] === 'string') obj['eventTime'] = formatMicroTime(obj['eventTime']);
  const series = obj['series'];
  if (series !== null && typeof series === 'object' && !Array.isArray(series)) {
    const s = series as Record<string, unknown>;
    if (typeof s['lastObservedTime'] === 'string') s['lastObservedTime'] = formatMicroTime(s['lastObservedTime']);
  }
}

/** events (v1). */
export const eventResource: ResourceDef = {
  group: '',
  version: 'v1',
  resource: 'events',
  protobuf: true,
  printer: eventPrinter,
  singular: 'event',
  kind: 'Event',
  listKind: 'EventList',
  namespaced: true,
  shortNames: ['ev'],
  fieldSelectors: {
    'involvedObject.kind': (obj) => involved(obj, 'kind'),
    'involvedObject.namespace': (obj) => involved(obj, 'namespace'),
    'involvedObject.name': (obj) => involved(obj, 'name'),
    'involvedObject.uid': (obj) => involved(obj, 'uid'),
    'involvedObject.apiVersion': (obj) => involved(obj, 'apiVersion'),
    'involvedObject.resourceVersion': (obj) => involved(obj, 'resourceVersion'),
    'involvedObject.fieldPath': (obj) => involved(obj, 'fieldPath'),
    reason: (obj) => text(obj['reason']),
    reportingComponent: (obj) => text(obj['reportingComponent']),
    source: eventSource,
    type: (obj) => text(obj['type']),
  },
  schema: eventSchema,
  nameValidator: validatePathSegmentName,
  strategy: {
    defaults: normalizeEventTimes,
    validate: (obj) => validateEvent(obj),
  },
};
