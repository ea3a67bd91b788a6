/**
 * The TokenRequest subresource: POST /api/v1/namespaces/NS/serviceaccounts/NAME/token with an
 * authentication.k8s.io/v1 TokenRequest (JSON, YAML, or protobuf as kubectl sends it) answers 201
 * with the same TokenRequest, its status holding a signed ServiceAccount token and when it expires.
 * As kube-apiserver: spec.expirationSeconds defaults to 3600 and must be at least 600 (and at
 * most 2^32); spec.audiences default to the API's; spec.boundObjectRef may name a Pod (which must
 * run as this ServiceAccount; the token then also names the pod's node) or a Secret of the
 * namespace, and the token dies with that object; dryRun=All answers without issuing a token.
 */
import { ApiError, FieldError, type KubeObject } from '@setpoint/api';
import type { FastifyReply, FastifyRequest } from 'fastify';
import protobuf from 'protobufjs';
import type { ServiceAccountTokens } from '../auth/serviceaccount.js';
import { decodeBody, mediaType } from '../http/body.js';
import { PROTOBUF_MEDIA_TYPE, openEnvelope } from '../http/protobuf/index.js';
import type { ResourceRequestInfo } from '../http/requestinfo.js';
import { negotiateMedia, send } from '../http/respond.js';
import type { ResourceStorage } from '../storage/rest.js';

export const TOKEN_REQUEST_API_VERSION = 'authentication.k8s.io/v1';
/** Kubernetes' bounds of spec.expirationSeconds, and its default. */
export const MIN_TOKEN_SECONDS = 600;
export const MAX_TOKEN_SECONDS = 2 ** 32;
export const DEFAULT_TOKEN_SECONDS = 3600;

/** The storages a token request reads: the ServiceAccount, and what a token may be bound to. */
export interface TokenRequestContext {
  readonly tokens: ServiceAccountTokens;
  readonly serviceAccounts: ResourceStorage;
  readonly pods: ResourceStorage;
  readonly secrets: ResourceStorage;
  readonly nodes: ResourceStorage;
}

interface BoundObjectReference {
  kind?: string;
  apiVersion?: string;
  name?: string;
  uid?: string;
}

interface TokenRequestSpec {
  audiences?: string[];
  expirationSeconds?: number;
  boundObjectRef?: BoundObjectReference;
}

/** The TokenRequest messages, with Kubernetes' field numbers (metadata is skipped: nothing in it matters here). */
const tokenRequestProto = `
syntax = "proto2";
package setpoint.tokenrequest;
message TokenRequest { optional bytes metadata = 1; optional TokenRequestSpec spec = 2; }
message TokenRequestSpec { repeated string audiences = 1; optional BoundObjectReference boundObjectRef = 3; optional int64 expirationSeconds = 4; }
message BoundObjectReference { optional string kind = 1; optional string aPIVersion = 2; optional string name = 3; optional string uID = 4; }
`;
let tokenRequestType: protobuf.Type | undefined;

/** The spec of a protobuf TokenRequest body. Throws ApiError BadRequest for another kind or malformed bytes. */
function decodeProtobufSpec(bytes: Buffer): TokenRequestSpec {
  const envelope = openEnvelope(bytes);
  if (envelope.kind !== 'TokenRequest') throw ApiError.badRequest(`expected a TokenRequest, got ${envelope.kind || 'no kind'}`);
  tokenRequestType ??= protobuf.parse(tokenRequestProto, { keepCase: true }).root.lookupType('setpoint.tokenrequest.TokenRequest');
  let message: { spec?: { audiences?: string[]; expirationSeconds?: number; boundObjectRef?: { kind?: string; aPIVersion?: string; name?: string; uID?: string } } };
  try {
    message = tokenRequestType.toObject(tokenRequestType.decode(envelope.raw), { longs: Number }) as typeof message;
  } catch (err) {
    throw new ApiError('BadRequest', `the body of the request could not be decoded as protobuf TokenRequest: ${(err as Error).message}`, { cause: err });
  }
  const spec = message.spec ?? {};
  const ref = spec.boundObjectRef;
  return {
    ...(spec.audiences !== undefined ? { audiences: spec.audiences } : {}),
    ...(spec.expirationSeconds !== undefined ? { expirationSeconds: spec.expirationSeconds } : {}),
    ...(ref !== undefined ? { boundObjectRef: { kind: ref.kind ?? '', apiVersion: ref.aPIVersion ?? '', name: ref.name ?? '', uid: ref.uID ?? '' } } : {}),
  };
}

