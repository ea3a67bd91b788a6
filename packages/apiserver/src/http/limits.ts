/**
 * Request limits: how many requests run at once, how many watches a user holds, how long a request
 * may take, how large its body may be — kube-apiserver's max-in-flight filter, request deadline and
 * timeout filter, with a reserved share for leases (a two-class version of its priority and
 * fairness: exempt and leader-election/node-high levels apart from the workload).
 *
 * Expected flow, per request (server.ts hooks): `begin` first (classifies it, answers a malformed
 * `timeout` parameter, starts its timer), authentication and authorization, then `admit` (takes a
 * seat or answers 429), then the handler wrapped in `holdDuring`.
 *
 * Classes:
 * - exempt: `/livez`, `/readyz`, `/healthz` — never counted, never refused.
 * - long-running: watches and pods/log (and exec, attach, portforward, proxy, which Setpoint does
 *   not serve) — not counted and not timed out, as in Kubernetes; watches count against the
 *   user's `maxWatchesPerUser` instead (Setpoint's own limit; Kubernetes has none).
 * - lease: every other request on coordination.k8s.io leases (node heartbeats in kube-node-lease,
 *   leader election) — its own pool, `maxLeaseRequestsInflight`, that no other traffic can take.
 * - read-only (get, list; GET and HEAD of other paths) and mutating (everything else) — the pools
 *   of `--max-requests-inflight` and `--max-mutating-requests-inflight`.
 *
 * Guarantees: a request that finds its pool full is answered 429 TooManyRequests, `Retry-After: 1`,
 * "Too many requests, please try again later." — unless its user is in system:masters (or the
 * server authenticates nobody: everyone is an admin), which is then served without a seat (as
 * kube-apiserver does); the same users have no watch limit. A seat is held until the answer is sent and
 * the handler has returned, so work that outlives a 504 still counts. A non-long-running request
 * still unanswered after `requestTimeoutMs` (or the shorter `timeout` query parameter, a Go
 * duration) is answered 504 Timeout "Timeout: request did not complete within the allotted
 * timeout"; if its answer had already begun, the connection is cut.
 */
import { ApiError, realClock, type Clock, type Timer } from '@setpoint/api';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Counter, Gauge, type Registry } from 'prom-client';
import type { UserInfo } from '../auth/index.js';
import { answeredByTimeout, type CommitGate } from './commitgate.js';
import { parseRequestInfo, type RequestInfo } from './requestinfo.js';
import { sendError } from './respond.js';

export interface RequestLimitsOptions {
  /** Non-mutating requests in flight at most; 0: no limit. Default 400 (kube-apiserver's). */
  readonly maxRequestsInflight?: number;
  /** Mutating requests in flight at most; 0: no limit. Default 200 (kube-apiserver's). */
  readonly maxMutatingRequestsInflight?: number;
  /**
   * Lease requests in flight at most, a pool of their own; 0: no limit. Default a quarter of the
   * two pools above (150 by default, about what APF's node-high and leader-election levels get), at
   * least 4; no limit when both are 0.
   */
  readonly maxLeaseRequestsInflight?: number;
  /** Open watches per user at most (system:masters excepted); 0: no limit. Default 1000. */
  readonly maxWatchesPerUser?: number;
  /** Request bodies larger than this are refused with 413. Default 3 MiB (Kubernetes' 3145728). */
  readonly maxRequestBodyBytes?: number;
  /** Non-long-running requests are answered 504 after this; 0: never. Default 60 s (--request-timeout). */
  readonly requestTimeoutMs?: number;
  /** A watch without timeoutSeconds lasts between this and twice this. Default 1800 s (--min-request-timeout). */
  readonly minRequestTimeoutSeconds?: number;
}

export const DEFAULT_MAX_REQUEST_BODY_BYTES = 3 * 1024 * 1024;

/** kube-apiserver's message for a request refused by the max-in-flight filter. */
export const TOO_MANY_REQUESTS_MESSAGE = 'Too many requests, please try again later.';

const HEALTH_PATHS = new Set(['/livez', '/readyz', '/healthz']);
const LONG_RUNNING_SUBRESOURCES = new Set(['log', 'exec', 'attach', 'portforward', 'proxy']);
const PRIVILEGED_GROUP = 'system:masters';

type RequestKind = 'exempt' | 'longRunning' | 'lease' | 'readOnly' | 'mutating';
type PooledKind = 'lease' | 'readOnly' | 'mutating';

interface Pool {
  readonly max: number;
  inUse: number;
}

