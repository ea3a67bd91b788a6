/**
 * Store watches on etcd: every watch of one EtcdStore shares one gRPC watch stream (etcd
 * multiplexes watchers on a stream, as kube-apiserver's client does), with client-chosen watch ids.
 *
 * Expected flow: `open()` creates the etcd watcher at once (events buffer from then on), asking for
 * previous values (prev_kv), fragmented large responses and periodic progress notifications. A
 * broken stream is opened again with backoff and every watch re-created from the last revision it
 * completed, so consumers see a pause, never a gap or a duplicate; history compacted in between
 * ends the watch with Compacted.
 *
 * Revisions: a watch from revision R asks etcd for events from R itself, not R + 1, and drops the
 * events at R: etcd then refuses exactly the starts below its compact revision, as the Store
 * contract wants (a start at the compact revision would otherwise miss deletions at it).
 *
 * Progress: a progress event must come after every change the watch was already sent.
 * - etcd's periodic progress notification (progress_notify; every
 *   --experimental-watch-progress-notify-interval, default 10 minutes) travels in order with the
 *   watcher's events, in every etcd version.
 * - etcd's answer to RequestProgress is in order only from 3.4.31 and 3.5.13 (etcd-io/etcd 15220,
 *   the same versions kube-apiserver requires before it relies on it). With those, a request for
 *   progress is sent to etcd; with older members (Debian bookworm ships 3.4.23) the store waits for
 *   the next periodic notification, so run etcd with a short progress interval (docs/etcd.md).
 * Either way a progress event goes only to a watch that wants one: after `requestProgress()`, or
 * when its `progressIntervalMs` passed without events.
 *
 * Guarantees: a consumer more than `maxBuffered` events behind is ended with WatchOverflow carrying
 * the last revision it received; the stream never waits for it (the WatchBuffer every backend's
 * watch shares). Closing the store ends every watch
 * with Closed.
 */
import type { Etcd3, IDuplexStream, IEvent, IWatchRequest, IWatchResponse } from 'etcd3';
import { Backoff, realClock, type Clock, type Logger, type Timer } from '@setpoint/api';
import { StoreError, type WatchEvent, type WatchOptions } from '../store.js';
import { WatchBuffer } from '../watch-channel.js';
import { storeRevision, type KeyCodec } from './codec.js';

/** etcd's watch id of a response that belongs to no one watcher (a broadcast progress notification). */
const BROADCAST = '-1';
const MIN_BACKOFF_MS = 50;
const MAX_BACKOFF_MS = 5_000;

export interface WatchHubOptions {
  readonly client: Etcd3;
  readonly codec: KeyCodec;
  readonly logger: Logger;
  /** Whether every etcd member answers RequestProgress in order with events (3.4.31+, 3.5.13+). */
  readonly orderedProgressRequests: boolean;
  /** Told of every compact revision a watch learns. */
  readonly onCompactRevision: (revision: number) => void;
  /** The clock the reconnect backoff waits on. Default the real clock. */
  readonly clock?: Clock;
}

/** The watches of one store and the one stream they share. */
export class WatchHub {
  private readonly watches = new Map<string, EtcdWatch>();
  private stream: IDuplexStream<IWatchRequest, IWatchResponse> | undefined;
  private connecting = false;
  private closed = false;
  private nextId = 1;
  private readonly backoff = new Backoff({ initialMs: MIN_BACKOFF_MS, maxMs: MAX_BACKOFF_MS });
  private reconnectTimer: Timer | undefined;
  /** Creates sent on the current stream so far; orders creates against progress requests. */
  private sequence = 0;
  /** Progress requests sent so far (over every stream). */
  private progressRequests = 0;
  /** The progress request waiting for its answer: its number, and how many creates preceded it. */
  private progressAsked: { readonly request: number; readonly sequence: number } | undefined;

  constructor(readonly options: WatchHubOptions) {}

  /** A new watch of keys under `prefix`, created at etcd right away. */
  open(prefix: string, fromRevision: number, options: WatchOptions): EtcdWatch {
    const watch = new EtcdWatch(this, String(this.nextId++), prefix, fromRevision, options);
    if (watch.done) return watch;
    this.watches.set(watch.id, watch);
    if (this.stream !== undefined) this.create(watch);
    else this.connect();
    return watch;
  }