/** The spec of a JSON or YAML body, with its types checked. Throws ApiError BadRequest. */
function readJsonSpec(body: unknown): TokenRequestSpec {
  if (body === undefined) return {};
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw ApiError.badRequest('the body must be a TokenRequest object');
  const { kind, apiVersion, spec } = body as { kind?: unknown; apiVersion?: unknown; spec?: unknown };
  if (kind !== undefined && kind !== 'TokenRequest') throw ApiError.badRequest(`expected a TokenRequest, got ${String(kind)}`);
  if (apiVersion !== undefined && apiVersion !== TOKEN_REQUEST_API_VERSION) throw ApiError.badRequest(`expected apiVersion ${TOKEN_REQUEST_API_VERSION}, got ${String(apiVersion)}`);
  if (spec === undefined || spec === null) return {};
  if (typeof spec !== 'object' || Array.isArray(spec)) throw ApiError.badRequest('spec must be an object');
  const s = spec as Record<string, unknown>;
  const out: TokenRequestSpec = {};
  if (s['audiences'] !== undefined && s['audiences'] !== null) {
    if (!Array.isArray(s['audiences']) || s['audiences'].some((a) => typeof a !== 'string')) throw ApiError.badRequest('spec.audiences must be a list of strings');
    out.audiences = s['audiences'] as string[];
  }
  if (s['expirationSeconds'] !== undefined && s['expirationSeconds'] !== null) {
    if (typeof s['expirationSeconds'] !== 'number' || !Number.isInteger(s['expirationSeconds'])) throw ApiError.badRequest('spec.expirationSeconds must be an integer');
    out.expirationSeconds = s['expirationSeconds'];
  }
  const ref = s['boundObjectRef'];
  if (ref !== undefined && ref !== null) {
    if (typeof ref !== 'object' || Array.isArray(ref)) throw ApiError.badRequest('spec.boundObjectRef must be an object');
    const r = ref as Record<string, unknown>;
    const str = (v: unknown) => (typeof v === 'string' ? v : '');
    out.boundObjectRef = { kind: str(r['kind']), apiVersion: str(r['apiVersion']), name: str(r['name']), uid: str(r['uid']) };
  }
  return out;
}

/**
 * The ServiceAccount a pod runs as: spec.serviceAccountName, else the deprecated
 * spec.serviceAccount, else "default" (what Kubernetes' ServiceAccount admission plugin would have
 * written into the pod; Setpoint leaves the field as sent).
 */
export function podServiceAccountName(pod: KubeObject): string {
  const spec = pod.spec as { serviceAccountName?: string; serviceAccount?: string } | undefined;
  return spec?.serviceAccountName || spec?.serviceAccount || 'default';
}

/** The object, or undefined when it does not exist. */
async function getOrUndefined(storage: ResourceStorage, namespace: string, name: string): Promise<KubeObject | undefined> {
  try {
    return await storage.get(namespace, name);
  } catch (err) {
    if (err instanceof ApiError && err.reason === 'NotFound') return undefined;
    throw err;
  }
}

