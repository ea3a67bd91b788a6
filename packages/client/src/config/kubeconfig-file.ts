/**
 * Reading kubeconfig files and merging several of them the way kubectl merges the files of
 * KUBECONFIG: for clusters, users and contexts the first file that defines a name wins and
 * entries are never merged field by field; current-context comes from the first file that sets it.
 * Every entry remembers the file it came from, so relative paths resolve against that file's
 * directory and errors name it.
 */
import { readFile } from 'node:fs/promises';
import { parse } from 'yaml';
import { ConfigError } from './errors.js';

/** A JSON/YAML mapping as parsed. */
export type Mapping = Readonly<Record<string, unknown>>;

/** One named entry (a cluster, user or context) and where it was defined. */
export interface KubeconfigEntry {
  readonly name: string;
  /** The entry's body: the value under `cluster`, `user` or `context`. */
  readonly body: Mapping;
  /** The kubeconfig file that defined it (absolute or as given). */
  readonly file: string;
  /** The field path of the body, for error messages: `clusters["prod"].cluster`. */
  readonly field: string;
}

/** A kubeconfig after merging: named entries, and the current context with the file that set it. */
export interface MergedKubeconfig {
  /** The files read, in precedence order (skipped missing ones excluded). */
  readonly files: readonly string[];
  readonly clusters: ReadonlyMap<string, KubeconfigEntry>;
  readonly users: ReadonlyMap<string, KubeconfigEntry>;
  readonly contexts: ReadonlyMap<string, KubeconfigEntry>;
  readonly currentContext: { readonly name: string; readonly file: string } | undefined;
}

type Section = 'clusters' | 'users' | 'contexts';
const bodyKey: Record<Section, string> = { clusters: 'cluster', users: 'user', contexts: 'context' };

export function isMapping(value: unknown): value is Mapping {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The text of a file, or undefined when it does not exist. Other read errors throw ConfigError. */
async function readIfExists(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new ConfigError(`cannot read the kubeconfig: ${(err as Error).message}`, { file, cause: err });
  }
}

/** Parses one kubeconfig text; throws ConfigError naming `file` for bad YAML or a bad shape. */
export function parseKubeconfig(text: string, file: string): Omit<MergedKubeconfig, 'files'> {
  let doc: unknown;
  try {
    doc = parse(text, { prettyErrors: false });
  } catch (err) {
    const first = ((err as Error).message.split('\n')[0] ?? '').trim();
    throw new ConfigError(`invalid YAML: ${first}`, { file, cause: err });
  }
  if (doc === null || doc === undefined) doc = {};
  if (!isMapping(doc)) throw new ConfigError('a kubeconfig must be a mapping (apiVersion: v1, kind: Config)', { file });
  const current = doc['current-context'];
  if (current !== undefined && current !== null && typeof current !== 'string') {
    throw new ConfigError('must be a string', { file, field: 'current-context' });
  }
  return {
    clusters: section(doc, 'clusters', file),
    users: section(doc, 'users', file),
    contexts: section(doc, 'contexts', file),
    currentContext: typeof current === 'string' && current !== '' ? { name: current, file } : undefined,
  };
}

function section(doc: Mapping, key: Section, file: string): Map<string, KubeconfigEntry> {
  const out = new Map<string, KubeconfigEntry>();
  const list = doc[key];
  if (list === undefined || list === null) return out;
  if (!Array.isArray(list)) throw new ConfigError('must be a list', { file, field: key });
  list.forEach((item: unknown, i) => {
    if (!isMapping(item)) throw new ConfigError('must be a mapping with name and ' + bodyKey[key], { file, field: `${key}[${i}]` });
    const name = item.name;
    if (typeof name !== 'string' || name === '') throw new ConfigError('a non-empty name is required', { file, field: `${key}[${i}].name` });
    const field = `${key}["${name}"].${bodyKey[key]}`;
    const body = item[bodyKey[key]] ?? {};
    if (!isMapping(body)) throw new ConfigError('must be a mapping', { file, field });
    // Within one file the first definition wins too (client-go keeps the first of duplicates).
    if (!out.has(name)) out.set(name, { name, body, file, field });
  });
  return out;
}

/**
 * Reads and merges kubeconfig files in precedence order. Missing files are skipped when
 * `skipMissing` (as KUBECONFIG's list is read); otherwise a missing file throws ConfigError.
 * Throws ConfigError too for unreadable files, invalid YAML or a malformed structure.
 */
export async function readKubeconfigs(files: readonly string[], skipMissing: boolean): Promise<MergedKubeconfig> {
  const read: string[] = [];
  const clusters = new Map<string, KubeconfigEntry>();
  const users = new Map<string, KubeconfigEntry>();
  const contexts = new Map<string, KubeconfigEntry>();
  let currentContext: MergedKubeconfig['currentContext'];
  for (const file of files) {
    const text = await readIfExists(file);
    if (text === undefined) {
      if (skipMissing) continue;
      throw new ConfigError('the kubeconfig file does not exist', { file });
    }
    read.push(file);
    const doc = parseKubeconfig(text, file);
    for (const [target, source] of [
      [clusters, doc.clusters],
      [users, doc.users],
      [contexts, doc.contexts],
    ] as const) {
      for (const [name, entry] of source) if (!target.has(name)) (target as Map<string, KubeconfigEntry>).set(name, entry);
    }
    currentContext ??= doc.currentContext;
  }
  return { files: read, clusters, users, contexts, currentContext };
}
