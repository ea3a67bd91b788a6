/**
 * Watcher: list-then-watch that recovers, as an explicit state machine (kube-runtime's watcher).
 *
 *   empty ──(list)──▶ initPage ──(last page)──▶ initListed ──(watch)──▶ watching
 *     │ (watchList)                                  ▲                      │
 *     └─────▶ initialWatch ──(initial-events-end)────┼──────────────────────┤
 *                                                    └─ stream end / error ─┘
 *   any 410 (Expired, Gone) ──▶ empty (relist)
 *
 * Expected flow: `events(signal)` yields `init`, one `initApply` per listed object, `initDone` (a
 * complete listing at one resourceVersion: the consumer replaces its state with it), then `apply`
 * and `delete` as the watch reports changes; `health` whenever the watcher's health changes.
 *
 * Guarantees:
 * - Lists page through `pageSize` objects at a time following `continue`, every page at the first
 *   page's snapshot (the continue token carries it). A 410 on a continued page makes the next
 *   attempt list unpaged (client-go's pager does the same), since the snapshot fell out of history.
 * - Watches start from the listing's resourceVersion with bookmarks and a timeoutSeconds drawn from
 *   [minWatchTimeoutSeconds, 2 × minWatchTimeoutSeconds). When a watch ends or fails, the next one
 *   resumes from the last resourceVersion seen (objects and bookmarks alike): no change is missed
 *   or repeated. A 410 answer means that resourceVersion is gone: the watcher relists.
 * - Every error is retried after a jittered exponential backoff (default 800 ms → 30 s, doubled,
 *   jitter 1.0 as client-go's reflector, reset after 2 minutes without errors). The stream of
 *   events never ends because of an error; it ends only when `signal` aborts (or the consumer
 *   stops reading). A watch that closes within a second without any event counts as an error.
 * - A watch event without a string metadata.resourceVersion (a bookmark whose metadata is not an
 *   object included) cancels the watch and relists after a backoff: nothing to resume from. An
 *   ADDED or MODIFIED object whose metadata is not an object is handed on as `apply` (the informer
 *   reports and skips it); such a DELETED is dropped.
 * - With `watchList`, the first listing is a watch with sendInitialEvents=true ending at the
 *   bookmark annotated k8s.io/initial-events-end; if the server answers it with an error the
 *   watcher lists instead (and stops trying watch-list when the server refused the request).
 *
 * Assumes the ListWatch keeps its contract (types.ts): ERROR events and transport failures are
 * thrown by the watch iterator, 410 as ApiError with code 410.
 */
import { ApiError, Backoff, isGone, realClock, silentLogger, type BackoffOptions, type Clock, type KubeObject, type Logger } from '@setpoint/api';
import { readPage } from '../client/pager.js';
import type { ListOptions, ListWatch, WatchEvent, WatchOptions } from '../types.js';

/** What a watcher reports. Objects are the ListWatch's, unchanged. */
export type WatcherEvent<T extends KubeObject = KubeObject> =
  | { readonly type: 'init' }
  | { readonly type: 'initApply'; readonly object: T }
  | { readonly type: 'initDone'; readonly resourceVersion: string }
  | { readonly type: 'apply'; readonly object: T }
  | { readonly type: 'delete'; readonly object: T }
  | { readonly type: 'health'; readonly health: WatcherHealth };

/** idle: not started; listing: building a complete listing; watching; backoff: waiting to retry; stopped. */
export type WatcherState = 'idle' | 'listing' | 'watching' | 'backoff' | 'stopped';

/** How a watcher is doing: an informer's health() adds whether its cache has synced. */
export interface WatcherHealth {
  readonly state: WatcherState;
  /** The most recent error (kept after recovery, as a record); undefined if none ever happened. */
  readonly lastError: unknown;
  /** When lastError happened (clock ms), or undefined. */
  readonly lastErrorAt: number | undefined;
  /** How many times the list or watch was started again after an error (410s included). */
  readonly restarts: number;
}

