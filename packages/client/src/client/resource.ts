/**
 * ResourceClient: the verbs of one kind (get, list, watch, create, update, patch, delete, ...),
 * sent as kubectl and client-go send them, so it works against any Kubernetes API server.
 */
import { ApiError, type KubeList, type KubeObject, type Status } from '@setpoint/api';
import type { HttpClient } from '../http/httpclient.js';
import type { WatchStream } from '../http/watchstream.js';
import type { ListOptions, ListWatch, ResourceRef, WatchOptions } from '../types.js';
import { listAllPages } from './pager.js';
import { apiVersionOf, resourcePath } from './paths.js';

export interface GetOptions {
  /** Default: the client's namespace (namespaced kinds only). */
  readonly namespace?: string;
  readonly resourceVersion?: string;
  readonly signal?: AbortSignal;
}

export type FieldValidation = 'Strict' | 'Warn' | 'Ignore';

export interface WriteOptions {
  /** Default: obj.metadata.namespace, else the client's namespace (namespaced kinds only). */
  readonly namespace?: string;
  /** Validate and answer without persisting (dryRun=All). */
  readonly dryRun?: boolean;
  readonly fieldManager?: string;
  readonly fieldValidation?: FieldValidation;
  readonly signal?: AbortSignal;
}

export type PatchType = 'merge' | 'json' | 'strategic' | 'apply';

/** The Content-Type each patch type is sent with. */
export const patchContentTypes: Readonly<Record<PatchType, string>> = {
  merge: 'application/merge-patch+json',
  json: 'application/json-patch+json',
  strategic: 'application/strategic-merge-patch+json',
  apply: 'application/apply-patch+yaml',
};

export interface PatchOptions {
  readonly type: PatchType;
  readonly namespace?: string;
  /** "status", "scale", ... */
  readonly subresource?: string;
  /** Required for 'apply'. */
  readonly fieldManager?: string;
  /** Server-side apply: take over conflicting fields ('apply' only). */
  readonly force?: boolean;
  readonly dryRun?: boolean;
  readonly fieldValidation?: FieldValidation;
  readonly signal?: AbortSignal;
}

export interface DeleteObjectOptions {
  readonly namespace?: string;
  readonly propagationPolicy?: 'Orphan' | 'Background' | 'Foreground';
  readonly gracePeriodSeconds?: number;
  readonly preconditions?: { readonly uid?: string; readonly resourceVersion?: string };
  readonly dryRun?: boolean;
  readonly signal?: AbortSignal;
}

export type DeleteCollectionOptions = Omit<ListOptions, 'continue' | 'limit' | 'timeoutSeconds'> & Omit<DeleteObjectOptions, 'namespace' | 'signal' | 'preconditions'>;

/**
 * The client of one kind (`ref`). Implements ListWatch, so an informer can use it.
 *
 * Guarantees: namespaced calls that address an object use the option's namespace, else the
 * object's (create/update), else the client's default namespace; list/watch without a namespace
 * span all namespaces. Objects read by list/listAll get the ref's apiVersion and kind when the
 * server leaves them out (kube-apiserver does, in lists). Writes send apiVersion and kind when the
 * object lacks them.
 *
 * Throws ApiError: what the server answers (404 NotFound, 409 AlreadyExists/Conflict, 422 Invalid,
 * 410 Expired for a watch or continue token that is too old, ...), see HttpClient for transport
 * failures; BadRequest, before sending, for an object without a name where one is needed or an
 * apply patch without fieldManager.
 */
export class ResourceClient<T extends KubeObject = KubeObject> implements ListWatch<T> {
  readonly ref: ResourceRef;
  readonly #http: HttpClient;
  readonly #defaultNamespace: string;
  readonly #apiVersion: string;

  constructor(http: HttpClient, ref: ResourceRef, defaultNamespace = 'default') {
    this.#http = http;
    this.ref = ref;
    this.#defaultNamespace = defaultNamespace;
    this.#apiVersion = apiVersionOf(ref);
  }

