/**
 * Discovery: every kind the server serves (built-in and custom), at its group's preferred version,
 * read from /api/v1 and /apis like kubectl does. Subresources (`pods/status`) are left out.
 */
import type { ApiClient } from './client.js';
import type { ApiResource } from './types.js';

interface ResourceList {
  groupVersion: string;
  resources: { name: string; kind: string; namespaced: boolean; verbs: string[]; shortNames?: string[] }[];
}

interface GroupList {
  groups: { name: string; preferredVersion?: { version: string }; versions: { version: string }[] }[];
}

/** The served kinds, sorted by group ('' first) then kind. */
export async function discover(client: ApiClient, signal?: AbortSignal): Promise<ApiResource[]> {
  const opts = signal === undefined ? {} : { signal };
  const [core, groups] = await Promise.all([client.json<ResourceList>('/api/v1', opts), client.json<GroupList>('/apis', opts)]);
  const lists = await Promise.all(
    groups.groups.map(async (g) => {
      const version = g.preferredVersion?.version ?? g.versions[0]?.version;
      if (version === undefined) return undefined;
      try {
        return await client.json<ResourceList>(`/apis/${g.name}/${version}`, opts);
      } catch {
        return undefined; // a group that went away between the two reads
      }
    }),
  );
  const out: ApiResource[] = [];
  for (const list of [core, ...lists]) {
    if (list === undefined) continue;
    const slash = list.groupVersion.indexOf('/');
    const group = slash < 0 ? '' : list.groupVersion.slice(0, slash);
    const version = slash < 0 ? list.groupVersion : list.groupVersion.slice(slash + 1);
    for (const r of list.resources) {
      if (r.name.includes('/')) continue;
      out.push({ group, version, resource: r.name, kind: r.kind, namespaced: r.namespaced, verbs: r.verbs, ...(r.shortNames ? { shortNames: r.shortNames } : {}) });
    }
  }
  return out.sort((a, b) => (a.group === b.group ? a.kind.localeCompare(b.kind) : a.group === '' ? -1 : b.group === '' ? 1 : a.group.localeCompare(b.group)));
}

/** Whether a resource can be listed and watched (what the browser needs). */
export function browsable(r: ApiResource): boolean {
  return r.verbs.includes('list') && r.verbs.includes('watch');
}

/** The resource serving `kind` of `apiVersion` (group/version), if discovery knows it. */
export function resourceForKind(resources: readonly ApiResource[], apiVersion: string, kind: string): ApiResource | undefined {
  const slash = apiVersion.indexOf('/');
  const group = slash < 0 ? '' : apiVersion.slice(0, slash);
  const version = slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
  const sameKind = resources.filter((r) => r.group === group && r.kind === kind);
  const exact = sameKind.find((r) => r.version === version);
  return exact ?? (sameKind[0] === undefined ? undefined : { ...sameKind[0], version });
}

/** "deployments.apps", or "pods" for the core group. */
export function qualifiedName(r: Pick<ApiResource, 'group' | 'resource'>): string {
  return r.group === '' ? r.resource : `${r.resource}.${r.group}`;
}
