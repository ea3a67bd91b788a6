/**
 * Resource types as people type them, resolved through discovery as kubectl resolves them: the
 * plural ("deployments"), the singular ("deployment"), a short name ("deploy"), the kind
 * ("Deployment"), each optionally group-qualified ("deployments.apps", "deployments.v1.apps"), or a
 * category ("all"); and the argument forms of get/describe/delete/wait (TYPE NAME…, TYPE/NAME…).
 */
import type { ApiResource, Discovery, ResourceRef } from '@setpoint/client';
import { parseApiVersion } from '@setpoint/client';
import { CliError } from './io.js';

/** A resource type the server serves. */
export interface ResolvedType {
  readonly ref: ResourceRef;
  readonly verbs: readonly string[];
  readonly shortNames: readonly string[];
  readonly categories: readonly string[];
  readonly singular: string;
}

/** "deployment.apps", "pod": how kubectl names an object's type in `-o name` and messages. */
export function typeName(type: Pick<ResolvedType, 'ref'>): string {
  const kind = type.ref.kind.toLowerCase();
  return type.ref.group === '' ? kind : `${kind}.${type.ref.group}`;
}

/** "deployments.apps", "pods": the group-qualified resource, as the server's messages name it. */
export function qualifiedResource(type: Pick<ResolvedType, 'ref'>): string {
  return type.ref.group === '' ? type.ref.resource : `${type.ref.resource}.${type.ref.group}`;
}

const VERSION = /^v\d+((alpha|beta)\d+)?$/;

/**
 * Resolves type names against a Discovery (cached: build one per command). A miss re-reads
 * discovery once, so types added since (new CRDs) are found.
 */
export class TypeResolver {
  readonly #discovery: Discovery;
  #all: Promise<ResolvedType[]> | undefined;

  constructor(discovery: Discovery) {
    this.#discovery = discovery;
  }

