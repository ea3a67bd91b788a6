/**
 * Registry: the set of kinds the server serves, looked up by URL (group, version, resource) and by
 * kind. Discovery and OpenAPI are generated from it; the REST layer dispatches through it.
 * Kinds can be added and removed at run time (custom resources, later); listeners hear of it.
 */
import { groupVersion, type ResourceDef } from './types.js';

export class Registry {
  private readonly byPath = new Map<string, ResourceDef>();
  private readonly listeners = new Set<() => void>();
  /** What takesProtobuf answers from, made again after a kind is added or removed. */
  private protobufKinds: ReadonlySet<string> | undefined;

  constructor(defs: readonly ResourceDef[] = []) {
    for (const def of defs) this.add(def);
  }

  /** Adds (or replaces) a kind. */
  add(def: ResourceDef): void {
    this.byPath.set(pathKey(def.group, def.version, def.resource), def);
    this.protobufKinds = undefined;
    for (const listener of this.listeners) listener();
  }

  /** Removes a kind; true when it was served. */
  remove(group: string, version: string, resource: string): boolean {
    const removed = this.byPath.delete(pathKey(group, version, resource));
    this.protobufKinds = undefined;
    if (removed) for (const listener of this.listeners) listener();
    return removed;
  }

  /** The kind served at /api(s)/group/version/resource, if any. */
  lookup(group: string, version: string, resource: string): ResourceDef | undefined {
    return this.byPath.get(pathKey(group, version, resource));
  }

  /** The kind with this group, version and Kind name. */
  lookupKind(group: string, version: string, kind: string): ResourceDef | undefined {
    for (const def of this.byPath.values()) {
      if (def.group === group && def.version === version && def.kind === kind) return def;
    }
    return undefined;
  }

  /** Every kind served, in a stable order (group, version, resource). */
  all(): ResourceDef[] {
    return [...this.byPath.values()].sort(
      (a, b) => a.group.localeCompare(b.group) || a.version.localeCompare(b.version) || a.resource.localeCompare(b.resource),
    );
  }

  /** Served group/versions, as { group, versions } in a stable order; the core group is ''. */
  groups(): Array<{ group: string; versions: string[] }> {
    const map = new Map<string, Set<string>>();
    for (const def of this.byPath.values()) {
      let versions = map.get(def.group);
      if (versions === undefined) map.set(def.group, (versions = new Set()));
      versions.add(def.version);
    }
    return [...map.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([group, versions]) => ({ group, versions: [...versions].sort(compareVersions) }));
  }

  /** Kinds of one group/version. */
  inGroupVersion(group: string, version: string): ResourceDef[] {
    return this.all().filter((d) => d.group === group && d.version === version);
  }

  /**
   * Whether some served kind takes `apiVersion` + `kind` in protobuf: a kind or list kind whose
   * ResourceDef says `protobuf`, or the Scale or Binding of one of its subresources. A ProtobufKinds.
   */
  readonly takesProtobuf = (apiVersion: string, kind: string): boolean => {
    this.protobufKinds ??= protobufKindsOf(this.byPath.values());
    return this.protobufKinds.has(`${apiVersion}/${kind}`);
  };

  /** Calls `listener` whenever a kind is added or removed; returns the unsubscribe. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

/** "apiVersion/kind" of every kind `defs` take in protobuf. */
function protobufKindsOf(defs: Iterable<ResourceDef>): Set<string> {
  const out = new Set<string>();
  for (const def of defs) {
    if (def.protobuf !== true) continue;
    const gv = groupVersion(def);
    out.add(`${gv}/${def.kind}`).add(`${gv}/${def.listKind}`);
    if (def.subresources?.scale !== undefined) out.add('autoscaling/v1/Scale');
    if (def.subresources?.binding === true) out.add('v1/Binding');
  }
  return out;
}

function pathKey(group: string, version: string, resource: string): string {
  return `${group}/${version}/${resource}`;
}

/** Kubernetes' version priority: GA before beta before alpha, higher numbers first (v2 > v1 > v1beta1). */
export function compareVersions(a: string, b: string): number {
  const parse = (v: string) => {
    const m = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(v);
    if (!m) return { rank: 3, major: 0, minor: 0, raw: v };
    const rank = m[2] === undefined ? 0 : m[2] === 'beta' ? 1 : 2;
    return { rank, major: Number(m[1]), minor: Number(m[3] ?? 0), raw: v };
  };
  const x = parse(a);
  const y = parse(b);
  return x.rank - y.rank || y.major - x.major || y.minor - x.minor || x.raw.localeCompare(y.raw);
}

export { groupVersion };