/** What the limits know of one request. */
interface RequestState {
  readonly kind: RequestKind;
  readonly info: RequestInfo;
  readonly verb: string;
  timer: Timer | undefined;
  /** The pool whose seat the request holds. */
  seat: Pool | undefined;
  /** The user whose watch count the request holds. */
  watchOf: string | undefined;
  responseDone: boolean;
  handlerRunning: boolean;
  /** Answered 504 by the timeout: its handler's writes are refused from then on (commitgate.ts). */
  timedOut: boolean;
}

declare module 'fastify' {
  interface FastifyRequest {
    setpointLimits?: RequestState;
  }
}

/** The limits of one server (see the file comment). */
export class RequestLimits {
  readonly maxRequestBodyBytes: number;
  readonly minRequestTimeoutSeconds: number;
  readonly requestTimeoutMs: number;
  readonly maxWatchesPerUser: number;
  private readonly pools: Record<PooledKind, Pool>;
  private readonly watches = new Map<string, number>();
  private readonly clock: Clock;
  private readonly everyoneIsAdmin: boolean;
  private readonly inflight: Gauge<'request_kind'>;
  private readonly terminations: Counter<'verb' | 'group' | 'version' | 'resource' | 'subresource' | 'code'>;

  /**
   * `deps.everyoneIsAdmin`: the server authenticates nobody and serves every request as an
   * anonymous admin (tests, in-process control planes): requests are then treated as
   * system:masters' are, never refused.
   */
  constructor(options: RequestLimitsOptions = {}, deps: { readonly clock?: Clock; readonly registry?: Registry; readonly everyoneIsAdmin?: boolean } = {}) {
    const read = nonNegative(options.maxRequestsInflight ?? 400, 'maxRequestsInflight');
    const mutating = nonNegative(options.maxMutatingRequestsInflight ?? 200, 'maxMutatingRequestsInflight');
    const lease = nonNegative(options.maxLeaseRequestsInflight ?? (read === 0 && mutating === 0 ? 0 : Math.max(4, Math.ceil((read + mutating) / 4))), 'maxLeaseRequestsInflight');
    this.pools = { readOnly: { max: read, inUse: 0 }, mutating: { max: mutating, inUse: 0 }, lease: { max: lease, inUse: 0 } };
    this.maxWatchesPerUser = nonNegative(options.maxWatchesPerUser ?? 1000, 'maxWatchesPerUser');
    this.maxRequestBodyBytes = options.maxRequestBodyBytes ?? DEFAULT_MAX_REQUEST_BODY_BYTES;
    if (!(this.maxRequestBodyBytes > 0)) throw new Error(`maxRequestBodyBytes must be positive, not ${this.maxRequestBodyBytes}`);
    this.requestTimeoutMs = nonNegative(options.requestTimeoutMs ?? 60_000, 'requestTimeoutMs');
    this.minRequestTimeoutSeconds = nonNegative(options.minRequestTimeoutSeconds ?? 1800, 'minRequestTimeoutSeconds');
    this.clock = deps.clock ?? realClock;
    this.everyoneIsAdmin = deps.everyoneIsAdmin ?? false;
    const registers = deps.registry === undefined ? [] : [deps.registry];
    this.inflight = new Gauge({
      name: 'apiserver_current_inflight_requests',
      help: 'Requests being served by kind: readOnly, mutating, and lease (Setpoint\'s reserved pool).',
      labelNames: ['request_kind'] as const,
      registers,
    });
    this.terminations = new Counter({
      name: 'apiserver_request_terminations_total',
      help: 'Requests the server refused (429: a full pool or too many watches) or gave up on (504: the request timeout).',
      labelNames: ['verb', 'group', 'version', 'resource', 'subresource', 'code'] as const,
      registers,
    });
    for (const kind of ['readOnly', 'mutating', 'lease'] as const) this.inflight.set({ request_kind: kind }, 0);
  }

  /** Seats in use per pool and open watches per user (for tests and diagnostics). */
  usage(): { readOnly: number; mutating: number; lease: number; watches: ReadonlyMap<string, number> } {
    return { readOnly: this.pools.readOnly.inUse, mutating: this.pools.mutating.inUse, lease: this.pools.lease.inUse, watches: new Map(this.watches) };
  }

