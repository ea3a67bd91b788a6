/**
 * Small helpers shared by the benchmarks: latency recording, percentiles, a printed table, and the
 * JSON results file (bench/results/NAME.json).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Records durations (ms) and reports percentiles. */
export class Latencies {
  private readonly samples: number[] = [];
  add(ms: number): void {
    this.samples.push(ms);
  }
  get count(): number {
    return this.samples.length;
  }
  /** The p-th percentile (0–100) in ms; NaN without samples. */
  percentile(p: number): number {
    if (this.samples.length === 0) return NaN;
    const sorted = [...this.samples].sort((a, b) => a - b);
    const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
    return sorted[i]!;
  }
}

/** Milliseconds since an arbitrary origin, with sub-millisecond precision. */
export function nowMs(): number {
  return performance.now();
}

export type Row = Record<string, string | number>;

/** Prints rows as an aligned table. */
export function printTable(title: string, rows: Row[]): void {
  console.log(`\n${title}`);
  if (rows.length === 0) return;
  const cols = Object.keys(rows[0]!);
  const cell = (v: string | number | undefined) => (typeof v === 'number' ? formatNumber(v) : (v ?? ''));
  const widths = cols.map((c) => Math.max(c.length, ...rows.map((r) => cell(r[c]).length)));
  const line = (vals: string[]) => vals.map((v, i) => v.padStart(widths[i]!)).join('  ');
  console.log(line(cols));
  console.log(line(widths.map((w) => '-'.repeat(w))));
  for (const r of rows) console.log(line(cols.map((c) => cell(r[c]))));
}

function formatNumber(v: number): string {
  if (!Number.isFinite(v)) return String(v);
  if (Math.abs(v) >= 100) return Math.round(v).toLocaleString('en-US');
  if (Math.abs(v) >= 1) return v.toFixed(2);
  return v.toFixed(3);
}

/** Writes bench/results/NAME.json with the rows and the machine they were measured on. */
export function writeResults(name: string, data: Record<string, unknown>): string {
  const dir = join(dirname(fileURLToPath(import.meta.url)), 'results');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${name}.json`);
  const machine = { cpus: cpus().length, cpu: cpus()[0]?.model ?? 'unknown', memoryBytes: totalmem(), node: process.version };
  writeFileSync(file, JSON.stringify({ name, date: new Date().toISOString(), machine, ...data }, null, 2) + '\n');
  return file;
}

/** Whether the run is a smoke run (tiny sizes, only checks that the benchmark still works). */
export const smoke = process.argv.includes('--smoke') || process.env.BENCH_SMOKE === '1';
