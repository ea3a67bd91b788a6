/**
 * For tests only: a ListWatch over plain fetch, enough to run informers against an in-process
 * control plane (plain HTTP, no authentication) until the real HTTP client takes over. Not part of
 * the public API.
 *
 * Guarantees: non-2xx answers and watch ERROR events throw ApiError (from the Status body);
 * aborting the signal ends a watch without an error; a watch's lines are parsed as they arrive.
 */
import { ApiError, type KubeList, type KubeObject, type Status } from '@setpoint/api';
import type { ListOptions, ListWatch, ResourceRef, WatchEvent, WatchOptions } from '../types.js';

/** The collection URL of `ref` in `namespace` ('' = all namespaces). */
export function collectionUrl(server: string, ref: ResourceRef, namespace = ''): string {
  const base = ref.group === '' ? `/api/${ref.version}` : `/apis/${ref.group}/${ref.version}`;
  const ns = ref.namespaced && namespace !== '' ? `/namespaces/${encodeURIComponent(namespace)}` : '';
  return `${server.replace(/\/$/, '')}${base}${ns}/${ref.resource}`;
}

/** Throws the ApiError a failed response carries. */
export async function throwForStatus(res: Response): Promise<never> {
  const text = await res.text();
  let status: Partial<Status> | undefined;
  try {
    status = JSON.parse(text) as Partial<Status>;
  } catch {
    status = { message: text === '' ? `HTTP ${res.status}` : text };
  }
  throw ApiError.fromStatus(status, res.status);
}

type Query = Record<string, string | number | boolean | undefined>;

function withQuery(url: string, query: Query): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== '') params.set(k, String(v));
  const qs = params.toString();
  return qs === '' ? url : `${url}?${qs}`;
}

/** A ListWatch of `ref` on `server` (e.g. a test control plane's cp.url). */
export function fetchListWatch<T extends KubeObject = KubeObject>(server: string, ref: ResourceRef): ListWatch<T> {
  return {
    async list(options: ListOptions): Promise<KubeList<T>> {
      const url = withQuery(collectionUrl(server, ref, options.namespace), {
        labelSelector: options.labelSelector,
        fieldSelector: options.fieldSelector,
        limit: options.limit,
        continue: options.continue,
        resourceVersion: options.resourceVersion,
        resourceVersionMatch: options.resourceVersionMatch,
        timeoutSeconds: options.timeoutSeconds,
      });
      const res = await fetch(url, { headers: { accept: 'application/json' }, ...(options.signal ? { signal: options.signal } : {}) });
      if (!res.ok) return throwForStatus(res);
      return (await res.json()) as KubeList<T>;
    },
    watch(options: WatchOptions): AsyncIterable<WatchEvent<T>> {
      const url = withQuery(collectionUrl(server, ref, options.namespace), {
        watch: 'true',
        labelSelector: options.labelSelector,
        fieldSelector: options.fieldSelector,
        resourceVersion: options.resourceVersion,
        resourceVersionMatch: options.resourceVersionMatch,
        allowWatchBookmarks: options.allowWatchBookmarks,
        sendInitialEvents: options.sendInitialEvents,
        timeoutSeconds: options.timeoutSeconds,
      });
      return streamWatch<T>(url, options.signal);
    },
  };
}

async function* streamWatch<T extends KubeObject>(url: string, signal: AbortSignal | undefined): AsyncGenerator<WatchEvent<T>> {
  const abort = new AbortController();
  const combined = signal ? AbortSignal.any([signal, abort.signal]) : abort.signal;
  try {
    let res: Response;
    try {
      res = await fetch(url, { headers: { accept: 'application/json' }, signal: combined });
    } catch (err) {
      if (combined.aborted) return;
      throw err;
    }
    if (!res.ok) return await throwForStatus(res);
    if (res.body === null) return;
    const decoder = new TextDecoder();
    let buffered = '';
    const reader = res.body.getReader();
    for (;;) {
      let chunk: Awaited<ReturnType<typeof reader.read>>;
      try {
        chunk = await reader.read();
      } catch (err) {
        if (combined.aborted) return;
        throw err;
      }
      if (chunk.done) break;
      buffered += decoder.decode(chunk.value, { stream: true });
      let nl: number;
      while ((nl = buffered.indexOf('\n')) >= 0) {
        const line = buffered.slice(0, nl).trim();
        buffered = buffered.slice(nl + 1);
        if (line === '') continue;
        const event = JSON.parse(line) as { type: string; object: unknown };
        if (event.type === 'ERROR') throw ApiError.fromStatus(event.object as Partial<Status>);
        yield event as WatchEvent<T>;
      }
    }
  } finally {
    abort.abort();
  }
}
