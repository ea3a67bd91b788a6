/**
 * Hash routes (`#/path?query`): the server serves one index.html and never sees the route, so a
 * sign-in code in `#/login?code=…` never reaches a server log or a Referer header.
 *
 *   #/                                        overview
 *   #/login[?code=C]                          sign in
 *   #/resources                               the served kinds
 *   #/r/GROUP/VERSION/RESOURCE?ns=N&l=SEL     a list (GROUP "core" for the legacy group)
 *   #/o/GROUP/VERSION/RESOURCE/NS/NAME        an object (NS "-" for cluster-scoped objects)
 *   #/controllers                             controllers, their metrics and leader leases
 */
import { useEffect, useState } from 'preact/hooks';
import type { ApiResource } from './api/types.js';

export interface Route {
  readonly segments: readonly string[];
  readonly query: URLSearchParams;
}

export function currentRoute(): Route {
  const hash = location.hash.replace(/^#/, '') || '/';
  const q = hash.indexOf('?');
  const path = q < 0 ? hash : hash.slice(0, q);
  return {
    segments: path
      .split('/')
      .filter((s) => s !== '')
      .map((s) => safeDecode(s)),
    query: new URLSearchParams(q < 0 ? '' : hash.slice(q + 1)),
  };
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** The current route, re-rendering on every change of location.hash. */
export function useRoute(): Route {
  const [route, setRoute] = useState(currentRoute);
  useEffect(() => {
    const update = () => setRoute(currentRoute());
    window.addEventListener('hashchange', update);
    return () => window.removeEventListener('hashchange', update);
  }, []);
  return route;
}

/** Goes to `href` ("#/…"); `replace` keeps it out of the history (e.g. after consuming a sign-in code). */
export function navigate(href: string, replace = false): void {
  if (replace) {
    history.replaceState(null, '', href);
    window.dispatchEvent(new HashChangeEvent('hashchange'));
  } else {
    location.hash = href.replace(/^#/, '');
  }
}

const groupSegment = (group: string) => (group === '' ? 'core' : group);

/** The href of a resource's list. */
export function listHref(r: Pick<ApiResource, 'group' | 'version' | 'resource'>, params: { ns?: string; l?: string } = {}): string {
  const q = new URLSearchParams();
  if (params.ns) q.set('ns', params.ns);
  if (params.l) q.set('l', params.l);
  const text = q.toString();
  return `#/r/${groupSegment(r.group)}/${r.version}/${r.resource}${text ? `?${text}` : ''}`;
}

/** The href of an object's page. */
export function objectHref(r: Pick<ApiResource, 'group' | 'version' | 'resource'>, namespace: string | undefined, name: string): string {
  return `#/o/${groupSegment(r.group)}/${r.version}/${r.resource}/${namespace ? encodeURIComponent(namespace) : '-'}/${encodeURIComponent(name)}`;
}

/** group, version and resource of a list or object route. */
export function routeResource(route: Route): { group: string; version: string; resource: string } | undefined {
  const [, group, version, resource] = route.segments;
  if (group === undefined || version === undefined || resource === undefined) return undefined;
  return { group: group === 'core' ? '' : group, version, resource };
}
