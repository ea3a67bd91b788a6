/**
 * EtcdStore: the Store on an etcd v3 cluster, through the etcd3 client: the backend for several API
 * servers sharing one cluster.
 *
 * Mapping (docs/store.md):
 * - A Store key K is the etcd key `etcdPrefix + K` (codec.ts). Revisions are etcd's: a version's
 *   createRevision and modRevision are its create_revision and mod_revision, the current revision
 *   is a response header's, so resourceVersions from any API server on the cluster compare. etcd's
 *   never-written revision 1 is reported as 0.
 * - Every write is one transaction comparing the key's create_revision (create: 0, absent),
 *   mod_revision (update, guarded delete) or version (unguarded delete: > 0, present). When the
 *   comparison fails, the same transaction reads the key, so AlreadyExists, Conflict and NotFound
 *   cost one round trip and Conflict carries the current version.
 * - Reads are linearizable. `list` reads at a revision, one page per range request (limit, and a
 *   start key just past `after`); etcd's `more` says whether keys remain.
 * - `compact` is etcd's Compact (physical: the call returns once the history is gone). etcd does not
 *   report its compact revision, so `compactRevision()` finds it by reading at a revision, which
 *   etcd refuses below its compact revision: one read when nothing changed, a short search after
 *   another process compacted.
 * - Watches share one gRPC stream per store (watch.ts).
 *
 * Errors: etcd's ErrCompacted becomes Compacted with the compact revision; ErrFutureRev
 * FutureRevision; an etcd that does not answer (no connection, no leader, deadline, overload, full)
 * Unavailable, which the API server answers 503 with Retry-After (errors.ts).
 * Retries: the etcd3 client runs a request that failed in a way it deems recoverable again, up to 3
 * attempts, each on the next endpoint (retry.ts). A write retried after an attempt that may have
 * applied and whose comparison then fails is recognised as applied when the key holds exactly its
 * value (create: never updated since; update: the same key, at a later revision) and reported as
 * made. Caveats: a guarded delete in that case reports NotFound, and a write overwritten by another
 * before its retry answered reports AlreadyExists or Conflict, though it was made — never a write
 * made twice.
 */
import { hostname } from 'node:os';
import { silentLogger, type Clock, type Logger } from '@setpoint/api';
import { CompareResult, CompareTarget, Etcd3, type IOptions, type IRangeRequest, type IRangeResponse, type ITxnResponse } from 'etcd3';
import {
  StoreError,
  type CompactResult,
  type CountResult,
  type DeleteResult,
  type KeyValue,
  type ListOptions,
  type ListResult,
  type Store,
  type StoreOptions,
  type WatchEvent,
  type WatchOptions,
} from '../store.js';
import { checkKey, checkLimit, checkPrefix, checkRevision, checkValue, compareKeys, resolveLimits, type StoreLimits } from '../validate.js';
import { KeyCodec, storeRevision } from './codec.js';
import { EtcdElection } from './election.js';
import { classify, unavailable } from './errors.js';
import { faultHandling, tracked, type Attempts } from './retry.js';
import { orderedProgressRequests, probeVersions } from './version.js';
import { WatchHub } from './watch.js';

export interface EtcdStoreOptions extends StoreOptions {
  /** Client URLs of the etcd members, e.g. http://10.0.0.1:2379 (https:// for TLS). */
  readonly endpoints: readonly string[];
  /**
   * Put before every key in etcd, so that several Setpoint clusters (or other users) can share one
   * etcd. Default '' (Setpoint's keys already start with /registry/).
   */
  readonly etcdPrefix?: string;
  /** Deadline of each request (watches excepted). Default 10 s. */
  readonly requestTimeoutMs?: number;
  /**
   * Whether to ask etcd for progress notifications (RequestProgress), which must be answered in
   * order with events. Default: when every endpoint runs etcd 3.4.31+ or 3.5.13+. Set it only for
   * members known to answer in order, or in tests.
   */
  readonly progressRequests?: boolean;
  /** TLS to etcd (PEM): the CA that signed the members' certificates, and a client certificate and key. */
  readonly tls?: { readonly ca?: Buffer; readonly cert?: Buffer; readonly key?: Buffer };
  readonly logger?: Logger;
  /** The clock the watch stream's reconnect backoff waits on. Default the real clock. */
  readonly clock?: Clock;
}

