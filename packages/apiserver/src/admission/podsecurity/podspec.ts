/**
 * Reading a pod's (or a pod template's) metadata and spec for the Pod Security checks. The objects
 * come from requests and the store, so nothing here trusts a field's type: a field of the wrong
 * type reads as absent, the way the checks treat an unset field.
 */

export type Json = Record<string, unknown>;

/** What the checks look at: the pod's metadata (annotations) and spec. */
export interface PodLike {
  readonly metadata: Json;
  readonly spec: Json;
}

/** A container of any kind (init, regular, ephemeral), with its securityContext when it has one. */
export interface ContainerView {
  readonly name: string;
  readonly securityContext: Json | undefined;
  readonly raw: Json;
}

export function record(v: unknown): Json | undefined {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : undefined;
}

export function list(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

export function text(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

/** The string-valued annotations of `metadata`. */
export function annotations(metadata: Json): Map<string, string> {
  const out = new Map<string, string>();
  const a = record(metadata['annotations']);
  if (a) for (const [k, v] of Object.entries(a)) if (typeof v === 'string') out.set(k, v);
  return out;
}

/** initContainers, containers, then ephemeralContainers, as Kubernetes visits them. */
export function containers(spec: Json): ContainerView[] {
  const out: ContainerView[] = [];
  for (const field of ['initContainers', 'containers', 'ephemeralContainers']) {
    for (const c of list(spec[field])) {
      const raw = record(c);
      if (raw === undefined) continue;
      out.push({ name: text(raw['name']), securityContext: record(raw['securityContext']), raw });
    }
  }
  return out;
}

/** spec.securityContext, when it is an object. */
export function podSecurityContext(spec: Json): Json | undefined {
  return record(spec['securityContext']);
}

/** Whether the pod says it runs on Windows (spec.os.name). */
export function isWindows(spec: Json): boolean {
  return record(spec['os'])?.['name'] === 'windows';
}

/** Go's pluralize helper: `singular` for one, `plural` otherwise. */
export function pluralize(singular: string, plural: string, n: number): string {
  return n === 1 ? singular : plural;
}

/** Each value quoted (Go's %q) and joined with ", ". */
export function joinQuote(values: readonly string[]): string {
  return values.map((v) => JSON.stringify(v)).join(', ');
}

/** The distinct values, sorted (Go's sets.String.List()). */
export function sortedSet(values: Iterable<string>): string[] {
  return [...new Set(values)].sort();
}

/** `container "a"` / `containers "a", "b"`. */
export function containersPhrase(names: readonly string[]): string {
  return `${pluralize('container', 'containers', names.length)} ${joinQuote(names)}`;
}