/** Options of a Watcher; each default is stated on its field. */
export interface WatcherOptions {
  readonly namespace?: string;
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
  /** Objects per list page. Default 500 (client-go's pager, kube-rs). */
  readonly pageSize?: number;
  /** List with a watch (sendInitialEvents=true); falls back to paged lists on errors. Default false. */
  readonly watchList?: boolean;
  /** Watches ask for a timeout between this and twice this. Default 300 s (client-go's reflector). */
  readonly minWatchTimeoutSeconds?: number;
  /** Overrides of the retry backoff. Default { initialMs: 800, maxMs: 30_000, factor: 2, jitter: 1, resetAfterMs: 120_000 }. */
  readonly backoff?: Partial<Omit<BackoffOptions, 'clock'>>;
  /** Randomness for the watch timeout and the backoff jitter, [0, 1). Default Math.random. */
  readonly random?: () => number;
  readonly clock?: Clock;
  readonly logger?: Logger;
}

type Stream<T extends KubeObject> = { readonly iterator: AsyncIterator<WatchEvent<T>>; readonly abort: AbortController };

/** The watcher's states; each step maps one state to events and the next state. */
export type WatcherMachineState<T extends KubeObject> =
  | { readonly phase: 'empty'; readonly unpaged: boolean; readonly skipWatchList?: boolean }
  | { readonly phase: 'initPage'; readonly continueToken: string | undefined; readonly unpaged: boolean }
  | { readonly phase: 'initialWatch'; readonly stream: Stream<T> }
  | { readonly phase: 'initListed'; readonly resourceVersion: string }
  | { readonly phase: 'watching'; readonly resourceVersion: string; readonly stream: Stream<T>; readonly openedAt: number; readonly seen: number };

/** The outcome of one step: events to yield, the next state, and the error to back off on, if any. */
interface Step<T extends KubeObject> {
  readonly events: readonly WatcherEvent<T>[];
  readonly next: WatcherMachineState<T>;
  readonly error?: unknown;
}

const INITIAL_EVENTS_END = 'k8s.io/initial-events-end';

/** True for a 410 answer (@setpoint/api's isGone, exported here too for informer users). */
export { isGone };

/** A 4xx answer meaning the server does not accept the request as sent (not a transient failure). */
function isRefused(err: unknown): boolean {
  return err instanceof ApiError && [400, 403, 404, 405, 406, 415, 422].includes(err.code);
}

/**
 * A recovering list+watch of one kind (see the file comment). One watcher serves one consumer; use
 * `events()` once at a time.
 */
export class Watcher<T extends KubeObject = KubeObject> {
  readonly #lw: ListWatch<T>;
  readonly #options: WatcherOptions;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #random: () => number;
  readonly #backoff: Backoff;
  #watchListRefused = false;
  #resourceVersion = '';
  #health: WatcherHealth = { state: 'idle', lastError: undefined, lastErrorAt: undefined, restarts: 0 };

