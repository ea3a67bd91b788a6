/** A recorder for tests of code that records events: it keeps them in memory (client-go's FakeRecorder). */
import { format } from 'node:util';
import type { KubeObject, ObjectReference } from '@setpoint/api';
import type { EventRecorder, EventType } from './recorder.js';

/** One event a FakeEventRecorder kept. */
export interface RecordedEvent {
  readonly object: KubeObject | ObjectReference;
  readonly type: EventType;
  readonly reason: string;
  readonly message: string;
  readonly annotations: Readonly<Record<string, string>> | undefined;
}

/** An EventRecorder that keeps every event, in order, with no aggregation or rate limit. */
export class FakeEventRecorder implements EventRecorder {
  readonly events: RecordedEvent[] = [];

  /** The events as client-go's FakeRecorder writes them: "<type> <reason> <message>". */
  lines(): string[] {
    return this.events.map((e) => `${e.type} ${e.reason} ${e.message}`);
  }

  event(object: KubeObject | ObjectReference, type: EventType, reason: string, message: string): void {
    this.events.push({ object, type, reason, message, annotations: undefined });
  }

  eventf(object: KubeObject | ObjectReference, type: EventType, reason: string, fmt: string, ...args: unknown[]): void {
    this.events.push({ object, type, reason, message: format(fmt, ...args), annotations: undefined });
  }

  annotatedEventf(
    object: KubeObject | ObjectReference,
    annotations: Readonly<Record<string, string>>,
    type: EventType,
    reason: string,
    fmt: string,
    ...args: unknown[]
  ): void {
    this.events.push({ object, type, reason, message: format(fmt, ...args), annotations: { ...annotations } });
  }
}
