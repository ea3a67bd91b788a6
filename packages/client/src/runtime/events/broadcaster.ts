/**
 * EventBroadcaster: writes the events its recorders make to the API, in the background, as
 * client-go's eventBroadcaster with StartRecordingToSink does: each event is correlated
 * (aggregated, counted, spam-filtered; see EventCorrelator), then created, or patched when it
 * repeats an Event already written; transport errors are retried, rejections are not.
 */
import { isApiError, realClock, silentLogger, type Clock, type Event, type Logger } from '@setpoint/api';
import { EventCorrelator, type EventCorrelatorOptions, type EventPatch } from './correlator.js';
import { createRecorder, type EventRecorder, type EventSourceOptions } from './recorder.js';

/**
 * What the broadcaster needs of the API: create an Event, and merge-patch one (a ResourceClient
 * for core/v1 events fits). Failures: ApiError for answers of the server (patch of a missing
 * Event: NotFound); ApiError ServiceUnavailable or Timeout, or any other error, for transport
 * failures.
 */
export interface EventClient {
  create(obj: Event): Promise<Event>;
  patch(name: string, patch: EventPatch, options: { namespace: string; type: 'merge' }): Promise<Event>;
}

/** Options of an EventBroadcaster; each default is stated on its field (client-go's where it has one). */
export interface EventBroadcasterOptions extends EventCorrelatorOptions {
  readonly client: EventClient;
  /** Default silentLogger. */
  readonly logger?: Logger;
  /** How many distinct events may wait to be written; more are dropped. Default 1000. */
  readonly maxQueued?: number;
  /** Attempts to write one event through transport errors. Default 12. */
  readonly maxTries?: number;
  /** The wait between attempts (the first one random within it, to spread clients). Default 10,000 ms. */
  readonly retryIntervalMs?: number;
  /** The random source of the first wait, returning [0, 1). Default Math.random. */
  readonly random?: () => number;
}

/**
 * ApiErrors worth another try later: the server (or the way to it) is unavailable or overloaded.
 * Setpoint's HttpClient reports transport failures as ServiceUnavailable and timeouts as Timeout,
 * where client-go's REST client returns errors that are not StatusErrors (which it retries).
 */
const RETRIED_REASONS: ReadonlySet<string> = new Set(['ServiceUnavailable', 'Timeout', 'ServerTimeout', 'TooManyRequests']);

interface Write {
  readonly event: Event;
  readonly patch: EventPatch | undefined;
}

function describe(event: Event): object {
  const o = event.involvedObject;
  return {
    event: `${event.metadata.namespace ?? ''}/${event.metadata.name ?? ''}`,
    object: `${o.kind ?? ''} ${o.namespace ? `${o.namespace}/` : ''}${o.name ?? ''}`,
    reason: event.reason,
    count: event.count,
  };
}

/**
 * Writes events to the API for the recorders it makes.
 *
 * Guarantees: recording never blocks or throws (see EventRecorder); writes happen one at a time,
 * in the order events were recorded, so that an Event is created before it is patched. Repeats of
 * an event still waiting to be written are folded into that write (one request carries the latest
 * count). When more than `maxQueued` distinct events wait, new ones are dropped with a log line,
 * like client-go's full channel. A patch that finds its Event gone creates it again, with the
 * count so far. Errors are logged: an ApiError that rejects the event (Invalid, Forbidden,
 * AlreadyExists, InternalError, …) is not retried; transport failures and ApiErrors saying the
 * server is unavailable or overloaded (ServiceUnavailable, Timeout, ServerTimeout,
 * TooManyRequests) are, up to `maxTries`.
 * Caveats: events are best effort, as in Kubernetes: ones still waiting at shutdown get one
 * attempt, and none survives a restart of the process.
 * Throws: the constructor throws a RangeError for options out of range; newRecorder throws a
 * RangeError for an empty component.
 */
export class EventBroadcaster implements AsyncDisposable {
  readonly #client: EventClient;
  readonly #clock: Clock;
  readonly #log: Logger;
  readonly #correlator: EventCorrelator;
  readonly #maxQueued: number;
  readonly #maxTries: number;
  readonly #retryMs: number;
  readonly #random: () => number;
  /** Writes waiting, by correlation key, in the order they were first recorded. */
  readonly #pending = new Map<string, Write>();
  #draining: Promise<void> | undefined;
  #dropped = 0;
  #closed = false;
  readonly #stop = new AbortController();

