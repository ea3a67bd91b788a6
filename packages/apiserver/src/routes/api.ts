/**
 * The Kubernetes API under /api and /apis, routed by a table: each request is parsed once into a
 * RequestInfo (or the one authorization parsed is reused), then the first route whose `matches`
 * holds answers it —
 * 1. discovery documents (/api, /apis, a group, a group version);
 * 2. selfsubjectreviews (who am I);
 * 3. create-only kinds (the authorization reviews), answered by the authorizer;
 * 4. a served kind's declared subresource with a handler of its own (serviceaccounts/token, pods/log);
 * 5. every other request on a served kind: the generic REST layer (routes/resources.ts).
 * Nothing matched: Kubernetes' 404 for a path that names nothing. Routes 4 and 5 run the
 * admission chain's request phase first (admission/chain.ts: a system namespace's deletion,
 * NodeRestriction…); route 5's writes carry the request into the chain's mutate and validate
 * phases, which the storage runs.
 */
import { ApiError, type Clock } from '@setpoint/api';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AdmissionChain, AdmissionRequest } from '../admission/chain.js';
import { addAuditAnnotation } from '../audit/index.js';
import { Authorization } from '../authz/index.js';
import { apiGroup, apiGroupList, apiResourceList, apiVersions } from '../discovery/discovery.js';
import { decodeBody } from '../http/body.js';
import type { RequestLimits } from '../http/limits.js';
import type { ApiMetrics } from '../http/metrics.js';
import { parseRequestInfo, type RequestInfo, type ResourceRequestInfo } from '../http/requestinfo.js';
import { negotiateMedia, send } from '../http/respond.js';
import type { Registry } from '../registry/registry.js';
import type { ResourceDef, SubresourceServices } from '../registry/types.js';
import type { ResourceStorage } from '../storage/rest.js';
import type { Storages } from '../storage/storages.js';
import { handleResource, notFoundPath } from './resources.js';
import { handleSelfSubjectReview, isSelfSubjectReview } from './selfsubjectreview.js';

/** What the API routes use of the server. */
export interface ApiRouteParts {
  readonly registry: Registry;
  readonly storages: Storages;
  readonly subresources: SubresourceServices;
  /** The authorizer, once started; undefined: every request is allowed. */
  readonly authorization: () => Authorization | undefined;
  /** The admission chain (the same the storages run). */
  readonly admission: AdmissionChain;
  readonly limits: RequestLimits;
  readonly metrics: ApiMetrics;
  readonly stopping: AbortSignal;
  readonly clock: Clock;
}

/** A request as the routes see it. */
interface Routed {
  readonly req: FastifyRequest;
  readonly reply: FastifyReply;
  readonly info: RequestInfo;
  /** The served kind the request names, if any. */
  readonly def: ResourceDef | undefined;
  /** Its storage (create-only kinds have none). */
  readonly storage: ResourceStorage | undefined;
}

/** A request on a served kind with storage. */
interface Stored extends Routed {
  readonly info: ResourceRequestInfo;
  readonly def: ResourceDef;
  readonly storage: ResourceStorage;
}

const isStored = (r: Routed): r is Stored => r.storage !== undefined;

interface Route {
  readonly name: string;
  matches(r: Routed, parts: ApiRouteParts): boolean;
  handle(r: Routed, parts: ApiRouteParts): Promise<unknown> | unknown;
}

