/**
 * The resource API: reads a request (RequestInfo, query, body), calls the kind's storage, and
 * answers as kube-apiserver answers — codes, bodies, Warning headers.
 */
import { ApiError, FieldError, OMIT_VALUE, type DeleteOptions, type KubeObject } from '@setpoint/api';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AdmissionRequest } from '../admission/chain.js';
import { decodeBody } from '../http/body.js';
import { validateListOptions } from '../http/listoptions.js';
import type { ResourceRequestInfo } from '../http/requestinfo.js';
import { checkListOptions, checkResourceVersion, queryBool, queryInt64, type Query } from '../http/queryparams.js';
import { PROTOBUF_WATCH_CONTENT_TYPE, type ProtobufKinds, watchEventFrame } from '../http/protobuf/index.js';
import { negotiateMedia, negotiateOutput, send, type OutputMedia } from '../http/respond.js';
import type { ResourceDef } from '../registry/types.js';
import { managerOf, validateFieldManager } from '../storage/managedfields.js';
import { patchTypeOf, acceptedPatchTypes } from '../storage/patch.js';
import { parseResourceVersion, type FieldValidation, type ResourceStorage, type WriteOptions } from '../storage/rest.js';
import { scaleOf } from '../storage/subresources.js';
import { listAsTable, objectAsTable, tableRequest, watchAsTables } from '../tables/index.js';
import { parseFilter } from '../watchcache/filter.js';
import { streamWatch } from './watch.js';

export interface ResourceContext {
  readonly storage: ResourceStorage;
  readonly stopping: AbortSignal;
  readonly onWatchLine?: () => void;
  readonly onWatchStart?: () => () => void;
  /** The request as the admission chain sees it (see WriteOptions.request), for writes. */
  readonly request?: AdmissionRequest;
  /** A watch without timeoutSeconds lasts between this and twice this (--min-request-timeout). Default 1800. */
  readonly minRequestTimeoutSeconds?: number;
  /** The kinds request bodies may carry in protobuf (Registry.takesProtobuf). Default: any with a message. */
  readonly protobufKinds?: ProtobufKinds;
}

/** The longest watch timeout served: what a Node timer can wait. */
const MAX_WATCH_TIMEOUT_SECONDS = Math.floor(0x7fffffff / 1000);

/** The first value of a query parameter. */
function q(query: Query, name: string): string | undefined {
  const v = query[name];
  return Array.isArray(v) ? v[0] : v;
}

/** The options kind a verb's query parameters decode into (named in its 422 Invalid answers). */
type OptionsKind = 'CreateOptions' | 'UpdateOptions' | 'PatchOptions' | 'DeleteOptions';

/**
 * dryRun and fieldValidation, validated as Kubernetes validates its CreateOptions, UpdateOptions,
 * PatchOptions and DeleteOptions: a bad value is a 422 Invalid on `<Kind>.meta.k8s.io ""`
 * (fieldValidation is case-sensitive, as in Kubernetes: `strict` is refused).
 */
function writeOptions(query: Query, warnings: string[], kind: OptionsKind, bodyDryRun?: unknown, writer: { userAgent?: string | undefined; errors?: FieldError[]; request?: AdmissionRequest | undefined } = {}): WriteOptions {
  const dryRun = query.dryRun;
  const values: unknown[] = dryRun === undefined ? [] : Array.isArray(dryRun) ? dryRun : [dryRun];
  // DeleteOptions may carry dryRun in the body (client-go, kubectl delete --dry-run=server).
  if (bodyDryRun !== undefined && bodyDryRun !== null) values.push(...(Array.isArray(bodyDryRun) ? (bodyDryRun as unknown[]) : [bodyDryRun]));
  // The patch-specific errors first, then fieldManager, dryRun and fieldValidation, in Kubernetes' order.
  const errs: FieldError[] = [...(writer.errors ?? [])];
  const manager = kind === 'DeleteOptions' ? undefined : q(query, 'fieldManager');
  if (manager !== undefined) errs.push(...validateFieldManager(manager));
  if (values.some((v) => v !== 'All')) {
    const rendered = `[]string{${values.map((v) => JSON.stringify(v)).join(', ')}}`;
    errs.push(new FieldError('FieldValueNotSupported', 'dryRun', OMIT_VALUE, `${rendered}: supported values: "All"`));
  }
  const fv = q(query, 'fieldValidation');
  let fieldValidation: FieldValidation | undefined;
  if (fv !== undefined && fv !== '') {
    if (fv === 'Strict' || fv === 'Warn' || fv === 'Ignore') fieldValidation = fv;
    else errs.push(FieldError.notSupported('fieldValidation', fv, ['', 'Ignore', 'Strict', 'Warn']));
  }
  if (errs.length > 0) throw ApiError.invalid({ group: 'meta.k8s.io', kind }, '', errs);
  const fieldManager = kind === 'DeleteOptions' ? undefined : managerOf(manager, writer.userAgent);
  return { dryRun: values.length > 0, warnings, ...(fieldValidation ? { fieldValidation } : {}), ...(fieldManager ? { fieldManager } : {}), ...(writer.request ? { request: writer.request } : {}) };
}

