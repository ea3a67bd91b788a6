/**
 * YAML for the editor: an object as the configuration a person applies (what the server sets
 * itself left out), and where a field the server names in an error (`.metadata.labels.app`,
 * `spec.containers[0].image`, `.spec.ports[containerPort=80,protocol="TCP"].name`) is in the text.
 */
import { LineCounter, isMap, isScalar, isSeq, parseDocument, stringify, type Node } from 'yaml';
import type { KubeObject } from './types.js';

/** Metadata fields a person writes; the rest (uid, resourceVersion, managedFields, …) the server keeps. */
const WRITABLE_METADATA = ['name', 'generateName', 'namespace', 'labels', 'annotations'] as const;

/** The object as an apply configuration: apiVersion, kind, the writable metadata, then the rest but status. */
export function applyConfiguration(obj: KubeObject): string {
  const { apiVersion, kind, metadata, status: _status, ...rest } = obj;
  const meta: Record<string, unknown> = {};
  for (const key of WRITABLE_METADATA) if (metadata[key] !== undefined) meta[key] = metadata[key];
  return stringify({ apiVersion, kind, metadata: meta, ...rest }, { lineWidth: 0, aliasDuplicateObjects: false });
}

/** A value as YAML text ('' for undefined). */
export function toYaml(value: unknown): string {
  if (value === undefined) return '';
  return stringify(value, { lineWidth: 0, aliasDuplicateObjects: false });
}

export interface YamlProblem {
  readonly message: string;
  /** 1-based. */
  readonly line: number;
}

/** The syntax errors of a YAML text (empty when it parses). */
export function yamlProblems(text: string): YamlProblem[] {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false });
  return doc.errors.map((e) => ({ message: e.message.split('\n')[0] ?? e.message, line: lines.linePos(e.pos[0]).line }));
}

/**
 * The 1-based line of `field` in `text`: of the deepest part of the path that exists (a field the
 * text lacks points at its parent), or undefined when nothing matches or the text does not parse.
 */
export function lineOfField(text: string, field: string): number | undefined {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, keepSourceTokens: false });
  if (doc.errors.length > 0 || doc.contents === null) return undefined;
  let rest = field.trim().replace(/^\./, '');
  let node: Node | null = doc.contents as Node;
  let at: number | undefined;
  while (rest !== '' && node !== null) {
    if (rest.startsWith('.')) rest = rest.slice(1);
    if (rest.startsWith('[')) {
      const close = closingBracket(rest);
      if (close < 0 || !isSeq(node)) break;
      const item = findItem(node.items as Node[], rest.slice(1, close));
      if (item === undefined) break;
      node = item;
      at = item.range?.[0];
      rest = rest.slice(close + 1);
      continue;
    }
    if (!isMap(node)) break;
    let best: { key: Node; value: Node | null; length: number } | undefined;
    for (const pair of node.items) {
      const key = pair.key as Node | null;
      const name = isScalar(key) ? String(key.value) : undefined;
      if (name === undefined || !rest.startsWith(name)) continue;
      const next = rest.charAt(name.length);
      if (next !== '' && next !== '.' && next !== '[') continue;
      if (best === undefined || name.length > best.length) best = { key: key!, value: pair.value as Node | null, length: name.length };
    }
    if (best === undefined) break;
    at = best.key.range?.[0];
    node = best.value;
    rest = rest.slice(best.length);
  }
  return at === undefined ? undefined : lines.linePos(at).line;
}

function closingBracket(text: string): number {
  let quoted = false;
  for (let i = 1; i < text.length; i++) {
    const c = text[i];
    if (c === '\\') i++;
    else if (c === '"') quoted = !quoted;
    else if (c === ']' && !quoted) return i;
  }
  return -1;
}

/** The list item a selector names: `3`, `name="x"`, `port=80,protocol="TCP"`, or `="value"` (sets). */
function findItem(items: readonly Node[], selector: string): Node | undefined {
  if (/^\d+$/.test(selector)) return items[Number(selector)];
  const wanted = splitTerms(selector).map((term) => {
    const eq = term.indexOf('=');
    return { key: term.slice(0, eq), value: parseValue(term.slice(eq + 1)) };
  });
  return items.find((item) => {
    if (wanted.length === 1 && wanted[0]!.key === '') return isScalar(item) && item.value === wanted[0]!.value;
    if (!isMap(item)) return false;
    const js = item.toJSON() as Record<string, unknown>;
    return wanted.every((w) => js[w.key] === w.value);
  });
}

function splitTerms(selector: string): string[] {
  const out: string[] = [];
  let quoted = false;
  let start = 0;
  for (let i = 0; i < selector.length; i++) {
    const c = selector[i];
    if (c === '\\') i++;
    else if (c === '"') quoted = !quoted;
    else if (c === ',' && !quoted) {
      out.push(selector.slice(start, i));
      start = i + 1;
    }
  }
  out.push(selector.slice(start));
  return out;
}

function parseValue(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