  /** Every watch wants a progress event; asks etcd for one when it answers in order. */
  requestProgress(): void {
    if (this.closed) return;
    for (const watch of this.watches.values()) watch.wantProgress(this.progressRequests);
    this.askProgress();
  }

  /** The number of the last progress request sent: a want that begins now is answered by a later one. */
  get lastProgressRequest(): number {
    return this.progressRequests;
  }

  /** Asks etcd for a progress notification (in-order servers only; one request at a time). */
  askProgress(): void {
    if (!this.options.orderedProgressRequests || this.stream === undefined || this.progressAsked !== undefined) return;
    this.progressAsked = { request: ++this.progressRequests, sequence: this.sequence };
    this.stream.write({ progress_request: {} });
  }

  /** Forgets `watch` and cancels it at etcd. */
  remove(watch: EtcdWatch): void {
    if (this.watches.get(watch.id) !== watch) return;
    this.watches.delete(watch.id);
    if (this.stream !== undefined && watch.sentOn === this.stream) this.stream.write({ cancel_request: { watch_id: watch.id } });
  }

  /** Ends every watch with Closed and closes the stream. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.reconnectTimer?.cancel();
    const stream = this.stream;
    this.stream = undefined;
    stream?.cancel();
    const err = new StoreError('Closed', 'the store was closed');
    for (const watch of [...this.watches.values()]) watch.fail(err);
    this.watches.clear();
  }

  private connect(): void {
    if (this.connecting || this.closed || this.stream !== undefined) return;
    this.connecting = true;
    this.options.client.watchClient.watch().then(
      (stream) => {
        this.connecting = false;
        if (this.closed) {
          stream.cancel();
          return;
        }
        this.stream = stream;
        this.sequence = 0;
        this.progressAsked = undefined;
        stream.on('data', (res: IWatchResponse) => {
          if (this.stream !== stream) return;
          this.backoff.reset();
          this.dispatch(res);
        });
        stream.on('error', (err: Error) => this.lost(stream, err));
        stream.on('end', () => this.lost(stream, new Error('etcd ended the watch stream')));
        for (const watch of this.watches.values()) this.create(watch);
      },
      (err: unknown) => {
        this.connecting = false;
        this.retry(err);
      },
    );
  }

  private lost(stream: IDuplexStream<IWatchRequest, IWatchResponse>, err: unknown): void {
    if (this.stream !== stream) return;
    this.stream = undefined;
    stream.cancel();
    for (const watch of this.watches.values()) watch.detach();
    this.retry(err);
  }

  private retry(err: unknown): void {
    if (this.closed) return;
    const retryInMs = this.backoff.next();
    this.options.logger.warn({ err, retryInMs, watches: this.watches.size }, 'etcd watch stream failed; opening it again');
    this.reconnectTimer?.cancel();
    this.reconnectTimer = (this.options.clock ?? realClock).setTimeout(() => this.connect(), retryInMs).unref();
  }

  private create(watch: EtcdWatch): void {
    const stream = this.stream!;
    watch.attach(stream, ++this.sequence);
    stream.write({ create_request: watch.createRequest() });
  }

  private dispatch(res: IWatchResponse): void {
    if (res.watch_id === BROADCAST) {
      if (res.created && res.canceled) {
        // A create refused before it got an id (permissions): it cannot be told apart, so every
        // unconfirmed watch fails and its consumer resumes.
        for (const watch of [...this.watches.values()]) if (!watch.confirmed) watch.fail(refused(res.cancel_reason));
        return;
      }
      if (res.events.length > 0) return;
      // The answer to our progress request: true for the watches created before it was sent, and
      // the current revision for those that wanted progress before it was sent.
      const asked = this.progressAsked;
      this.progressAsked = undefined;
      if (asked === undefined) return;
      const revision = storeRevision(res.header.revision);
      let wanting = false;
      for (const watch of this.watches.values()) {
        if (watch.confirmed && watch.sequence <= asked.sequence) watch.progress(revision, asked.request);
        wanting ||= watch.wantedSince !== undefined;
      }
      if (wanting) this.askProgress();
      return;
    }
    this.watches.get(res.watch_id)?.handle(res);
  }
}

/** One store watch: the consumer's iterator over what etcd sends for it. */
export class EtcdWatch extends WatchBuffer {
  /**
   * When it wants a progress event: the number of the first progress request sent after the want
   * began (whose answer carries a revision at least as new); undefined when it wants none.
   */
  wantedSince: number | undefined;
  /** Whether etcd confirmed its creation on the current stream. */
  confirmed = false;
  /** The stream its create was sent on. */
  sentOn: object | undefined;
  /** Its create's place on that stream. */
  sequence = 0;
  private readonly range: { key: Buffer; range_end: Buffer };
  /** Every change up to this revision has been buffered (the point to resume from). */
  private complete: number;
  /** Events at or below this revision are duplicates of what was buffered before a re-create. */
  private skipThrough: number;
  private fragments: IEvent[] = [];