/**
 * Kubernetes' ValidatePatchOptions checks beyond the common ones: `force` only with apply, and
 * apply only with a fieldManager (controllers must name themselves).
 */
function patchOptionErrors(query: Query, apply: boolean): FieldError[] {
  if (!apply) return q(query, 'force') === undefined ? [] : [FieldError.forbidden('force', 'may not be specified for non-apply patch')];
  const manager = q(query, 'fieldManager');
  return manager === undefined || manager === '' ? [FieldError.required('fieldManager', 'is required for apply patch')] : [];
}

function deleteOptions(body: unknown, query: Query): DeleteOptions {
  const options: DeleteOptions = body !== undefined && typeof body === 'object' && body !== null ? { ...(body as DeleteOptions) } : {};
  if (body !== undefined && (typeof body !== 'object' || body === null || Array.isArray(body))) throw ApiError.badRequest('DeleteOptions must be a JSON object');
  const grace = queryInt64(query, 'gracePeriodSeconds');
  if (grace !== undefined) options.gracePeriodSeconds = grace;
  const policy = q(query, 'propagationPolicy');
  if (policy !== undefined) options.propagationPolicy = policy as DeleteOptions['propagationPolicy'];
  const orphan = q(query, 'orphanDependents');
  if (orphan !== undefined) options.orphanDependents = queryBool(orphan);
  return options;
}

