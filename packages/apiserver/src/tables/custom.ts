/**
 * Printers for custom resources: NAME, then the CRD version's additionalPrinterColumns, each read
 * by a simple JSONPath — fields (`.spec.replicas`, `.metadata.annotations.example\.com/x`),
 * indices (`[0]`, `[*]`) and equality filters (`.status.conditions[?(@.type=="Ready")].status`).
 * A path that finds nothing prints as <none>; "date" columns print as ages, like kubectl's.
 */
import type { KubeObject } from '@setpoint/api';
import type { PrinterColumn } from '../registry/types.js';
import { column, nameColumn, str } from './columns.js';
import { timestampSince } from './duration.js';
import type { TableCell, TablePrinter } from './table.js';

type Step = { kind: 'field'; name: string } | { kind: 'index'; index: number } | { kind: 'all' } | { kind: 'filter'; path: string[]; value: unknown };

/** Parses the JSONPath subset; throws on anything else. */
export function parseJsonPath(path: string): Step[] {
  const steps: Step[] = [];
  let i = 0;
  const p = path.startsWith('{') && path.endsWith('}') ? path.slice(1, -1) : path;
  while (i < p.length) {
    const c = p[i];
    if (c === '.') {
      i++;
      let name = '';
      while (i < p.length && p[i] !== '.' && p[i] !== '[') {
        if (p[i] === '\\' && i + 1 < p.length) i++;
        name += p[i++];
      }
      if (name !== '') steps.push({ kind: 'field', name });
    } else if (c === '[') {
      const end = p.indexOf(']', i);
      if (end < 0) throw new Error(`unterminated [ in ${path}`);
      const inner = p.slice(i + 1, end);
      i = end + 1;
      if (inner === '*') steps.push({ kind: 'all' });
      else if (/^-?\d+$/.test(inner)) steps.push({ kind: 'index', index: Number(inner) });
      else {
        const m = /^\?\(@((?:\.[A-Za-z0-9_-]+)+)\s*==\s*(.+)\)$/.exec(inner);
        if (!m) throw new Error(`unsupported JSONPath element [${inner}] in ${path}`);
        const raw = m[2]!.trim();
        const value: unknown = /^["'].*["']$/.test(raw) ? raw.slice(1, -1) : JSON.parse(raw);
        steps.push({ kind: 'filter', path: m[1]!.slice(1).split('.'), value });
      }
    } else {
      throw new Error(`unexpected ${JSON.stringify(c)} in JSONPath ${path}`);
    }
  }
  return steps;
}

/** Every value the path finds in `obj`. */
export function evalJsonPath(steps: readonly Step[], obj: unknown): unknown[] {
  let current: unknown[] = [obj];
  for (const step of steps) {
    const next: unknown[] = [];
    for (const v of current) {
      if (step.kind === 'field') {
        if (v !== null && typeof v === 'object' && !Array.isArray(v) && (v as Record<string, unknown>)[step.name] !== undefined) next.push((v as Record<string, unknown>)[step.name]);
      } else if (Array.isArray(v)) {
        if (step.kind === 'all') next.push(...v);
        else if (step.kind === 'index') {
          const item = v[step.index < 0 ? v.length + step.index : step.index];
          if (item !== undefined) next.push(item);
        } else {
          for (const item of v) {
            let cur: unknown = item;
            for (const part of step.path) cur = cur !== null && typeof cur === 'object' ? (cur as Record<string, unknown>)[part] : undefined;
            if (cur === step.value) next.push(item);
          }
        }
      }
    }
    current = next;
  }
  return current;
}

function cellOf(values: unknown[], type: string, now: number): TableCell {
  if (values.length === 0) return null;
  if (type === 'date') return typeof values[0] === 'string' ? timestampSince(values[0], now) : null;
  if (values.length === 1) {
    const v = values[0];
    if (type === 'integer' && typeof v === 'number') return Math.trunc(v);
    if ((type === 'number' && typeof v === 'number') || (type === 'boolean' && typeof v === 'boolean')) return v;
    return typeof v === 'string' ? v : JSON.stringify(v);
  }
  return values.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))).join(',');
}

const printers = new WeakMap<readonly PrinterColumn[], TablePrinter>();

/** The printer of a CRD version's columns. */
export function customPrinter(columns: readonly PrinterColumn[]): TablePrinter {
  let printer = printers.get(columns);
  if (printer !== undefined) return printer;
  const paths = columns.map((c) => {
    try {
      return parseJsonPath(c.jsonPath);
    } catch {
      return undefined;
    }
  });
  printer = {
    columns: [nameColumn(), ...columns.map((c) => column(c.name, c.type, c.description ?? '', c.priority ?? 0, c.format ?? ''))],
    row: (obj: KubeObject, now: number) => ({
      cells: [str(obj.metadata.name), ...columns.map((c, i) => (paths[i] === undefined ? null : cellOf(evalJsonPath(paths[i]!, obj), c.type, now)))],
    }),
  };
  printers.set(columns, printer);
  return printer;
}
