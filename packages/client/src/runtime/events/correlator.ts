/**
 * The event correlator: what happens to an event between the recorder and the API, as client-go's
 * EventCorrelator does it (tools/record/events_cache.go):
 *
 * 1. aggregation: when events about one object with the same type and reason but different
 *    messages come `aggregateMaxEvents` (10) times within `aggregateIntervalMs` (10 min), they are
 *    folded into one event whose message is "(combined from similar events): <latest message>";
 * 2. counting: an event seen before (same source, object, type, reason, message) becomes a patch
 *    of the earlier Event's count, lastTimestamp and message instead of a new Event;
 * 3. spam filtering: a token bucket per source+object (burst 25, one more every 5 minutes).
 *
 * Counting happens before filtering, as in client-go: a dropped event still counts, so the next
 * event let through carries the number of times it really happened.
 */
import { realClock, type Clock, type Event, type Time } from '@setpoint/api';
import { LruCache } from './lru.js';
import { EventSpamFilter } from './spamfilter.js';

/** Options of the correlation; each default is client-go's and is stated on its field. */
export interface EventCorrelatorOptions {
  /** Default realClock. */
  readonly clock?: Clock;
  /** How many keys each of the correlator's caches remembers. Default 4096. */
  readonly cacheSize?: number;
  /** How many events one source may send about one object at once. Default 25. */
  readonly spamBurst?: number;
  /** After the burst, one more event per this many ms. Default 300,000 (5 minutes). */
  readonly spamRefillIntervalMs?: number;
  /** How many distinct messages of one reason before they are combined. Default 10. */
  readonly aggregateMaxEvents?: number;
  /** How long similar events are remembered for aggregation. Default 600,000 (10 minutes). */
  readonly aggregateIntervalMs?: number;
}

/** The merge patch that records one more occurrence of an existing Event. */
export interface EventPatch {
  count: number;
  lastTimestamp: Time;
  message?: string;
}

/** What to do with an event: nothing (`skip`), create it, or patch the Event already written. */
export type CorrelateResult =
  | { readonly skip: true }
  | {
      readonly skip: false;
      /** The event as it should exist after the write (count and firstTimestamp included). */
      readonly event: Event;
      /** The correlation key: two results with the same key are about the same Event. */
      readonly key: string;
      /** Present when an Event was written for this key before: patch it instead of creating one. */
      readonly patch: EventPatch | undefined;
    };

export const COMBINED_PREFIX = '(combined from similar events): ';

/** metav1.Time on the wire: RFC 3339, seconds precision, UTC. */
export function formatTime(ms: number): Time {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function objectKey(event: Event): string[] {
  const o = event.involvedObject;
  return [event.source?.component ?? '', event.source?.host ?? '', o.kind ?? '', o.namespace ?? '', o.name ?? '', o.fieldPath ?? '', o.uid ?? '', o.apiVersion ?? ''];
}

/** The key of identical events (client-go's getEventKey). */
export function eventKey(event: Event): string {
  return JSON.stringify([...objectKey(event), event.type ?? '', event.reason ?? '', event.message ?? '']);
}

/** The key of similar events, which differ only in their message (EventAggregatorByReasonFunc). */
function aggregateKey(event: Event): string {
  const o = event.involvedObject;
  return JSON.stringify([
    event.source?.component ?? '', event.source?.host ?? '', o.kind ?? '', o.namespace ?? '', o.name ?? '', o.uid ?? '', o.apiVersion ?? '',
    event.type ?? '', event.reason ?? '', event.reportingComponent ?? '', event.reportingInstance ?? '',
  ]);
}

interface AggregateRecord {
  /** The distinct messages seen, oldest first. */
  readonly messages: Set<string>;
  lastSeen: number;
}

interface Observation {
  readonly count: number;
  readonly firstTimestamp: Time | undefined;
  readonly name: string;
}

/**
 * Correlates events (see the module comment). Synchronous and in memory; one per broadcaster.
 * Throws: the constructor throws a RangeError for options out of range (sizes and counts ≥ 1,
 * intervals > 0).
 */
export class EventCorrelator {
  readonly #clock: Clock;
  readonly #spam: EventSpamFilter;
  readonly #aggregates: LruCache<string, AggregateRecord>;
  readonly #observations: LruCache<string, Observation>;
  readonly #maxEvents: number;
  readonly #intervalMs: number;

  constructor(options: EventCorrelatorOptions = {}) {
    const { clock = realClock, cacheSize = 4096, spamBurst = 25, spamRefillIntervalMs = 300_000 } = options;
    const { aggregateMaxEvents = 10, aggregateIntervalMs = 600_000 } = options;
    if (!Number.isInteger(aggregateMaxEvents) || aggregateMaxEvents < 1) {
      throw new RangeError(`EventCorrelator: aggregateMaxEvents must be an integer >= 1, got ${aggregateMaxEvents}`);
    }
    if (!(aggregateIntervalMs > 0)) throw new RangeError(`EventCorrelator: aggregateIntervalMs must be > 0, got ${aggregateIntervalMs}`);
    this.#clock = clock;
    this.#spam = new EventSpamFilter({ burst: spamBurst, refillIntervalMs: spamRefillIntervalMs, cacheSize, clock });
    this.#aggregates = new LruCache(cacheSize);
    this.#observations = new LruCache(cacheSize);
    this.#maxEvents = aggregateMaxEvents;
    this.#intervalMs = aggregateIntervalMs;
  }

  /** What to write for `event` (a new event as the recorder made it: count 1). */
  correlate(event: Event): CorrelateResult {
    const [aggregated, key] = this.#aggregate(event);
    const [observed, patch] = this.#observe(aggregated, key);
    if (this.#spam.filter(observed)) return { skip: true };
    return { skip: false, event: observed, key, patch };
  }

  /** client-go's EventAggregate: the event (or a combined one) and its correlation key. */
  #aggregate(event: Event): [Event, string] {
    const now = this.#clock.now();
    const akey = aggregateKey(event);
    let record = this.#aggregates.get(akey);
    if (record === undefined || now - record.lastSeen > this.#intervalMs) record = { messages: new Set(), lastSeen: now };
    record.messages.add(event.message ?? '');
    record.lastSeen = now;
    this.#aggregates.set(akey, record);
    if (record.messages.size < this.#maxEvents) return [event, eventKey(event)];

    // Keep the set below the threshold, so that each new distinct message is combined as well.
    const oldest = record.messages.values().next();
    if (!oldest.done) record.messages.delete(oldest.value);
    const combined: Event = {
      ...event,
      metadata: { ...event.metadata },
      message: COMBINED_PREFIX + (event.message ?? ''),
    };
    delete combined.metadata.annotations;
    return [combined, akey];
  }

  /** client-go's eventObserve: counts the event under `key`, and gives the patch for a repeat. */
  #observe(event: Event, key: string): [Event, EventPatch | undefined] {
    const last = this.#observations.get(key);
    let observed = event;
    let patch: EventPatch | undefined;
    if (last !== undefined) {
      const count = last.count + 1;
      observed = { ...event, metadata: { ...event.metadata, name: last.name }, count };
      if (last.firstTimestamp === undefined) delete observed.firstTimestamp;
      else observed.firstTimestamp = last.firstTimestamp;
      patch = { count, lastTimestamp: event.lastTimestamp ?? formatTime(this.#clock.now()) };
      if (event.message) patch.message = event.message;
    }
    this.#observations.set(key, { count: observed.count ?? 1, firstTimestamp: observed.firstTimestamp, name: observed.metadata.name ?? '' });
    return [observed, patch];
  }
}
