/**
 * Discovery: which group versions and resources the API server serves, read from the legacy
 * discovery documents every Kubernetes API server answers (/version, /api, /apis, /api/v1,
 * /apis/{group}/{version}) and cached, as client-go's memory-cached discovery client does.
 */
import { ApiError, isApiError } from '@setpoint/api';
import type { HttpClient } from '../http/httpclient.js';
import type { ResourceRef } from '../types.js';
import { groupVersionPath, parseApiVersion } from './paths.js';

/** /version (version.Info). */
export interface ServerVersion {
  readonly major: string;
  readonly minor: string;
  readonly gitVersion: string;
  readonly gitCommit?: string;
  readonly buildDate?: string;
  readonly goVersion?: string;
  readonly platform?: string;
  readonly [field: string]: unknown;
}

export interface GroupVersionForDiscovery {
  readonly groupVersion: string;
  readonly version: string;
}

/** An API group (APIGroup); the core group is named ''. */
export interface ApiGroup {
  readonly name: string;
  readonly versions: readonly GroupVersionForDiscovery[];
  readonly preferredVersion?: GroupVersionForDiscovery;
}

/** One entry of an APIResourceList; subresources appear as "pods/status". */
export interface ApiResource {
  readonly name: string;
  readonly singularName?: string;
  readonly namespaced: boolean;
  readonly kind: string;
  readonly verbs: readonly string[];
  readonly group?: string;
  readonly version?: string;
  readonly shortNames?: readonly string[];
  readonly categories?: readonly string[];
}

/**
 * A cached view of the server's discovery documents.
 *
 * Guarantees: groups() and resources(gv) each fetch once and then answer from the cache until
 * invalidate(); concurrent callers share one fetch, and a failed fetch is not cached.
 * resolve() re-reads discovery once when a kind is not found, so kinds added since (new CRDs)
 * are found without a restart, as kubectl does. serverVersion() is not cached.
 *
 * Throws ApiError: what the server answers (resources() of a group version that is not served:
 * 404 NotFound); resolve(): NotFound `no matches for kind "K" in version "G/V"`.
 */
export class Discovery {
  readonly #http: HttpClient;
  #groups: Promise<ApiGroup[]> | undefined;
  readonly #resources = new Map<string, Promise<ApiResource[]>>();

  constructor(http: HttpClient) {
    this.#http = http;
  }

  async serverVersion(options: { signal?: AbortSignal } = {}): Promise<ServerVersion> {
    return (await this.#http.request<ServerVersion>({ method: 'GET', path: '/version', ...options })).body;
  }

  /** The served groups, the core group ('') first, then /apis's groups in the server's order. */
  groups(): Promise<ApiGroup[]> {
    if (this.#groups !== undefined) return this.#groups;
    const fetching = (async () => {
      const core = (await this.#http.request<{ versions?: string[] }>({ method: 'GET', path: '/api' })).body;
      const apis = (await this.#http.request<{ groups?: ApiGroup[] }>({ method: 'GET', path: '/apis' })).body;
      const coreVersions = (core.versions ?? []).map((v) => ({ groupVersion: v, version: v }));
      const coreGroup: ApiGroup = { name: '', versions: coreVersions, ...(coreVersions[0] === undefined ? {} : { preferredVersion: coreVersions[0] }) };
      return [...(coreVersions.length > 0 ? [coreGroup] : []), ...(apis.groups ?? [])];
    })();
    this.#groups = fetching;
    fetching.catch(() => {
      if (this.#groups === fetching) this.#groups = undefined;
    });
    return fetching;
  }

  /** The resources (and subresources) of one group version, e.g. "v1" or "apps/v1". */
  resources(groupVersion: string): Promise<ApiResource[]> {
    const cached = this.#resources.get(groupVersion);
    if (cached !== undefined) return cached;
    const { group, version } = parseApiVersion(groupVersion);
    const fetching = (async () => {
      const res = await this.#http.request<{ resources?: ApiResource[] }>({ method: 'GET', path: groupVersionPath(group, version) });
      return res.body.resources ?? [];
    })();
    this.#resources.set(groupVersion, fetching);
    fetching.catch(() => {
      if (this.#resources.get(groupVersion) === fetching) this.#resources.delete(groupVersion);
    });
    return fetching;
  }

  /** Forgets everything cached; the next call reads discovery again. */
  invalidate(): void {
    this.#groups = undefined;
    this.#resources.clear();
  }

  /** The ResourceRef of `kind` in `apiVersion` ("apps/v1", "Deployment"), re-reading discovery once on a miss. */
  async resolve(apiVersion: string, kind: string): Promise<ResourceRef> {
    let found = await this.#find(apiVersion, kind);
    if (found === undefined) {
      this.invalidate();
      found = await this.#find(apiVersion, kind);
    }
    if (found === undefined) throw new ApiError('NotFound', `no matches for kind "${kind}" in version "${apiVersion}"`);
    const { group, version } = parseApiVersion(apiVersion);
    return { group, version, resource: found.name, kind, namespaced: found.namespaced };
  }

  async #find(apiVersion: string, kind: string): Promise<ApiResource | undefined> {
    let list: ApiResource[];
    try {
      list = await this.resources(apiVersion);
    } catch (err) {
      if (isApiError(err, 'NotFound')) return undefined;
      throw err;
    }
    return list.find((r) => r.kind === kind && !r.name.includes('/'));
  }
}