  constructor(options: EventBroadcasterOptions) {
    const { maxQueued = 1000, maxTries = 12, retryIntervalMs = 10_000 } = options;
    if (!Number.isInteger(maxQueued) || maxQueued < 1) throw new RangeError(`EventBroadcaster: maxQueued must be an integer >= 1, got ${maxQueued}`);
    if (!Number.isInteger(maxTries) || maxTries < 1) throw new RangeError(`EventBroadcaster: maxTries must be an integer >= 1, got ${maxTries}`);
    if (!(retryIntervalMs >= 0)) throw new RangeError(`EventBroadcaster: retryIntervalMs must be >= 0, got ${retryIntervalMs}`);
    this.#client = options.client;
    this.#clock = options.clock ?? realClock;
    this.#log = options.logger ?? silentLogger;
    this.#correlator = new EventCorrelator({ ...options, clock: this.#clock });
    this.#maxQueued = maxQueued;
    this.#maxTries = maxTries;
    this.#retryMs = retryIntervalMs;
    this.#random = options.random ?? Math.random;
  }

  /** A recorder whose events come from `source` (controller-runtime's GetEventRecorderFor(name)). */
  newRecorder(source: EventSourceOptions): EventRecorder {
    return createRecorder(source, this.#clock, this.#log.child({ component: source.component }), (event) => this.#record(event));
  }

  /** Resolves once every event recorded so far has been written (or given up on). */
  async flush(): Promise<void> {
    while (this.#draining !== undefined) await this.#draining;
  }

  /**
   * Stops: events recorded from now on are dropped, retry waits end (that event is given up),
   * and events still waiting get one attempt. Resolves when nothing is left to write.
   */
  async shutdown(): Promise<void> {
    this.#closed = true;
    this.#stop.abort();
    await this.flush();
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.shutdown();
  }

  #record(event: Event): void {
    if (this.#closed) {
      this.#log.debug(describe(event), 'event broadcaster is shut down; dropping the event');
      return;
    }
    const result = this.#correlator.correlate(event);
    if (result.skip) {
      this.#log.debug(describe(event), 'too many events about this object; dropping the event');
      return;
    }
    const waiting = this.#pending.get(result.key);
    if (waiting !== undefined) {
      // Not written yet: write the latest state instead. A create stays a create.
      this.#pending.set(result.key, { event: result.event, patch: waiting.patch === undefined ? undefined : result.patch });
    } else if (this.#pending.size >= this.#maxQueued) {
      if (this.#dropped++ === 0) this.#log.warn({ maxQueued: this.#maxQueued }, 'too many events waiting to be written; dropping events');
      return;
    } else {
      this.#pending.set(result.key, { event: result.event, patch: result.patch });
    }
    // Start writing on a later turn, never inside the caller's call.
    this.#draining ??= Promise.resolve().then(() => this.#drain());
  }

  async #drain(): Promise<void> {
    try {
      for (;;) {
        const next = this.#pending.entries().next();
        if (next.done) return;
        const [key, write] = next.value;
        this.#pending.delete(key);
        if (this.#dropped > 0) {
          this.#log.warn({ dropped: this.#dropped }, 'events were dropped while too many waited');
          this.#dropped = 0;
        }
        await this.#write(write);
      }
    } finally {
      this.#draining = undefined;
    }
  }

  /** Writes one event, retrying transport errors. Never rejects. */
  async #write({ event, patch }: Write): Promise<void> {
    for (let tries = 1; ; tries++) {
      if (await this.#attempt(event, patch)) return;
      if (tries >= this.#maxTries) {
        this.#log.error(describe(event), 'unable to write the event (retry limit exceeded)');
        return;
      }
      const wait = tries === 1 ? Math.min(Math.max(this.#random(), 0), 1) * this.#retryMs : this.#retryMs;
      try {
        await this.#clock.sleep(wait, this.#stop.signal);
      } catch {
        this.#log.warn(describe(event), 'event broadcaster shut down; giving up on the event');
        return;
      }
    }
  }

  /** One attempt (client-go's recordEvent): true when done with the event, false to retry. */
  async #attempt(event: Event, patch: EventPatch | undefined): Promise<boolean> {
    const namespace = event.metadata.namespace ?? 'default';
    try {
      if (patch !== undefined) {
        try {
          await this.#client.patch(event.metadata.name ?? '', patch, { namespace, type: 'merge' });
          return true;
        } catch (err) {
          // The Event may have been deleted (or its create dropped): create it again.
          if (!isApiError(err, 'NotFound')) throw err;
        }
      }
      const { resourceVersion: _rv, ...metadata } = event.metadata;
      await this.#client.create({ ...event, metadata });
      return true;
    } catch (err) {
      if (isApiError(err) && !RETRIED_REASONS.has(err.reason)) {
        // The server answered: sending the same event again would get the same answer.
        const fields = { ...describe(event), err };
        if (isApiError(err, 'AlreadyExists')) this.#log.debug(fields, 'the server rejected the event (will not retry)');
        else this.#log.error(fields, 'the server rejected the event (will not retry)');
        return true;
      }
      this.#log.error({ ...describe(event), err }, 'unable to write the event (may retry after sleeping)');
      return false;
    }
  }
}