/** What EtcdStore found out about the cluster when it opened. */
export interface EtcdClusterInfo {
  /** etcd's version at each endpoint that answered. */
  readonly versions: Readonly<Record<string, string>>;
  /** Whether every endpoint answers RequestProgress in order with events (etcd 3.4.31+, 3.5.13+). */
  readonly orderedProgressRequests: boolean;
}

export class EtcdStore implements Store {
  readonly backend = 'etcd';
  private readonly limits: StoreLimits;
  private readonly codec: KeyCodec;
  /** A key no Store key can be: the cheapest thing to read a header or probe a revision with. */
  private readonly probeKey: Buffer;
  private readonly hub: WatchHub;
  private readonly logger: Logger;
  /** A revision etcd's compact revision is known to have reached. */
  private knownCompact = 0;
  /** Elections made here, released when the store closes. */
  private readonly elections = new Set<EtcdElection>();
  private closed = false;

  private constructor(
    private readonly client: Etcd3,
    readonly cluster: EtcdClusterInfo,
    options: EtcdStoreOptions,
  ) {
    this.limits = resolveLimits(options);
    this.codec = new KeyCodec(options.etcdPrefix ?? '');
    this.probeKey = Buffer.concat([this.codec.prefixKey, Buffer.from([0])]);
    this.logger = (options.logger ?? silentLogger).child({ component: 'etcd-store' });
    this.hub = new WatchHub({
      client,
      codec: this.codec,
      logger: this.logger,
      orderedProgressRequests: cluster.orderedProgressRequests,
      onCompactRevision: (revision) => this.learnCompact(revision),
      ...(options.clock !== undefined ? { clock: options.clock } : {}),
    });
  }

  /**
   * Connects to etcd and asks every endpoint for its version. Throws StoreError Unavailable when no
   * endpoint answers, InvalidKey for an ill-formed prefix.
   */
  static async open(options: EtcdStoreOptions): Promise<EtcdStore> {
    if (options.endpoints.length === 0) throw new StoreError('Unavailable', 'no etcd endpoints were given');
    resolveLimits(options);
    const etcdPrefix = options.etcdPrefix ?? '';
    if (!etcdPrefix.isWellFormed()) throw new StoreError('InvalidKey', 'the etcd prefix must be a well-formed string');
    const clientOptions = etcdClientOptions(options);
    const versions = await probeVersions(options.endpoints, clientOptions);
    if (Object.keys(versions).length === 0) {
      throw new StoreError('Unavailable', `no etcd endpoint answered: ${options.endpoints.join(', ')}`);
    }
    const cluster: EtcdClusterInfo = {
      versions,
      orderedProgressRequests:
        options.progressRequests ?? (Object.keys(versions).length === options.endpoints.length && Object.values(versions).every(orderedProgressRequests)),
    };
    const store = new EtcdStore(new Etcd3({ ...clientOptions, hosts: [...options.endpoints] }), cluster, options);
    store.logger.info({ ...cluster, etcdPrefix }, 'connected to etcd');
    if (!cluster.orderedProgressRequests) {
      store.logger.info(
        { versions },
        'etcd is older than 3.4.31 / 3.5.13 (or not every endpoint answered): watch progress comes from its periodic notifications; keep its --experimental-watch-progress-notify-interval short (docs/etcd.md)',
      );
    }
    return store;
  }

  async currentRevision(): Promise<number> {
    const res = await this.call('reading the current revision', () => this.client.kv.range({ key: this.probeKey, count_only: true }));
    return storeRevision(res.header.revision);
  }

  async compactRevision(): Promise<number> {
    this.checkOpen();
    // Reads below the compact revision fail: find the lowest revision that reads, searching up
    // from the highest one known to be compacted (compaction only moves forward).
    let low = Math.max(this.knownCompact, 1);
    if (await this.readsAt(low)) return this.knownCompact;
    // Reads at `low` fail, so the compact revision is above it: gallop up to a revision that reads.
    let high = low + 1;
    let current: number | undefined;
    for (let step = 2; !(await this.readsAt(high)); step *= 2) {
      low = high;
      current ??= await this.currentEtcdRevision();
      high = Math.min(low + step, current);
      if (high <= low) throw new StoreError('Unavailable', `etcd refuses reads at its current revision ${current}`);
    }
    while (high - low > 1) {
      const mid = Math.floor((low + high) / 2);
      if (await this.readsAt(mid)) high = mid;
      else low = mid;
    }
    this.learnCompact(high);
    return high;
  }