/** Answers one resource request. */
export async function handleResource(req: FastifyRequest, reply: FastifyReply, info: ResourceRequestInfo, ctx: ResourceContext): Promise<unknown> {
  const { storage } = ctx;
  const def = storage.def;
  const query = req.query as Query;
  // Built-in kinds answer in protobuf to clients that list it first.
  const protobuf = def.protobuf === true;
  // A watch streams JSON lines whatever else Accept says (never a 406), or protobuf frames; it
  // honours a request for Tables.
  const watchMedia = info.verb === 'watch' ? negotiateOutput(req.headers.accept, { protobuf }) : undefined;
  const media: OutputMedia =
    info.verb === 'watch' ? { ...watchMedia, encoding: watchMedia?.encoding === 'protobuf' ? 'protobuf' : 'json' } : negotiateMedia(req.headers.accept, { protobuf });
  const encoding = media.encoding;
  const tableVersion = info.verb === 'get' || info.verb === 'list' || info.verb === 'watch' ? media.table : undefined;
  const asTable = tableVersion !== undefined ? tableRequest(def, info.subresource, tableVersion, q(query, 'includeObject')) : undefined;
  const warnings: string[] = [];
  // Answers after a commit too: send never throws (http/respond.ts), so a write it reports is never answered as failed.
  const finish = (code: number, body: unknown) => send(reply, code, body, encoding, warnings);
  if (!def.namespaced && info.namespace !== '') throw notFoundPath();
  if (def.namespaced && info.name !== '' && info.namespace === '') throw notFoundPath();
  const sub = info.subresource;
  // PUT and PATCH name an object; on a collection there is no such route in Kubernetes.
  if ((info.verb === 'update' || info.verb === 'patch') && info.name === '') throw new ApiError('MethodNotAllowed', 'the server does not allow this method on the requested resource', { details: {} });
  checkSubresource(def, info);

  switch (info.verb) {
    case 'get': {
      checkResourceVersion(q(query, 'resourceVersion'));
      const obj = await storage.get(info.namespace, info.name);
      const body = sub === 'scale' ? scaleOf(obj, def.subresources!.scale!) : obj;
      return finish(200, asTable ? objectAsTable(asTable, body, storage.clock.now()) : body);
    }
    case 'list': {
      const filter = parseFilter(def, info.namespace, q(query, 'labelSelector'), q(query, 'fieldSelector'));
      const rv = q(query, 'resourceVersion');
      const rvMatch = q(query, 'resourceVersionMatch');
      checkListOptions(query);
      // Kubernetes pages only with a positive limit.
      const given = queryInt64(query, 'limit');
      const limit = given !== undefined && given > 0 ? given : undefined;
      const cont = q(query, 'continue');
      validateListOptions({ watch: false, resourceVersion: rv, resourceVersionMatch: rvMatch, continue: cont, sendInitialEvents: q(query, 'sendInitialEvents') });
      const list = await storage.list(info.namespace, {
        filter,
        ...(rv !== undefined ? { resourceVersion: rv } : {}),
        ...(rvMatch !== undefined ? { resourceVersionMatch: rvMatch } : {}),
        ...(limit !== undefined ? { limit } : {}),
        ...(cont !== undefined ? { continue: cont } : {}),
      });
      return finish(200, asTable ? listAsTable(asTable, list, storage.clock.now()) : list);
    }
    case 'watch': {
      let fieldSelector = q(query, 'fieldSelector');
      if (info.name !== '') fieldSelector = fieldSelector ? `${fieldSelector},metadata.name=${info.name}` : `metadata.name=${info.name}`;
      const filter = parseFilter(def, info.namespace, q(query, 'labelSelector'), fieldSelector);
      const rv = q(query, 'resourceVersion');
      const sendInitialEvents = q(query, 'sendInitialEvents');
      checkListOptions(query);
      validateListOptions({ watch: true, resourceVersion: rv, resourceVersionMatch: q(query, 'resourceVersionMatch'), continue: q(query, 'continue'), sendInitialEvents });
      // At most what a timer can wait (about 24 days); beyond it Node would fire at once.
      const askedTimeout = queryInt64(query, 'timeoutSeconds');
      const timeoutSeconds = askedTimeout === undefined ? undefined : Math.min(askedTimeout, MAX_WATCH_TIMEOUT_SECONDS);
      let from = rv === undefined || rv === '' ? undefined : parseResourceVersion(rv);
      if (sendInitialEvents !== undefined && !queryBool(sendInitialEvents) && (from === undefined || from === 0)) {
        // sendInitialEvents=false: no synthetic ADDEDs; start at the most recent (unset) or any ("0") resourceVersion.
        from = from === undefined ? await storage.store.currentRevision() : storage.cache.rv;
      }
      const queue = await storage.cache.watch({
        resourceVersion: from,
        filter,
        sendInitialEvents: queryBool(sendInitialEvents),
        bookmarks: queryBool(q(query, 'allowWatchBookmarks')),
      });
      const done = ctx.onWatchStart?.();
      try {
        await streamWatch(req, reply, queue, {
          stopping: ctx.stopping,
          clock: storage.clock,
          ...(timeoutSeconds !== undefined && timeoutSeconds > 0 ? { timeoutSeconds } : {}),
          ...(ctx.minRequestTimeoutSeconds !== undefined ? { minTimeoutSeconds: ctx.minRequestTimeoutSeconds } : {}),
          ...(ctx.onWatchLine ? { onLine: ctx.onWatchLine } : {}),
          ...(asTable ? { encode: watchAsTables(asTable, () => storage.clock.now()) } : {}),
          ...(encoding === 'protobuf' ? { frames: { contentType: PROTOBUF_WATCH_CONTENT_TYPE, frame: watchEventFrame } } : {}),
        });
      } finally {
        done?.();
      }
      return reply;
    }
    case 'create': {
      const body = decodeBody(req.body as Buffer | undefined, req.headers['content-type'], ctx.protobufKinds);
      const options = writeOptions(query, warnings, 'CreateOptions', undefined, { userAgent: req.headers['user-agent'], request: ctx.request });
      if (sub === 'binding') return finish(201, await storage.bind(info.namespace, info.name, body, options));
      if (info.name !== '') throw ApiError.methodNotAllowed('create', storage.gr);
      if (body === undefined) throw ApiError.badRequest('the request body is empty');
      return finish(201, await storage.create(info.namespace, body as KubeObject, options));
    }
    case 'update': {
      const body = decodeBody(req.body as Buffer | undefined, req.headers['content-type'], ctx.protobufKinds);
      if (body === undefined) throw ApiError.badRequest('the request body is empty');
      const options = writeOptions(query, warnings, 'UpdateOptions', undefined, { userAgent: req.headers['user-agent'], request: ctx.request });
      if (sub === 'scale') return finish(200, await storage.updateScale(info.namespace, info.name, { body }, options));
      const subresource = sub || undefined;
      return finish(200, await storage.update(info.namespace, info.name, body as KubeObject, { ...options, ...(subresource ? { subresource } : {}) }));
    }
    case 'patch': {
      const type = patchTypeOf(req.headers['content-type']);
      if (type === undefined) throw ApiError.unsupportedMediaType(acceptedPatchTypes(true));
      const patch = decodeBody(req.body as Buffer | undefined, req.headers['content-type'], ctx.protobufKinds);
      if (patch === undefined) throw ApiError.badRequest('the request body is empty');
      const options = writeOptions(query, warnings, 'PatchOptions', undefined, { userAgent: req.headers['user-agent'], errors: patchOptionErrors(query, type === 'apply'), request: ctx.request });
      if (sub === 'scale') return finish(200, await storage.updateScale(info.namespace, info.name, { patchType: type, patch }, options));
      if (type === 'apply') {
        const force = queryBool(q(query, 'force'));
        const applied = await storage.apply(info.namespace, info.name, patch, { ...options, force, ...(sub ? { subresource: sub } : {}) });
        return finish(applied.created ? 201 : 200, applied.object);
      }
      return finish(200, await storage.patch(info.namespace, info.name, type, patch, { ...options, ...(sub ? { subresource: sub } : {}) }));
    }
    case 'delete': {
      const body = decodeBody(req.body as Buffer | undefined, req.headers['content-type'], ctx.protobufKinds);
      const opts = deleteOptions(body, query);
      const options = writeOptions(query, warnings, 'DeleteOptions', opts.dryRun);
      const outcome = await storage.delete(info.namespace, info.name, opts, options.dryRun);
      if (!outcome.removed || def.deletion === 'graceful') return finish(200, outcome.object);
      return finish(200, {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Success',
        details: { name: info.name, group: def.group, kind: def.resource, uid: outcome.object.metadata.uid },
      });
    }
    case 'deletecollection': {
      checkListOptions(query);
      const body = decodeBody(req.body as Buffer | undefined, req.headers['content-type'], ctx.protobufKinds);
      const opts = deleteOptions(body, query);
      const options = writeOptions(query, warnings, 'DeleteOptions', opts.dryRun);
      const filter = parseFilter(def, info.namespace, q(query, 'labelSelector'), q(query, 'fieldSelector'));
      const list = await storage.list(info.namespace, { filter });
      const deleted: KubeObject[] = [];
      for (const item of list.items) {
        try {
          const outcome = await storage.delete(item.metadata.namespace ?? '', item.metadata.name!, opts, options.dryRun);
          deleted.push(outcome.object);
        } catch (err) {
          if (err instanceof ApiError && err.reason === 'NotFound') continue;
          throw err;
        }
      }
      return finish(200, storage.listOf(deleted, list.metadata.resourceVersion ?? ''));
    }
  }
}

/** Refuses subresources the kind does not serve, and verbs a subresource does not take. */
function checkSubresource(def: ResourceDef, info: ResourceRequestInfo): void {
  const sub = info.subresource;
  if (sub === '') return;
  const allowed: Record<string, readonly string[]> = {};
  if (def.subresources?.status) allowed.status = ['get', 'update', 'patch'];
  if (def.subresources?.scale) allowed.scale = ['get', 'update', 'patch'];
  if (def.subresources?.binding) allowed.binding = ['create'];
  for (const [name, declared] of Object.entries(def.subresources?.more ?? {})) if (declared.merge !== undefined) allowed[name] = declared.verbs;
  const verbs = allowed[sub];
  if (verbs === undefined) throw notFoundPath();
  if (!verbs.includes(info.verb)) throw ApiError.methodNotAllowed(info.verb, { group: def.group, resource: `${def.resource}/${sub}` });
}

/** Kubernetes' answer for a path that names nothing it serves. */
export function notFoundPath(): ApiError {
  return new ApiError('NotFound', 'the server could not find the requested resource', { details: {} });
}
