/**
 * The kinds a server serves, read from discovery as client-go's ServerPreferredResources reads
 * them: for every group, each resource once, taken from the group's preferred version when it
 * serves it, else from the first version that does. Subresources ("pods/status") are left out.
 *
 * Used by the garbage collector (kinds it can list, watch and delete) and by the namespace
 * controller (namespaced kinds it can delete).
 */
import { ApiError } from '@setpoint/api';
import type { ApiGroup, ApiResource, ResourceRef } from '@setpoint/client';

/** A served kind and the verbs discovery lists for it. */
export interface DiscoveredResource extends ResourceRef {
  readonly verbs: readonly string[];
}

/** What one discovery pass found. */
export interface DiscoveryResult {
  readonly resources: readonly DiscoveredResource[];
  /** Group versions whose resource list could not be read ("apps/v1" → the error). */
  readonly failedGroupVersions: ReadonlyMap<string, Error>;
  /** Group version strings that do not parse ("a/b/c"), as `unexpected GroupVersion string: …` errors. */
  readonly invalidGroupVersions: readonly Error[];
}

/** What readPreferredResources needs of a discovery client (client.discovery satisfies it). */
export interface DiscoverySource {
  groups(): Promise<ApiGroup[]>;
  resources(groupVersion: string): Promise<ApiResource[]>;
  /** Forgets cached documents, so the next read is fresh. */
  invalidate(): void;
}

/**
 * Reads discovery afresh (the source's cache is invalidated first) and returns every served
 * top-level resource. A group version whose list fails is reported in `failedGroupVersions` and
 * the others are still returned.
 *
 * Throws what `groups()` throws (the server's group list itself could not be read).
 */
export async function readPreferredResources(source: DiscoverySource): Promise<DiscoveryResult> {
  source.invalidate();
  const groups = await source.groups();
  const failedGroupVersions = new Map<string, Error>();
  const invalidGroupVersions: Error[] = [];
  const resources: DiscoveredResource[] = [];
  const lists = groups.flatMap((group) => orderedVersions(group).map((gv) => ({ group, gv })));
  const fetched = await Promise.all(
    lists.map(async ({ group, gv }) => {
      try {
        return { group, gv, list: await source.resources(gv) };
      } catch (err) {
        failedGroupVersions.set(gv, err instanceof Error ? err : new Error(String(err)));
        return { group, gv, list: [] as ApiResource[] };
      }
    }),
  );
  const seen = new Set<string>();
  for (const { group, gv, list } of fetched) {
    const parsed = parseGroupVersion(gv);
    if (parsed === undefined) {
      invalidGroupVersions.push(new ApiError('BadRequest', `unexpected GroupVersion string: ${gv}`));
      continue;
    }
    for (const r of list) {
      if (r.name.includes('/')) continue;
      const key = `${group.name}/${r.name}`;
      if (seen.has(key)) continue;
      seen.add(key);
      resources.push({ group: parsed.group, version: parsed.version, resource: r.name, kind: r.kind, namespaced: r.namespaced, verbs: [...r.verbs] });
    }
  }
  return { resources, failedGroupVersions, invalidGroupVersions };
}

/** A group's versions, the preferred one first, then the others in the server's order. */
function orderedVersions(group: ApiGroup): string[] {
  const preferred = group.preferredVersion?.groupVersion;
  const all = group.versions.map((v) => v.groupVersion);
  return preferred === undefined ? all : [preferred, ...all.filter((gv) => gv !== preferred)];
}

/** apimachinery's ParseGroupVersion: "v1" → core, "apps/v1" → apps; more than one slash is invalid. */
export function parseGroupVersion(gv: string): { group: string; version: string } | undefined {
  const parts = gv.split('/');
  if (parts.length === 1) return { group: '', version: gv };
  if (parts.length === 2) return { group: parts[0] ?? '', version: parts[1] ?? '' };
  return undefined;
}

/** Whether discovery lists every one of `verbs` for the resource. */
export function supportsVerbs(resource: Pick<DiscoveredResource, 'verbs'>, ...verbs: string[]): boolean {
  return verbs.every((v) => resource.verbs.includes(v));
}

/** "configmaps", "deployments.apps": the group-qualified resource. */
export function groupResource(ref: Pick<ResourceRef, 'group' | 'resource'>): string {
  return ref.group === '' ? ref.resource : `${ref.resource}.${ref.group}`;
}