  async get(key: string): Promise<KeyValue | undefined> {
    this.checkOpen();
    checkKey(this.limits, key);
    const res = await this.call('reading a key', () => this.client.kv.range({ key: this.codec.encode(key) }), key);
    const kv = res.kvs[0];
    return kv === undefined ? undefined : this.codec.decode(kv);
  }

  async list(prefix: string, options: ListOptions = {}): Promise<ListResult> {
    this.checkOpen();
    checkPrefix(this.limits, prefix);
    checkLimit(options.limit);
    const requested = options.revision ?? 0;
    if (requested !== 0) checkRevision('revision', requested);
    const range = this.codec.range(prefix);
    const request: IRangeRequest = { key: range.key, range_end: range.range_end };
    if (options.after !== undefined && compareKeys(options.after, prefix) >= 0) {
      request.key = this.codec.encodeAfter(options.after);
    }
    if (options.limit !== undefined && options.limit > 0) request.limit = options.limit;
    if (requested !== 0) request.revision = requested;
    const res = await this.readAt(request, requested);
    return { items: res.kvs.map((kv) => this.codec.decode(kv)), revision: requested !== 0 ? requested : storeRevision(res.header.revision), more: res.more };
  }

  async count(prefix: string): Promise<CountResult> {
    this.checkOpen();
    checkPrefix(this.limits, prefix);
    const range = this.codec.range(prefix);
    const res = await this.call('counting keys', () => this.client.kv.range({ ...range, count_only: true }));
    return { count: Number(res.count), revision: storeRevision(res.header.revision) };
  }

  async create(key: string, value: string): Promise<KeyValue> {
    this.checkOpen();
    checkKey(this.limits, key);
    checkValue(this.limits, key, value);
    const k = this.codec.encode(key);
    const attempts: Attempts = { count: 0, uncertain: false };
    const res = await this.call(
      'creating a key',
      () =>
        this.client.kv.txn({
          compare: [{ key: k, target: CompareTarget.Create, result: CompareResult.Equal, create_revision: 0 }],
          success: [{ request_put: { key: k, value: Buffer.from(value, 'utf8') } }],
          failure: [{ request_range: { key: k } }],
        }),
      key,
      attempts,
    );
    if (!res.succeeded) {
      const current = this.readBack(res);
      // An attempt that failed after reaching etcd may have created the key, and the retry that
      // answered then found it (retry.ts): the key holding this value, never updated, is this create's.
      if (attempts.uncertain && current !== undefined && current.value === value && current.createRevision === current.modRevision) return current;
      throw new StoreError('AlreadyExists', `key ${JSON.stringify(key)} already exists`, { key, ...(current === undefined ? {} : { current }) });
    }
    const revision = Number(res.header.revision);
    return { key, value, createRevision: revision, modRevision: revision };
  }

  async update(key: string, value: string, expectedModRevision: number): Promise<KeyValue> {
    this.checkOpen();
    checkKey(this.limits, key);
    checkValue(this.limits, key, value);
    checkRevision('expectedModRevision', expectedModRevision);
    // No version has modRevision 0, and etcd's mod_revision of an absent key is 0: answer from a read.
    if (expectedModRevision === 0) throw this.refusal(key, await this.get(key), 0);
    const k = this.codec.encode(key);
    const attempts: Attempts = { count: 0, uncertain: false };
    const res = await this.call(
      'updating a key',
      () =>
        this.client.kv.txn({
          compare: [{ key: k, target: CompareTarget.Mod, result: CompareResult.Equal, mod_revision: expectedModRevision }],
          success: [{ request_range: { key: k, keys_only: true } }, { request_put: { key: k, value: Buffer.from(value, 'utf8') } }],
          failure: [{ request_range: { key: k } }],
        }),
      key,
      attempts,
    );
    if (!res.succeeded) {
      const current = this.readBack(res);
      // As in create: the same key (created no later than the version expected) holding this value
      // at a later revision is this update, applied by an attempt whose answer was lost.
      if (
        attempts.uncertain &&
        current !== undefined &&
        current.value === value &&
        current.modRevision > expectedModRevision &&
        current.createRevision <= expectedModRevision
      ) {
        return current;
      }
      throw this.refusal(key, current, expectedModRevision);
    }
    const before = res.responses[0]?.response_range?.kvs[0];
    const revision = Number(res.header.revision);
    return { key, value, createRevision: before === undefined ? revision : Number(before.create_revision), modRevision: revision };
  }

