/**
 * ApiClient: every call the dashboard makes to the API server, with the signed-in user's bearer
 * token. Same origin as the app, so no CORS and no cookies: the token travels only in the
 * Authorization header.
 *
 * Guarantees: a non-2xx answer becomes an ApiStatusError carrying the server's Status (a Status is
 * made up for answers that are not one); a 401 also calls `onUnauthorized` (the session ended).
 */
import type { ApiResource, Status } from './types.js';

/** Accept header for Tables (as kubectl sends it), with plain JSON as the fallback. */
export const TABLE_ACCEPT = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json';

/** The field manager of every apply the dashboard sends. */
export const FIELD_MANAGER = 'setpoint-dashboard';

export class ApiStatusError extends Error {
  override readonly name = 'ApiStatusError';
  constructor(
    readonly code: number,
    readonly status: Status,
  ) {
    super(status.message ?? `the server answered ${code}`);
  }

  get reason(): string | undefined {
    return this.status.reason;
  }
}

export interface RequestOptions {
  readonly method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  readonly body?: string;
  readonly contentType?: string;
  readonly accept?: string;
  readonly signal?: AbortSignal;
}

export class ApiClient {
  /** `base`: the server's origin; '' (the default) for the origin that served the app. */
  constructor(
    readonly token: string,
    private readonly onUnauthorized: () => void = () => {},
    readonly base = '',
  ) {}

  /** The response of a request that answered 2xx; throws ApiStatusError otherwise. */
  async open(path: string, options: RequestOptions = {}): Promise<Response> {
    const headers: Record<string, string> = { authorization: `Bearer ${this.token}`, accept: options.accept ?? 'application/json' };
    if (options.contentType !== undefined) headers['content-type'] = options.contentType;
    const res = await fetch(this.base + path, {
      method: options.method ?? 'GET',
      headers,
      ...(options.body !== undefined ? { body: options.body } : {}),
      ...(options.signal !== undefined ? { signal: options.signal } : {}),
      credentials: 'omit',
    });
    if (res.ok) return res;
    const status = await statusOf(res);
    if (res.status === 401) this.onUnauthorized();
    throw new ApiStatusError(res.status, status);
  }

  /** The JSON body of a request. */
  async json<T>(path: string, options: RequestOptions = {}): Promise<T> {
    const res = await this.open(path, options);
    return (await res.json()) as T;
  }

  /** The text body of a request. */
  async text(path: string, options: RequestOptions = {}): Promise<string> {
    const res = await this.open(path, { accept: 'text/plain,*/*', ...options });
    return res.text();
  }
}

async function statusOf(res: Response): Promise<Status> {
  const text = await res.text().catch(() => '');
  try {
    const parsed = JSON.parse(text) as Status;
    if (parsed.kind === 'Status') return parsed;
  } catch {
    // not JSON: described below
  }
  return { kind: 'Status', status: 'Failure', code: res.status, message: text.trim() || `the server answered ${res.status} ${res.statusText}` };
}

/** The path of a resource's collection, in `namespace` when given and the resource is namespaced. */
export function collectionPath(r: Pick<ApiResource, 'group' | 'version' | 'resource' | 'namespaced'>, namespace?: string): string {
  const base = r.group === '' ? `/api/${r.version}` : `/apis/${r.group}/${r.version}`;
  const ns = r.namespaced && namespace ? `/namespaces/${encodeURIComponent(namespace)}` : '';
  return `${base}${ns}/${r.resource}`;
}

/** The path of one object. */
export function objectPath(r: Pick<ApiResource, 'group' | 'version' | 'resource' | 'namespaced'>, namespace: string | undefined, name: string): string {
  return `${collectionPath(r, namespace)}/${encodeURIComponent(name)}`;
}

/** A query string from the defined values of `params` ('' when none). */
export function query(params: Record<string, string | number | boolean | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== '') q.set(k, String(v));
  const text = q.toString();
  return text === '' ? '' : `?${text}`;
}

/** A one-line description of any error. */
export function errorText(err: unknown): string {
  if (err instanceof ApiStatusError) return err.message;
  if (err instanceof Error) return err.message;
  return String(err);
}