  constructor(
    private readonly hub: WatchHub,
    readonly id: string,
    prefix: string,
    fromRevision: number,
    options: WatchOptions,
  ) {
    super(fromRevision, options);
    this.range = hub.options.codec.range(prefix);
    this.complete = fromRevision;
    this.skipThrough = fromRevision;
  }

  get done(): boolean {
    return this.finished;
  }

  /** The create request that resumes this watch after the last complete revision. */
  createRequest(): IWatchRequest['create_request'] {
    return {
      ...this.range,
      start_revision: Math.max(this.complete, 1),
      prev_kv: true,
      progress_notify: true,
      fragment: true,
      watch_id: this.id,
    };
  }

  /** Its create is being sent on `stream` as the `sequence`-th of that stream. */
  attach(stream: object, sequence: number): void {
    this.sentOn = stream;
    this.sequence = sequence;
    this.confirmed = false;
    this.skipThrough = this.complete;
    this.fragments = [];
  }

  /** The stream broke: wait to be created again. */
  detach(): void {
    this.sentOn = undefined;
    this.confirmed = false;
    this.fragments = [];
  }

  /** One response etcd sent for this watch. */
  handle(res: IWatchResponse): void {
    if (this.finished) return;
    const compactRevision = Number(res.compact_revision);
    if (compactRevision > 0) {
      this.hub.options.onCompactRevision(compactRevision);
      this.fail(
        new StoreError('Compacted', `revision ${this.complete} has been compacted (compact revision ${compactRevision})`, {
          compactRevision,
          currentRevision: storeRevision(res.header.revision),
        }),
      );
      return;
    }
    if (res.created) {
      if (res.canceled) this.fail(refused(res.cancel_reason));
      else this.confirmed = true;
      return;
    }
    if (res.canceled) {
      this.fail(refused(res.cancel_reason || 'etcd canceled the watch'));
      return;
    }
    if (res.events.length === 0 && this.fragments.length === 0) {
      this.progress(storeRevision(res.header.revision));
      return;
    }
    if (res.fragment) {
      for (const e of res.events) this.fragments.push(e);
      return;
    }
    let events = res.events;
    if (this.fragments.length > 0) {
      events = this.fragments.concat(res.events);
      this.fragments = [];
    }
    const codec = this.hub.options.codec;
    for (const e of events) {
      const revision = Number(e.kv.mod_revision);
      if (revision <= this.skipThrough) continue;
      if (revision > this.complete) this.complete = revision;
      const prev = e.prev_kv ? codec.decode(e.prev_kv) : undefined;
      let event: WatchEvent;
      if (e.type === 'Delete') event = { type: 'delete', revision, key: codec.decodeKey(e.kv.key), prev };
      else if (e.kv.version === '1') event = { type: 'create', revision, kv: codec.decode(e.kv) };
      else event = { type: 'update', revision, kv: codec.decode(e.kv), prev };
      this.enqueue(event);
      if (this.finished) return;
    }
  }

  /** Wants a progress event; `lastRequest` is the number of the last progress request sent. */
  wantProgress(lastRequest: number): void {
    this.wantedSince ??= lastRequest + 1;
  }

  /**
   * etcd says every change up to `revision` has been sent to this watch: periodically (no
   * `request`), or answering progress request number `request`, which satisfies only wants that
   * began before it was sent.
   */
  progress(revision: number, request?: number): void {
    if (this.finished || revision < this.complete) return;
    this.complete = revision;
    if (this.wantedSince === undefined || (request !== undefined && request < this.wantedSince)) return;
    this.wantedSince = undefined;
    this.enqueue({ type: 'progress', revision });
  }

  protected override idle(): void {
    this.wantProgress(this.hub.lastProgressRequest);
    this.hub.askProgress();
  }

  protected override release(): void {
    this.hub.remove(this);
  }
}

function refused(reason: string): StoreError {
  return new StoreError('Unavailable', `etcd refused the watch: ${reason}`);
}
