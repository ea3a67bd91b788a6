/**
 * Auditor: one audit.k8s.io/v1 Event per request, at stage ResponseComplete (for a watch, when it
 * ends), at the level the policy gives the request, written as a JSON line by an AuditLogWriter.
 *
 * Expected flow (server.ts hooks): `begin` when a request arrives (before authentication, so
 * refused requests are audited too: a 401 with an empty user), `onSend` as its answer goes out
 * (keeps error Statuses, and bodies for RequestResponse), and the event is written when the
 * response closes. `close()` at shutdown flushes the file.
 *
 * Guarantees: Metadata events carry who (user, uid, groups, extra; and impersonatedUser when the
 * request impersonated someone, `user` staying the one who sent it), what (verb, requestURI,
 * objectRef: resource, namespace, name, apiGroup, apiVersion, subresource), from where
 * (sourceIPs, userAgent), the answer (responseStatus: the code; for failures Kubernetes' status,
 * message and reason) and when (requestReceivedTimestamp, stageTimestamp: their difference is the
 * latency); the `Audit-Id` response header names each event's auditID (a client's own `Audit-ID`
 * header is kept when it is a plain token). Request adds `requestObject` (the body as decoded),
 * RequestResponse `responseObject` (JSON and protobuf answers). Bodies are never recorded for
 * Secrets, TokenRequests and authentication.k8s.io reviews (event.ts bodiesAllowed), whatever the
 * policy says. Writing never delays a request (writer.ts); what cannot be written is counted in
 * `apiserver_audit_error_total{plugin="log"}`.
 */
import { randomUUID } from 'node:crypto';
import { realClock, silentLogger, type Clock, type Logger } from '@setpoint/api';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Counter, type Registry } from 'prom-client';
import type { UserInfo } from '../auth/index.js';
import { decodeBody } from '../http/body.js';
import { decodeProtobuf, PROTOBUF_MEDIA_TYPE } from '../http/protobuf/index.js';
import { parseRequestInfo, type RequestInfo } from '../http/requestinfo.js';
import { bodiesAllowed, microTime, responseStatusOf, sourceIPs, withoutManagedFields, type AuditEvent, type AuditObjectRef, type AuditUserInfo } from './event.js';
import { AuditPolicyChecker, METADATA_POLICY, type AuditAttributes, type AuditDecision, type AuditPolicy } from './policy.js';
import { AuditLogWriter, type AuditLogWriterOptions } from './writer.js';

export interface AuditOptions extends Omit<AuditLogWriterOptions, 'onDrop' | 'clock' | 'logger'> {
  /**
   * Who is audited at which level (parseAuditPolicy). Default: every request at Metadata — unlike
   * kube-apiserver, which audits nothing when given a log path but no policy.
   */
  readonly policy?: AuditPolicy;
}

interface AuditState {
  readonly id: string;
  readonly receivedMicros: number;
  decision: AuditDecision | undefined;
  /** The answer's body as sent (errors, and everything at RequestResponse). */
  payload: string | Buffer | undefined;
  payloadType: string | undefined;
  /** Annotations admission added (audit.k8s.io Event.annotations). */
  annotations?: Record<string, string>;
}

/**
 * Adds an annotation to the audit event of `req` (as admission plugins do in Kubernetes); a
 * request that is not audited keeps none. A later value for the same key replaces the earlier.
 */
export function addAuditAnnotation(req: FastifyRequest, key: string, value: string): void {
  const state = req.setpointAudit;
  if (state === undefined) return;
  (state.annotations ??= {})[key] = value;
}

declare module 'fastify' {
  interface FastifyRequest {
    setpointAudit?: AuditState;
  }
}

const OPEN_PATHS = new Set(['/livez', '/readyz', '/healthz', '/version']);
const ANONYMOUS = { username: 'system:anonymous', groups: ['system:unauthenticated'] };

export class Auditor {
  private readonly checker: AuditPolicyChecker;
  private readonly logWriter: AuditLogWriter;
  private readonly clock: Clock;
  private readonly events: Counter;
  private readonly levels: Counter<'level'>;
  private readonly errors: Counter<'plugin'>;
  private readonly logger: Logger;

  private constructor(writer: AuditLogWriter, policy: AuditPolicy, deps: { clock: Clock; logger: Logger; events: Counter; levels: Counter<'level'>; errors: Counter<'plugin'> }) {
    this.logWriter = writer;
    this.checker = new AuditPolicyChecker(policy);
    this.clock = deps.clock;
    this.logger = deps.logger;
    this.events = deps.events;
    this.levels = deps.levels;
    this.errors = deps.errors;
  }

