/**
 * What the pages share: the signed-in client, discovery, live collections (a Reflector per
 * component, stopped when it unmounts — browsers allow only six connections per server over
 * HTTP/1.1, so no page keeps more than three watches open), a ticking clock for ages, and
 * periodic reads of things that cannot be watched (metrics).
 */
import { createContext } from 'preact';
import { useContext, useEffect, useRef, useState } from 'preact/hooks';
import type { ApiClient } from './api/client.js';
import { discover } from './api/discovery.js';
import { Reflector, type Item, type ReflectorOptions } from './api/reflector.js';
import { isTableRow, type ApiResource, type TableColumn } from './api/types.js';

export const ClientContext = createContext<ApiClient | undefined>(undefined);

/** The signed-in user's client (inside the signed-in app only). */
export function useClient(): ApiClient {
  const client = useContext(ClientContext);
  if (client === undefined) throw new Error('useClient outside the signed-in app');
  return client;
}

export interface LiveList<T extends Item> {
  readonly items: readonly T[];
  readonly columns: readonly TableColumn[];
  readonly synced: boolean;
  readonly error: unknown;
  readonly phase: Reflector<T>['phase'];
}

const EMPTY: LiveList<never> = { items: [], columns: [], synced: false, error: undefined, phase: 'listing' };

/**
 * A collection kept live by list and watch; undefined options keep nothing open. Items are in the
 * order `sort` gives (default namespace, then name).
 */
export function useLiveList<T extends Item>(options: ReflectorOptions | undefined, sort: (a: T, b: T) => number = byNamespaceAndName): LiveList<T> {
  const client = useClient();
  const [state, setState] = useState<LiveList<T>>(EMPTY);
  const key = options === undefined ? '' : JSON.stringify(options);
  const sortRef = useRef(sort);
  sortRef.current = sort;
  useEffect(() => {
    setState(EMPTY);
    if (options === undefined) return undefined;
    const reflector: Reflector<T> = new Reflector<T>(client, options, () => {
      const items = [...reflector.items.values()].sort(sortRef.current);
      setState({ items, columns: reflector.columns, synced: reflector.synced, error: reflector.error, phase: reflector.phase });
    });
    reflector.start();
    return () => reflector.stop();
  }, [client, key]); // `key` stands for `options`
  return state;
}

function metaOf(item: Item): { namespace?: string; name?: string } {
  return (isTableRow(item) ? item.object?.metadata : item.metadata) ?? {};
}

export function byNamespaceAndName(a: Item, b: Item): number {
  const ma = metaOf(a);
  const mb = metaOf(b);
  return (ma.namespace ?? '').localeCompare(mb.namespace ?? '') || (ma.name ?? '').localeCompare(mb.name ?? '');
}

let discoveryCache: { at: number; value: Promise<ApiResource[]> } | undefined;

/**
 * The served kinds. Read at most every 10 s (custom resources show up on the next page that asks
 * after their CRD is served); undefined until the first read ends.
 */
export function useDiscovery(): { resources: ApiResource[] | undefined; error: unknown } {
  const client = useClient();
  const [state, setState] = useState<{ resources: ApiResource[] | undefined; error: unknown }>({ resources: undefined, error: undefined });
  useEffect(() => {
    let live = true;
    if (discoveryCache === undefined || Date.now() - discoveryCache.at > 10_000) {
      const value = discover(client);
      discoveryCache = { at: Date.now(), value };
      value.catch(() => {
        if (discoveryCache?.value === value) discoveryCache = undefined;
      });
    }
    discoveryCache.value.then(
      (resources) => live && setState({ resources, error: undefined }),
      (error: unknown) => live && setState({ resources: undefined, error }),
    );
    return () => {
      live = false;
    };
  }, [client]);
  return state;
}

/** Date.now(), updated every `ms` (for ages that grow while the page is open). */
export function useNow(ms = 1000): number {
  const [now, setNow] = useState(Date.now);
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), ms);
    return () => clearInterval(timer);
  }, [ms]);
  return now;
}

/**
 * `read()` now and then every `ms` while mounted (for what has no watch: metrics). Keeps the last
 * `keep` results, newest last, and the last error.
 */
export function usePoll<T>(read: (signal: AbortSignal) => Promise<T>, ms: number, deps: readonly unknown[], keep = 2): { results: readonly { at: number; value: T }[]; error: unknown } {
  const [state, setState] = useState<{ results: { at: number; value: T }[]; error: unknown }>({ results: [], error: undefined });
  const readRef = useRef(read);
  readRef.current = read;
  useEffect(() => {
    const abort = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    setState({ results: [], error: undefined });
    const tick = async () => {
      try {
        const value = await readRef.current(abort.signal);
        const at = Date.now();
        if (!abort.signal.aborted) setState((s) => ({ results: [...s.results, { at, value }].slice(-keep), error: undefined }));
      } catch (error) {
        if (!abort.signal.aborted) setState((s) => ({ ...s, error }));
      }
      if (!abort.signal.aborted) timer = setTimeout(() => void tick(), ms);
    };
    void tick();
    return () => {
      abort.abort();
      if (timer !== undefined) clearTimeout(timer);
    };
  }, deps); // the caller names the deps
  return state;
}