const routes: readonly Route[] = [
  {
    name: 'discovery',
    matches: (r) => r.info.kind === 'discovery',
    handle: ({ req, reply, info }, { registry }) => {
      if (info.kind !== 'discovery') throw notFoundPath();
      if (req.method !== 'GET' && req.method !== 'HEAD') throw new ApiError('MethodNotAllowed', 'the server does not allow this method on the requested resource');
      let doc: object | undefined;
      if (info.legacy) doc = info.version === undefined ? apiVersions(req.headers.host ?? '127.0.0.1') : info.version === 'v1' ? apiResourceList(registry, '', 'v1') : undefined;
      else if (info.group === undefined) doc = apiGroupList(registry);
      else if (info.version === undefined) doc = apiGroup(registry, info.group);
      else doc = apiResourceList(registry, info.group, info.version);
      if (doc === undefined) throw notFoundPath();
      return send(reply, 200, doc);
    },
  },
  {
    name: 'selfsubjectreviews',
    matches: (r) => r.info.kind === 'resource' && isSelfSubjectReview(r.info),
    handle: ({ req, reply, info }, { clock }) => handleSelfSubjectReview(req, reply, info as ResourceRequestInfo, req.setpointUser, clock.now()),
  },
  {
    name: 'reviews',
    matches: (r) => r.def?.createOnly === true,
    handle: (r, parts) => handleReview(r as Routed & { info: ResourceRequestInfo; def: ResourceDef }, parts),
  },
  {
    name: 'subresource handlers',
    matches: (r) => isStored(r) && subresourceHandler(r) !== undefined,
    handle: async (r, parts) => {
      const stored = r as Stored;
      await admitRequest(stored, parts);
      return subresourceHandler(stored)!({ req: r.req, reply: r.reply, info: stored.info, storage: stored.storage, services: parts.subresources });
    },
  },
  {
    name: 'resources',
    matches: isStored,
    handle: async (r, parts) => {
      const stored = r as Stored;
      const request = await admitRequest(stored, parts);
      const { req, reply, info, storage } = stored;
      const watchLabels = { group: info.group, resource: info.resource };
      return handleResource(req, reply, info, {
        storage,
        stopping: parts.stopping,
        onWatchLine: () => parts.metrics.watchEvents.inc(watchLabels),
        minRequestTimeoutSeconds: parts.limits.minRequestTimeoutSeconds,
        protobufKinds: parts.registry.takesProtobuf,
        onWatchStart: () => {
          parts.metrics.watchers.inc(watchLabels);
          return () => parts.metrics.watchers.dec(watchLabels);
        },
        request,
      });
    },
  },
];

/** Answers a request under /api or /apis. */
export async function handleApiRequest(req: FastifyRequest, reply: FastifyReply, parts: ApiRouteParts): Promise<unknown> {
  const path = req.url.split('?')[0]!;
  const info = req.setpointInfo ?? parseRequestInfo(req.method, path, (req.query as { watch?: string }).watch);
  req.setpointInfo = info;
  if (info.kind === 'unknown') throw notFoundPath();
  const def = info.kind === 'resource' ? parts.registry.lookup(info.group, info.version, info.resource) : undefined;
  const routed: Routed = { req, reply, info, def, storage: def === undefined ? undefined : parts.storages.of(def) };
  for (const route of routes) if (route.matches(routed, parts)) return route.handle(routed, parts);
  throw notFoundPath();
}

function subresourceHandler(r: Stored) {
  if (r.info.subresource === '' || r.info.name === '') return undefined;
  return r.def.subresources?.more?.[r.info.subresource]?.handler;
}

/**
 * The admission chain's request phase for a request on a stored kind; resolves with the request
 * as the chain's later phases see it.
 */
async function admitRequest({ req, info }: Stored, parts: ApiRouteParts): Promise<AdmissionRequest> {
  const request: AdmissionRequest = {
    info,
    user: req.setpointUser,
    body: () => decodeBody(req.body as Buffer | undefined, req.headers['content-type'], parts.registry.takesProtobuf),
    annotate: (key, value) => addAuditAnnotation(req, key, value),
  };
  if (info.verb !== 'get' && info.verb !== 'list' && info.verb !== 'watch') await parts.admission.admitRequest(request);
  return request;
}

/** authorization.k8s.io reviews (create-only, never stored): answered by the authorizer, 201. */
function handleReview({ req, reply, info, def }: Routed & { info: ResourceRequestInfo; def: ResourceDef }, parts: ApiRouteParts): FastifyReply {
  if (info.verb !== 'create' || info.name !== '' || info.subresource !== '') throw ApiError.methodNotAllowed(info.verb, { group: def.group, resource: def.resource });
  if (def.namespaced !== (info.namespace !== '')) throw notFoundPath();
  const media = negotiateMedia(req.headers.accept, { protobuf: def.protobuf === true });
  const body = decodeBody(req.body as Buffer | undefined, req.headers['content-type'], parts.registry.takesProtobuf);
  if (body === undefined) throw ApiError.badRequest('the request body is empty');
  const user = req.setpointUser ?? { name: 'system:anonymous', groups: ['system:unauthenticated'] };
  const authorization = parts.authorization() ?? Authorization.allowAll();
  return send(reply, 201, authorization.review(def, body, user, info.namespace), media.encoding);
}