  constructor(listWatch: ListWatch<T>, options: WatcherOptions = {}) {
    this.#lw = listWatch;
    this.#options = options;
    this.#clock = options.clock ?? realClock;
    this.#logger = options.logger ?? silentLogger;
    this.#random = options.random ?? Math.random;
    this.#backoff = new Backoff({
      initialMs: 800,
      maxMs: 30_000,
      factor: 2,
      jitter: 1,
      resetAfterMs: 120_000,
      random: this.#random,
      ...options.backoff,
      clock: this.#clock,
    });
  }

  /** The last resourceVersion seen (listing, object or bookmark); '' before the first listing. */
  get resourceVersion(): string {
    return this.#resourceVersion;
  }

  health(): WatcherHealth {
    return this.#health;
  }

  /** Runs the state machine until `signal` aborts, yielding what it learns (file comment). */
  async *events(signal: AbortSignal): AsyncGenerator<WatcherEvent<T>, void, undefined> {
    let state: WatcherMachineState<T> = { phase: 'empty', unpaged: false };
    try {
      while (!signal.aborted) {
        const entering = phaseHealth(state.phase);
        if (entering !== this.#health.state) yield this.#setHealth({ state: entering });
        let step: Step<T>;
        try {
          step = await this.step(state, signal);
        } catch (err) {
          if (signal.aborted) return;
          throw err;
        }
        if (signal.aborted) return;
        state = step.next;
        for (const event of step.events) yield event;
        if (step.error !== undefined) {
          const retryInMs = this.#backoff.next();
          const error = step.error;
          this.#logger.warn({ err: error, retryInMs, relist: state.phase === 'empty' }, 'list/watch failed; retrying');
          yield this.#setHealth({ state: 'backoff', lastError: error, lastErrorAt: this.#clock.now(), restarts: this.#health.restarts + 1 });
          try {
            await this.#clock.sleep(retryInMs, signal);
          }
          // Stryker disable next-line BlockStatement: sleep rejects only on abort, which the loop condition also ends on
          catch {
            return; // aborted
          }
        }
      }
    } finally {
      if ('stream' in state) state.stream.abort.abort();
      this.#health = { ...this.#health, state: 'stopped' };
    }
  }

  /** One transition: (state) → (events, next state, error). Never throws for API or transport errors. */
  async step(state: WatcherMachineState<T>, signal: AbortSignal): Promise<Step<T>> {
    switch (state.phase) {
      case 'empty': {
        if (this.#options.watchList === true && !this.#watchListRefused && state.skipWatchList !== true && !state.unpaged) {
          const stream = this.#open(signal, {
            sendInitialEvents: true,
            resourceVersionMatch: 'NotOlderThan',
            allowWatchBookmarks: true,
            timeoutSeconds: this.#watchTimeout(),
          });
          return { events: [{ type: 'init' }], next: { phase: 'initialWatch', stream } };
        }
        return { events: [{ type: 'init' }], next: { phase: 'initPage', continueToken: undefined, unpaged: state.unpaged } };
      }
      case 'initPage':
        return this.#listPage(state, signal);
      case 'initialWatch':
        return this.#initialWatch(state);
      case 'initListed': {
        const stream = this.#open(signal, { resourceVersion: state.resourceVersion, allowWatchBookmarks: true, timeoutSeconds: this.#watchTimeout() });
        return { events: [], next: { phase: 'watching', resourceVersion: state.resourceVersion, stream, openedAt: this.#clock.now(), seen: 0 } };
      }
      case 'watching':
        return this.#watching(state);
    }
  }

  async #listPage(state: Extract<WatcherMachineState<T>, { phase: 'initPage' }>, signal: AbortSignal): Promise<Step<T>> {
    const cursor = { continue: state.continueToken, unpaged: state.unpaged };
    const page = await readPage((o) => this.#lw.list(o), { ...this.#selectors(), signal }, cursor, this.#options.pageSize ?? 500);
    // A continued page older than the server keeps: the pager lists again, in one piece this time.
    if ('error' in page) return { events: [], next: { phase: 'empty', unpaged: page.restart.unpaged }, error: page.error };
    const { list } = page;
    const events: WatcherEvent<T>[] = list.items.map((object) => ({ type: 'initApply', object }));
    if (page.next !== undefined) {
      return { events, next: { phase: 'initPage', continueToken: page.next.continue, unpaged: page.next.unpaged } };
    }
    const rv = list.metadata.resourceVersion ?? '';
    if (rv === '') {
      return { events: [], next: { phase: 'empty', unpaged: false }, error: new Error('list answered without metadata.resourceVersion') };
    }
    this.#resourceVersion = rv;
    events.push({ type: 'initDone', resourceVersion: rv });
    return { events, next: { phase: 'initListed', resourceVersion: rv } };
  }

  async #initialWatch(state: Extract<WatcherMachineState<T>, { phase: 'initialWatch' }>): Promise<Step<T>> {
    const fallback = (err: unknown): Step<T> => {
      state.stream.abort.abort();
      if (isRefused(err)) this.#watchListRefused = true;
      this.#logger.warn({ err }, 'watch-list failed; listing instead');
      // Straight to a paged list, without backoff: making progress beats insisting.
      return { events: [], next: { phase: 'empty', unpaged: false, skipWatchList: true } };
    };
    let result: IteratorResult<WatchEvent<T>>;
    try {
      result = await state.stream.iterator.next();
    } catch (err) {
      return fallback(err);
    }
    if (result.done === true) return fallback(new Error(`watch-list ended before the ${INITIAL_EVENTS_END} bookmark`));
    const { type, object } = result.value;
    if (type === 'ADDED' || type === 'MODIFIED') return { events: [{ type: 'initApply', object }], next: state };
    if (!hasMetadata(object)) return { events: [], next: state };
    if (type === 'DELETED') {
      this.#logger.warn({ name: object.metadata.name }, 'watch-list sent a DELETED event among the initial events; ignored');
      return { events: [], next: state };
    }
    if (object.metadata.annotations?.[INITIAL_EVENTS_END] !== 'true') return { events: [], next: state };
    const rv = object.metadata.resourceVersion ?? '';
    if (rv === '') return fallback(new Error('initial-events-end bookmark without a resourceVersion'));
    this.#resourceVersion = rv;
    return {
      events: [{ type: 'initDone', resourceVersion: rv }],
      next: { phase: 'watching', resourceVersion: rv, stream: state.stream, openedAt: this.#clock.now(), seen: 1 },
    };
  }

  async #watching(state: Extract<WatcherMachineState<T>, { phase: 'watching' }>): Promise<Step<T>> {
    let result: IteratorResult<WatchEvent<T>>;
    try {
      result = await state.stream.iterator.next();
    } catch (err) {
      state.stream.abort.abort();
      if (isGone(err)) return { events: [], next: { phase: 'empty', unpaged: false }, error: err };
      return { events: [], next: { phase: 'initListed', resourceVersion: state.resourceVersion }, error: err };
    }
    if (result.done === true) {
      const resume: WatcherMachineState<T> = { phase: 'initListed', resourceVersion: state.resourceVersion };
      if (state.seen === 0 && this.#clock.now() - state.openedAt < 1000) {
        return { events: [], next: resume, error: new Error('very short watch: the server closed it within a second without any event') };
      }
      return { events: [], next: resume };
    }
    const { type, object } = result.value;
    if (type !== 'BOOKMARK' && !hasMetadata(object)) {
      // Malformed (an older or buggy server stored it): no resourceVersion to learn. Handed on for
      // the informer to report and skip, without ending a stream that carries everything else.
      return { events: type === 'DELETED' ? [] : [{ type: 'apply', object }], next: state };
    }
    // A BOOKMARK carries only its resourceVersion: with malformed metadata it has none either.
    const rv = hasMetadata(object) ? stringOr(object.metadata.resourceVersion, '') : '';
    if (rv === '') {
      state.stream.abort.abort();
      return { events: [], next: { phase: 'empty', unpaged: false }, error: new Error(`watch ${type} event without metadata.resourceVersion`) };
    }
    this.#resourceVersion = rv;
    // Stryker disable next-line ArithmeticOperator: only seen === 0 matters; seen - 1 never returns to 0 either
    const next = { ...state, resourceVersion: rv, seen: state.seen + 1 };
    switch (type) {
      case 'ADDED':
      case 'MODIFIED':
        return { events: [{ type: 'apply', object }], next };
      case 'DELETED':
        return { events: [{ type: 'delete', object }], next };
      case 'BOOKMARK':
        return { events: [], next };
    }
  }

  #open(signal: AbortSignal, options: WatchOptions): Stream<T> {
    const abort = new AbortController();
    let iterator: AsyncIterator<WatchEvent<T>>;
    try {
      iterator = this.#lw.watch({ ...this.#selectors(), ...options, signal: AbortSignal.any([signal, abort.signal]) })[Symbol.asyncIterator]();
    } catch (err) {
      iterator = { next: () => Promise.reject(err) }; // a ListWatch that throws instead of failing its stream
    }
    return { iterator, abort };
  }

  #selectors(): Pick<ListOptions, 'namespace' | 'labelSelector' | 'fieldSelector'> {
    const { namespace, labelSelector, fieldSelector } = this.#options;
    return {
      ...(namespace !== undefined && namespace !== '' ? { namespace } : {}),
      ...(labelSelector !== undefined && labelSelector !== '' ? { labelSelector } : {}),
      ...(fieldSelector !== undefined && fieldSelector !== '' ? { fieldSelector } : {}),
    };
  }

  #watchTimeout(): number {
    const min = this.#options.minWatchTimeoutSeconds ?? 300;
    return Math.floor(min * (1 + Math.min(Math.max(this.#random(), 0), 0.999)));
  }

  #setHealth(change: Partial<WatcherHealth>): WatcherEvent<T> {
    this.#health = { ...this.#health, ...change };
    return { type: 'health', health: this.#health };
  }
}

function phaseHealth(phase: WatcherMachineState<KubeObject>['phase']): WatcherState {
  return phase === 'initListed' || phase === 'watching' ? 'watching' : 'listing';
}

/** Whether a watched object has an object for metadata (a malformed one may not). */
function hasMetadata(object: unknown): object is { metadata: KubeObject['metadata'] } {
  const meta: unknown = typeof object === 'object' && object !== null ? (object as { metadata?: unknown }).metadata : undefined;
  return typeof meta === 'object' && meta !== null && !Array.isArray(meta);
}

function stringOr(value: unknown, fallback: string): string {
  return typeof value === 'string' ? value : fallback;
}
