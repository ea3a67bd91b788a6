/**
 * Reading manifests for `apply -f` and `delete -f`: files, directories (their .yaml, .yml and .json
 * files in name order; with `recursive`, their subdirectories too) and standard input ("-"), each
 * one or more YAML documents (or JSON), a `kind: List` expanded into its items.
 *
 * YAML is read as kubectl reads it where it matters (`0644` is an octal number, `<<` merges), see
 * MANIFEST_YAML. Everything is read and checked before anything is sent, so a typo
 * in one file never leaves the others half-applied: every problem is reported, and none applied.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { parseAllDocuments, type DocumentOptions, type ParseOptions, type ScalarTag, type SchemaOptions, type ToJSOptions } from 'yaml';
import type { KubeObject } from '@setpoint/api';
import type { CliIO } from './io.js';

/** One object from a manifest, and where it came from. */
export interface Manifest {
  /** The file as the user named it (a directory's files joined to it), or "<stdin>". */
  readonly source: string;
  /** The document's position in its file, from 1. */
  readonly document: number;
  readonly object: KubeObject;
}

export interface ManifestRead {
  readonly manifests: readonly Manifest[];
  /** One line per problem (`FILE: document N: why`); when any, nothing should be sent. */
  readonly problems: readonly string[];
}

const EXTENSIONS = new Set(['.yaml', '.yml', '.json']);

/** YAML 1.1's octal integers (`defaultMode: 0644` is 420), which manifests written for kubectl rely on. */
const OCTAL_INT: ScalarTag = {
  identify: (value) => typeof value === 'number',
  default: true,
  tag: 'tag:yaml.org,2002:int',
  format: 'OCT',
  test: /^0[0-7]+$/,
  resolve: (text) => parseInt(text, 8),
};

/**
 * How manifests are parsed: YAML 1.2 with merge keys (`<<`) and YAML 1.1's octal integers, as
 * kubectl reads them. Unlike kubectl's YAML 1.1 reader, `yes`/`no`/`on`/`off` stay strings and a
 * key `y` or `n` stays a key (kubectl turns them into booleans); timestamps stay strings.
 */
export const MANIFEST_YAML: ParseOptions & DocumentOptions & SchemaOptions & ToJSOptions = {
  merge: true,
  customTags: (tags) => [OCTAL_INT, ...tags],
  prettyErrors: false,
};

function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

async function readStdin(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}

/** The files `path` names: itself, or a directory's manifest files (sorted; recursively when asked). */
async function filesOf(path: string, recursive: boolean): Promise<string[]> {
  const info = await stat(path);
  if (!info.isDirectory()) return [path];
  const entries = (await readdir(path, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const out: string[] = [];
  for (const entry of entries) {
    const full = join(path, entry.name);
    if (entry.isDirectory()) {
      if (recursive) out.push(...(await filesOf(full, true)));
    } else if (EXTENSIONS.has(extname(entry.name).toLowerCase())) {
      out.push(full);
    }
  }
  return out;
}

/** The objects of one file's text; problems are pushed, never thrown. */
export function parseManifests(text: string, source: string, problems: string[]): Manifest[] {
  const out: Manifest[] = [];
  const docs = parseAllDocuments(text, MANIFEST_YAML);
  const list = Array.isArray(docs) ? docs : [];
  list.forEach((doc, i) => {
    const document = i + 1;
    const where = list.length > 1 ? `${source}: document ${document}` : source;
    const error = doc.errors[0];
    if (error !== undefined) {
      const offset = error.pos[0];
      const line = text.slice(0, offset).split('\n').length;
      const what = (error.message.split('\n')[0] ?? '').replace(/ at line \d+, column \d+:?$/, '');
      problems.push(`${source}: line ${line}: invalid YAML: ${what}`);
      return;
    }
    const value: unknown = doc.toJS(MANIFEST_YAML);
    if (value === null || value === undefined) return;
    for (const object of expandList(value, where, problems)) out.push({ source, document, object });
  });
  return out;
}

/** A List's items (checked each), or the object itself when it is one (checked). */
function expandList(value: unknown, where: string, problems: string[]): KubeObject[] {
  if (isMapping(value) && typeof value['kind'] === 'string' && value['kind'].endsWith('List') && Array.isArray(value['items'])) {
    const items: KubeObject[] = [];
    value['items'].forEach((item, i) => {
      const problem = checkObject(item);
      if (problem === undefined) items.push(item as KubeObject);
      else problems.push(`${where}: items[${i}]: ${problem}`);
    });
    return items;
  }
  const problem = checkObject(value);
  if (problem !== undefined) {
    problems.push(`${where}: ${problem}`);
    return [];
  }
  return [value as KubeObject];
}

/** Why `value` cannot be sent as an object, or undefined. */
function checkObject(value: unknown): string | undefined {
  if (!isMapping(value)) return 'not an object (a mapping with apiVersion, kind and metadata)';
  const kind = typeof value['kind'] === 'string' && value['kind'] !== '' ? value['kind'] : undefined;
  if (typeof value['apiVersion'] !== 'string' || value['apiVersion'] === '') return `${kind ?? 'object'}: apiVersion is required`;
  if (kind === undefined) return 'kind is required';
  const metadata = value['metadata'];
  const name = isMapping(metadata) ? metadata['name'] : undefined;
  if (typeof name !== 'string' || name === '') return `${kind}: metadata.name is required`;
  if (isMapping(metadata) && metadata['namespace'] !== undefined && typeof metadata['namespace'] !== 'string') return `${kind} "${name}": metadata.namespace must be a string`;
  return undefined;
}

/**
 * Reads every path ("-" is standard input, read once) and parses its documents. Unreadable paths,
 * invalid YAML and objects without apiVersion, kind or metadata.name are problems; an input with
 * no objects at all is one too ("no objects passed to VERB").
 */
export async function readManifests(paths: readonly string[], io: CliIO, options: { recursive?: boolean; verb: string }): Promise<ManifestRead> {
  const manifests: Manifest[] = [];
  const problems: string[] = [];
  let stdinRead = false;
  for (const path of paths) {
    if (path === '-') {
      if (stdinRead) continue;
      stdinRead = true;
      manifests.push(...parseManifests(await readStdin(io.stdin), '<stdin>', problems));
      continue;
    }
    let files: string[];
    try {
      files = await filesOf(path, options.recursive === true);
    } catch (err) {
      problems.push(fileProblem(path, err));
      continue;
    }
    for (const file of files) {
      let text: string;
      try {
        text = await readFile(file, 'utf8');
      } catch (err) {
        problems.push(fileProblem(file, err));
        continue;
      }
      manifests.push(...parseManifests(text, file, problems));
    }
  }
  if (manifests.length === 0 && problems.length === 0) problems.push(`no objects passed to ${options.verb}`);
  return { manifests, problems };
}

function fileProblem(path: string, err: unknown): string {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return `${path}: no such file or directory`;
  if (code === 'EACCES') return `${path}: permission denied`;
  return `${path}: ${(err as Error).message}`;
}