  /** Every served type, preferred versions first, core group first; subresources left out. */
  all(): Promise<ResolvedType[]> {
    this.#all ??= (async () => {
      const groups = await this.#discovery.groups();
      const versions = groups.flatMap((g) => {
        const preferred = g.preferredVersion?.groupVersion;
        const ordered = [...g.versions].sort((a, b) => Number(b.groupVersion === preferred) - Number(a.groupVersion === preferred));
        return ordered.map((v) => v.groupVersion);
      });
      // A group version that fails to answer (an aggregated API that is down) hides only its own
      // types, as kubectl goes on with the rest; a type of it is then reported as not served.
      const lists = await Promise.all(versions.map(async (gv) => ({ gv, resources: await this.#discovery.resources(gv).catch(() => [] as ApiResource[]) })));
      return lists.flatMap(({ gv, resources }) => {
        const { group, version } = parseApiVersion(gv);
        return resources.filter((r) => !r.name.includes('/')).map((r) => toType(group, version, r));
      });
    })();
    this.#all.catch(() => (this.#all = undefined));
    return this.#all;
  }

  /** One type; throws CliError `the server doesn't have a resource type "X"`. */
  async resolve(text: string): Promise<ResolvedType> {
    const types = await this.resolveMany(text);
    if (types.length !== 1) throw new CliError(`"${text}" names ${types.length} resource types; name one`);
    return types[0]!;
  }

  /** Comma-separated types and categories ("deployments,pods", "all"), in the order given. */
  async resolveMany(text: string): Promise<ResolvedType[]> {
    const out: ResolvedType[] = [];
    for (const part of text.split(',')) {
      if (part === '') continue;
      let found = match(await this.all(), part);
      if (found.length === 0) {
        this.#discovery.invalidate();
        this.#all = undefined;
        found = match(await this.all(), part);
      }
      if (found.length === 0) throw new CliError(`the server doesn't have a resource type "${part}"`);
      for (const t of found) if (!out.some((o) => sameType(o, t))) out.push(t);
    }
    return out;
  }

  /** The type of objects with this apiVersion and kind (manifests). Throws CliError when not served. */
  async forKind(apiVersion: string, kind: string): Promise<ResolvedType> {
    const { group, version } = parseApiVersion(apiVersion);
    const find = (all: ResolvedType[]) => all.find((t) => t.ref.group === group && t.ref.version === version && t.ref.kind === kind);
    let found = find(await this.all());
    if (found === undefined) {
      this.#discovery.invalidate();
      this.#all = undefined;
      found = find(await this.all());
    }
    if (found === undefined) throw new CliError(`no matches for kind "${kind}" in version "${apiVersion}"`);
    return found;
  }
}

function toType(group: string, version: string, r: ApiResource): ResolvedType {
  return {
    ref: { group, version, resource: r.name, kind: r.kind, namespaced: r.namespaced },
    verbs: r.verbs ?? [],
    shortNames: r.shortNames ?? [],
    categories: r.categories ?? [],
    singular: r.singularName !== undefined && r.singularName !== '' ? r.singularName : r.kind.toLowerCase(),
  };
}

function sameType(a: ResolvedType, b: ResolvedType): boolean {
  return a.ref.group === b.ref.group && a.ref.resource === b.ref.resource;
}

/** The types `text` names: the best tier of matches (name or singular, then short name, then kind), else a category. */
function match(all: readonly ResolvedType[], text: string): ResolvedType[] {
  const lower = text.toLowerCase();
  const candidates: Array<{ name: string; group?: string; version?: string }> = [{ name: lower }];
  const dot = lower.indexOf('.');
  if (dot > 0) {
    const name = lower.slice(0, dot);
    const rest = lower.slice(dot + 1);
    const next = rest.indexOf('.');
    const first = next === -1 ? rest : rest.slice(0, next);
    if (VERSION.test(first)) candidates.push({ name, version: first, group: next === -1 ? '' : rest.slice(next + 1) });
    candidates.push({ name, group: rest });
  }
  for (const c of candidates) {
    const scoped = all.filter((t) => (c.group === undefined || t.ref.group === c.group) && (c.version === undefined || t.ref.version === c.version));
    const tiers: Array<(t: ResolvedType) => boolean> = [
      (t) => t.ref.resource === c.name || t.singular === c.name,
      (t) => t.shortNames.includes(c.name),
      (t) => t.ref.kind.toLowerCase() === c.name,
    ];
    for (const tier of tiers) {
      const hit = scoped.find(tier);
      if (hit !== undefined) return [hit];
    }
  }
  // A category ("all") expands to every type in it, once per group-resource.
  const members: ResolvedType[] = [];
  for (const t of all) if (t.categories.includes(lower) && !members.some((m) => sameType(m, t))) members.push(t);
  return members;
}

/** What the positional arguments of get/describe/delete/wait name. */
export type ObjectArgs =
  /** TYPE[,TYPE…] [NAME…]: every object of the types (no names), or the named ones. */
  | { readonly form: 'types'; readonly types: string; readonly names: readonly string[] }
  /** TYPE/NAME…: one object each. */
  | { readonly form: 'pairs'; readonly pairs: ReadonlyArray<{ readonly type: string; readonly name: string }> };

/**
 * Parses TYPE[,TYPE…] [NAME…] or TYPE/NAME…. Throws CliError for no arguments, a mix of the two
 * forms, or an empty type or name.
 */
export function parseObjectArgs(args: readonly string[], verb: string): ObjectArgs {
  if (args.length === 0) throw new CliError(`you must specify the type of resource to ${verb} (e.g. setpoint ${verb} pods)`);
  if (args.some((a) => a.includes('/'))) {
    const pairs = args.map((arg) => {
      const slash = arg.indexOf('/');
      if (slash === -1) throw new CliError(`there is no need to specify a resource type as a separate argument when passing arguments in resource/name form (e.g. 'setpoint ${verb} resource/<resource_name>' instead of 'setpoint ${verb} resource resource/<resource_name>')`);
      const type = arg.slice(0, slash);
      const name = arg.slice(slash + 1);
      if (type === '' || name === '' || name.includes('/')) throw new CliError(`arguments in resource/name form must have a single resource and name, not "${arg}"`);
      return { type, name };
    });
    return { form: 'pairs', pairs };
  }
  const [types, ...names] = args;
  if (names.some((n) => n === '')) throw new CliError('resource names may not be empty');
  return { form: 'types', types: types!, names };
}