  /**
   * The first hook of a request: classifies it, answers 400 for a malformed `timeout` parameter,
   * and starts its timeout. Returns true when it answered.
   */
  begin(req: FastifyRequest, reply: FastifyReply): boolean {
    const path = req.url.split('?', 1)[0]!;
    const trimmed = path.length > 1 ? path.replace(/\/+$/, '') : path;
    const isApi = trimmed === '/api' || trimmed === '/apis' || trimmed.startsWith('/api/') || trimmed.startsWith('/apis/');
    const info: RequestInfo = isApi ? parseRequestInfo(req.method, path, firstQuery(req, 'watch')) : { kind: 'unknown' };
    const state: RequestState = { ...classify(req.method, trimmed, info), info, timer: undefined, seat: undefined, watchOf: undefined, responseDone: false, handlerRunning: false, timedOut: false };
    req.setpointLimits = state;
    reply.raw.once('close', () => {
      state.timer?.cancel();
      state.timer = undefined;
      state.responseDone = true;
      this.maybeRelease(state);
    });
    if (state.kind === 'exempt' || state.kind === 'longRunning' || this.requestTimeoutMs === 0) return false;
    let timeoutMs = this.requestTimeoutMs;
    const asked = firstQuery(req, 'timeout');
    if (asked !== undefined && asked !== '') {
      let ms: number;
      try {
        ms = parseGoDuration(asked);
      } catch (err) {
        sendError(reply, ApiError.badRequest(`invalid timeout specified in the request URL - ${(err as Error).message}`));
        return true;
      }
      // 0 (or less) means no timeout of the client's own; the server's still holds.
      if (ms > 0 && ms < timeoutMs) timeoutMs = ms;
    }
    state.timer = this.clock.setTimeout(() => this.timedOut(req, reply, state), timeoutMs);
    return false;
  }

  /**
   * After authentication and authorization: takes a seat in the request's pool, or a watch of its
   * user's; answers 429 (Retry-After: 1) when none is free. Returns true when it answered.
   */
  admit(req: FastifyRequest, reply: FastifyReply, user: UserInfo | undefined): boolean {
    const state = req.setpointLimits;
    if (state === undefined || state.kind === 'exempt' || state.responseDone) return false;
    const privileged = user === undefined ? this.everyoneIsAdmin : user.groups.includes(PRIVILEGED_GROUP);
    if (state.kind === 'longRunning') {
      if (state.verb !== 'watch' || this.maxWatchesPerUser === 0 || privileged) return false;
      const who = user?.name ?? '';
      const open = this.watches.get(who) ?? 0;
      if (open >= this.maxWatchesPerUser) {
        this.refuse(reply, state, `${TOO_MANY_REQUESTS_MESSAGE} (user ${JSON.stringify(who)} has ${open} open watches, the most allowed)`);
        return true;
      }
      this.watches.set(who, open + 1);
      state.watchOf = who;
      return false;
    }
    const pool = this.pools[state.kind];
    if (pool.max === 0) return false;
    if (pool.inUse < pool.max) {
      pool.inUse++;
      state.seat = pool;
      this.inflight.set({ request_kind: state.kind }, pool.inUse);
      return false;
    }
    if (privileged) return false; // a super-user always gets an answer
    this.refuse(reply, state, TOO_MANY_REQUESTS_MESSAGE);
    return true;
  }

  /**
   * The request's commit point (commitgate.ts): its first store write disarms the timeout (the
   * handler answers with what it committed); a write after the timeout's 504 is refused. Undefined
   * for requests without a timeout.
   */
  commitGate(req: FastifyRequest): CommitGate | undefined {
    const state = req.setpointLimits;
    if (state === undefined) return undefined;
    return {
      enter: () => {
        if (state.timedOut) throw answeredByTimeout();
        state.timer?.cancel();
        state.timer = undefined;
      },
    };
  }

  /**
   * Keeps the request's seat until `work` (its handler) settles, even when a timeout has already
   * answered the client. Returns `work`.
   */
  holdDuring<T>(req: FastifyRequest, work: Promise<T>): Promise<T> {
    const state = req.setpointLimits;
    if (state === undefined) return work;
    state.handlerRunning = true;
    const done = () => {
      state.handlerRunning = false;
      this.maybeRelease(state);
    };
    work.then(done, done);
    return work;
  }

  private maybeRelease(state: RequestState): void {
    if (!state.responseDone || state.handlerRunning) return;
    const seat = state.seat;
    if (seat !== undefined) {
      state.seat = undefined;
      seat.inUse--;
      this.inflight.set({ request_kind: state.kind }, seat.inUse);
    }
    const who = state.watchOf;
    if (who !== undefined) {
      state.watchOf = undefined;
      const open = (this.watches.get(who) ?? 1) - 1;
      if (open <= 0) this.watches.delete(who);
      else this.watches.set(who, open);
    }
  }