  /** Opens the log (throws when it cannot be opened) and registers the audit metrics in `registry`. */
  static async open(options: AuditOptions, deps: { readonly registry?: Registry; readonly clock?: Clock; readonly logger?: Logger } = {}): Promise<Auditor> {
    const registers = deps.registry === undefined ? [] : [deps.registry];
    const events = new Counter({ name: 'apiserver_audit_event_total', help: 'Audit events generated and sent to the audit log.', registers });
    const levels = new Counter({ name: 'apiserver_audit_level_total', help: 'Policy levels of audit events (1 per request).', labelNames: ['level'] as const, registers });
    const errors = new Counter({ name: 'apiserver_audit_error_total', help: 'Audit events that could not be written (buffer full or write failed).', labelNames: ['plugin'] as const, registers });
    errors.inc({ plugin: 'log' }, 0);
    const { policy, ...writerOptions } = options;
    const clock = deps.clock ?? realClock;
    const logger = deps.logger ?? silentLogger;
    const writer = await AuditLogWriter.open({ ...writerOptions, onDrop: (count) => errors.inc({ plugin: 'log' }, count), clock, logger });
    return new Auditor(writer, policy ?? METADATA_POLICY, { clock, logger, events, levels, errors });
  }

  /** The log's writer (tests wait on `flushed()`). */
  get writer(): AuditLogWriter {
    return this.logWriter;
  }

  /** Starts the record of a request: its auditID (sent as the Audit-Id header) and arrival time. */
  begin(req: FastifyRequest, reply: FastifyReply): void {
    const asked = req.headers['audit-id'];
    const id = typeof asked === 'string' && /^[A-Za-z0-9._:-]{1,128}$/.test(asked) ? asked : randomUUID();
    const state: AuditState = { id, receivedMicros: this.nowMicros(), decision: undefined, payload: undefined, payloadType: undefined };
    req.setpointAudit = state;
    reply.header('Audit-Id', id);
    reply.raw.once('close', () => this.complete(req, reply, state));
  }

  /** Keeps what an answer carries that its event needs (fastify's onSend; synchronous). */
  onSend(req: FastifyRequest, reply: FastifyReply, payload: unknown): void {
    const state = req.setpointAudit;
    if (state === undefined || (typeof payload !== 'string' && !Buffer.isBuffer(payload))) return;
    const code = reply.statusCode;
    if (code < 400 && this.decide(req, reply, state).level !== 'RequestResponse') return;
    state.payload = payload;
    const type = reply.getHeader('content-type');
    state.payloadType = typeof type === 'string' ? type : undefined;
  }

  /** Writes what is queued and closes the log. */
  async close(): Promise<void> {
    // Responses the server just ended or cut emit 'close' on a later turn: let their events in.
    await new Promise<void>((resolve) => setImmediate(resolve));
    await this.logWriter.close();
  }

  private nowMicros(): number {
    return this.clock === realClock ? Math.floor((performance.timeOrigin + performance.now()) * 1000) : this.clock.now() * 1000;
  }

  private decide(req: FastifyRequest, reply: FastifyReply, state: AuditState): AuditDecision {
    state.decision ??= this.checker.decide(attributesOf(req, reply.statusCode));
    return state.decision;
  }

  private complete(req: FastifyRequest, reply: FastifyReply, state: AuditState): void {
    try {
      const decision = this.decide(req, reply, state);
      if (decision.level === 'None' || decision.omitStages.includes('ResponseComplete')) return;
      let line: string;
      try {
        line = JSON.stringify(this.event(req, reply, state, decision));
      } catch {
        // A body that cannot be serialized: record the event without bodies.
        line = JSON.stringify(this.event(req, reply, state, { ...decision, level: 'Metadata' }));
      }
      this.events.inc();
      this.levels.inc({ level: decision.level });
      this.logWriter.write(line);
    } catch (err) {
      // Never let auditing take the server down (this runs in a socket's 'close' listener).
      this.errors.inc({ plugin: 'log' });
      this.logger.error({ err, auditID: state.id }, 'building an audit event failed; event dropped');
    }
  }

