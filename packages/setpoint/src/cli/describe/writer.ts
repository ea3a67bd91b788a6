/**
 * The text of `describe`, built as kubectl's describers build it: lines indented two spaces per
 * level, "Label:\tvalue" cells, aligned at the end (Go tabwriter, padding 2) — consecutive lines with
 * a tab line up their values; a line without one starts a new alignment block.
 */
import { alignColumns, DESCRIBE_LAYOUT } from '../tabwriter.js';

export class DescribeWriter {
  #text = '';

  /** Writes `cells` joined by tabs, at `level`, as one line. */
  line(level: number, ...cells: Array<string | number | boolean>): void {
    this.#text += '  '.repeat(level) + cells.map((c) => oneLine(String(c))).join('\t') + '\n';
  }

  /** "Label:\tvalue" at `level`. */
  field(level: number, label: string, value: string | number | boolean | undefined | null): void {
    this.line(level, `${label}:`, value === undefined || value === null || value === '' ? '<none>' : value);
  }

  /** A map as kubectl prints labels: `key=value`, one per line, `<none>` when empty. */
  labels(level: number, title: string, map: Readonly<Record<string, string>> | undefined, separator = '='): void {
    const keys = Object.keys(map ?? {}).sort();
    if (keys.length === 0) {
      this.line(level, `${title}:`, '<none>');
      return;
    }
    keys.forEach((key, i) => this.line(level, i === 0 ? `${title}:` : '', `${key}${separator}${map![key]}`));
  }

  /** Annotations as kubectl prints them: `key: value`. */
  annotations(level: number, map: Readonly<Record<string, string>> | undefined): void {
    this.labels(level, 'Annotations', map, ': ');
  }

  /** A table: a header row, a row of dashes (as long as each header, unless given), the rows. */
  table(level: number, headers: readonly string[], rows: ReadonlyArray<ReadonlyArray<string | number>>, dashes?: readonly string[]): void {
    this.line(level, ...headers);
    this.line(level, ...(dashes ?? headers.map((h) => '-'.repeat(h.length))));
    for (const row of rows) this.line(level, ...row.map(String));
  }

  /** The aligned text. */
  toString(): string {
    return alignColumns(this.#text, DESCRIBE_LAYOUT);
  }
}

/** A value on one line: tabs and line breaks would break the layout. */
function oneLine(text: string): string {
  return text.replace(/\t/g, ' ').replace(/\r?\n/g, '\\n');
}

/** `Mon, 02 Jan 2006 15:04:05 -0700` (RFC 1123 with a numeric zone, local time) as kubectl prints times; `<unset>` when absent. */
export function formatTime(timestamp: unknown): string {
  if (typeof timestamp !== 'string' || timestamp === '') return '<unset>';
  const at = new Date(timestamp);
  if (Number.isNaN(at.getTime())) return timestamp;
  const days = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
  const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
  const two = (n: number) => String(n).padStart(2, '0');
  const offset = -at.getTimezoneOffset();
  const zone = `${offset >= 0 ? '+' : '-'}${two(Math.trunc(Math.abs(offset) / 60))}${two(Math.abs(offset) % 60)}`;
  return `${days[at.getDay()]}, ${two(at.getDate())} ${months[at.getMonth()]} ${at.getFullYear()} ${two(at.getHours())}:${two(at.getMinutes())}:${two(at.getSeconds())} ${zone}`;
}

/** A record's field when it is an object. */
export function rec(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/** A field when it is an array of objects. */
export function recs(value: unknown): Array<Record<string, unknown>> {
  return Array.isArray(value) ? value.map(rec).filter((r): r is Record<string, unknown> => r !== undefined) : [];
}

/** A field as text ('' when absent). */
export function text(value: unknown): string {
  if (value === undefined || value === null) return '';
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

/** A string map field. */
export function stringMap(value: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(rec(value) ?? {})) out[k] = text(v);
  return out;
}