  private refuse(reply: FastifyReply, state: RequestState, message: string): void {
    this.countTermination(state, 429);
    sendError(reply, ApiError.tooManyRequests(message, 1));
  }

  private timedOut(req: FastifyRequest, reply: FastifyReply, state: RequestState): void {
    state.timer = undefined;
    if (reply.sent || state.responseDone) return;
    state.timedOut = true;
    this.countTermination(state, 504);
    if (reply.raw.headersSent) {
      // The answer has begun: nothing else can be said on this connection (kube-apiserver aborts it too).
      req.raw.socket?.destroy();
      return;
    }
    sendError(reply, new ApiError('Timeout', 'Timeout: request did not complete within the allotted timeout', { details: {} }));
  }

  private countTermination(state: RequestState, code: number): void {
    const info = state.info;
    const resource = info.kind === 'resource' ? info : undefined;
    this.terminations.inc({
      verb: state.verb,
      group: resource?.group ?? '',
      version: resource?.version ?? '',
      resource: resource?.resource ?? '',
      subresource: resource?.subresource ?? '',
      code: String(code),
    });
  }
}

/** The kind and verb of a request (see the file comment). */
function classify(method: string, path: string, info: RequestInfo): { kind: RequestKind; verb: string } {
  if (HEALTH_PATHS.has(path)) return { kind: 'exempt', verb: method.toLowerCase() };
  if (info.kind !== 'resource') return { kind: method === 'GET' || method === 'HEAD' ? 'readOnly' : 'mutating', verb: method.toLowerCase() };
  const verb = info.verb;
  if (verb === 'watch' || LONG_RUNNING_SUBRESOURCES.has(info.subresource)) return { kind: 'longRunning', verb };
  if (info.group === 'coordination.k8s.io' && info.resource === 'leases') return { kind: 'lease', verb };
  return { kind: verb === 'get' || verb === 'list' ? 'readOnly' : 'mutating', verb };
}

function firstQuery(req: FastifyRequest, name: string): string | undefined {
  const v = (req.query as Record<string, string | string[] | undefined> | undefined)?.[name];
  return Array.isArray(v) ? v[0] : v;
}

function nonNegative(n: number, name: string): number {
  if (!Number.isFinite(n) || n < 0 || !Number.isInteger(n)) throw new Error(`${name} must be a whole number, 0 or more, not ${n}`);
  return n;
}

const UNIT_MS: Record<string, number> = { ns: 1e-6, us: 1e-3, 'µs': 1e-3, 'μs': 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/**
 * Go's time.ParseDuration, in milliseconds: "30s", "1m30s", "1.5h", "500ms", "0"; a sign is
 * allowed. Throws with Go's messages (`time: invalid duration "x"`).
 */
export function parseGoDuration(text: string): number {
  const quoted = JSON.stringify(text);
  let s = text;
  let sign = 1;
  if (s.startsWith('-') || s.startsWith('+')) {
    if (s[0] === '-') sign = -1;
    s = s.slice(1);
  }
  if (s === '0') return 0;
  if (s === '') throw new Error(`time: invalid duration ${quoted}`);
  let total = 0;
  while (s !== '') {
    const num = /^(\d*)(\.(\d*))?/.exec(s)!;
    if (num[0] === '' || num[0] === '.') throw new Error(`time: invalid duration ${quoted}`);
    s = s.slice(num[0].length);
    const unit = /^[^\d.]+/.exec(s)?.[0];
    if (unit === undefined) throw new Error(`time: missing unit in duration ${quoted}`);
    const factor = UNIT_MS[unit];
    if (factor === undefined) throw new Error(`time: unknown unit ${JSON.stringify(unit)} in duration ${quoted}`);
    s = s.slice(unit.length);
    total += Number(num[0]) * factor;
  }
  if (!Number.isFinite(total) || total > 9_223_372_036_854) throw new Error(`time: invalid duration ${quoted}`);
  return sign * total;
}

/** The 413 answer for a body over `limit` bytes (Kubernetes' wording). */
export function bodyTooLarge(limit: number): ApiError {
  return ApiError.tooLarge(`limit is ${limit}`);
}

/** Whether `err` is fastify's refusal of a body over the limit. */
export function isBodyTooLarge(err: unknown): boolean {
  return (err as { code?: unknown } | null)?.code === 'FST_ERR_CTP_BODY_TOO_LARGE';
}