  /** The namespace an object call goes to ('' for cluster-scoped kinds). */
  #ns(...candidates: Array<string | undefined>): string {
    if (!this.ref.namespaced) return '';
    return candidates.find((c) => c !== undefined && c !== '') ?? this.#defaultNamespace;
  }

  #path(namespace: string, name?: string, subresource?: string): string {
    if (name !== undefined && name === '') throw ApiError.badRequest('resource name may not be empty');
    return resourcePath(this.ref, { namespace, ...(name === undefined ? {} : { name }), ...(subresource === undefined ? {} : { subresource }) });
  }

  #typed<O extends KubeObject>(obj: O): O {
    if (obj.apiVersion !== undefined && obj.kind !== undefined) return obj;
    return { ...obj, apiVersion: obj.apiVersion ?? this.#apiVersion, kind: obj.kind ?? this.ref.kind };
  }

  #writeQuery(opts: { dryRun?: boolean; fieldManager?: string; fieldValidation?: FieldValidation }): Record<string, string | undefined> {
    return { dryRun: opts.dryRun ? 'All' : undefined, fieldManager: opts.fieldManager, fieldValidation: opts.fieldValidation };
  }

  async get(name: string, options: GetOptions = {}): Promise<T> {
    const res = await this.#http.request<T>({
      method: 'GET',
      path: this.#path(this.#ns(options.namespace), name),
      query: { resourceVersion: options.resourceVersion },
      ...signalOf(options),
    });
    return res.body;
  }

  /** One page of the collection (follow `metadata.continue` for more, or use listAll). */
  async list(options: ListOptions = {}): Promise<KubeList<T>> {
    const res = await this.#http.request<KubeList<T>>({
      method: 'GET',
      path: this.#path(options.namespace ?? ''),
      query: {
        labelSelector: options.labelSelector,
        fieldSelector: options.fieldSelector,
        limit: options.limit,
        continue: options.continue,
        resourceVersion: options.resourceVersion,
        resourceVersionMatch: options.resourceVersionMatch,
        timeoutSeconds: options.timeoutSeconds,
      },
      ...signalOf(options),
    });
    const list = res.body;
    return { ...list, metadata: list.metadata ?? {}, items: (list.items ?? []).map((item) => this.#typed(item)) };
  }

  /**
   * The whole collection, read in pages of `limit` (default 500) following `continue`, as one list
   * whose resourceVersion is that of the snapshot the pages were served from (the first page's).
   * When a continue token expires (410) midway, the collection is read again in one unpaged list,
   * as client-go's pager does.
   */
  async listAll(options: ListOptions = {}): Promise<KubeList<T>> {
    const { items, resourceVersion } = await listAllPages((o) => this.list(o), options, options.limit ?? 500);
    return { apiVersion: this.#apiVersion, kind: `${this.ref.kind}List`, metadata: resourceVersion === undefined ? {} : { resourceVersion }, items };
  }

  /** Changes to the collection; see WatchStream for how the iterator ends and what it throws. */
  watch(options: WatchOptions = {}): WatchStream<T> {
    return this.#http.stream<T>({
      path: this.#path(options.namespace ?? ''),
      query: {
        watch: 'true',
        labelSelector: options.labelSelector,
        fieldSelector: options.fieldSelector,
        resourceVersion: options.resourceVersion,
        resourceVersionMatch: options.resourceVersionMatch,
        allowWatchBookmarks: options.allowWatchBookmarks,
        sendInitialEvents: options.sendInitialEvents,
        timeoutSeconds: options.timeoutSeconds,
      },
      ...signalOf(options),
    });
  }

  async create(obj: T, options: WriteOptions = {}): Promise<T> {
    const res = await this.#http.request<T>({
      method: 'POST',
      path: this.#path(this.#ns(options.namespace, obj.metadata?.namespace)),
      query: this.#writeQuery(options),
      body: this.#typed(obj),
      ...signalOf(options),
    });
    return res.body;
  }

  /**
   * POSTs `body` to a subresource of the object `name` (pods/binding, pods/eviction) and returns
   * the server's answer (often a Status).
   */
  async createSubresource<R = unknown>(name: string, subresource: string, body: unknown, options: WriteOptions = {}): Promise<R> {
    if (name === '') throw ApiError.badRequest('resource name may not be empty');
    const res = await this.#http.request<R>({
      method: 'POST',
      path: this.#path(this.#ns(options.namespace), name, subresource),
      query: this.#writeQuery(options),
      body,
      ...signalOf(options),
    });
    return res.body;
  }

  /** Replaces the object named by obj.metadata.name (optimistic concurrency on its resourceVersion). */
  async update(obj: T, options: WriteOptions = {}): Promise<T> {
    return this.#put(obj, options, undefined);
  }

  /** Replaces the status of the object (the status subresource). */
  async updateStatus(obj: T, options: WriteOptions = {}): Promise<T> {
    return this.#put(obj, options, 'status');
  }

  async #put(obj: T, options: WriteOptions, subresource: string | undefined): Promise<T> {
    const name = obj.metadata?.name;
    if (name === undefined || name === '') throw ApiError.badRequest('resource name may not be empty');
    const res = await this.#http.request<T>({
      method: 'PUT',
      path: this.#path(this.#ns(options.namespace, obj.metadata.namespace), name, subresource),
      query: this.#writeQuery(options),
      body: this.#typed(obj),
      ...signalOf(options),
    });
    return res.body;
  }

  /**
   * Patches the object. `patch` is sent as JSON (a string as is): an object for merge, strategic
   * and apply (apiVersion and kind are added to an apply patch that lacks them), an operation list
   * for json. Apply needs `fieldManager`; `force` is sent only for apply.
   */
  async patch(name: string, patch: unknown, options: PatchOptions): Promise<T> {
    if (options.type === 'apply' && (options.fieldManager === undefined || options.fieldManager === '')) {
      throw ApiError.badRequest('fieldManager is required for apply patches');
    }
    let body = patch;
    if (options.type === 'apply' && typeof patch === 'object' && patch !== null && !Array.isArray(patch)) body = this.#typed(patch as KubeObject);
    const res = await this.#http.request<T>({
      method: 'PATCH',
      path: this.#path(this.#ns(options.namespace), name, options.subresource),
      query: { ...this.#writeQuery(options), force: options.type === 'apply' && options.force !== undefined ? options.force : undefined },
      body: typeof body === 'string' ? body : JSON.stringify(body),
      contentType: patchContentTypes[options.type],
      ...signalOf(options),
    });
    return res.body;
  }

  /**
   * Deletes the object. Resolves with what the server answers: the object (still there with a
   * deletionTimestamp while finalizers or a grace period hold it, or as it was) or a Status.
   */
  async delete(name: string, options: DeleteObjectOptions = {}): Promise<T | Status> {
    const res = await this.#http.request<T | Status>({
      method: 'DELETE',
      path: this.#path(this.#ns(options.namespace), name),
      ...deleteBody(options),
      ...signalOf(options),
    });
    return res.body;
  }

  /** Deletes every object the selectors match (in one namespace, or all). Resolves with the server's answer. */
  async deleteCollection(options: DeleteCollectionOptions = {}): Promise<KubeList<T> | Status> {
    const res = await this.#http.request<KubeList<T> | Status>({
      method: 'DELETE',
      path: this.#path(options.namespace ?? ''),
      query: {
        labelSelector: options.labelSelector,
        fieldSelector: options.fieldSelector,
        resourceVersion: options.resourceVersion,
        resourceVersionMatch: options.resourceVersionMatch,
      },
      ...deleteBody(options),
      ...signalOf(options),
    });
    return res.body;
  }
}

function signalOf(options: { readonly signal?: AbortSignal }): { signal?: AbortSignal } {
  return options.signal === undefined ? {} : { signal: options.signal };
}

/** A DeleteOptions body when any option asks for one (kubectl sends one; none is fine too). */
function deleteBody(options: Omit<DeleteObjectOptions, 'namespace' | 'signal'>): { body?: object } {
  const body: Record<string, unknown> = {};
  if (options.propagationPolicy !== undefined) body.propagationPolicy = options.propagationPolicy;
  if (options.gracePeriodSeconds !== undefined) body.gracePeriodSeconds = options.gracePeriodSeconds;
  if (options.preconditions !== undefined) body.preconditions = options.preconditions;
  if (options.dryRun) body.dryRun = ['All'];
  return Object.keys(body).length === 0 ? {} : { body: { kind: 'DeleteOptions', apiVersion: 'v1', ...body } };
}
