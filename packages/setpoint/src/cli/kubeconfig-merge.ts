/**
 * Merging Setpoint's admin kubeconfig into another kubeconfig (~/.kube/config) as one named
 * context, the way `kubectl config set-cluster/set-credentials/set-context` would: the cluster, the
 * user and the context are added under their new names (replacing entries of exactly those names,
 * from an earlier merge), every other entry and top-level field is kept, and current-context is set
 * only when the file had none or the caller asks.
 */
import { parse, stringify } from 'yaml';

type Mapping = Record<string, unknown>;

function isMapping(value: unknown): value is Mapping {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export interface MergeOptions {
  /** The context's name; the cluster gets it too, the user `NAME-admin`. */
  readonly name: string;
  /** Make the context current even when the file has a current context. */
  readonly useContext: boolean;
}

export interface MergeResult {
  readonly text: string;
  /** Whether entries of these names existed and were replaced. */
  readonly replaced: boolean;
  /** The current context after the merge. */
  readonly currentContext: string;
}

function entries(doc: Mapping, key: string, file: string): Mapping[] {
  const list = doc[key];
  if (list === undefined || list === null) return [];
  if (!Array.isArray(list) || !list.every(isMapping)) throw new Error(`${file}: ${key} must be a list of mappings`);
  return list;
}

/** The first entry's body of a section of Setpoint's kubeconfig (`cluster`, `user`, `context`). */
function only(doc: Mapping, key: string, body: string, file: string): Mapping {
  const first = entries(doc, key, file)[0]?.[body];
  if (!isMapping(first)) throw new Error(`${file}: ${key}[0].${body} is missing`);
  return first;
}

/**
 * The text of `target` (a kubeconfig's text, or undefined for a new file) with `source`'s cluster,
 * user and context merged in under `options.name`. Throws Error naming the file for YAML or shape
 * errors in either.
 */
export function mergeKubeconfig(source: string, sourceFile: string, target: string | undefined, targetFile: string, options: MergeOptions): MergeResult {
  const from = parse(source) as unknown;
  if (!isMapping(from)) throw new Error(`${sourceFile}: not a kubeconfig`);
  let into: unknown;
  try {
    into = target === undefined || target.trim() === '' ? {} : parse(target);
  } catch (err) {
    throw new Error(`${targetFile}: invalid YAML: ${((err as Error).message.split('\n')[0] ?? '').trim()}`, { cause: err });
  }
  if (into === null || into === undefined) into = {};
  if (!isMapping(into)) throw new Error(`${targetFile}: not a kubeconfig (a mapping with clusters, users and contexts)`);
  const cluster = only(from, 'clusters', 'cluster', sourceFile);
  const user = only(from, 'users', 'user', sourceFile);
  const context = only(from, 'contexts', 'context', sourceFile);
  const names = { cluster: options.name, user: `${options.name}-admin`, context: options.name };
  let replaced = false;
  const put = (key: string, name: string, body: string, value: Mapping) => {
    const list = entries(into as Mapping, key, targetFile);
    const kept = list.filter((e) => e['name'] !== name);
    if (kept.length !== list.length) replaced = true;
    (into as Mapping)[key] = [...kept, { name, [body]: value }];
  };
  put('clusters', names.cluster, 'cluster', cluster);
  put('users', names.user, 'user', user);
  const { cluster: _c, user: _u, ...rest } = context;
  put('contexts', names.context, 'context', { ...rest, cluster: names.cluster, user: names.user });
  into['apiVersion'] ??= 'v1';
  into['kind'] ??= 'Config';
  const current = into['current-context'];
  if (options.useContext || typeof current !== 'string' || current === '') into['current-context'] = names.context;
  return { text: stringify(into, { lineWidth: 0 }), replaced, currentContext: String(into['current-context']) };
}