  private event(req: FastifyRequest, reply: FastifyReply, state: AuditState, decision: AuditDecision): AuditEvent {
    const level = decision.level as AuditEvent['level'];
    const info = infoOf(req);
    const code = reply.statusCode;
    const event: AuditEvent = {
      kind: 'Event',
      apiVersion: 'audit.k8s.io/v1',
      level,
      auditID: state.id,
      stage: 'ResponseComplete',
      requestURI: req.url,
      verb: info.kind === 'resource' ? info.verb : req.method.toLowerCase(),
      user: userOf(req, code),
      ...(req.setpointRequestor !== undefined && req.setpointUser !== undefined ? { impersonatedUser: auditUser(req.setpointUser) } : {}),
      sourceIPs: sourceIPs(req.raw.socket?.remoteAddress, req.headers['x-forwarded-for'], req.headers['x-real-ip']),
      requestReceivedTimestamp: microTime(state.receivedMicros),
      stageTimestamp: microTime(Math.max(state.receivedMicros, this.nowMicros())),
    };
    const agent = req.headers['user-agent'];
    if (typeof agent === 'string' && agent !== '') event.userAgent = agent;
    const allowed = info.kind !== 'resource' || bodiesAllowed(info.group, info.resource, info.subresource);
    let requestBody: unknown;
    if (info.kind === 'resource') {
      const ref: AuditObjectRef = { resource: info.resource };
      const namespace = namespaceOf(info);
      if (namespace !== '') ref.namespace = namespace;
      if (info.name !== '') ref.name = info.name;
      if (info.group !== '') ref.apiGroup = info.group;
      ref.apiVersion = info.version;
      if (info.subresource !== '') ref.subresource = info.subresource;
      if (info.verb === 'create' || level !== 'Metadata') requestBody = requestBodyOf(req);
      // As Kubernetes does, a create names its object from the body (only its name and namespace).
      const meta = (requestBody as { metadata?: { name?: unknown; namespace?: unknown } } | undefined)?.metadata;
      if (info.verb === 'create' && ref.name === undefined && info.subresource === '' && typeof meta?.name === 'string' && meta.name !== '') ref.name = meta.name;
      event.objectRef = ref;
    }
    event.responseStatus = responseStatusOf(code, code >= 400 ? parsePayload(state.payload, state.payloadType) : undefined);
    if (allowed && (level === 'Request' || level === 'RequestResponse')) {
      requestBody ??= requestBodyOf(req);
      if (requestBody !== undefined) event.requestObject = decision.omitManagedFields ? withoutManagedFields(requestBody) : requestBody;
    }
    if (state.annotations !== undefined) event.annotations = { ...state.annotations };
    if (allowed && level === 'RequestResponse' && state.payload !== undefined) {
      const response = parsePayload(state.payload, state.payloadType);
      if (response !== undefined) event.responseObject = decision.omitManagedFields ? withoutManagedFields(response) : response;
    }
    return event;
  }
}

/** What the policy matches a request on. */
function attributesOf(req: FastifyRequest, code: number): AuditAttributes {
  const info = infoOf(req);
  // The policy matches who sent the request, as kube-apiserver's audit filter (before impersonation) does.
  const user = req.setpointRequestor ?? req.setpointUser;
  const path = req.url.split('?', 1)[0]!;
  const who = user !== undefined ? { name: user.name, groups: user.groups } : code === 401 ? undefined : { name: ANONYMOUS.username, groups: ANONYMOUS.groups };
  if (info.kind !== 'resource') return { user: who, verb: req.method.toLowerCase(), resourceRequest: false, path, apiGroup: '', namespace: '', resource: '', subresource: '', name: '' };
  return { user: who, verb: info.verb, resourceRequest: true, path, apiGroup: info.group, namespace: namespaceOf(info), resource: info.resource, subresource: info.subresource, name: info.name };
}

function infoOf(req: FastifyRequest): RequestInfo {
  const known = req.setpointInfo ?? req.setpointLimits?.info;
  if (known !== undefined) return known;
  const path = req.url.split('?', 1)[0]!;
  if (!(path === '/api' || path === '/apis' || path.startsWith('/api/') || path.startsWith('/apis/'))) return { kind: 'unknown' };
  const watch = (req.query as Record<string, unknown> | undefined)?.['watch'];
  return parseRequestInfo(req.method, path, typeof watch === 'string' ? watch : undefined);
}

/** The namespace of a request as Kubernetes records it: a Namespace object is in itself. */
function namespaceOf(info: Extract<RequestInfo, { kind: 'resource' }>): string {
  return info.group === '' && info.resource === 'namespaces' ? info.name : info.namespace;
}

function userOf(req: FastifyRequest, code: number): AuditEvent['user'] {
  const user: UserInfo | undefined = req.setpointRequestor ?? req.setpointUser;
  if (user !== undefined) return auditUser(user);
  // A request refused for its credentials has no user; open paths (and servers without
  // authentication) serve everyone as the anonymous user.
  const path = req.url.split('?', 1)[0]!;
  if (code === 401 && !OPEN_PATHS.has(path)) return {};
  return { username: ANONYMOUS.username, groups: [...ANONYMOUS.groups] };
}

function auditUser(user: UserInfo): AuditUserInfo {
  const out: AuditUserInfo = { username: user.name };
  if (user.uid !== undefined && user.uid !== '') out.uid = user.uid;
  out.groups = [...user.groups];
  if (user.extra !== undefined && Object.keys(user.extra).length > 0) out.extra = { ...user.extra };
  return out;
}

function requestBodyOf(req: FastifyRequest): unknown {
  const raw = req.body;
  if (!Buffer.isBuffer(raw) || raw.length === 0) return undefined;
  try {
    return decodeBody(raw, req.headers['content-type']);
  } catch {
    return undefined;
  }
}

function parsePayload(payload: string | Buffer | undefined, type: string | undefined): unknown {
  if (payload === undefined) return undefined;
  const media = (type ?? '').split(';', 1)[0]!.trim().toLowerCase();
  try {
    if (media === PROTOBUF_MEDIA_TYPE && Buffer.isBuffer(payload)) return decodeProtobuf(payload);
    if (media === 'application/json') return JSON.parse(typeof payload === 'string' ? payload : payload.toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
  return undefined;
}
