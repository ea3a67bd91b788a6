/**
 * ResumingWatcher: a list+watch client as the seed text asks of one — written here, apart from
 * @setpoint/client's informer, so that the fault tests observe the server's watch protocol itself.
 *
 * Expected flow: list (all pages, one snapshot), then watch from the list's resourceVersion with
 * bookmarks; when the stream ends or breaks (the server was killed), watch again from the last
 * resourceVersion seen (a resume); when the server answers 410 Gone (an ERROR event or the status),
 * list again (a relist). Every event's resourceVersion must exceed the last one seen — else the
 * watcher records a violation (a duplicate or a step back). `log` keeps every list and event, in
 * order, for comparison with the server's history.
 */
import { TransportError, WatchRefused, type Api, type Answer } from './api.js';
import { sleep } from './wait.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON of any Kubernetes kind
type Json = any;

export type WatchLogEntry =
  | { readonly kind: 'list'; readonly rv: number; readonly items: ReadonlyMap<string, Json> }
  | { readonly kind: 'event'; readonly type: 'ADDED' | 'MODIFIED' | 'DELETED'; readonly key: string; readonly rv: number; readonly object: Json };

export interface ResumingWatcherOptions {
  /** e.g. labelSelector=app%3Dweb (without the leading '?'). */
  readonly query?: string;
  /** Keep every list and event in `log`. Default false. */
  readonly keepLog?: boolean;
  /** Called after each list and each event, with the state that resulted. */
  readonly onChange?: (state: ReadonlyMap<string, Json>, entry: WatchLogEntry) => void;
  /** Page size of lists. Default 500. */
  readonly pageSize?: number;
  /** Start by watching from this resourceVersion with this state, as if listed then. Default: list first. */
  readonly resumeFrom?: { readonly rv: number; readonly items: readonly Json[] };
}

/** namespace/name of an object. */
export function objectKey(obj: Json): string {
  return `${obj.metadata.namespace ?? ''}/${obj.metadata.name}`;
}

export class ResumingWatcher {
  readonly state = new Map<string, Json>();
  readonly log: WatchLogEntry[] = [];
  /** Watches answered from the last resourceVersion seen after a stream ended or broke (no list between). */
  resumes = 0;
  /** Lists after 410 Gone (the first list not counted). */
  relists = 0;
  events = 0;
  /** Events out of order or seen twice. */
  readonly violations: string[] = [];
  /** Answers other than 200 and 410, and list failures (the server was down). */
  failures = 0;
  lastRv = 0;
  readonly #waiters = new Set<() => void>();

  constructor(
    private readonly api: Api,
    private readonly collection: string,
    private readonly options: ResumingWatcherOptions = {},
  ) {}

  /** Lists, then watches and resumes until `signal` aborts. */
  async run(signal: AbortSignal): Promise<void> {
    const from = this.options.resumeFrom;
    if (from === undefined) await this.#list(signal);
    else {
      for (const item of from.items) this.state.set(objectKey(item), item);
      this.#advance(from.rv);
    }
    let listed = true;
    while (!signal.aborted) {
      let gone = false;
      const onOpen = () => {
        if (!listed) this.resumes++;
        listed = false;
      };
      try {
        const query = `watch=true&allowWatchBookmarks=true&resourceVersion=${this.lastRv}${this.options.query ? `&${this.options.query}` : ''}`;
        await this.api.watch(`${this.collection}?${query}`, (e) => {
          if (e.type === 'ERROR') {
            if (e.object?.code === 410) gone = true;
            else this.failures++;
            return;
          }
          this.#apply(e.type, e.object);
        }, signal, onOpen);
      } catch (err) {
        if (err instanceof WatchRefused && err.status === 410) gone = true;
        else if (err instanceof WatchRefused || err instanceof TransportError) this.failures++;
        else throw err;
      }
      if (signal.aborted) return;
      if (gone) {
        this.relists++;
        await this.#list(signal);
        listed = true;
      } else {
        await sleep(20);
      }
    }
  }

  /** Resolves once the watcher has seen resourceVersion `rv` (an event or a bookmark at or past it). */
  async waitForRv(rv: number, ms: number): Promise<void> {
    if (this.lastRv >= rv) return;
    await new Promise<void>((resolve, reject) => {
      const check = () => {
        if (this.lastRv < rv) return;
        clearTimeout(timer);
        this.#waiters.delete(check);
        resolve();
      };
      const timer = setTimeout(() => {
        this.#waiters.delete(check);
        reject(new Error(`watch of ${this.collection} did not reach resourceVersion ${rv} within ${ms} ms (at ${this.lastRv})`));
      }, ms);
      this.#waiters.add(check);
    });
  }

  async #list(signal: AbortSignal): Promise<void> {
    const size = this.options.pageSize ?? 500;
    for (;;) {
      if (signal.aborted) return;
      try {
        const items = new Map<string, Json>();
        let token = '';
        let rv = 0;
        do {
          const query = `limit=${size}${token ? `&continue=${encodeURIComponent(token)}` : ''}${this.options.query ? `&${this.options.query}` : ''}`;
          const page: Answer = await this.api.request('GET', `${this.collection}?${query}`);
          if (page.status !== 200) throw new WatchRefused(page.status, page.body);
          for (const item of page.body.items) items.set(objectKey(item), item);
          rv = Number(page.body.metadata.resourceVersion);
          token = page.body.metadata.continue ?? '';
        } while (token !== '');
        if (rv < this.lastRv) this.violations.push(`a list at resourceVersion ${rv} after having seen ${this.lastRv}`);
        this.state.clear();
        for (const [k, v] of items) this.state.set(k, v);
        this.#advance(rv);
        const entry: WatchLogEntry = { kind: 'list', rv, items };
        if (this.options.keepLog) this.log.push(entry);
        this.options.onChange?.(this.state, entry);
        return;
      } catch (err) {
        if (!(err instanceof TransportError) && !(err instanceof WatchRefused)) throw err;
        this.failures++;
        await sleep(50);
      }
    }
  }

  #apply(type: string, object: Json): void {
    const rv = Number(object.metadata.resourceVersion);
    if (type === 'BOOKMARK') {
      if (rv < this.lastRv) this.violations.push(`a bookmark at ${rv} after ${this.lastRv}`);
      this.#advance(rv);
      return;
    }
    if (type !== 'ADDED' && type !== 'MODIFIED' && type !== 'DELETED') {
      this.violations.push(`an event of type ${type}`);
      return;
    }
    const key = objectKey(object);
    if (rv <= this.lastRv) this.violations.push(`${type} ${key} at resourceVersion ${rv} after having seen ${this.lastRv}`);
    this.events++;
    if (type === 'DELETED') this.state.delete(key);
    else this.state.set(key, object);
    this.#advance(rv);
    const entry: WatchLogEntry = { kind: 'event', type, key, rv, object };
    if (this.options.keepLog) this.log.push(entry);
    this.options.onChange?.(this.state, entry);
  }

  #advance(rv: number): void {
    if (rv > this.lastRv) this.lastRv = rv;
    for (const w of [...this.#waiters]) w();
  }
}
