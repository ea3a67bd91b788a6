/**
 * Discovery documents, as kubectl and client-go read them: /api (APIVersions), /apis
 * (APIGroupList), /apis/{group} (APIGroup) and /api/v1, /apis/{group}/{version} (APIResourceList,
 * subresources listed as "pods/status" entries). Built from the registry on every request, so
 * kinds added at run time appear at once.
 */
import { compareVersions, type Registry } from '../registry/registry.js';
import { groupVersion, type ResourceDef } from '../registry/types.js';

const allVerbs = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

export function apiVersions(serverAddress: string): object {
  return { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }] };
}

function groupEntry(group: string, versions: string[]): object {
  const sorted = [...versions].sort(compareVersions);
  const entries = sorted.map((version) => ({ groupVersion: `${group}/${version}`, version }));
  return { name: group, versions: entries, preferredVersion: entries[0] };
}

export function apiGroupList(registry: Registry): object {
  const groups = registry
    .groups()
    .filter((g) => g.group !== '')
    .map((g) => groupEntry(g.group, g.versions));
  return { kind: 'APIGroupList', apiVersion: 'v1', groups };
}

/** The APIGroup of /apis/{group}, or undefined when the group is not served. */
export function apiGroup(registry: Registry, group: string): object | undefined {
  const found = registry.groups().find((g) => g.group === group);
  if (found === undefined || group === '') return undefined;
  return { kind: 'APIGroup', apiVersion: 'v1', ...groupEntry(group, found.versions) };
}

/** The APIResourceList of one group/version, or undefined when it is not served. */
export function apiResourceList(registry: Registry, group: string, version: string): object | undefined {
  const defs = registry.inGroupVersion(group, version);
  if (defs.length === 0) return undefined;
  return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: groupVersion({ group, version }), resources: defs.flatMap(resourceEntries) };
}

function resourceEntries(def: ResourceDef): object[] {
  const main: Record<string, unknown> = {
    name: def.resource,
    singularName: def.singular,
    namespaced: def.namespaced,
    kind: def.kind,
    verbs: def.verbs ?? (def.createOnly === true ? ['create'] : allVerbs),
  };
  if (def.shortNames && def.shortNames.length > 0) main.shortNames = def.shortNames;
  if (def.categories && def.categories.length > 0) main.categories = def.categories;
  const out: object[] = [main];
  const sub = def.subresources;
  if (sub?.status) out.push({ name: `${def.resource}/status`, singularName: '', namespaced: def.namespaced, kind: def.kind, verbs: ['get', 'patch', 'update'] });
  if (sub?.scale) {
    out.push({ name: `${def.resource}/scale`, singularName: '', namespaced: def.namespaced, group: 'autoscaling', version: 'v1', kind: 'Scale', verbs: ['get', 'patch', 'update'] });
  }
  if (sub?.binding) out.push({ name: `${def.resource}/binding`, singularName: '', namespaced: def.namespaced, kind: 'Binding', verbs: ['create'] });
  for (const [name, more] of Object.entries(sub?.more ?? {})) {
    out.push({ name: `${def.resource}/${name}`, singularName: '', namespaced: def.namespaced, ...(more.group === undefined ? {} : { group: more.group, version: more.version }), kind: more.kind ?? def.kind, verbs: more.verbs });
  }
  return out;
}