/** Answers POST …/serviceaccounts/NAME/token (see the file comment). */
export async function handleTokenRequest(req: FastifyRequest, reply: FastifyReply, info: ResourceRequestInfo, ctx: TokenRequestContext): Promise<unknown> {
  if (info.verb !== 'create') throw ApiError.methodNotAllowed(info.verb, { group: '', resource: 'serviceaccounts/token' });
  const media = negotiateMedia(req.headers.accept);
  const raw = req.body as Buffer | undefined;
  const spec = raw !== undefined && raw.length > 0 && mediaType(req.headers['content-type']) === PROTOBUF_MEDIA_TYPE ? decodeProtobufSpec(raw) : readJsonSpec(decodeBody(raw, req.headers['content-type']));
  const expirationSeconds = spec.expirationSeconds ?? DEFAULT_TOKEN_SECONDS;
  const errs: FieldError[] = [];
  if (expirationSeconds < MIN_TOKEN_SECONDS) errs.push(FieldError.invalid('spec.expirationSeconds', expirationSeconds, 'may not specify a duration less than 10 minutes'));
  if (expirationSeconds > MAX_TOKEN_SECONDS) errs.push(FieldError.invalid('spec.expirationSeconds', expirationSeconds, 'may not specify a duration larger than 2^32 seconds'));
  if (errs.length > 0) throw ApiError.invalid({ group: 'authentication.k8s.io', kind: 'TokenRequest' }, '', errs);

  const namespace = info.namespace;
  const serviceAccount = await ctx.serviceAccounts.get(namespace, info.name);
  let pod: KubeObject | undefined;
  let secret: KubeObject | undefined;
  let node: { name: string; uid?: string } | undefined;
  const ref = spec.boundObjectRef;
  if (ref !== undefined) {
    const [group, version] = (ref.apiVersion ?? '').includes('/') ? (ref.apiVersion ?? '').split('/', 2) : ['', ref.apiVersion ?? ''];
    let bound: KubeObject;
    if (group === '' && ref.kind === 'Pod') {
      bound = pod = await ctx.pods.get(namespace, ref.name ?? '');
      if (podServiceAccountName(pod) !== info.name) throw ApiError.badRequest(`cannot bind token for serviceaccount "${info.name}" to pod running with different serviceaccount name.`);
      const nodeName = (pod.spec as { nodeName?: string } | undefined)?.nodeName;
      if (nodeName !== undefined && nodeName !== '') {
        const nodeUid = (await getOrUndefined(ctx.nodes, '', nodeName))?.metadata.uid;
        node = { name: nodeName, ...(nodeUid === undefined ? {} : { uid: nodeUid }) };
      }
    } else if (group === '' && ref.kind === 'Secret') {
      bound = secret = await ctx.secrets.get(namespace, ref.name ?? '');
    } else {
      throw ApiError.badRequest(`cannot bind token to object of type ${group}/${version}, Kind=${ref.kind ?? ''}`);
    }
    if (ref.uid !== undefined && ref.uid !== '' && ref.uid !== bound.metadata.uid) {
      throw ApiError.conflict(
        { group, resource: ref.kind ?? '' },
        ref.name ?? '',
        `the UID in the bound object reference (${ref.uid}) does not match the UID in record. The object might have been deleted and then recreated`,
      );
    }
  }
  const audiences = spec.audiences !== undefined && spec.audiences.length > 0 ? spec.audiences : [...ctx.tokens.audiences];
  const dryRun = (req.query as { dryRun?: string | string[] }).dryRun;
  const issued = dryRun === undefined ? ctx.tokens.issue({ serviceAccount, ...(pod ? { pod } : {}), ...(node ? { node } : {}), ...(secret ? { secret } : {}), audiences, expirationSeconds }) : undefined;
  const now = new Date(ctx.serviceAccounts.clock.now()).toISOString().replace(/\.\d+Z$/, 'Z');
  return send(
    reply,
    201,
    {
      kind: 'TokenRequest',
      apiVersion: TOKEN_REQUEST_API_VERSION,
      metadata: { name: info.name, namespace, creationTimestamp: now },
      spec: {
        audiences,
        expirationSeconds,
        ...(ref !== undefined ? { boundObjectRef: { kind: ref.kind, apiVersion: ref.apiVersion, name: ref.name, uid: (pod ?? secret)?.metadata.uid ?? '' } } : {}),
      },
      status: issued === undefined ? { token: '', expirationTimestamp: null } : { token: issued.token, expirationTimestamp: new Date(issued.expiresAt).toISOString().replace(/\.\d+Z$/, 'Z') },
    },
    media.encoding === 'yaml' ? 'yaml' : 'json',
  );
}
