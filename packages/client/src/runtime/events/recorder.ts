/**
 * EventRecorder: what a controller calls to say something happened to an object, and how the
 * core/v1 Event for it is made, as client-go's tools/record recorder makes it.
 */
import { format } from 'node:util';
import type { Clock, Event, KubeObject, Logger, ObjectReference } from '@setpoint/api';
import { formatTime } from './correlator.js';

/** The two event types Kubernetes knows. */
export type EventType = 'Normal' | 'Warning';

/** Who records: source.component and reportingComponent; source.host and reportingInstance. */
export interface EventSourceOptions {
  /** The component, e.g. "deployment-controller". Must not be empty. */
  readonly component: string;
  /** The host or instance, e.g. the pod name. Default '' (not set), as controller-runtime does. */
  readonly host?: string;
}

/**
 * Records events about objects.
 *
 * Guarantees: never throws and never blocks: an event is handed to a background writer (which
 * aggregates, rate-limits and retries; see EventBroadcaster) and this call returns. An event that
 * cannot be made (an object without kind or name, a type other than Normal or Warning) is dropped
 * with a log line.
 */
export interface EventRecorder {
  /** Records that `reason` (short, CamelCase) happened to `object`, described by `message`. */
  event(object: KubeObject | ObjectReference, type: EventType, reason: string, message: string): void;
  /** Like event, with the message made by node:util's format (%s, %d, %j, %o, …) from `fmt` and `args`. */
  eventf(object: KubeObject | ObjectReference, type: EventType, reason: string, fmt: string, ...args: unknown[]): void;
  /** Like eventf, with annotations on the Event. */
  annotatedEventf(
    object: KubeObject | ObjectReference,
    annotations: Readonly<Record<string, string>>,
    type: EventType,
    reason: string,
    fmt: string,
    ...args: unknown[]
  ): void;
}

/**
 * The reference to an object an Event is about (client-go's reference.GetReference): kind,
 * apiVersion, name, namespace, uid and resourceVersion from a KubeObject; an ObjectReference is
 * taken as it is. Undefined when kind or name is missing.
 */
export function referenceTo(object: KubeObject | ObjectReference): ObjectReference | undefined {
  let ref: ObjectReference;
  if ('metadata' in object && object.metadata !== null && typeof object.metadata === 'object') {
    const o = object as KubeObject;
    ref = {};
    if (o.kind) ref.kind = o.kind;
    if (o.metadata.namespace) ref.namespace = o.metadata.namespace;
    if (o.metadata.name) ref.name = o.metadata.name;
    if (o.metadata.uid) ref.uid = o.metadata.uid;
    if (o.apiVersion) ref.apiVersion = o.apiVersion;
    if (o.metadata.resourceVersion) ref.resourceVersion = o.metadata.resourceVersion;
  } else {
    ref = { ...(object as ObjectReference) };
  }
  return ref.kind && ref.name ? ref : undefined;
}

let sequence = 0;

/**
 * A new Event about `ref`, as client-go's makeEvent writes it: named "<object name>.<hex
 * nanoseconds>" (made unique within this process), in the object's namespace ("default" for a
 * cluster-scoped object), count 1, firstTimestamp = lastTimestamp = now.
 */
export function makeEvent(
  ref: ObjectReference,
  source: EventSourceOptions,
  type: EventType,
  reason: string,
  message: string,
  now: number,
  annotations?: Readonly<Record<string, string>>,
): Event {
  // Nanoseconds from a millisecond clock, with a counter in the sub-millisecond digits so that two
  // events about one object within a millisecond get different names.
  const nanos = BigInt(now) * 1_000_000n + BigInt(sequence++ % 1_000_000);
  const t = formatTime(now);
  const event: Event = {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name: `${ref.name ?? ''}.${nanos.toString(16)}`, namespace: ref.namespace || 'default' },
    involvedObject: ref,
    reason,
    message,
    source: source.host ? { component: source.component, host: source.host } : { component: source.component },
    firstTimestamp: t,
    lastTimestamp: t,
    count: 1,
    type,
    reportingComponent: source.component,
    reportingInstance: source.host ?? '',
  };
  if (annotations !== undefined) event.metadata.annotations = { ...annotations };
  return event;
}

/** A recorder for `source` that hands each event it makes to `sink`. */
export function createRecorder(source: EventSourceOptions, clock: Clock, logger: Logger, sink: (event: Event) => void): EventRecorder {
  if (source.component === '') throw new RangeError('EventRecorder: component must not be empty');
  const record = (
    object: KubeObject | ObjectReference,
    annotations: Readonly<Record<string, string>> | undefined,
    type: EventType,
    reason: string,
    message: () => string,
  ): void => {
    try {
      if (type !== 'Normal' && type !== 'Warning') {
        logger.error({ type, reason }, 'unsupported event type; dropping the event');
        return;
      }
      const ref = referenceTo(object);
      if (ref === undefined) {
        logger.error({ reason }, 'cannot make a reference to the object (no kind or name); dropping the event');
        return;
      }
      sink(makeEvent(ref, source, type, reason, message(), clock.now(), annotations));
    } catch (err) {
      logger.error({ err, reason }, 'failed to record an event; dropping it');
    }
  };
  return {
    event: (object, type, reason, message) => record(object, undefined, type, reason, () => message),
    eventf: (object, type, reason, fmt, ...args) => record(object, undefined, type, reason, () => format(fmt, ...args)),
    annotatedEventf: (object, annotations, type, reason, fmt, ...args) => record(object, annotations, type, reason, () => format(fmt, ...args)),
  };
}