  async delete(key: string, expectedModRevision?: number): Promise<DeleteResult> {
    this.checkOpen();
    checkKey(this.limits, key);
    if (expectedModRevision !== undefined) {
      checkRevision('expectedModRevision', expectedModRevision);
      if (expectedModRevision === 0) throw this.refusal(key, await this.get(key), 0);
    }
    const k = this.codec.encode(key);
    const guard =
      expectedModRevision === undefined
        ? { key: k, target: CompareTarget.Version, result: CompareResult.Greater, version: 0 }
        : { key: k, target: CompareTarget.Mod, result: CompareResult.Equal, mod_revision: expectedModRevision };
    const res = await this.call(
      'deleting a key',
      () =>
        this.client.kv.txn({
          compare: [guard],
          success: [{ request_delete_range: { key: k, prev_kv: true } }],
          failure: [{ request_range: { key: k } }],
        }),
      key,
    );
    if (!res.succeeded) throw this.refusal(key, this.readBack(res), expectedModRevision);
    const prev = res.responses[0]?.response_delete_range?.prev_kvs[0];
    if (prev === undefined) throw new StoreError('Unavailable', `etcd deleted ${JSON.stringify(key)} without returning it`, { key });
    return { revision: Number(res.header.revision), prev: this.codec.decode(prev) };
  }

  watch(prefix: string, fromRevision: number, options: WatchOptions = {}): AsyncIterableIterator<WatchEvent> {
    this.checkOpen();
    checkPrefix(this.limits, prefix);
    checkRevision('fromRevision', fromRevision);
    return this.hub.open(prefix, fromRevision, options);
  }

  requestProgress(): void {
    this.hub.requestProgress();
  }

  async compact(revision: number): Promise<CompactResult> {
    this.checkOpen();
    checkRevision('revision', revision);
    const current = await this.currentRevision();
    if (revision > current) {
      throw new StoreError('FutureRevision', `cannot compact at revision ${revision}: the current revision is ${current}`, { currentRevision: current });
    }
    const before = await this.compactRevision();
    if (revision <= before) return { compactRevision: before, removed: 0 };
    // etcd does not say what it removed. Each revision of a single-key write adds one version; a
    // compaction at R keeps only the versions live at R: removed = live at the old compact revision
    // + writes since − live at R (exact for single-key transactions, as Setpoint writes).
    const [liveBefore, liveAfter] = await Promise.all([before > 1 ? this.countAll(before) : 0, this.countAll(revision)]);
    try {
      await this.client.kv.compact({ revision, physical: true });
    } catch (err) {
      if (this.closed) throw new StoreError('Closed', 'the store was closed', { cause: err });
      // Someone else compacted at or past `revision` meanwhile.
      if (classify(err) === 'compacted') return { compactRevision: await this.compactRevision(), removed: 0 };
      throw unavailable(`compacting at revision ${revision}`, err);
    }
    this.learnCompact(revision);
    return { compactRevision: revision, removed: Math.max(0, liveBefore + (revision - Math.max(before, 1)) - liveAfter) };
  }

  /**
   * An election among the processes on this etcd cluster (the compactor's, for several API
   * servers): its key is `etcdPrefix/setpoint/elections/<name>`.
   */
  election(name: string, options: { readonly ttlSeconds?: number; readonly identity?: string } = {}): EtcdElection {
    this.checkOpen();
    const election = new EtcdElection(this.client, this.codec.encode(`/setpoint/elections/${name}`), {
      ...options,
      identity: options.identity ?? `${hostname()}:${process.pid}`,
      logger: this.logger,
    });
    this.elections.add(election);
    return election;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.hub.close();
    // Leadership held here ends with the store: others take over at once.
    const released = await Promise.allSettled([...this.elections].map((e) => e.release()));
    for (const r of released) if (r.status === 'rejected') this.logger.warn({ err: r.reason }, 'releasing an election at close failed; its lease lapses by itself');
    this.client.close();
  }

  private checkOpen(): void {
    if (this.closed) throw new StoreError('Closed', 'the store is closed');
  }

  /**
   * Runs one etcd request, mapping its failure (a closed store: Closed; else Unavailable). With
   * `attempts`, records what its attempts did (retry.ts).
   */
  private async call<T>(what: string, request: () => Promise<T>, key?: string, attempts?: Attempts): Promise<T> {
    this.checkOpen();
    try {
      return await (attempts === undefined ? request() : tracked(attempts, request));
    } catch (err) {
      if (this.closed) throw new StoreError('Closed', 'the store was closed', { cause: err });
      throw unavailable(what, err, key);
    }
  }

  /** A range read at `requested` (0: now), with ErrCompacted and ErrFutureRev mapped. */
  private async readAt(request: IRangeRequest, requested: number): Promise<IRangeResponse> {
    let res: IRangeResponse;
    try {
      res = await this.client.kv.range(request);
    } catch (err) {
      if (this.closed) throw new StoreError('Closed', 'the store was closed', { cause: err });
      const kind = classify(err);
      if (kind === 'compacted') {
        const [compactRevision, currentRevision] = await Promise.all([this.compactRevision(), this.currentRevision()]);
        throw new StoreError('Compacted', `revision ${requested} has been compacted (compact revision ${compactRevision})`, { compactRevision, currentRevision, cause: err });
      }
      if (kind === 'future') throw await this.future(requested, err);
      throw unavailable('listing keys', err);
    }
    // etcd's never-written revision 1 is the store's 0: reading "at 1" then is reading the future.
    if (requested > storeRevision(res.header.revision)) throw await this.future(requested, undefined);
    return res;
  }

  private async future(requested: number, cause: unknown): Promise<StoreError> {
    const currentRevision = await this.currentRevision();
    return new StoreError('FutureRevision', `revision ${requested} is in the future: the current revision is ${currentRevision}`, {
      currentRevision,
      requestedRevision: requested,
      ...(cause === undefined ? {} : { cause }),
    });
  }

  /** Whether etcd reads at `revision` (it refuses revisions below its compact revision). */
  private async readsAt(revision: number): Promise<boolean> {
    try {
      await this.client.kv.range({ key: this.probeKey, count_only: true, revision });
      return true;
    } catch (err) {
      if (this.closed) throw new StoreError('Closed', 'the store was closed', { cause: err });
      if (classify(err) === 'compacted') return false;
      throw unavailable('finding the compact revision', err);
    }
  }

  private async currentEtcdRevision(): Promise<number> {
    const res = await this.call('reading the current revision', () => this.client.kv.range({ key: this.probeKey, count_only: true }));
    return Number(res.header.revision);
  }

  /** Live keys in all of etcd at `revision` (compaction is cluster-wide). */
  private async countAll(revision: number): Promise<number> {
    const res = await this.call('counting keys', () => this.client.kv.range({ key: ZERO, range_end: ZERO, count_only: true, revision }));
    return Number(res.count);
  }

  private learnCompact(revision: number): void {
    if (revision > this.knownCompact) this.knownCompact = revision;
  }

  /** The key as the failed comparison's read found it. */
  private readBack(res: ITxnResponse): KeyValue | undefined {
    const kv = res.responses[0]?.response_range?.kvs[0];
    return kv === undefined ? undefined : this.codec.decode(kv);
  }

  /** NotFound when the key is absent, else Conflict carrying its current version. */
  private refusal(key: string, current: KeyValue | undefined, expected: number | undefined): StoreError {
    if (current === undefined) return new StoreError('NotFound', `key ${JSON.stringify(key)} not found`, { key });
    return new StoreError('Conflict', `key ${JSON.stringify(key)} is at revision ${current.modRevision}, not ${expected}`, { key, current });
  }
}

const ZERO = Buffer.from([0]);

/** The etcd3 client options of a store: TLS, deadlines, keepalives, no limit on responses. */
function etcdClientOptions(options: EtcdStoreOptions): Omit<IOptions, 'hosts'> {
  const timeout = options.requestTimeoutMs ?? 10_000;
  const tls = options.tls;
  return {
    ...(tls?.ca !== undefined
      ? { credentials: { rootCertificate: tls.ca, ...(tls.key === undefined ? {} : { privateKey: tls.key }), ...(tls.cert === undefined ? {} : { certChain: tls.cert }) } }
      : {}),
    grpcOptions: {
      // A list page or a catch-up batch of watch events can hold many values of up to 1.5 MiB.
      'grpc.max_receive_message_length': -1,
      'grpc.max_send_message_length': -1,
      // Notice a dead connection to a member (etcd allows pings every 5 s or slower).
      'grpc.keepalive_time_ms': 30_000,
      'grpc.keepalive_timeout_ms': 10_000,
    },
    defaultCallOptions: (context) => (context.isStream ? {} : { deadline: Date.now() + timeout }),
    // Retries as the client's default does, noting whether a failed attempt may have applied; skips
    // members that do not answer, but not members that answer that there is no leader (retry.ts).
    faultHandling,
    dialTimeout: timeout,
  };
}
